import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;
import java.util.zip.Deflater;

/**
 * Time inside native code called by the JDK: one thread alternates between compressing a buffer of
 * random bytes ({@code Deflater}: zlib, native code for milliseconds) and a loop of its own, as batik's
 * PNG encoder does. A thread in native code cannot reach a yieldpoint, and without
 * {@code sample-waiting} it is not sampled (§3.1 counts it as waiting); what matters is that finding
 * that out costs no global safepoint each round. Argument: the run's length in milliseconds of the
 * thread's CPU time. Prints the CPU time share the compression took, measured by the thread, and the
 * thread's run as an interval of {@code System.nanoTime()} (the JVM's {@code timenanos} log decorator),
 * so that a test can tell the safepoints of that run from those of main's own JDK calls (filling the
 * buffer, and the first {@code printf}: formatting and string concatenation bootstrap for tens of
 * milliseconds on a loaded machine, and are rightly sampled by stack traces).
 */
public class NativeCall {
    static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    static byte[] data;
    static final byte[] out = new byte[1 << 20];
    static long sink;

    public static void main(String[] args) throws Exception {
        long budget = Long.parseLong(args[0]) * 1000000L;
        data = new byte[1 << 19];
        new Random(7).nextBytes(data);
        long[] spent = new long[2];
        long[] window = new long[2];
        Thread t = new Thread(() -> {
            window[0] = System.nanoTime();
            alternate(budget, spent);
            window[1] = System.nanoTime();
        }, "native-call");
        t.start();
        t.join();
        System.out.printf(java.util.Locale.ROOT, "native share %.4f%n", spent[0] / (double) (spent[0] + spent[1]));
        System.out.println("window " + window[0] + " " + window[1]);
        System.out.println("done " + (sink & 1));
    }

    static void alternate(long budget, long[] spent) {
        long end = CPU.getCurrentThreadCpuTime() + budget;
        long t0 = CPU.getCurrentThreadCpuTime();
        while (t0 < end) {
            compressPart();
            long t1 = CPU.getCurrentThreadCpuTime();
            ownPart(5000000);
            long t2 = CPU.getCurrentThreadCpuTime();
            spent[0] += t1 - t0;
            spent[1] += t2 - t1;
            t0 = t2;
        }
    }

    static void compressPart() {
        Deflater d = new Deflater(9);
        d.setInput(data);
        d.finish();
        while (!d.finished()) {
            sink += d.deflate(out);
        }
        d.end();
    }

    static void ownPart(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += (i * 31L) ^ (s >>> 3);
        }
        sink += s;
    }
}
