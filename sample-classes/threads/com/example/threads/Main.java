package com.example.threads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads: three named worker threads (a Thread subclass, a Runnable class and a lambda), each
 * doing its own application work (sieve of primes over its own range, collatz lengths,
 * string hashing), sharing a synchronized accumulator and an AtomicLong, joined in a fixed
 * order; everything is printed after the joins, so the output does not depend on scheduling.
 * The amount of application work each thread does is fixed too (no spin loops, no timing).
 */
public class Main {
    /** Shared state behind a lock (the amounts added are fixed; only the order varies). */
    static final class Accumulator {
        private long total;
        private int updates;

        synchronized void add(long v) {
            total += v;
            updates++;
        }

        synchronized long total() { return total; }

        synchronized int updates() { return updates; }
    }

    static final Accumulator ACC = new Accumulator();
    static final AtomicLong ATOMIC = new AtomicLong();

    static final class PrimeCounter extends Thread {
        final int from, to;
        int count;
        int largest;

        PrimeCounter(String name, int from, int to) {
            super(name);
            this.from = from;
            this.to = to;
        }

        @Override
        public void run() {
            boolean[] composite = new boolean[to + 1];
            for (int i = 2; i * i <= to; i++) {
                if (!composite[i]) {
                    for (int j = i * i; j <= to; j += i) composite[j] = true;
                }
            }
            for (int i = Math.max(2, from); i <= to; i++) {
                if (!composite[i]) {
                    count++;
                    largest = i;
                }
            }
            ACC.add(count);
            ATOMIC.addAndGet(largest);
        }
    }

    static final class Collatz implements Runnable {
        final int limit;
        int longestStart;
        int longestLength;

        Collatz(int limit) { this.limit = limit; }

        static int length(long n) {
            int steps = 0;
            while (n != 1) {
                n = (n & 1) == 0 ? n / 2 : 3 * n + 1;
                steps++;
            }
            return steps;
        }

        @Override
        public void run() {
            for (int i = 1; i <= limit; i++) {
                int len = length(i);
                if (len > longestLength) {
                    longestLength = len;
                    longestStart = i;
                }
            }
            ACC.add(longestLength);
            ATOMIC.addAndGet(longestStart);
        }
    }

    static int hash(String s) {
        int h = 7;
        for (int i = 0; i < s.length(); i++) h = h * 31 + s.charAt(i);
        return h;
    }

    public static void main(String[] args) throws InterruptedException {
        PrimeCounter primes = new PrimeCounter("primes", 1, 600);
        Collatz collatz = new Collatz(60);
        Thread collatzThread = new Thread(collatz, "collatz");
        List<String> words = List.of("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta");
        int[] hashes = new int[words.size()];
        Thread hasher = new Thread(() -> {
            for (int i = 0; i < words.size(); i++) hashes[i] = hash(words.get(i));
            ACC.add(words.size());
            ATOMIC.addAndGet(1);
        }, "hasher");

        List<Thread> threads = new ArrayList<>(List.of(primes, collatzThread, hasher));
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();

        System.out.println(primes.getName() + ": " + primes.count + " primes up to " + primes.to + ", largest " + primes.largest);
        System.out.println(collatzThread.getName() + ": longest chain below " + collatz.limit + " starts at " + collatz.longestStart
                + " (" + collatz.longestLength + " steps)");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < hashes.length; i++) sb.append(words.get(i)).append('=').append(hashes[i]).append(' ');
        System.out.println(hasher.getName() + ": " + sb.toString().trim());
        System.out.println("accumulator: total " + ACC.total() + " in " + ACC.updates() + " updates, atomic " + ATOMIC.get());
        for (Thread t : threads) System.out.println(t.getName() + " alive after join: " + t.isAlive());
    }
}
