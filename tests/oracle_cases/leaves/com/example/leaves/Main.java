package com.example.leaves;

import java.util.Arrays;

/**
 * Calls of JDK methods that cannot run application code (leaf calls), which rewritten code counts
 * in its context's slots instead of entering: in loops, several callees in one method, one callee
 * from several sites, in a constructor and a static initialiser, in a lambda the JDK calls back, in
 * recursion, in threads that end before the program does, and beside calls that are entered.
 */
public class Main {
    static final int BASE = Math.max(3, Integer.parseInt("4"));
    final int width;

    Main(int w) {
        width = Math.abs(w) + Math.min(w, 2);
    }

    static float mix(float[] a) {
        float s = 0;
        for (int i = 0; i < a.length; i++) {
            s += Math.abs(a[i]) + Float.intBitsToFloat(Float.floatToRawIntBits(a[i]) & 0x7fffffff);
            if (Float.isNaN(s)) {
                s = 0;
            }
        }
        return s + Math.abs(a[0]);   // the same callee from a second site: one slot
    }

    static int letters(String t) {
        int c = 0;
        for (int i = 0; i < t.length(); i++) {
            c += Character.isLetter(t.charAt(i)) ? 1 : 0;
        }
        return c;
    }

    static long down(int n) {
        return n <= 0 ? Long.numberOfTrailingZeros(8) : down(n - 1) + Math.max(n, 1);
    }

    static long[] workers() throws InterruptedException {
        Thread[] ts = new Thread[2];
        long[] out = new long[2];
        for (int t = 0; t < ts.length; t++) {
            final int id = t;
            ts[t] = new Thread(() -> out[id] = down(20 + id) + letters("leaf " + id), "worker");   // (one name: the second is folded into the first's tree)
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        float[] a = new float[32];
        for (int i = 0; i < a.length; i++) {
            a[i] = i - 16.5f;
        }
        float s = 0;
        for (int k = 0; k < 5; k++) {
            s += mix(a);
        }
        Integer[] boxes = {5, 3, 9, 1};
        Arrays.sort(boxes, (x, y) -> Integer.compare(Math.abs(x), Math.abs(y)));
        long[] out = workers();
        for (int i = 0; i < 3; i++) {   // the ended threads collected, so that their trees are folded
            System.gc();
            Thread.sleep(100);
        }
        StringBuilder b = new StringBuilder();
        b.append(new Main(-7).width).append(' ').append(BASE);
        System.out.println(s + " " + Arrays.toString(boxes) + " " + out[0] + " " + out[1] + " " + b
                + " " + letters("hello, world") + " " + Math.sqrt(2));
    }
}
