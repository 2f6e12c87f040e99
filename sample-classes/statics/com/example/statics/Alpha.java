package com.example.statics;

/** Initialising Alpha initialises Beta in the middle of Alpha's static initialiser. */
public class Alpha {
    static final int BEFORE;
    static final int FROM_BETA;
    static int after = compute("Alpha.after");

    static {
        Log.add("Alpha <clinit> start");
        BEFORE = 1;
        FROM_BETA = Beta.value() + BEFORE;
        Log.add("Alpha <clinit> end, FROM_BETA=" + FROM_BETA);
    }

    static int compute(String what) {
        Log.add("compute " + what);
        return what.length();
    }

    static void touch() { Log.add("Alpha.touch after=" + after); }
}
