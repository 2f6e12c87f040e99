package programs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A Java 8 program for other compilers and tools (ecj, ProGuard, ajc): lambdas and method
 * references, streams, enums with switches, string switches, try-with-resources, generics, varargs,
 * anonymous and local classes, default methods, nested try/finally. Prints one line per part and
 * a checksum.
 */
public class Modern {
    static long acc = 23;

    static void mix(long v) {
        acc = acc * 31 + v;
    }

    enum Shape {
        CIRCLE(1), SQUARE(4), TRIANGLE(3);

        final int corners;

        Shape(int corners) {
            this.corners = corners;
        }

        double area(double s) {
            switch (this) {
            case CIRCLE: return Math.PI * s * s;
            case SQUARE: return s * s;
            default: return s * s * Math.sqrt(3) / 4;
            }
        }
    }

    interface Named {
        String name();

        default String greet(String who) {
            return "hello " + who + " from " + name();
        }
    }

    static final class Res implements AutoCloseable {
        static int open;
        final String id;

        Res(String id) {
            this.id = id;
            open++;
        }

        @Override
        public void close() {
            open--;
            if (id.equals("bad")) throw new IllegalStateException("close " + id);
        }
    }

    static int words(String w) {
        switch (w) {
        case "alpha": return 1;
        case "beta": return 2;
        case "gamma": case "delta": return 3;
        default: return w.length() * 10;
        }
    }

    @SafeVarargs
    static <T extends Comparable<T>> T max(T... xs) {
        T best = xs[0];
        for (T x : xs) if (x.compareTo(best) > 0) best = x;
        return best;
    }

    static int resources(String id) {
        int r = 0;
        try (Res a = new Res("a"); Res b = new Res(id)) {
            r += a.id.length() + b.id.length();
            if (id.equals("throw")) throw new RuntimeException("body");
        } catch (RuntimeException e) {
            r += e.getMessage().length() * 100 + e.getSuppressed().length * 1000;
        } finally {
            r += Res.open;
        }
        return r;
    }

    public static void main(String[] args) {
        List<Integer> xs = IntStream.rangeClosed(1, 30).boxed().collect(Collectors.toList());
        int evens = xs.stream().filter(x -> x % 2 == 0).mapToInt(Integer::intValue).sum();
        Map<Integer, List<Integer>> byMod = xs.stream().collect(Collectors.groupingBy(x -> x % 4, TreeMap::new,
                Collectors.toList()));
        mix(evens);
        mix(byMod.toString().hashCode());
        System.out.println("streams " + evens + " " + byMod.keySet());
        double total = 0;
        for (Shape s : Shape.values()) total += s.area(s.corners + 1.5) + s.ordinal();
        mix((long) (total * 1000));
        System.out.println("shapes " + (long) (total * 1000));
        int w = 0;
        for (String s : Arrays.asList("alpha", "beta", "gamma", "delta", "epsilon", "")) w = w * 7 + words(s);
        mix(w);
        System.out.println("words " + w);
        mix(resources("b") + resources("throw") + resources("bad"));
        System.out.println("resources " + acc);
        Named n = () -> "lambda";
        Named anon = new Named() {
            @Override
            public String name() {
                return "anon";
            }
        };
        mix(n.greet("x").hashCode() ^ anon.greet("y").hashCode());
        System.out.println(n.greet("x") + " / " + anon.greet("y"));
        IntUnaryOperator f = x -> x * 3 + 1;
        IntUnaryOperator g = f.andThen(x -> x / 2).compose(x -> x - 1);
        int seq = 0;
        for (int i = 0; i < 20; i++) seq = seq * 3 + g.applyAsInt(i) % 17;
        mix(seq);
        Supplier<List<String>> sup = ArrayList::new;
        List<String> out = sup.get();
        class Local {
            String tag(int i) {
                return "#" + i;
            }
        }
        Local l = new Local();
        for (int i = 0; i < 5; i++) out.add(l.tag(i));
        mix(out.hashCode());
        System.out.println("functions " + seq + " " + out);
        mix(max(3, 9, 4).longValue() + max("pear", "apple", "zoo").length());
        System.out.println("checksum " + acc);
    }
}
