import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Random;

/**
 * Time inside a long JDK call: one thread alternates between sorting a copy of a large array
 * ({@code Arrays.sort}, milliseconds of the JDK's code without a yieldpoint) and a loop of its own,
 * about half its CPU time each. Rewritten by the real rewriter (no yieldpoints by hand): a thread in
 * the sort cannot sample itself, and its time must still reach the profile under {@code sortPart}, as
 * JFR puts it. Argument: the run's length in milliseconds of the thread's CPU time (a loaded machine
 * gives it a share of a core). Prints the CPU time share the sorting took, measured by the thread.
 */
public class JdkCall {
    static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    static int[] data;
    static long sink;

    public static void main(String[] args) throws Exception {
        long budget = Long.parseLong(args[0]) * 1000000L;
        data = new Random(7).ints(200000).toArray();
        long[] spent = new long[2];
        Thread t = new Thread(() -> alternate(budget, spent), "jdk-call");
        t.start();
        t.join();
        System.out.printf(java.util.Locale.ROOT, "sort share %.4f%n", spent[0] / (double) (spent[0] + spent[1]));
        System.out.println("done " + (sink & 1));
    }

    static void alternate(long budget, long[] spent) {
        long end = CPU.getCurrentThreadCpuTime() + budget;
        long t0 = CPU.getCurrentThreadCpuTime();
        while (t0 < end) {
            sortPart();
            long t1 = CPU.getCurrentThreadCpuTime();
            ownPart(10000000);
            long t2 = CPU.getCurrentThreadCpuTime();
            spent[0] += t1 - t0;
            spent[1] += t2 - t1;
            t0 = t2;
        }
    }

    static void sortPart() {
        int[] copy = data.clone();
        Arrays.sort(copy);
        sink += copy[copy.length / 2];
    }

    static void ownPart(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += (i * 31L) ^ (s >>> 3);
        }
        sink += s;
    }
}
