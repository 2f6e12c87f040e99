import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.ThreadRoot;

/** ESI override checks: ThreadRoot.redirect with uninstrumented subclasses. */
public class RedirectMain {
    static final MethodId MAIN = MethodId.get("RedirectMain", "main", "([Ljava/lang/String;)V", 0, 2);

    public static void main(String[] args) {
        Node p = ThreadRoot.n2bParent(null, MAIN);
        Node saved = p.root.published;
        try {
            main(args, p, -1);
        } finally {
            p.root.published = saved;
        }
    }

    static void main(String[] args, Node node, int site) {
        node = node.enter(site, MAIN);
        StringBuilder out = new StringBuilder();
        p1.Base[] objs = {new p1.Base(), new p1.Sub(), new p1.Sub(), new p2.Other(), new p2.Sub2()};
        for (p1.Base b : objs) {
            out.append(b.getClass().getSimpleName()).append(".m=").append(b.m(1, node, 0)).append(' ');
        }
        p1.Base[] ns = {new p2.PkgPriv(), new p1.SamePkg(), new p1.Base()};
        for (p1.Base b : ns) {
            out.append(b.getClass().getSimpleName()).append(".n=").append(b.n(node, 1)).append(' ');
        }
        System.out.println(out.toString().trim());
    }
}
