import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import jprewrite.runtime.Sampling;

/**
 * Sample mode by hand (yieldpoints placed as sample mode's rewriting places them): one thread
 * alternates between one long activation of {@code slow} and many short calls of {@code quick},
 * about half its CPU time each. Whaley's fresh frames tell them apart: nearly every sample of
 * {@code quick} is in a frame entered since the previous sample, few of {@code slow}'s are.
 * Argument: the run's length in milliseconds.
 */
public class Fresh {
    static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1000000L;
        if (args.length > 1 && args[1].equals("entries")) {
            Thread t = new Thread(() -> entries(end), "entries");
            t.start();
            t.join();
            System.out.println("done " + (sink & 1));
            return;
        }
        Thread t = new Thread(() -> alternate(end), "fresh");
        t.start();
        t.join();
        System.out.println("done " + (sink & 1));
    }

    static void alternate(long end) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        while (System.nanoTime() < end) {
            if (Sampling.requested != 0) {
                Sampling.yieldpoint();
            }
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
     * {@code tiny} called again and again from one call site, by a loop without a yieldpoint of its
     * own (as if the rewriting had left it alone): every sample lands at tiny's entry yieldpoint, in
     * an activation begun since the previous sample, while the stack looks the same every time.
     */
    static void entries(long end) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        while (System.nanoTime() < end) {
            sink += tiny();
        }
    }

    static long tiny() {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        long x = 0;
        for (int i = 0; i < 50; i++) {
            x += i * 7;   // no yieldpoint: the entry's is the only one
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
