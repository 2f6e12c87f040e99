package com.example.exceptions;

/** A checked application exception carrying the depth it was thrown at. */
public class AppException extends Exception {
    private final int depth;

    public AppException(String message, int depth) {
        super(message);
        this.depth = depth;
    }

    public int depth() { return depth; }
}
