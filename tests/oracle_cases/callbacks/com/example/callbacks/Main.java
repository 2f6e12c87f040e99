package com.example.callbacks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/** Callbacks from JDK code into application code, and calls that only look like callbacks. */
public class Main {
    static int compares;

    static final class ByLength implements Comparator<String> {
        @Override
        public int compare(String a, String b) {
            compares++;
            return a.length() - b.length();
        }
    }

    static final class Named {
        final String name;
        Named(String name) { this.name = name; }
        @Override
        public String toString() { return "Named(" + name + ")"; }
    }

    static final class Task implements Runnable {
        int runs;
        @Override
        public void run() { runs++; }
    }

    public static void main(String[] args) {
        List<String> words = new ArrayList<>(Arrays.asList("ccc", "a", "bb", "dddd"));
        Collections.sort(words, new ByLength());
        System.out.println(words + " " + compares);

        Object o = new Named("x");
        String direct = o.toString();           // invokevirtual Object.toString -> Named.toString: direct
        String viaJdk = String.valueOf(o);      // String.valueOf -> Named.toString: callback
        System.out.println(direct + " " + viaJdk);

        Task t = new Task();
        Runnable r = t;
        r.run();                                // invokeinterface Runnable.run -> Task.run: direct
        new Thread(t).run();                    // Thread.run -> Task.run: callback with the same name
        System.out.println(t.runs);
    }
}
