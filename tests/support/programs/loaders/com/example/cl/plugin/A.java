package com.example.cl.plugin;

import java.util.function.IntUnaryOperator;

public class A implements IntUnaryOperator {
    @Override
    public int applyAsInt(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            B b = new B(); // the first time: resolving B, the JVM calls the loader
            s += b.go(i);
        }
        // Missing is not in the jar: HotSpot resolves a checkcast's class only for a non-null
        // reference, and the new is never executed, so the program runs
        Object o = n < 0 ? new Missing() : null;
        Missing m = (Missing) o;
        return s * C.factor + (m == null ? 0 : 1); // resolving C (and running its initialiser)
    }
}
