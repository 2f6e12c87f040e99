package com.example.interfaces;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Interfaces with default methods (inherited, overridden, calling a private interface method,
 * a static interface method), the diamond resolved with explicit I.super.m() calls, an
 * abstract class with a template method, and every kind of nested class: inner (using the
 * outer instance and its private fields, created with outer.new), static nested, anonymous
 * (subclassing an abstract class and implementing an interface, capturing locals), local
 * classes (capturing effectively final locals), and an inner class of an inner class.
 */
public class Main {
    private int counter = 100;
    private final String label;

    Main(String label) { this.label = label; }

    // ------------------------------------------------------------ shapes
    static final class Circle implements Shape {
        final double r;
        Circle(double r) { this.r = r; }
        @Override public double area() { return Math.PI * r * r; }
        @Override public String name() { return "circle"; }
    }

    static final class Rect implements Shape {
        final double w, h;
        Rect(double w, double h) { this.w = w; this.h = h; }
        @Override public double area() { return w * h; }
        @Override public String describe() { return "rect " + w + "x" + h + " (" + Shape.super.describe() + ")"; }
    }

    // ------------------------------------------------------------ animals
    static class Dog extends Animal {
        Dog(String name) { super(name); }
        @Override protected String sound() { return "woof"; }
    }

    static class Bird extends Animal {
        Bird(String name) { super(name); }
        @Override protected String sound() { return "tweet"; }
        @Override protected int legs() { return 2; }
    }

    // ------------------------------------------------------------ inner classes
    class Counter {
        private final int step;
        Counter(int step) { this.step = step; }

        int next() {
            counter += step; // the outer instance's private field
            return counter;
        }

        class Reporter {
            String report() { return label + ":" + counter + " step " + step; }
        }
    }

    static class Nested {
        private static int instances;
        final int id;
        Nested() { id = ++instances; }
    }

    IntSupplier makeSupplier(int base) {
        int local = base * 2;
        class Local implements IntSupplier {
            private int calls;
            @Override
            public int getAsInt() {
                calls++;
                return local + calls + counter;
            }
        }
        return new Local();
    }

    public static void main(String[] args) {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(new Circle(1.5));
        shapes.add(new Rect(2, 3.5));
        shapes.add(new Shape() {
            @Override public double area() { return 42; }
        });
        for (Shape s : shapes) System.out.println(s.describe() + " " + s.tagged());

        Diamond.Both both = new Diamond.Both();
        System.out.println("diamond: " + both.hello() + ", " + both.onlyTop());
        System.out.println("only left: " + new Diamond.OnlyLeft().hello());
        Diamond.Right r = new Diamond.Right() { };
        System.out.println("anonymous right: " + r.hello());

        final String suffix = "!";
        List<Animal> animals = new ArrayList<>();
        animals.add(new Dog("Rex"));
        animals.add(new Bird("Tweety"));
        animals.add(new Animal("Snake") {
            @Override protected String sound() { return "hiss" + suffix; }
            @Override protected int legs() { return 0; }
        });
        for (Animal a : animals) System.out.println(a.introduce());
        System.out.println("animals created: " + Animal.created());

        Main outer = new Main("outer");
        Main.Counter c1 = outer.new Counter(5);
        Main.Counter c2 = outer.new Counter(7);
        c1.next();
        c2.next();
        c1.next();
        Main.Counter.Reporter rep = c2.new Reporter();
        System.out.println("inner: " + rep.report());

        Nested n1 = new Nested(), n2 = new Nested(), n3 = new Nested();
        System.out.println("nested ids: " + n1.id + n2.id + n3.id);

        IntSupplier sup = outer.makeSupplier(10);
        System.out.println("local class: " + sup.getAsInt() + " " + sup.getAsInt());
        class Pair {
            final Object a, b;
            Pair(Object a, Object b) { this.a = a; this.b = b; }
            @Override public String toString() { return "<" + a + "|" + b + ">"; }
        }
        System.out.println("local in main: " + new Pair(new Pair(1, "x"), suffix));
        Runnable anon = new Runnable() {
            int runs;
            @Override public void run() {
                runs++;
                System.out.println("anonymous runnable run " + runs + " sees counter " + outer.counter);
            }
        };
        anon.run();
        anon.run();
    }
}
