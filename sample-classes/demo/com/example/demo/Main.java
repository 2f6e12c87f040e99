package com.example.demo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * The bundled example: a small program with the shapes a profiler must get right
 * (recursion, loops, an exception across frames, a comparator called back by the JDK,
 * a lambda, an inner class, an enum and a switch). Its output is deterministic.
 */
public class Main {
    enum Shape { CIRCLE, SQUARE, TRIANGLE }

    static final class Point {
        final int x, y;
        Point(int x, int y) { this.x = x; this.y = y; }
        int norm1() { return Math.abs(x) + Math.abs(y); }
        @Override public String toString() { return "(" + x + "," + y + ")"; }
    }

    /** JP paper, Fig. 4: f calls g and h ten times each; g(i) calls h i times. */
    static int h(int i) { return i + 1; }

    static int g(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) s += h(i);
        return s;
    }

    static int f() {
        int s = 0;
        for (int i = 1; i <= 10; i++) {
            s += g(i);
            s += h(i);
        }
        return s;
    }

    static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

    static int sides(Shape s) {
        switch (s) {
            case CIRCLE: return 0;
            case SQUARE: return 4;
            default: return 3;
        }
    }

    static int parseOrMinusOne(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public static void main(String[] args) {
        System.out.println("f() = " + f());
        System.out.println("fib(20) = " + fib(20));
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < 20; i++) points.add(new Point((i * 7) % 11 - 5, (i * 5) % 13 - 6));
        points.sort(Comparator.comparingInt(Point::norm1).thenComparingInt(p -> p.x));
        System.out.println("closest = " + points.get(0) + ", farthest = " + points.get(points.size() - 1));
        IntUnaryOperator square = x -> x * x;
        int sum = 0;
        for (Shape s : Shape.values()) sum += square.applyAsInt(sides(s));
        System.out.println("sum of squared sides = " + sum);
        System.out.println("parse: " + parseOrMinusOne("42") + " " + parseOrMinusOne("forty-two"));
    }
}
