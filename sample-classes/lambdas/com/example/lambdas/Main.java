package com.example.lambdas;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Lambdas and streams: map/filter/reduce over small lists, every kind of method reference
 * (static, bound instance, unbound instance, constructor, array constructor), lambdas
 * capturing locals, fields and `this`, a stateful lambda (a counter in a captured array),
 * function composition, collectors into sorted maps, Optional chains, a lambda that
 * returns a lambda, and a recursive lambda through a field.
 */
public class Main {
    private final int offset;
    private int invocations;

    Main(int offset) { this.offset = offset; }

    static boolean isPrime(int n) {
        if (n < 2) return false;
        for (int d = 2; d * d <= n; d++) if (n % d == 0) return false;
        return true;
    }

    static int square(int x) { return x * x; }

    int shift(int x) {
        invocations++;
        return x + offset;
    }

    static final class Word {
        final String text;
        Word(String text) { this.text = text; }
        int vowels() {
            int n = 0;
            for (char c : text.toCharArray()) if ("aeiou".indexOf(c) >= 0) n++;
            return n;
        }
        @Override public String toString() { return "Word(" + text + ")"; }
    }

    static Function<Integer, Integer> adder(int k) {
        return x -> x + k; // a lambda returning a lambda capturing a parameter
    }

    static IntBinaryOperator gcd;

    static {
        gcd = (a, b) -> b == 0 ? a : gcd.applyAsInt(b, a % b); // recursive through the static field
    }

    public static void main(String[] args) {
        List<Integer> numbers = IntStream.rangeClosed(1, 20).boxed().collect(Collectors.toList());

        // map / filter / reduce
        int sumOfSquaresOfPrimes = numbers.stream().filter(Main::isPrime).map(Main::square).reduce(0, Integer::sum);
        System.out.println("sum of squares of primes <= 20: " + sumOfSquaresOfPrimes);
        List<Integer> evens = numbers.stream().filter(n -> n % 2 == 0).map(n -> n / 2).collect(Collectors.toList());
        System.out.println("evens halved: " + evens);
        Optional<Integer> product = numbers.stream().limit(6).reduce((a, b) -> a * b);
        System.out.println("6! = " + product.orElse(-1));

        // bound, unbound, constructor and array-constructor references
        Main m = new Main(100);
        List<Integer> shifted = numbers.stream().limit(5).map(m::shift).collect(Collectors.toList());
        System.out.println("shifted: " + shifted + " (invocations " + m.invocations + ")");
        List<String> texts = Arrays.asList("banana", "kiwi", "apple", "fig", "orange", "plum");
        List<Word> words = texts.stream().map(Word::new).collect(Collectors.toList());
        System.out.println("words: " + words);
        int[] vowelCounts = words.stream().mapToInt(Word::vowels).toArray();
        System.out.println("vowels: " + Arrays.toString(vowelCounts));
        String[] upper = texts.stream().map(String::toUpperCase).toArray(String[]::new);
        System.out.println("upper: " + String.join(",", upper));

        // capturing locals and a stateful lambda
        int threshold = 4;
        int[] calls = {0};
        Predicate<String> longWord = s -> {
            calls[0]++;
            return s.length() > threshold;
        };
        List<String> longWords = texts.stream().filter(longWord).sorted().collect(Collectors.toList());
        System.out.println("long words: " + longWords + " after " + calls[0] + " predicate calls");
        Predicate<String> shortOrP = longWord.negate().or(s -> s.startsWith("p"));
        System.out.println("short or p: " + texts.stream().filter(shortOrP).collect(Collectors.joining("|")));

        // composition
        Function<Integer, Integer> plus3 = adder(3);
        Function<Integer, Integer> times2 = x -> x * 2;
        System.out.println("plus3.andThen(times2)(5) = " + plus3.andThen(times2).apply(5)
                + ", plus3.compose(times2)(5) = " + plus3.compose(times2).apply(5));
        UnaryOperator<String> twice = s -> s + s;
        BiFunction<String, Integer, String> rep = (s, n) -> {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < n; i++) sb.append(s);
            return sb.toString();
        };
        System.out.println("twice/rep: " + twice.apply("ab") + " " + rep.andThen(String::length).apply("xyz", 4));

        // collectors into deterministic maps
        Map<Integer, List<String>> byLength = texts.stream()
                .collect(Collectors.groupingBy(String::length, TreeMap::new, Collectors.toList()));
        System.out.println("by length: " + byLength);
        Map<Boolean, Long> partition = numbers.stream().collect(Collectors.partitioningBy(Main::isPrime, Collectors.counting()));
        System.out.println("prime partition: " + partition);
        TreeMap<Character, Integer> firstLetters = texts.stream()
                .collect(Collectors.toMap(s -> s.charAt(0), String::length, Integer::sum, TreeMap::new));
        System.out.println("first letters: " + firstLetters);

        // Optional, Supplier, flatMap, IntStream
        Supplier<List<String>> fresh = ArrayList::new;
        List<String> l = fresh.get();
        Optional.of("value").map(String::length).filter(n -> n > 3).ifPresent(n -> l.add("len " + n));
        Optional.<String>empty().ifPresentOrElse(l::add, () -> l.add("empty"));
        System.out.println("optional: " + l);
        List<String> pairs = Stream.of("a", "b", "c")
                .flatMap(x -> Stream.of(1, 2).map(i -> x + i))
                .collect(Collectors.toList());
        System.out.println("flatMap: " + pairs);
        System.out.println("IntStream: sum=" + IntStream.range(0, 50).filter(i -> i % 7 == 3).sum()
                + " max=" + IntStream.of(3, 9, 4).max().getAsInt()
                + " avg=" + IntStream.of(1, 2, 3, 4).average().getAsDouble());
        System.out.println("gcd(1071, 462) = " + gcd.applyAsInt(1071, 462));
        Runnable r = () -> System.out.println("runnable lambda ran, offset " + m.offset);
        r.run();
    }
}
