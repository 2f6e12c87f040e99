package com.example.statics;

/** Beta's initialiser calls back into Alpha while Alpha is being initialised (sees its defaults). */
public class Beta {
    static final int BASE = 10; // a compile-time constant: reading it does not initialise Beta
    static int seen;

    static {
        Log.add("Beta <clinit>, Alpha.after seen as " + Alpha.after);
        seen = Alpha.after;
        Gamma.init();
    }

    static int value() { return BASE * 2 + seen; }
}
