package com.example.plugin;

import com.example.uninstrumented.Base;

/** Overrides nothing: every call on it runs Base's (instrumented) code. */
public class Plain extends Base {
    public Plain(int id) {
        super(id);
    }
}
