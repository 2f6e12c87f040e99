package com.example.statics;

/**
 * Static initialisers: the order classes are initialised in (first active use: a static
 * call, a static field read, `new`, a subclass initialising its superclass first,
 * Class.forName), a static initialiser that triggers another class's initialiser which reads
 * the first class's not-yet-initialised field, initialisers with loops and method calls,
 * compile-time constants that do not initialise their class, an interface with a
 * non-constant field, the lazy holder idiom, and an initialiser that throws
 * (ExceptionInInitializerError, then NoClassDefFoundError on the next use).
 */
public class Main {
    static final String NAME = Main.class.getSimpleName(); // (not a constant: Main has a <clinit>)
    static int mainCounter = 3;

    static class Broken {
        static int value = fail();

        static int fail() {
            Log.add("Broken <clinit> throws");
            throw new IllegalStateException("broken on purpose");
        }
    }

    public static void main(String[] args) throws Exception {
        Log.add(NAME + " start, mainCounter=" + mainCounter);
        Log.add("Beta.BASE constant read: " + Beta.BASE);
        Alpha.touch();
        Log.add("Alpha.FROM_BETA=" + Alpha.FROM_BETA + " Beta.seen=" + Beta.seen);
        Log.add("Child.childField=" + Gamma.Child.childField);
        Log.add("Gamma.Lazy class loaded, no instance yet");
        Gamma.Lazy one = Gamma.Lazy.instance();
        Log.add("same instance: " + (one == Gamma.Lazy.instance()));
        Log.add("Constants.PLAIN=" + Gamma.Constants.PLAIN);
        new Gamma.Impl();
        Log.add("Impl created; Constants.COMPUTED=" + Gamma.Constants.COMPUTED);
        Class<?> c = Class.forName("com.example.statics.Late");
        Log.add("forName gave " + c.getSimpleName() + ", Late.X=" + Late.X);
        for (int attempt = 1; attempt <= 2; attempt++) {
            try {
                Log.add("Broken.value=" + Broken.value);
            } catch (ExceptionInInitializerError e) {
                Log.add("attempt " + attempt + ": ExceptionInInitializerError caused by " + e.getCause().getMessage());
            } catch (NoClassDefFoundError e) {
                Log.add("attempt " + attempt + ": NoClassDefFoundError");
            }
        }
        for (int i = 0; i < Log.EVENTS.size(); i++) System.out.println((i + 1) + ". " + Log.EVENTS.get(i));
    }
}

class Late {
    static int X;

    static {
        X = Gamma.TABLE[4] + 1;
        Log.add("Late <clinit> via Class.forName");
    }
}
