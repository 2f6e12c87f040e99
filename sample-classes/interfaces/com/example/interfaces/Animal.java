package com.example.interfaces;

/** An abstract class with a template method, an abstract hook and a concrete overridable step. */
public abstract class Animal {
    private static int created;
    protected final String name;

    protected Animal(String name) {
        this.name = name;
        created++;
    }

    static int created() { return created; }

    protected abstract String sound();

    protected int legs() { return 4; }

    public final String introduce() {
        return name + " says " + sound() + " on " + legs() + " legs";
    }
}
