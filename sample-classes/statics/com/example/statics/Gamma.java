package com.example.statics;

/** A static initialiser with a loop and a method call; and a superclass/subclass initialisation pair. */
public class Gamma {
    static final int[] TABLE = new int[10];

    static {
        for (int i = 0; i < TABLE.length; i++) TABLE[i] = square(i);
        Log.add("Gamma <clinit> table[9]=" + TABLE[9]);
    }

    static int square(int i) { return i * i; }

    static void init() { Log.add("Gamma.init"); }

    static class Parent {
        static { Log.add("Parent <clinit>"); }
        static int parentField = 5;
    }

    static class Child extends Parent {
        static { Log.add("Child <clinit>"); }
        static int childField = parentField + 1;
    }

    /** The holder idiom: Holder is initialised on first use of instance(). */
    static final class Lazy {
        private Lazy() { Log.add("Lazy constructed"); }
        private static final class Holder {
            static final Lazy INSTANCE = new Lazy();
            static { Log.add("Holder <clinit>"); }
        }
        static Lazy instance() { return Holder.INSTANCE; }
    }

    interface Constants {
        int PLAIN = 7;                                          // constant: no initialisation
        int COMPUTED = Gamma.square(12) + Log.EVENTS.size() * 0; // needs the interface's <clinit>
    }

    static class Impl implements Constants {
        static { Log.add("Impl <clinit>"); }
    }
}
