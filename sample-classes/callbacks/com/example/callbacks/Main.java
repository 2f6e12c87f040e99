package com.example.callbacks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * Application overrides of JDK methods, called back by the JDK: toString through
 * String.valueOf, string concatenation (invokedynamic) and StringBuilder.append(Object);
 * equals/hashCode through HashMap/HashSet/List.contains/indexOf (results printed in sorted
 * order); an app Iterable/Iterator used by for-each, Iterable.forEach (a JDK default method),
 * String.join, StreamSupport and ArrayList's constructor path; an AbstractList subclass handed
 * to Collections.sort/max/reverse, new ArrayList(..), subList and equals; an app CharSequence
 * read by regex and StringBuilder; Runnable/Callable run by a Thread, a FutureTask and an
 * ExecutorService.
 */
public class Main {
    static final class Task implements Callable<Integer> {
        final int n;
        Task(int n) { this.n = n; }

        @Override
        public Integer call() {
            int s = 0;
            for (int i = 1; i <= n; i++) s += i * i;
            return s;
        }
    }

    static final class Worker implements Runnable {
        int result;

        @Override
        public void run() {
            for (int i = 0; i < 10; i++) result += i;
        }
    }

    public static void main(String[] args) throws Exception {
        // toString
        Point p = new Point(3, -4);
        System.out.println("valueOf: " + String.valueOf(p));
        StringBuilder sb = new StringBuilder("sb: ").append(p).append(' ').append(new Point(0, 1));
        System.out.println(sb);
        System.out.println("formatted: " + String.format("%s and %s", p, new Point(7, 7)));
        List<Point> pts = new ArrayList<>();
        for (int i = 0; i < 6; i++) pts.add(new Point(i % 3, i / 3));
        System.out.println("list toString: " + pts);

        // equals / hashCode
        Point.equalsCalls = 0;
        Point.hashCodeCalls = 0;
        Map<Point, String> names = new HashMap<>();
        for (Point q : pts) names.put(q, "p" + q.x + q.y);
        names.put(new Point(1, 1), "again");
        System.out.println("map size " + names.size() + ", get(1,1) = " + names.get(new Point(1, 1)) + ", contains (2,0): " + names.containsKey(new Point(2, 0)));
        System.out.println("map in key order: " + new TreeMap<>(names));
        Set<Point> set = new HashSet<>(pts);
        set.add(new Point(0, 0));
        set.remove(new Point(2, 1));
        List<Point> sortedSet = new ArrayList<>(set);
        Collections.sort(sortedSet);
        System.out.println("set sorted: " + sortedSet);
        System.out.println("indexOf (1,1): " + pts.indexOf(new Point(1, 1)) + ", contains (5,5): " + pts.contains(new Point(5, 5)));
        System.out.println("equals called: " + (Point.equalsCalls > 0) + ", hashCode called: " + (Point.hashCodeCalls > 0));

        // Iterable / Iterator
        Range range = new Range(0, 20, 3);
        int total = 0;
        for (int v : range) total += v;
        System.out.println("for-each total: " + total);
        List<Integer> collected = new ArrayList<>();
        range.forEach(collected::add);
        System.out.println("Iterable.forEach: " + collected);
        List<String> strs = new ArrayList<>();
        for (int v : new Range(1, 5, 1)) strs.add("n" + v);
        Iterable<String> names2 = strs;
        System.out.println("String.join over app iterable: " + String.join("-", names2));
        System.out.println("stream over app spliterator: " + StreamSupport.stream(range.spliterator(), false).map(v -> v * 10).collect(Collectors.toList()));

        // AbstractList subclass
        Squares squares = new Squares(8);
        System.out.println("squares: " + squares + " max " + Collections.max(squares));
        Collections.sort(squares);
        System.out.println("sorted in place: " + squares);
        Collections.reverse(squares);
        System.out.println("reversed: " + squares + ", subList(2,5) " + squares.subList(2, 5));
        List<Integer> copy = new ArrayList<>(squares);
        System.out.println("copy equals: " + copy.equals(squares) + ", contains 49: " + squares.contains(49) + ", hashCode " + squares.hashCode());
        System.out.println("get called: " + (squares.getCalls > 0));

        // CharSequence
        Letters letters = new Letters(3, 10);
        System.out.println("letters: " + letters + ", contentEquals: " + "defghijklm".contentEquals(letters));
        Matcher m = Pattern.compile("[aeiou]").matcher(letters);
        StringBuilder vowels = new StringBuilder();
        while (m.find()) vowels.append(m.group()).append('@').append(m.start()).append(' ');
        System.out.println("vowels in letters: " + vowels.toString().trim());

        // Runnable / Callable run by the JDK
        Worker w = new Worker();
        Thread t = new Thread(w, "worker");
        t.start();
        t.join();
        System.out.println("thread ran Runnable: " + w.result);
        FutureTask<Integer> ft = new FutureTask<>(new Task(10));
        ft.run();
        System.out.println("FutureTask: " + ft.get());
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> f = ex.submit(new Task(20));
            Future<?> g = ex.submit(new Worker());
            System.out.println("executor: " + f.get() + ", runnable done: " + (g.get() == null));
        } finally {
            ex.shutdown();
        }
    }
}
