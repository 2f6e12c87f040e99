import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.Sampling;
import jprewrite.runtime.ThreadRoot;

/**
 * Hybrid mode by hand: the code calls the runtime exactly as hybrid mode's rewriting does (node
 * entered at each method start, bytecodes counted per block, {@code if (Sampling.requested != 0)
 * Sampling.yieldpoint(node)} after the entry and at loop headers).
 *
 * <ul>
 * <li>{@code shares MILLIS}: three threads spend 70/20/10 % of their CPU time in a/b/c; four threads
 * are blocked on a lock in {@code blocked}.</li>
 * <li>{@code fresh MILLIS}: one thread alternates between one long activation of {@code slow} and
 * many short calls of {@code quick} (about half its time each): Whaley's long-running versus
 * frequently called code. MILLIS of the thread's CPU time, not wall time: a thread that is not
 * running takes no samples, so on a loaded machine a wall-time length gives few.</li>
 * <li>{@code exact}: deterministic work on two threads (the same calls and bytecodes in every run),
 * for comparing the exact tree with and without sampling.</li>
 * </ul>
 */
public class Hybrid {
    static final MethodId MAIN = MethodId.get("Hybrid", "main", "([Ljava/lang/String;)V", 0, 4);
    static final MethodId WORK = MethodId.get("Hybrid", "work", "(JJ)V", 0, 3);
    static final MethodId A = MethodId.get("Hybrid", "a", "(J)V", 0, 0);
    static final MethodId B = MethodId.get("Hybrid", "b", "(J)V", 0, 0);
    static final MethodId C = MethodId.get("Hybrid", "c", "(J)V", 0, 0);
    static final MethodId BLOCKED = MethodId.get("Hybrid", "blocked", "()V", 0, 0);
    static final MethodId FRESH = MethodId.get("Hybrid", "fresh", "(J)V", 0, 2);
    static final MethodId SLOW = MethodId.get("Hybrid", "slow", "(J)V", 0, 0);
    static final MethodId QUICK = MethodId.get("Hybrid", "quick", "()J", 0, 0);
    static final MethodId DET = MethodId.get("Hybrid", "det", "(I)V", 0, 2);
    static final MethodId FIB = MethodId.get("Hybrid", "fib", "(I)I", 0, 2);
    static final MethodId LOOP = MethodId.get("Hybrid", "loop", "(I)J", 0, 0);

    static final Object LOCK = new Object();
    static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        Node node = ThreadRoot.n2bParent(null, MAIN).enter(-1, MAIN);
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        String what = args[0];
        if (what.equals("shares")) {
            shares(Long.parseLong(args[1]));
        } else if (what.equals("fresh")) {
            long budget = Long.parseLong(args[1]) * 1000000L;
            Thread t = new Thread(() -> fresh(ThreadRoot.n2bEnter(null, FRESH), budget), "fresh");
            t.start();
            t.join();
        } else {
            awaitFirstRound();
            Thread t1 = new Thread(() -> det(ThreadRoot.n2bEnter(null, DET), 1), "det-1");
            Thread t2 = new Thread(() -> det(ThreadRoot.n2bEnter(null, DET), 2), "det-2");
            t1.start();
            t2.start();
            t1.join();
            t2.join();
        }
        System.out.println("done " + (sink & 1));
    }

    static void shares(long millis) throws Exception {
        Thread[] blocked = new Thread[4];
        Thread[] busy = new Thread[3];
        synchronized (LOCK) {
            for (int i = 0; i < blocked.length; i++) {
                blocked[i] = new Thread(() -> blocked(ThreadRoot.n2bEnter(null, BLOCKED)), "blocked-" + i);
                blocked[i].start();
            }
            long end = System.nanoTime() + millis * 1000000L;
            for (int i = 0; i < busy.length; i++) {
                final long unit = 310000L + 70000L * i;
                busy[i] = new Thread(() -> work(ThreadRoot.n2bEnter(null, WORK), end, unit), "busy-" + i);
                busy[i].start();
            }
            for (Thread t : busy) {
                t.join();
            }
        }
        for (Thread t : blocked) {
            t.join();
        }
    }

    static void blocked(Node node) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        node.bytecodes += 3;
        synchronized (LOCK) {
            sink++;
        }
    }

    static void work(Node node, long end, long unit) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        while (System.nanoTime() < end) {
            node.bytecodes += 12;
            if (Sampling.requested != 0) {
                Sampling.yieldpoint(node);
            }
            a(node.enter(0, A), 7 * unit);
            b(node.enter(1, B), 2 * unit);
            c(node.enter(2, C), unit);
        }
    }

    static void a(Node node, long ns) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        long stop = CPU.getCurrentThreadCpuTime() + ns;
        long x = 1;
        while (CPU.getCurrentThreadCpuTime() < stop) {
            node.bytecodes += 9;
            if (Sampling.requested != 0) {
                Sampling.yieldpoint(node);
            }
            x = x * 31 + 7;
        }
        sink += x;
    }

    static void b(Node node, long ns) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        long stop = CPU.getCurrentThreadCpuTime() + ns;
        long x = 1;
        while (CPU.getCurrentThreadCpuTime() < stop) {
            node.bytecodes += 9;
            if (Sampling.requested != 0) {
                Sampling.yieldpoint(node);
            }
            x = x * 31 + 7;
        }
        sink += x;
    }

    static void c(Node node, long ns) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        long stop = CPU.getCurrentThreadCpuTime() + ns;
        long x = 1;
        while (CPU.getCurrentThreadCpuTime() < stop) {
            node.bytecodes += 9;
            if (Sampling.requested != 0) {
                Sampling.yieldpoint(node);
            }
            x = x * 31 + 7;
        }
        sink += x;
    }

    static void fresh(Node node, long budget) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        long end = CPU.getCurrentThreadCpuTime() + budget;
        while (CPU.getCurrentThreadCpuTime() < end) {
            if (Sampling.requested != 0) {
                Sampling.yieldpoint(node);
            }
            slow(node.enter(0, SLOW), 20000000L);
            long stop = CPU.getCurrentThreadCpuTime() + 20000000L;
            while (CPU.getCurrentThreadCpuTime() < stop) {
                if (Sampling.requested != 0) {
                    Sampling.yieldpoint(node);
                }
                for (int i = 0; i < 100; i++) {
                    sink += quick(node.enter(1, QUICK));
                }
            }
        }
    }

    static void slow(Node node, long ns) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        long stop = CPU.getCurrentThreadCpuTime() + ns;
        while (CPU.getCurrentThreadCpuTime() < stop) {
            if (Sampling.requested != 0) {
                Sampling.yieldpoint(node);
            }
            sink++;
        }
    }

    static long quick(Node node) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        long x = 0;
        for (int i = 0; i < 200; i++) {
            if (Sampling.requested != 0) {
                Sampling.yieldpoint(node);
            }
            x += i * 7;
        }
        return x;
    }

    /**
     * In hybrid mode, wait (up to 10 s, uncounted: this code is not instrumented) until the sampler has
     * asked for its first round, so that the det threads' work, a few tens of milliseconds, runs while
     * sampling is on even when a loaded machine starts the sampler thread late.
     */
    static void awaitFirstRound() throws InterruptedException {
        if (!Sampling.active()) {
            return;
        }
        long end = System.nanoTime() + 10_000_000_000L;
        while (Sampling.requested == 0 && System.nanoTime() < end) {
            Thread.sleep(0, 100_000);
        }
    }

    static void det(Node node, int seed) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        for (int r = 0; r < 40; r++) {
            node.bytecodes += 4;
            if (Sampling.requested != 0) {
                Sampling.yieldpoint(node);
            }
            sink += fib(node.enter(0, FIB), 18 + seed);
            sink += loop(node.enter(1, LOOP), 200000 * seed);
        }
    }

    static int fib(Node node, int n) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        node.bytecodes += 3;
        if (n < 2) {
            return n;
        }
        node.bytecodes += 9;
        return fib(node.enter(0, FIB), n - 1) + fib(node.enter(1, FIB), n - 2);
    }

    static long loop(Node node, int n) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(node);
        }
        long x = 0;
        for (int i = 0; i < n; i++) {
            node.bytecodes += 8;
            if (Sampling.requested != 0) {
                Sampling.yieldpoint(node);
            }
            x += i ^ (x >>> 3);
        }
        return x;
    }
}
