import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.Profiles;
import jprewrite.runtime.ThreadRoot;

/** Recursion 20,000 deep, twice: merging and writing must not overflow the writer's stack. */
public class Deep {
    static final MethodId MAIN = MethodId.get("Deep", "main", "([Ljava/lang/String;)V", 0, 1);
    static final MethodId REC = MethodId.get("Deep", "rec", "(I)V", 0, 1);
    static final MethodId RUN = MethodId.get("Deep$1", "run", "()V", 0, 2);
    static final int DEPTH = 20000;

    static void rec(int n, Node node, int site) {
        node = node.enter(site, REC);
        node.bytecodes += 3;
        if (n > 1) {
            rec(n - 1, node, 0);
        }
    }

    public static void main(String[] args) throws Exception {
        Node node = ThreadRoot.n2bParent(null, MAIN).enter(-1, MAIN);
        node.bytecodes += 1;
        Runnable r = new Runnable() {
            @Override
            public void run() {
                Node n = ThreadRoot.n2bParent(this, RUN).enter(-1, RUN);
                rec(DEPTH, n, 0);
                rec(DEPTH, n, 1);
            }
        };
        // a big stack for the profiled recursion only; the runtime's own traversals use none
        Thread t = new Thread(null, r, "deep", 1L << 28);
        t.start();
        t.join();
        // the JSON snapshot from the small main-thread stack
        String json = Profiles.toJson();
        System.out.println("json-length=" + json.length());
    }
}
