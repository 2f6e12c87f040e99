package com.example.callbacks;

/** An application key: equals/hashCode/toString/compareTo are called back by the JDK. */
public final class Point implements Comparable<Point> {
    static int equalsCalls;
    static int hashCodeCalls;

    final int x;
    final int y;

    Point(int x, int y) {
        this.x = x;
        this.y = y;
    }

    @Override
    public boolean equals(Object o) {
        equalsCalls++;
        if (this == o) return true;
        if (!(o instanceof Point)) return false;
        Point p = (Point) o;
        return x == p.x && y == p.y;
    }

    @Override
    public int hashCode() {
        hashCodeCalls++;
        return 31 * x + y; // deterministic (never the identity hash)
    }

    @Override
    public String toString() { return "(" + x + "," + y + ")"; }

    @Override
    public int compareTo(Point o) {
        return x != o.x ? Integer.compare(x, o.x) : Integer.compare(y, o.y);
    }
}
