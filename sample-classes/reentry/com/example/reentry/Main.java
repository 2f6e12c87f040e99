package com.example.reentry;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntUnaryOperator;

/**
 * Recursive application methods entered again and again from the JDK (through their N2B
 * wrappers, constructor prologues and reflection), whose last call is the recursive one: the
 * context entered from the JDK then has itself as its newest child, which a lookup of the
 * callee's context must not mistake for the context already entered. Every case runs several
 * times, so each context is entered more than once.
 */
public class Main {
    /** toString recursing through a chain, called back by String.valueOf. */
    static final class Chain {
        final Chain next;
        final int value;

        Chain(int value, Chain next) {
            this.value = value;
            this.next = next;
        }

        @Override
        public String toString() {
            return next == null ? "end" + value : next.toString();
        }
    }

    /** hashCode and equals recursing through a left spine, called back by HashSet. */
    static final class Spine {
        final Spine left;
        final int value;

        Spine(int value, Spine left) {
            this.value = value;
            this.left = left;
        }

        @Override
        public int hashCode() {
            return left == null ? value : 31 * value + left.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Spine)) {
                return false;
            }
            Spine s = (Spine) o;
            if (s.value != value || (s.left == null) != (left == null)) {
                return false;
            }
            return left == null || left.equals(s.left);
        }
    }

    /** compareTo recursing along a word, called back by Collections.sort. */
    static final class Word implements Comparable<Word> {
        final char head;
        final Word rest;

        Word(String s) {
            head = s.charAt(0);
            rest = s.length() > 1 ? new Word(s.substring(1)) : null;
        }

        @Override
        public int compareTo(Word o) {
            if (head != o.head) {
                return head < o.head ? -1 : 1;
            }
            if (rest == null || o.rest == null) {
                return rest == null ? (o.rest == null ? 0 : -1) : 1;
            }
            return rest.compareTo(o.rest);
        }

        @Override
        public String toString() {
            return rest == null ? String.valueOf(head) : head + rest.toString();
        }
    }

    /** A constructor that constructs its own class last, called by reflection. */
    static final class Nest {
        final Nest inner;
        final int depth;

        public Nest(int depth) {
            this.depth = depth;
            this.inner = depth > 0 ? new Nest(depth - 1) : null;
        }

        int size() {
            return inner == null ? 1 : 1 + inner.size();
        }
    }

    /** A functional interface implemented by a recursive class, applied by IntUnaryOperator.andThen. */
    static final class Halve implements IntUnaryOperator {
        @Override
        public int applyAsInt(int n) {
            return n < 2 ? n : applyAsInt(n / 2);
        }
    }

    /** A static method recursing on itself, called by reflection. */
    public static int triangle(int n) {
        return n == 0 ? 0 : n + triangle(n - 1);
    }

    public static void main(String[] args) throws Exception {
        Chain chain = new Chain(1, new Chain(2, new Chain(3, null)));
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            sb.append(String.valueOf(chain)).append(' ');
        }
        System.out.println("chain: " + sb);

        Set<Spine> spines = new HashSet<>();
        for (int round = 0; round < 3; round++) {
            Spine s = null;
            for (int v = 1; v <= 4; v++) {
                s = new Spine(v, s);
                spines.add(s);
            }
        }
        System.out.println("spines: " + spines.size() + " " + spines.contains(new Spine(2, new Spine(1, null))));

        List<Word> words = new ArrayList<>();
        for (String w : new String[] {"banana", "band", "bandana", "ban", "apple", "applet", "bank"}) {
            words.add(new Word(w));
        }
        Collections.sort(words);
        System.out.println("words: " + words);

        Constructor<Nest> nest = Nest.class.getConstructor(int.class);
        int sizes = 0;
        for (int i = 0; i < 3; i++) {
            sizes += nest.newInstance(3).size();
        }
        System.out.println("nests: " + sizes);

        Method triangle = Main.class.getMethod("triangle", int.class);
        int sum = 0;
        for (int i = 0; i < 3; i++) {
            sum += (Integer) triangle.invoke(null, 4);
        }
        System.out.println("triangles: " + sum);

        IntUnaryOperator twice = new Halve().andThen(new Halve());
        int halves = 0;
        for (int i = 0; i < 3; i++) {
            halves += twice.applyAsInt(100 + i);
        }
        System.out.println("halves: " + halves);
    }
}
