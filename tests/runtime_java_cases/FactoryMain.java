import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.ThreadRoot;

/** MIDs come from -Djprewrite.midFactory; redirect's boundary MIDs too. */
public class FactoryMain {
    static final MethodId MAIN = MethodId.get("FactoryMain", "main", "([Ljava/lang/String;)V", 0, 1);

    public static void main(String[] args) {
        Node node = ThreadRoot.n2bParent(null, MAIN).enter(-1, MAIN);
        int r = new p1.Sub().m(4, node, 0);
        MethodId probe = MethodId.get("X", "y", "()V", 0, 0);
        String kind = probe.getClass().getName();
        int serial = probe instanceof TaggingFactory.TaggedMid ? ((TaggingFactory.TaggedMid) probe).serial : -1;
        System.out.println("class=" + kind + " serial=" + serial + " created=" + TaggingFactory.created
                + " r=" + r + " methodString=" + probe.methodString() + " selector=" + probe.selector);
    }
}
