package com.example.foreign.app;

/** An application class that a class outside the application patterns extends. */
public class Base {
    public int value() { return 1; }
    public int twice() { return 2 * value(); }
}
