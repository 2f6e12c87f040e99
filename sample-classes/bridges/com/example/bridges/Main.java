package com.example.bridges;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * Bridge methods and varargs. Bridges: a generic interface implemented with concrete types
 * (called through the interface, i.e. through the bridge, and directly), a generic abstract
 * class specialised by a subclass, covariant return types (overriding with a narrower
 * return type, called through the base type), Comparable<T> whose bridge compareTo(Object)
 * the JDK calls while sorting, and a generic method in a class hierarchy. Varargs: app
 * varargs methods called with zero, one, many arguments and an explicit array, primitive
 * and generic varargs, overloads competing with varargs, and JDK varargs (String.format,
 * Arrays.asList, List.of) fed from app code.
 */
public class Main {
    // ------------------------------------------------------------ bridges
    static final class Length implements Transformer<String, Integer> {
        @Override
        public Integer transform(String input) { return input.length(); }
    }

    static final class Doubler implements Transformer<Integer, Integer>, Function<Integer, Integer> {
        @Override
        public Integer transform(Integer input) { return input * 2; }

        @Override
        public Integer apply(Integer x) { return transform(x) + 1; }
    }

    abstract static class Container<T> {
        abstract T get();
        abstract void put(T value);
        String show() { return "[" + get() + "]"; }
    }

    static final class IntBox extends Container<Integer> {
        private Integer value = 0;
        @Override Integer get() { return value; }
        @Override void put(Integer v) { value = v; }
    }

    static class Animal {
        Animal reproduce() { return new Animal(); }
        String kind() { return "animal"; }
    }

    static class Cat extends Animal {
        @Override Cat reproduce() { return new Cat(); } // covariant return: bridge Animal reproduce()
        @Override String kind() { return "cat"; }
        String meow() { return "meow"; }
    }

    static final class Version implements Comparable<Version> {
        final int major, minor;
        static int compares;
        Version(int major, int minor) { this.major = major; this.minor = minor; }

        @Override
        public int compareTo(Version o) { // bridge compareTo(Object) is what Collections.sort calls
            compares++;
            return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
        }

        @Override public String toString() { return major + "." + minor; }
    }

    static <A, B> List<B> mapAll(Transformer<? super A, ? extends B> t, List<A> in) {
        List<B> out = new ArrayList<>();
        for (A a : in) out.add(t.transform(a));
        return out;
    }

    // ------------------------------------------------------------ varargs
    static int sum(int... xs) {
        int s = 0;
        for (int x : xs) s += x;
        return s;
    }

    static String describe(String label, Object... parts) {
        return label + "(" + parts.length + "): " + Arrays.toString(parts);
    }

    static int count(Object... parts) { return parts.length; }

    static String which(int a) { return "fixed(int)"; }

    static String which(int... a) { return "varargs(" + a.length + ")"; }

    static String which(long a, long b) { return "fixed(long,long)"; }

    @SafeVarargs
    static <T> List<T> listOf(T... items) {
        List<T> l = new ArrayList<>();
        Collections.addAll(l, items);
        return l;
    }

    static double average(double first, double... rest) {
        double s = first;
        for (double d : rest) s += d;
        return s / (rest.length + 1);
    }

    public static void main(String[] args) {
        Transformer<String, Integer> len = new Length();
        Length direct = new Length();
        System.out.println("through interface (bridge): " + len.transform("bridge") + ", direct: " + direct.transform("abc"));
        System.out.println("mapAll: " + mapAll(len, List.of("a", "bb", "ccc")) + " " + mapAll(new Doubler(), List.of(1, 2, 3)));
        Function<Integer, Integer> f = new Doubler();
        System.out.println("Function.apply bridge: " + f.apply(20) + ", andThen: " + f.andThen(new Doubler()).apply(1));

        Container<Integer> box = new IntBox();
        box.put(41);
        box.put(box.get() + 1);
        System.out.println("generic container via bridges: " + box.show());

        Animal a = new Cat();
        Animal child = a.reproduce();
        Cat kitten = new Cat().reproduce();
        System.out.println("covariant: " + child.kind() + " " + kitten.meow() + " " + new Animal().reproduce().kind());

        List<Version> versions = new ArrayList<>();
        int[][] raw = {{1, 10}, {1, 2}, {0, 9}, {2, 0}, {1, 2}, {0, 10}};
        for (int[] v : raw) versions.add(new Version(v[0], v[1]));
        Collections.sort(versions);
        Comparable<Version> c = versions.get(0);
        System.out.println("sorted versions: " + versions + " (compareTo called: " + (Version.compares > 0) + "), "
                + "0.9 vs 1.2: " + c.compareTo(versions.get(2)));

        System.out.println("sum() = " + sum() + ", sum(5) = " + sum(5) + ", sum(1..5) = " + sum(1, 2, 3, 4, 5)
                + ", sum(array) = " + sum(new int[] {10, 20}));
        System.out.println(describe("none") + "; " + describe("mixed", 1, "two", 3.0, null) + "; "
                + describe("array", (Object[]) new String[] {"x", "y"}) + "; " + "nested: " + count((Object) new String[] {"x", "y"}) + " vs spread: " + count((Object[]) new String[] {"x", "y"}));
        System.out.println("overloads: " + which(1) + " " + which() + " " + which(1, 2) + " " + which(1, 2, 3));
        System.out.println("generic varargs: " + listOf("p", "q", "r") + " " + listOf(1) + " " + listOf().size());
        System.out.println("average: " + average(1) + " " + average(1, 2, 3, 4));
        System.out.println(String.format("JDK varargs: %d-%s-%.2f", 7, "eight", 9.0) + " " + Arrays.asList(3, 1, 2) + " " + List.of(4, 5));
    }
}
