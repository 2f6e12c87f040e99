import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.ThreadRoot;

/** JP's periodic activation (--activation): activation decremented, triggerReport at <= 0. */
public class Activation {
    static final MethodId MAIN = MethodId.get("Activation", "main", "([Ljava/lang/String;)V", 0, 1);
    static final MethodId LOOP = MethodId.get("Activation", "loop", "()V", 0, 0);

    public static void main(String[] args) {
        Node node = ThreadRoot.n2bParent(null, MAIN).enter(-1, MAIN);
        loop(node, 0);
        System.out.println("registers=" + CountingProfiler.registers + " reports=" + CountingProfiler.reports
                + " last=" + CountingProfiler.lastCurrent + " wrongRoot=" + CountingProfiler.wrongRoot
                + " activation=" + node.root.activation);
    }

    static void loop(Node node, int site) {
        node = node.enter(site, LOOP);
        ThreadRoot rc = node.root;
        for (int i = 0; i < 1000; i++) {
            node.bytecodes += 7;
            rc.activation -= 7;
            if (rc.activation <= 0) {
                rc.triggerReport(node);
            }
        }
    }
}
