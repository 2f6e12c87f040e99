package com.example.uninstrumented;

import java.util.ArrayList;
import java.util.List;

/**
 * A class with virtual methods that subclasses in another package and jar
 * (com.example.plugin, which a test leaves uninstrumented) override in part.
 * Its own methods call the overridable ones, so control goes back and forth
 * between instrumented and uninstrumented code.
 */
public class Base {
    private final List<String> events = new ArrayList<>();
    protected final int id;

    public Base(int id) {
        this.id = id;
        onEvent("created " + id);
    }

    public String name() { return "base" + id; }

    protected int weight() { return 2; }

    public int score(int x) {
        int s = 0;
        for (int i = 0; i < x; i++) s += weight() * i;
        return s + id;
    }

    protected void onEvent(String what) { events.add(what); }

    /** A final template method calling three overridable methods. */
    public final String describe(int x) {
        onEvent("describe " + x);
        return name() + " weighs " + weight() + ", score(" + x + ")=" + score(x);
    }

    public final List<String> events() { return events; }

    public static int square(int x) { return x * x; }
}
