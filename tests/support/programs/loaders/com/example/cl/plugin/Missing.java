package com.example.cl.plugin;

/** Compiled, then left out of the jar (see test_jvm_upcalls.py). */
class Missing {
}
