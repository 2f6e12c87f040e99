package com.example.exceptions;

import java.util.List;

/** An AutoCloseable whose close() is called by try-with-resources (and may itself throw). */
public class Resource implements AutoCloseable {
    private final String name;
    private final List<String> log;
    private final boolean failOnClose;

    public Resource(String name, List<String> log, boolean failOnClose) {
        this.name = name;
        this.log = log;
        this.failOnClose = failOnClose;
        log.add("open " + name);
    }

    public int use(int x) {
        if (x < 0) throw new IllegalArgumentException("negative " + x);
        log.add("use " + name + " " + x);
        return x * 2;
    }

    @Override
    public void close() {
        log.add("close " + name);
        if (failOnClose) throw new IllegalStateException("close failed: " + name);
    }
}
