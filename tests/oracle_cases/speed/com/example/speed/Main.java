package com.example.speed;

/** Throughput of the oracle: a loop and many small calls. */
public class Main {
    static int inc(int x) { return x + 1; }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += i & 3;
            if ((i & 7) == 0) s = inc(s);
        }
        System.out.println(s);
    }
}
