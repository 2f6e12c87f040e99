import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.ThreadRoot;

/** JP's Fig. 4 (with Fig. 5's bytecode counts), rewritten by hand: f=1, f.h=10, f.g=10, f.g.h=55. */
public class Fig4 {
    private static final MethodId MID_MAIN = MethodId.get("Fig4", "main", "([Ljava/lang/String;)V", 0, 1);
    private static final MethodId MID_F = MethodId.get("Fig4", "f", "()V", 0, 2);
    private static final MethodId MID_G = MethodId.get("Fig4", "g", "(I)V", 0, 1);
    private static final MethodId MID_H = MethodId.get("Fig4", "h", "()V", 0, 0);

    public static void main(String[] args) {
        Node p = ThreadRoot.n2bParent(null, MID_MAIN);
        Node saved = p.root.published;
        try {
            main(args, p, -1);
        } finally {
            p.root.published = saved;
        }
    }

    static void main(String[] args, Node node, int site) {
        node = node.enter(site, MID_MAIN);
        node.bytecodes += 4;
        new Fig4().f(node, 0);
    }

    void f(Node ic, int site) {
        ic = ic.enter(site, MID_F);
        ic.bytecodes += 2;
        int i = 1;
        while (true) {
            ic.bytecodes += 3;
            if (i <= 10) {
                ic.bytecodes += 7;
                h(ic, 0);
                g(i, ic, 1);
                ++i;
            } else {
                ic.bytecodes += 1;
                return;
            }
        }
    }

    void g(int i, Node ic, int site) {
        ic = ic.enter(site, MID_G);
        ic.bytecodes += 2;
        int j = 1;
        while (true) {
            ic.bytecodes += 3;
            if (j <= i) {
                ic.bytecodes += 4;
                h(ic, 0);
                ++j;
            } else {
                ic.bytecodes += 1;
                return;
            }
        }
    }

    void h(Node ic, int site) {
        ic = ic.enter(site, MID_H);
        ic.bytecodes += 1;
    }

    // N2B wrappers (unused here, but present in every rewritten class)
    void f() {
        Node p = ThreadRoot.n2bParent(this, MID_F);
        Node saved = p.root.published;
        try {
            f(p, -1);
        } finally {
            p.root.published = saved;
        }
    }
}
