package com.example.interfaces;

/** An interface with abstract, default (overridden and not), static and private methods. */
public interface Shape {
    double area();

    default String describe() {
        return name() + " with area " + format(area());
    }

    default String name() {
        return "shape";
    }

    static String format(double d) {
        return String.valueOf(Math.round(d * 100) / 100.0);
    }

    private String secret() {
        return "[" + name() + "]";
    }

    default String tagged() {
        return secret();
    }
}
