import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.TestAccess;
import jprewrite.runtime.ThreadRoot;

/** Threads that end before the program does: their counts must reach the merged profile. */
public class Threads {
    static final MethodId MAIN = MethodId.get("Threads", "main", "([Ljava/lang/String;)V", 0, 0);
    static final MethodId RUN = MethodId.get("Threads$Worker", "run", "()V", 0, 1);
    static final MethodId WORK = MethodId.get("Threads$Worker", "work", "(I)V", 0, 0);

    static final class Worker implements Runnable {
        final int n;

        Worker(int n) {
            this.n = n;
        }

        @Override
        public void run() {
            Node p = ThreadRoot.n2bParent(this, RUN);
            Node saved = p.root.published;
            try {
                run(p, -1);
            } finally {
                p.root.published = saved;
            }
        }

        void run(Node node, int site) {
            node = node.enter(site, RUN);
            node.bytecodes += 1;
            for (int i = 0; i < n; i++) {
                work(i, node, 0);
            }
        }

        void work(int i, Node node, int site) {
            node = node.enter(site, WORK);
            node.bytecodes += 5;
        }
    }

    public static void main(String[] args) throws Exception {
        Node node = ThreadRoot.n2bParent(null, MAIN).enter(-1, MAIN);
        node.bytecodes += 2;
        for (int round = 0; round < 2; round++) {
            Thread[] ts = new Thread[4];
            for (int i = 0; i < ts.length; i++) {
                ts[i] = new Thread(new Worker(1000), "worker-" + i);
                ts[i].start();
            }
            for (Thread t : ts) {
                t.join();
            }
        }
        // the Thread objects are unreachable now: wait until the runtime has folded their trees
        long deadline = System.currentTimeMillis() + 20000;
        int live = TestAccess.liveRoots();
        while (live > 1 && System.currentTimeMillis() < deadline) {
            System.gc();
            Thread.sleep(20);
            live = TestAccess.liveRoots();
        }
        System.out.println("live=" + live);
    }
}
