import jprewrite.runtime.Sampling;

/**
 * Threads that cannot reach a yieldpoint while a round is open, beside one that can: one blocked
 * in a native read of standard input (RUNNABLE all the time: the test never writes to it), one
 * sleeping, one spinning in code without yieldpoints. The sampler must neither hang nor stop
 * sampling the busy thread. Then {@code churn}: 200 short-lived threads started and ended while
 * sampling goes on. Arguments: the busy time in milliseconds, the number of churn threads.
 */
public class Stuck {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long millis = Long.parseLong(args[0]);
        int churn = Integer.parseInt(args[1]);
        Thread reader = new Thread(() -> {
            try {
                sink += System.in.read();
            } catch (Exception e) {
                // the pipe closed: done
            }
        }, "native-read");
        reader.setDaemon(true);
        reader.start();
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(600000L);
            } catch (InterruptedException e) {
                // done
            }
        }, "sleeper");
        sleeper.setDaemon(true);
        sleeper.start();
        long end = System.nanoTime() + millis * 1000000L;
        Thread spinner = new Thread(() -> {
            long x = 0;
            while (System.nanoTime() < end) {
                x += x * 31 + 1;   // no yieldpoint: as code the rewriting left alone
            }
            sink += x;
        }, "no-yieldpoints");
        spinner.start();
        Thread busy = new Thread(() -> busy(end), "busy");
        busy.start();
        busy.join();
        spinner.join();
        Thread[] threads = new Thread[churn];
        for (int i = 0; i < churn; i++) {
            threads[i] = new Thread(() -> busy(System.nanoTime() + 2000000L), "churn-" + i);
            threads[i].start();
            if (i % 8 == 7) {
                threads[i].join();
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("done " + (sink & 1));
    }

    static void busy(long end) {
        if (Sampling.requested != 0) {
            Sampling.yieldpoint();
        }
        long x = 0;
        while (System.nanoTime() < end) {
            if (Sampling.requested != 0) {
                Sampling.yieldpoint();
            }
            x += x * 31 + 1;
        }
        sink += x;
    }
}
