import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import jprewrite.runtime.Sampling;

/**
 * Sample mode by hand (yieldpoints placed as sample mode's rewriting places them): one thread
 * alternates between one long activation of {@code slow} and many short calls of {@code quick},
 * about half its CPU time each. Whaley's fresh frames tell them apart: nearly every sample of
 * {@code quick} is in a frame entered since the previous sample, few of {@code slow}'s are.
 * Argument: the run's length in milliseconds of the working thread's CPU time (not wall time: on
 * a loaded machine the thread gets a share of a core, and a thread that is not running takes no
 * samples, so a wall-time length would make the number of samples depend on the load). The
 * program prints how many activations of {@code slow} it made: no more samples of slow than that
 * can be fresh.
 */
public class Fresh {
    static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long budget = Long.parseLong(args[0]) * 1000000L;
        if (args.length > 1 && args[1].equals("entries")) {
            Thread t = new Thread(() -> entries(budget), "entries");
            t.start();
            t.join();
            System.out.println("done " + (sink & 1));
            return;
        }
        Thread t = new Thread(() -> alternate(budget), "fresh");
        t.start();
        t.join();
        System.out.println("slow activations " + slowCalls);
        System.out.println("done " + (sink & 1));
    }

    static int slowCalls;

    static void alternate(long budget) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        long end = CPU.getCurrentThreadCpuTime() + budget;
        while (CPU.getCurrentThreadCpuTime() < end) {
            if (Sampling.requested != 0) {
                Sampling.yieldpoint();
            }
            slowCalls++;
            slow(20000000L);
            long stop = CPU.getCurrentThreadCpuTime() + 20000000L;
            while (CPU.getCurrentThreadCpuTime() < stop) {
                if (Sampling.requested != 0) {
                    Sampling.yieldpoint();
                }
                for (int i = 0; i < 100; i++) {
                    if (Sampling.requested != 0) {
                        Sampling.yieldpoint();
                    }
                    sink += quick();
                }
            }
        }
    }

    static void slow(long ns) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        long stop = CPU.getCurrentThreadCpuTime() + ns;
        while (CPU.getCurrentThreadCpuTime() < stop) {
            if (Sampling.requested != 0) {
                Sampling.yieldpoint();
            }
            sink++;
        }
    }

    /**
     * Sample mode's placement by hand: {@code tiny} called again and again from one call site, by a
     * loop that has no yieldpoint of its own but spends as long as tiny does before each call. tiny
     * has {@code Sampling.entry()} at its entry and a yieldpoint before its return, none in its loop:
     * a ticket issued while the caller's loop runs is taken at tiny's entry and is the caller's
     * sample, one issued while tiny's loop runs is taken before its return and is tiny's. About
     * half each.
     */
    static void entries(long budget) {
        if (Sampling.requested != 0) {
            Sampling.entry();
        }
        long end = CPU.getCurrentThreadCpuTime() + budget;
        int calls = 0;
        // the clock is read once every 256 calls: a read (a system call, about a microsecond) at
        // each would add to the caller's share what tiny's loop has no counterpart for
        while ((++calls & 255) != 0 || CPU.getCurrentThreadCpuTime() < end) {
            long x = sink;
            for (int i = 0; i < 2000; i++) {
                x += (x >>> 3) ^ i;   // the caller's own work: no yieldpoint until tiny's entry
            }
            sink = x;
            sink += tiny();
        }
    }

    static long tiny() {
        if (Sampling.requested != 0) {
            Sampling.entry();
        }
        long x = sink;
        for (int i = 0; i < 2000; i++) {
            x += (x >>> 3) ^ i;   // no yieldpoint in the loop: the one before the return takes it
        }
        sink = x;
        if ((Sampling.requested | Sampling.requested) != 0) {
            Sampling.yieldpoint();
        }
        return x;
    }

    static long quick() {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        long x = 0;
        for (int i = 0; i < 200; i++) {
            if (Sampling.requested != 0) {
                Sampling.yieldpoint();
            }
            x += i * 7;
        }
        return x;
    }
}
