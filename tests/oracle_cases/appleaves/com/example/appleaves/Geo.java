package com.example.appleaves;

/** Static leaves with branches, a switch, a loop and arithmetic that may throw. */
public class Geo {
    static final int LIMIT = clamp(1234, 0, 1000);   // a leaf called from a static initialiser

    static int clamp(int v, int lo, int hi) {
        return v < lo ? lo : v > hi ? hi : v;
    }

    static int kind(int v) {
        switch (v & 3) {
            case 0:
                return 10;
            case 1:
                return 11;
            default:
                return v % 7 == 0 ? 12 : 13;
        }
    }

    static long sum(int[] a) {
        long s = 0;
        for (int v : a) {
            s += v;
        }
        return s;
    }

    static int div(int a, int b) {
        return a / b;
    }

    /** Not a leaf (it calls): reached through its slot twin only if a caller thought otherwise. */
    static int notLeaf(int v) {
        return clamp(v, 0, 3) + kind(v);
    }
}
