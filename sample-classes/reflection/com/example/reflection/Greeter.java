package com.example.reflection;

/** The application interface a java.lang.reflect.Proxy implements. */
public interface Greeter {
    String greet(String name);

    int add(int a, int b);

    default String greetTwice(String name) {
        return greet(name) + " / " + greet(name);
    }
}
