import java.util.concurrent.CountDownLatch;

import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.ThreadRoot;

/**
 * System.exit from a thread other than main while main keeps growing its tree: the shutdown hook
 * writes a valid profile while nodes are being added concurrently.
 */
public class ExitFromThread {
    static final MethodId MAIN = MethodId.get("ExitFromThread", "main", "([Ljava/lang/String;)V", 0, 0);
    static final MethodId EXITER = MethodId.get("ExitFromThread$Exiter", "run", "()V", 0, 1);
    static final MethodId STEP = MethodId.get("ExitFromThread$Exiter", "step", "()V", 0, 0);
    static final CountDownLatch STARTED = new CountDownLatch(1);

    static final class Exiter implements Runnable {
        @Override
        public void run() {
            Node node = ThreadRoot.n2bParent(this, EXITER).enter(-1, EXITER);
            for (int i = 0; i < 500; i++) {
                Node s = node.enter(0, STEP);
                s.bytecodes += 2;
            }
            try {
                STARTED.await();
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            System.exit(3);
        }
    }

    public static void main(String[] args) {
        Node node = ThreadRoot.n2bParent(null, MAIN).enter(-1, MAIN);
        new Thread(new Exiter(), "exiter").start();
        // keep growing the tree while the hook writes: a new chain of 100 nodes every 0.1 ms (up to
        // 500 chains), then re-walk the existing ones
        MethodId[] mids = new MethodId[1000];
        for (int i = 0; i < mids.length; i++) {
            mids[i] = MethodId.get("Gen", "m" + i, "()V", 0, 1);
        }
        long k = 0;
        int chains = 0;
        long last = System.nanoTime();
        Node chain = node;
        while (true) {
            chain = chain.enter(0, mids[(int) (k % 100)]);
            chain.bytecodes += 1;
            if (++k % 100 == 0) {
                long now = System.nanoTime();
                if (chains < 500 && now - last > 100000) {
                    chains++;
                    last = now;
                }
                chain = node.enter(-1, mids[(int) ((k / 100) % (chains + 1))]);
                if (k == 20000) {
                    STARTED.countDown();
                }
            }
        }
    }
}
