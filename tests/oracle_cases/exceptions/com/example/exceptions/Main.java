package com.example.exceptions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** Exceptions thrown by JDK methods, through JDK methods, and by invoke instructions themselves. */
public class Main {
    static final class Box {
        int get() { return 1; }
    }

    static int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static int sortThrowing() {
        List<String> l = new ArrayList<>(Arrays.asList("b", "a"));
        try {
            Collections.sort(l, (a, b) -> { throw new IllegalStateException(a + b); });
            return 0;
        } catch (IllegalStateException e) {
            return e.getMessage().length();
        }
    }

    static int nullApp(Box b) {
        try {
            return b.get();                     // null receiver: no call happens
        } catch (NullPointerException e) {
            return -2;
        }
    }

    static int nullJdk(String s) {
        try {
            return s.length();                  // null receiver of a JDK method
        } catch (NullPointerException e) {
            return -3;
        }
    }

    public static void main(String[] args) {
        int s = parse("12") + parse("zz");
        s += sortThrowing();
        s += nullApp(null) + nullApp(new Box());
        s += nullJdk(null) + nullJdk("abc");
        System.out.println(s);
    }
}
