package com.example.exits;

/** Ways a program ends: System.exit deep in a call, an uncaught exception. */
public class Main {
    static void leave(int depth, int code) {
        if (depth == 0) {
            System.out.println("bye");
            System.exit(code);
        }
        leave(depth - 1, code);
    }

    static void fail(int depth) {
        if (depth == 0) throw new IllegalStateException("boom");
        fail(depth - 1);
    }

    public static void main(String[] args) {
        if (args[0].equals("exit")) leave(2, 3);
        else fail(2);
    }
}
