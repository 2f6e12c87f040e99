package com.example.bytecodes;

/** Tiny methods whose executed bytecodes are counted by hand in tests/test_oracle.py. */
public class Main {
    static int loop(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) s += i;
        return s;
    }

    static int table(int x) {
        switch (x) {
            case 0: return 10;
            case 1: return 11;
            case 2: return 12;
            default: return -1;
        }
    }

    static int lookup(int x) {
        switch (x) {
            case 100: return 1;
            case 2000: return 2;
            default: return 0;
        }
    }

    static int catchHere() {
        try {
            throw new IllegalStateException();
        } catch (IllegalStateException e) {
            return 1;
        }
    }

    static int thrower(int x) {
        if (x > 0) throw new IllegalArgumentException();
        return x;
    }

    static int catchCallee() {
        try {
            return thrower(1);
        } catch (IllegalArgumentException e) {
            return 2;
        }
    }

    static int catchJdk() {
        try {
            return Integer.parseInt("x");
        } catch (NumberFormatException e) {
            return 3;
        }
    }

    static int divide(int a, int b) {
        try {
            return a / b;
        } catch (ArithmeticException e) {
            return 4;
        }
    }

    public static void main(String[] args) {
        int s = loop(3);
        for (int i = 0; i < 4; i++) s += table(i);
        s += lookup(2000) + lookup(7);
        s += catchHere() + catchCallee() + catchJdk() + divide(1, 0);
        System.out.println(s);
    }
}
