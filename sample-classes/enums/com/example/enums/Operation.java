package com.example.enums;

/** An enum whose constants have bodies (constant-specific overrides of an abstract method). */
public enum Operation {
    PLUS("+") {
        @Override public int apply(int a, int b) { return a + b; }
    },
    MINUS("-") {
        @Override public int apply(int a, int b) { return a - b; }
    },
    TIMES("*") {
        @Override public int apply(int a, int b) { return a * b; }
        @Override public boolean commutative() { return true; }
    },
    POWER("^") {
        @Override public int apply(int a, int b) {
            int r = 1;
            for (int i = 0; i < b; i++) r *= a;
            return r;
        }
    };

    private final String symbol;

    Operation(String symbol) { this.symbol = symbol; }

    public abstract int apply(int a, int b);

    public boolean commutative() { return this == PLUS; }

    public String symbol() { return symbol; }
}
