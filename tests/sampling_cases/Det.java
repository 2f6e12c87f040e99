/**
 * Plain Java for the real rewriter (no hand-placed yieldpoints): two threads doing the same
 * deterministic work in every run (recursion, loops, JDK calls), so the exact tree of a
 * hybrid-mode rewrite can be compared with exact mode's call for call. Argument: repetitions.
 */
public class Det {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        int reps = Integer.parseInt(args[0]);
        Thread t1 = new Thread(() -> work(reps, 1), "det-1");
        Thread t2 = new Thread(() -> work(reps, 2), "det-2");
        t1.start();
        t2.start();
        t1.join();
        t2.join();
        System.out.println("done " + (sink & 1));
    }

    static void work(int reps, int seed) {
        for (int r = 0; r < reps; r++) {
            sink += fib(18 + seed);
            sink += loop(100000 * seed);
            sink += text(2000);
        }
    }

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static long loop(int n) {
        long x = 0;
        for (int i = 0; i < n; i++) {
            x += i ^ (x >>> 3);
        }
        return x;
    }

    static long text(int n) {
        long x = 0;
        for (int i = 0; i < n; i++) {
            x += Integer.toString(i).hashCode();
        }
        return x;
    }
}
