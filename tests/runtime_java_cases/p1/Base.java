package p1;

import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.ThreadRoot;

/** An instrumented class whose methods uninstrumented subclasses may override. */
public class Base {
    static final MethodId M = MethodId.get("p1.Base", "m", "(I)I", 0, 0);
    static final MethodId N = MethodId.get("p1.Base", "n", "()Ljava/lang/String;", 0, 0);

    /** What the runtime recognises an instrumented class by (the rewriter adds it, synthetic). */
    private static boolean $jprewrite$instrumented;

    public Class<?> $jprewrite$class() {
        return Base.class;
    }

    public int m(int x) {
        Node p = ThreadRoot.n2bParent(this, M);
        Node saved = p.root.published;
        try {
            return m(x, p, -1);
        } finally {
            p.root.published = saved;
        }
    }

    public int m(int x, Node node, int site) {
        if (this.$jprewrite$class() != this.getClass()) {
            Node n = ThreadRoot.redirect(this, node, site, M);
            if (n != null) {
                return this.m(x);
            }
        }
        node = node.enter(site, M);
        node.bytecodes += 3;
        return x + 1;
    }

    /** Package-private: only subclasses in p1 can override it. */
    String n() {
        Node p = ThreadRoot.n2bParent(this, N);
        Node saved = p.root.published;
        try {
            return n(p, -1);
        } finally {
            p.root.published = saved;
        }
    }

    public String n(Node node, int site) {
        if (this.$jprewrite$class() != this.getClass()) {
            Node r = ThreadRoot.redirect(this, node, site, N);
            if (r != null) {
                return this.n();
            }
        }
        node = node.enter(site, N);
        node.bytecodes += 2;
        return "Base.n";
    }
}
