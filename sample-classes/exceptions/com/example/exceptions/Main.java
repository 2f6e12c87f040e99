package com.example.exceptions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Exceptions: an app exception thrown several frames deep and caught above, finally blocks
 * (normal exit, exceptional exit, return overridden in finally, nested), exceptions thrown by
 * JDK code and caught in the app (Integer.parseInt, array index, NPE, ArithmeticException,
 * ClassCastException, an iterator of a JDK list), an exception thrown by an app callback
 * called from the JDK (a Comparator inside List.sort, a Consumer inside forEach),
 * try-with-resources with suppressed exceptions, and rethrow/wrapping with causes.
 *
 * Only exception classes and messages computed from values are printed: never stack traces,
 * and never the JDK's "helpful" NullPointerException messages (they describe the bytecode).
 */
public class Main {
    static final List<String> trail = new ArrayList<>();

    // ------------------------------------------------------------ across frames
    static int level3(int x) throws AppException {
        trail.add("level3 " + x);
        if (x % 3 == 0) throw new AppException("multiple of three: " + x, 3);
        return x + 1;
    }

    static int level2(int x) throws AppException {
        try {
            return level3(x) * 2;
        } finally {
            trail.add("level2 finally " + x);
        }
    }

    static int level1(int x) throws AppException {
        int r = level2(x);
        trail.add("level1 got " + r);
        return r;
    }

    static String top(int x) {
        try {
            return "ok " + level1(x);
        } catch (AppException e) {
            return "caught '" + e.getMessage() + "' thrown at depth " + e.depth();
        } finally {
            trail.add("top finally " + x);
        }
    }

    // ------------------------------------------------------------ finally shapes
    @SuppressWarnings("finally")
    static int finallyOverridesReturn() {
        try {
            return 1;
        } finally {
            return 2;
        }
    }

    @SuppressWarnings("finally")
    static int finallySwallows() {
        try {
            throw new RuntimeException("lost");
        } finally {
            return -1;
        }
    }

    static int nestedFinally(int n) {
        int steps = 0;
        try {
            try {
                steps += 1;
                if (n > 0) throw new IllegalStateException("inner " + n);
                steps += 10;
            } finally {
                steps += 100;
            }
        } catch (IllegalStateException e) {
            steps += 1000;
        } finally {
            steps += 10000;
        }
        return steps;
    }

    static int loopWithFinally() {
        int s = 0;
        for (int i = 0; i < 6; i++) {
            try {
                if (i == 2) continue;
                if (i == 4) break;
                s += i;
            } finally {
                s += 100;
            }
        }
        return s;
    }

    // ------------------------------------------------------------ thrown by the JDK
    static String parse(String s) {
        try {
            return "parsed " + Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return "NumberFormatException: " + e.getMessage();
        }
    }

    static String index(int[] a, int i) {
        try {
            return "a[" + i + "] = " + a[i];
        } catch (ArrayIndexOutOfBoundsException e) {
            return "ArrayIndexOutOfBoundsException: " + e.getMessage();
        }
    }

    static int length(String s) {
        return s.length();
    }

    static String npe(String s) {
        try {
            return "length " + length(s);
        } catch (NullPointerException e) {
            return "NullPointerException caught"; // (message not printed: it names locals)
        }
    }

    static String divide(int a, int b) {
        try {
            return a + "/" + b + " = " + a / b;
        } catch (ArithmeticException e) {
            return "ArithmeticException: " + e.getMessage();
        }
    }

    static String cast(Object o) {
        try {
            String s = (String) o;
            return "string " + s;
        } catch (ClassCastException e) {
            return "ClassCastException for " + o.getClass().getSimpleName();
        }
    }

    static String exhaust() {
        List<Integer> l = List.of(1, 2);
        var it = l.iterator();
        int s = 0;
        try {
            while (true) s += it.next();
        } catch (java.util.NoSuchElementException e) {
            return "NoSuchElementException after sum " + s;
        }
    }

    static String unsupported() {
        try {
            List.of(1).add(2);
            return "added?";
        } catch (UnsupportedOperationException e) {
            return "UnsupportedOperationException from List.of";
        }
    }

    // ------------------------------------------------------------ thrown in a callback from the JDK
    static final class PickyComparator implements Comparator<String> {
        int calls;

        @Override
        public int compare(String a, String b) {
            calls++;
            if (a.equals("bad") || b.equals("bad")) throw new IllegalArgumentException("cannot compare bad");
            return a.compareTo(b);
        }
    }

    static String sortWithFailingComparator() {
        List<String> words = new ArrayList<>(Arrays.asList("pear", "apple", "bad", "fig"));
        PickyComparator c = new PickyComparator();
        try {
            words.sort(c);
            return "sorted " + words;
        } catch (IllegalArgumentException e) {
            return "sort aborted: " + e.getMessage() + " (comparator called at least once: " + (c.calls > 0) + ")";
        }
    }

    static String forEachThrows() {
        List<Integer> seen = new ArrayList<>();
        try {
            List.of(1, 2, 3, 4).forEach(i -> {
                if (i == 3) throw new IllegalStateException("stop at " + i);
                seen.add(i);
            });
            return "no exception";
        } catch (IllegalStateException e) {
            return e.getMessage() + ", seen " + seen;
        }
    }

    // ------------------------------------------------------------ try-with-resources, causes
    static String resources(boolean failUse, boolean failClose) {
        List<String> log = new ArrayList<>();
        try (Resource a = new Resource("a", log, false); Resource b = new Resource("b", log, failClose)) {
            a.use(1);
            b.use(failUse ? -1 : 2);
        } catch (RuntimeException e) {
            StringBuilder sb = new StringBuilder(e.getClass().getSimpleName() + ": " + e.getMessage());
            for (Throwable s : e.getSuppressed()) sb.append(" [suppressed ").append(s.getMessage()).append(']');
            log.add(sb.toString());
        }
        return String.join(", ", log);
    }

    static void wrapper(int x) {
        try {
            level1(x);
        } catch (AppException e) {
            throw new RuntimeException("wrapped", e);
        }
    }

    static String causes() {
        try {
            wrapper(6);
            return "no exception";
        } catch (RuntimeException e) {
            Throwable c = e.getCause();
            return e.getMessage() + " <- " + c.getClass().getSimpleName() + ": " + c.getMessage();
        }
    }

    static int rethrowCount(int n) {
        int caught = 0;
        for (int i = 0; i < n; i++) {
            try {
                try {
                    if (i % 2 == 0) throw new AppException("even " + i, 0);
                } catch (AppException e) {
                    caught++;
                    throw e;
                }
            } catch (AppException e) {
                caught += 10;
            }
        }
        return caught;
    }

    public static void main(String[] args) {
        for (int x = 1; x <= 4; x++) System.out.println("top(" + x + ") -> " + top(x));
        System.out.println("trail: " + trail);
        System.out.println("finallyOverridesReturn = " + finallyOverridesReturn());
        System.out.println("finallySwallows = " + finallySwallows());
        System.out.println("nestedFinally(0) = " + nestedFinally(0) + ", nestedFinally(1) = " + nestedFinally(1));
        System.out.println("loopWithFinally = " + loopWithFinally());
        System.out.println(parse("123") + "; " + parse("12x"));
        int[] a = {10, 20, 30};
        System.out.println(index(a, 2) + "; " + index(a, 5));
        System.out.println(npe("abc") + "; " + npe(null));
        System.out.println(divide(7, 2) + "; " + divide(7, 0));
        System.out.println(cast("yes") + "; " + cast(42));
        System.out.println(exhaust());
        System.out.println(unsupported());
        System.out.println(sortWithFailingComparator());
        System.out.println(forEachThrows());
        System.out.println("resources ok: " + resources(false, false));
        System.out.println("resources use fails: " + resources(true, false));
        System.out.println("resources use and close fail: " + resources(true, true));
        System.out.println("resources close fails: " + resources(false, true));
        System.out.println("causes: " + causes());
        System.out.println("rethrowCount(5) = " + rethrowCount(5));
    }
}
