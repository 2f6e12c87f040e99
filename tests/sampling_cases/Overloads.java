/**
 * Overloads seen in stack traces (no descriptors there): nearly all the time is spent in
 * {@code spin(long)}, declared after {@code spin()} and {@code spin(int)}, and in the JDK's
 * {@code Long.toString(long)} (beside {@code toString()} and {@code toString(long, int)}).
 * Argument: the run's length in milliseconds.
 */
public class Overloads {
    static volatile long sink;

    public static void main(String[] args) {
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1000000L;
        spin();
        spin(3);
        while (System.nanoTime() < end) {
            spin(20000L);
        }
        System.out.println("done " + (sink & 1));
    }

    static void spin() {
        sink++;
    }

    static void spin(int n) {
        sink += n;
    }

    static void spin(long n) {
        for (long i = 0; i < n; i++) {
            sink += Long.toString(i).length();
        }
    }
}
