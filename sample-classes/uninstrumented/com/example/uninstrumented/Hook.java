package com.example.uninstrumented;

/** An interface the plugin implements; Main calls it, the plugin calls back into Base. */
public interface Hook {
    int apply(Base target, int x);

    default String label() { return "hook"; }
}
