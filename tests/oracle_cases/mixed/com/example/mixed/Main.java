package com.example.mixed;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/** Many code shapes at once: the oracle must follow them without warnings, and the block and
 *  per-instruction breakpoint modes must agree on them. */
public class Main {
    interface Shape {
        double area();
        default String describe() { return kind() + ":" + (int) area(); }
        String kind();
    }

    abstract static class Base implements Shape {
        int id;
        { id = 7; }                                        // instance initialiser
        public String kind() { return "base"; }
        int twice() { return 2 * id; }
    }

    static final class Square extends Base {
        final double side;
        Square(double side) { this.side = side; }
        public double area() { return side * side; }
        @Override public String kind() { return "square"; }
    }

    static final class Circle extends Base {
        final double r;
        Circle(double r) { this.r = r; }
        public double area() { return 3 * r * r; }
    }

    static class Broken {
        static final int VALUE = compute();
        static int compute() { throw new IllegalStateException("no"); }
    }

    static final Object LOCK = new Object();

    static int guarded(int x) {
        synchronized (LOCK) {
            if (x < 0) throw new IllegalArgumentException();
            return x + 1;
        }
    }

    static int withFinally(int x) {
        int r = 0;
        try {
            r = 10 / x;
        } finally {
            r += 1;
        }
        return r;
    }

    static String word(String s) {
        switch (s) {
            case "one": return "1";
            case "two": return "2";
            default: return "?";
        }
    }

    static int nested(int n) {
        try {
            try {
                if (n == 0) throw new ArithmeticException();
                return nested(n - 1) + 1;
            } catch (IllegalStateException e) {
                return -1;
            }
        } catch (ArithmeticException e) {
            if (n % 2 == 1) throw e;
            return 100;
        }
    }

    public static void main(String[] args) {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(new Square(2));
        shapes.add(new Circle(1));
        StringBuilder out = new StringBuilder();
        for (Shape s : shapes) out.append(s.describe()).append(' ');
        Base b = (Base) shapes.get(0);
        out.append(b.twice()).append(' ');
        int[] a = {3, 1, 2};
        int[] c = a.clone();
        int sum = 0;
        for (int v : c) sum += v;
        out.append(sum).append(' ');
        out.append(word("two")).append(word("zzz")).append(' ');
        int g = guarded(1);
        try {
            guarded(-1);
        } catch (IllegalArgumentException e) {
            g += 10;
        }
        out.append(g).append(' ');
        try {
            withFinally(0);
        } catch (ArithmeticException e) {
            out.append("div ");
        }
        out.append(withFinally(5)).append(' ');
        try {
            out.append(Broken.VALUE);
        } catch (ExceptionInInitializerError e) {
            out.append("eiie ");
        }
        IntUnaryOperator twice = x -> 2 * x;
        out.append(twice.applyAsInt(21)).append(' ');
        out.append(nested(4)).append(' ');
        try {
            nested(3);
        } catch (ArithmeticException e) {
            out.append("odd");
        }
        System.out.println(out);
    }
}
