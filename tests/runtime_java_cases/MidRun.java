import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.Profiles;
import jprewrite.runtime.ThreadRoot;

/** Profiles.toJson(), write() (JSON and compact) and writeCollapsed() while the program runs. */
public class MidRun {
    static final MethodId MAIN = MethodId.get("MidRun", "main", "([Ljava/lang/String;)V", 0, 1);
    static final MethodId STEP = MethodId.get("MidRun", "step", "(Ljava/lang/String;)V", 0, 0);
    static final MethodId W_RUN = MethodId.get("MidRun$W", "run", "()V", 0, 0);
    /** Another MID of step, as a second class's holder makes for a method both call: one context. */
    static final MethodId STEP_AGAIN = MethodId.get("MidRun", "step", "(Ljava/lang/String;)V", 0, 0);

    /** A thread whose name needs JSON escaping. */
    static final class W implements Runnable {
        @Override
        public void run() {
            ThreadRoot.n2bParent(this, W_RUN).enter(-1, W_RUN).bytecodes += 2;
        }
    }

    public static void main(String[] args) throws Exception {
        Node node = ThreadRoot.n2bParent(null, MAIN).enter(-1, MAIN);
        for (int i = 0; i < 10; i++) {
            node.enter(0, STEP).bytecodes += 2;
        }
        for (int i = 0; i < 3; i++) {
            node.enter(-1, STEP_AGAIN).bytecodes += 1;
        }
        Thread w = new Thread(new W(), "we\"ird\\ n\u00e4me\n\u0001");
        w.start();
        w.join();
        System.out.println("BEGIN-JSON");
        System.out.println(Profiles.toJson());
        System.out.println("END-JSON");
        Profiles.write(args[0]);
        Profiles.write(args[3]);
        Profiles.writeCollapsed(args[1]);
        for (int i = 0; i < 5; i++) {
            node.enter(0, STEP).bytecodes += 2;
        }
        try {
            Profiles.write(args[2]);
            System.out.println("unexpected: wrote to " + args[2]);
        } catch (java.io.IOException e) {
            System.out.println("IOException");
        }
    }
}
