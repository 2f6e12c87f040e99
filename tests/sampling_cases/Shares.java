import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import jprewrite.runtime.Sampling;

/**
 * Three busy threads that each spend 70 / 20 / 10 % of their CPU time in {@code a} / {@code b} /
 * {@code c} (CPU time, not wall-clock time: on a loaded machine, or paused by a safepoint, a thread's
 * wall-clock budget would run out while it is not running), and four threads blocked on a lock in {@code blocked} for the whole run. Yieldpoints
 * are placed by hand exactly as sample mode's rewriting places them (method entry, loop headers) when
 * the first argument is {@code yield}; {@code plain} runs the same code without them (the safepoint
 * sampler needs none). Second argument: the run's length in milliseconds.
 */
public class Shares {
    static final Object LOCK = new Object();
    static volatile boolean yielding;
    static volatile long sink;
    static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        yielding = args[0].equals("yield");
        long millis = Long.parseLong(args[1]);
        Thread[] blocked = new Thread[4];
        Thread[] busy = new Thread[3];
        synchronized (LOCK) {
            for (int i = 0; i < blocked.length; i++) {
                blocked[i] = new Thread(Shares::blocked, "blocked-" + i);
                blocked[i].start();
            }
            long end = System.nanoTime() + millis * 1000000L;
            for (int i = 0; i < busy.length; i++) {
                final long unit = 310000L + 70000L * i;   // cycles of 3.1, 3.8, 4.5 ms CPU: no lockstep with the interval
                busy[i] = new Thread(() -> work(end, unit), "busy-" + i);
                busy[i].start();
            }
            for (Thread t : busy) {
                t.join();
            }
        }
        for (Thread t : blocked) {
            t.join();
        }
        System.out.println("done " + (sink & 1));
    }

    static void blocked() {
        if (yielding && Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        synchronized (LOCK) {
            sink++;
        }
    }

    static void work(long end, long unit) {
        if (yielding && Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        while (System.nanoTime() < end) {
            if (yielding && Sampling.requested != 0) {
                Sampling.yieldpoint();
            }
            a(7 * unit);
            b(2 * unit);
            c(unit);
        }
    }

    static void a(long ns) {
        if (yielding && Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        long stop = CPU.getCurrentThreadCpuTime() + ns;
        long x = 1;
        while (CPU.getCurrentThreadCpuTime() < stop) {
            if (yielding && Sampling.requested != 0) {
                Sampling.yieldpoint();
            }
            x = x * 31 + 7;
        }
        sink += x;
    }

    static void b(long ns) {
        if (yielding && Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        long stop = CPU.getCurrentThreadCpuTime() + ns;
        long x = 1;
        while (CPU.getCurrentThreadCpuTime() < stop) {
            if (yielding && Sampling.requested != 0) {
                Sampling.yieldpoint();
            }
            x = x * 31 + 7;
        }
        sink += x;
    }

    static void c(long ns) {
        if (yielding && Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        long stop = CPU.getCurrentThreadCpuTime() + ns;
        long x = 1;
        while (CPU.getCurrentThreadCpuTime() < stop) {
            if (yielding && Sampling.requested != 0) {
                Sampling.yieldpoint();
            }
            x = x * 31 + 7;
        }
        sink += x;
    }
}
