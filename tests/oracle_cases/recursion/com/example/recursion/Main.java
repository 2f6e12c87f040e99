package com.example.recursion;

/** Deep recursion, and an exception caught by an outer activation of the same method. */
public class Main {
    static int down(int n) {
        if (n == 0) return 0;
        return 1 + down(n - 1);
    }

    static int rethrow(int n) {
        if (n == 0) throw new IllegalStateException();
        try {
            return rethrow(n - 1);
        } catch (IllegalStateException e) {
            if (n % 3 == 0) return n;
            throw e;
        }
    }

    public static void main(String[] args) {
        int depth = Integer.parseInt(args[0]);
        System.out.println(down(depth) + " " + rethrow(4));
    }
}
