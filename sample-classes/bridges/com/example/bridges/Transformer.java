package com.example.bridges;

/** A generic interface; implementing it with concrete types makes javac emit bridge methods. */
public interface Transformer<A, B> {
    B transform(A input);
}
