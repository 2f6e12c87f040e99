import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.ThreadRoot;

/** A profile without bytecode counts: collapsed stacks then count calls. */
public class CallsOnly {
    static final MethodId MAIN = MethodId.get("CallsOnly", "main", "([Ljava/lang/String;)V", 0, 1);
    static final MethodId A = MethodId.get("CallsOnly", "a", "(Ljava/lang/String;)V", 0, 1);
    static final MethodId B = MethodId.get("CallsOnly", "b", "()V", 0, 0);

    public static void main(String[] args) {
        Node n = ThreadRoot.n2bParent(null, MAIN).enter(-1, MAIN);
        for (int i = 0; i < 3; i++) {
            a("x", n, 0);
        }
    }

    static void a(String s, Node n, int site) {
        n = n.enter(site, A);
        b(n, 0);
        b(n, 0);
    }

    static void b(Node n, int site) {
        n.enter(site, B);
    }
}
