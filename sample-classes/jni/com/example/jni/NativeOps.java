package com.example.jni;

/**
 * An application class with native methods implemented in native/jni_sample.c
 * (library "jnisample", built by build.sh; run with -Djava.library.path=<its directory>).
 */
public class NativeOps {
    static {
        System.loadLibrary("jnisample");
    }

    private final int factor;
    private int callbacks;

    public NativeOps(int factor) {
        this.factor = factor;
    }

    /** Plain: no calls back into Java. */
    public static native int add(int a, int b);

    /** Plain, on arrays: sums a Java int[] in C. */
    public static native long sum(int[] values);

    /** Calls back {@link #onValue(int)} (a Java instance method of this class) for i = 1..n. */
    public native long sumWithCallback(int n);

    /** Calls back {@link #check(int)}, which throws for negative values; the exception propagates through C. */
    public native int checked(int x);

    /** Called from C through JNI (CallLongMethod). */
    private long onValue(int i) {
        callbacks++;
        return (long) i * i * factor;
    }

    /** Called from C through JNI (CallIntMethod); may throw. */
    private int check(int x) {
        callbacks++;
        if (x < 0) throw new IllegalArgumentException("negative: " + x);
        return x * factor;
    }

    public int callbacks() { return callbacks; }
}
