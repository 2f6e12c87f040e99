package com.example.statics;

import java.util.ArrayList;
import java.util.List;

/** The initialisation log every other class appends to (itself initialised first, by Main). */
public final class Log {
    static final List<String> EVENTS = new ArrayList<>();

    private Log() {}

    static void add(String event) { EVENTS.add(event); }
}
