import jprewrite.runtime.Node;
import jprewrite.runtime.Profiler;
import jprewrite.runtime.ThreadRoot;

/** A profiling agent that counts its activations (granularity 100 bytecodes). */
public class CountingProfiler implements Profiler {
    static int registers;
    static int reports;
    static String lastCurrent;
    static boolean wrongRoot;

    @Override
    public int register(Thread thread, ThreadRoot root) {
        registers++;
        if (thread != Thread.currentThread()) {
            wrongRoot = true;
        }
        return 100;
    }

    @Override
    public int report(ThreadRoot root, Node current) {
        reports++;
        lastCurrent = current.method.methodString();
        if (root != ThreadRoot.current() || current.root != root) {
            wrongRoot = true;
        }
        return 100;
    }
}
