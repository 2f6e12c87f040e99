package com.example.clinit;

/** Static initialisers run by getstatic, new, invokestatic (declaring class) and via the JDK. */
public class Main {
    static class Config {
        static int value;
        static { value = compute(); }
        static int compute() { return 42; }
    }

    static class Made {
        static int made;
        static { made = 1; }
        Made() { made++; }
    }

    static class Base {
        static int base;
        static { base = 7; }
        static int helper() { return base; }
    }

    static class Sub extends Base {
        static { base = 100; }                  // not run by Sub.helper(): Base declares helper
    }

    static class Lazy {
        static int lazy;
        static { lazy = 3; }
    }

    public static void main(String[] args) throws Exception {
        int s = Config.value;
        new Made();
        s += Sub.helper();
        Class.forName("com.example.clinit.Main$Lazy");
        s += Lazy.lazy;
        System.out.println(s);
    }
}
