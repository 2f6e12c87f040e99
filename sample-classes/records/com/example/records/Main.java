package com.example.records;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Records: generated equals/hashCode/toString (invokedynamic ObjectMethods bootstraps), a
 * compact canonical constructor validating and normalising its arguments, an explicit
 * non-canonical constructor delegating to the canonical one, static factories and fields, a
 * record overriding an accessor and toString, records implementing Comparable and an
 * interface, nested and generic records, a local record, records as HashMap/HashSet keys
 * (printed in sorted order) and a record pattern-free instanceof.
 */
public class Main {
    interface HasArea { double area(); }

    record Point(int x, int y) implements Comparable<Point> {
        static final Point ORIGIN = new Point(0, 0);
        static int created;

        Point {
            created++;
        }

        Point(int both) { this(both, both); }

        static Point of(String s) {
            String[] parts = s.split(",");
            return new Point(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        }

        int manhattan() { return Math.abs(x) + Math.abs(y); }

        @Override
        public int compareTo(Point o) {
            return Comparator.comparingInt(Point::x).thenComparingInt(Point::y).compare(this, o);
        }
    }

    record Range(int lo, int hi) {
        Range {
            if (lo > hi) {
                int t = lo;
                lo = hi;
                hi = t;
            }
        }

        int length() { return hi - lo; }
    }

    record Rect(Point corner, int w, int h) implements HasArea {
        Rect {
            Objects.requireNonNull(corner);
            if (w < 0 || h < 0) throw new IllegalArgumentException("negative size " + w + "x" + h);
        }

        @Override
        public double area() { return (double) w * h; }
    }

    record Named<T>(String name, T value) {
        @Override
        public String name() { return name.toUpperCase(); } // overridden accessor

        @Override
        public String toString() { return name() + "=" + value; }
    }

    record Empty() { }

    record Mixed(byte b, short s, char c, long l, float f, double d, boolean z, int[] arr, String str) { }

    public static void main(String[] args) {
        Point a = new Point(3, 4), b = new Point(3, 4), c = new Point(5);
        System.out.println("a = " + a + ", c = " + c + ", origin = " + Point.ORIGIN);
        System.out.println("a.equals(b) " + a.equals(b) + ", a.equals(c) " + a.equals(c) + ", a == b " + (a == b)
                + ", hash equal " + (a.hashCode() == b.hashCode()));
        System.out.println("a.hashCode() = " + a.hashCode() + ", of(\" 7, -2\") = " + Point.of(" 7, -2") + " manhattan " + Point.of("7,-2").manhattan());

        Range r = new Range(9, 2);
        System.out.println("compact ctor normalised: " + r + " length " + r.length() + ", equals " + r.equals(new Range(2, 9)));
        try {
            new Rect(a, -1, 2);
        } catch (IllegalArgumentException e) {
            System.out.println("rejected: " + e.getMessage());
        }
        try {
            new Rect(null, 1, 2);
        } catch (NullPointerException e) {
            System.out.println("rejected null corner: NullPointerException");
        }
        Rect rect = new Rect(c, 3, 7);
        HasArea h = rect;
        System.out.println(rect + " area " + h.area() + ", hashCode equal to copy " + (rect.hashCode() == new Rect(new Point(5, 5), 3, 7).hashCode()));

        Named<Integer> n = new Named<>("answer", 42);
        Named<List<String>> n2 = new Named<>("list", List.of("x", "y"));
        System.out.println(n + " " + n2 + " name() " + n.name() + " equals " + n.equals(new Named<>("answer", 42)));
        System.out.println("empty: " + new Empty() + " equals " + new Empty().equals(new Empty()) + " hash " + new Empty().hashCode());
        Mixed m = new Mixed((byte) 1, (short) 2, 'c', 4L, 5.5f, 6.25, true, null, "s");
        Mixed m2 = new Mixed((byte) 1, (short) 2, 'c', 4L, 5.5f, 6.25, true, null, "s");
        System.out.println(m + " equals " + m.equals(m2) + " hash " + m.hashCode());

        Map<Point, String> map = new HashMap<>();
        Set<Point> set = new HashSet<>();
        for (int i = 0; i < 8; i++) {
            Point p = new Point(i % 3, i % 2);
            map.merge(p, "#" + i, String::concat);
            set.add(p);
        }
        System.out.println("map (sorted): " + new TreeMap<>(map));
        List<Point> sorted = new ArrayList<>(set);
        sorted.sort(null);
        System.out.println("set (sorted): " + sorted + ", contains (2,1) " + set.contains(new Point(2, 1)));

        record Score(String who, int points) { }
        List<Score> scores = new ArrayList<>(List.of(new Score("ann", 7), new Score("bob", 9), new Score("cy", 7)));
        scores.sort(Comparator.comparingInt(Score::points).reversed().thenComparing(Score::who));
        System.out.println("local record: " + scores);
        Object o = scores.get(0);
        if (o instanceof Score s && s.points() > 8) System.out.println("top scorer " + s.who());
        System.out.println("points created: " + Point.created);
    }
}
