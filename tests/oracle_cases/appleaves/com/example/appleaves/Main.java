package com.example.appleaves;

import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Calls of application leaves (short statically bound methods that call nothing), which rewritten
 * code counts in two slots of the caller's context (calls, bytecodes): from loops, a constructor, a
 * static initialiser, a lambda the JDK calls back, private and final methods of the caller's own
 * class, across classes, leaves that throw, a null receiver, reflection, recursion around leaves,
 * and threads that end before the program does (their trees folded).
 */
public class Main {
    private int k;

    private int inc() {
        return ++k;
    }

    final int twice(int v) {
        return 2 * v + Geo.clamp(v, 0, 5);
    }

    static double walk(Vec a, Vec b, int n) {
        double d = 0;
        for (int i = 0; i < n; i++) {
            d += a.dot(b) + a.getX() + Geo.clamp(i, 3, 9) + Geo.kind(i);
            if ((i & 7) == 0) {
                b.setY(i);
            }
        }
        return d;
    }

    static long down(int n, Vec v) {
        return n <= 0 ? Geo.kind(n) : down(n - 1, v) + (long) v.getX() + Geo.clamp(n, 0, 4);
    }

    static long[] workers() throws InterruptedException {
        Thread[] ts = new Thread[2];
        long[] out = new long[2];
        for (int t = 0; t < ts.length; t++) {
            final int id = t;
            ts[t] = new Thread(() -> out[id] = down(10 + id, new Vec(id, id)) + Geo.sum(new int[] {id, 2}), "worker");
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        Vec a = new Vec(1, 2);
        Vec b = new Vec(3, 4);
        Main m = new Main();
        double d = walk(a, b, 200);
        for (int i = 0; i < 50; i++) {
            m.inc();
            d += m.twice(i);
        }
        StringBuilder out = new StringBuilder();
        out.append(d).append(' ').append(m.k).append(' ').append(Geo.LIMIT).append(' ').append(Vec.ORIGIN.getX());
        try {
            Geo.div(1, 0);
        } catch (ArithmeticException e) {
            out.append(" ae");
        }
        try {
            a.at(new int[] {1, 2}, 5);
        } catch (ArrayIndexOutOfBoundsException e) {
            out.append(" aioobe");
        }
        Vec none = args.length > 5 ? a : null;
        try {
            none.getX();   // the call never enters the leaf
        } catch (NullPointerException e) {
            out.append(" npe");
        }
        Integer[] boxes = {5, 3, 9, 1};
        Arrays.sort(boxes, (x, y) -> Integer.compare(Geo.clamp(x, 2, 6), Geo.clamp(y, 2, 6)));
        Method clamp = Geo.class.getDeclaredMethod("clamp", int.class, int.class, int.class);
        out.append(' ').append(clamp.invoke(null, 12, 0, 10)).append(' ').append(Arrays.toString(boxes));
        out.append(' ').append(Geo.notLeaf(6)).append(' ').append(Geo.sum(new int[] {4, 5, 6}));
        long[] w = workers();
        for (int i = 0; i < 3; i++) {   // the ended threads collected, so that their trees are folded
            System.gc();
            Thread.sleep(100);
        }
        System.out.println(out + " " + w[0] + " " + w[1]);
    }
}
