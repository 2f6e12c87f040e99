import jprewrite.runtime.Node;
import jprewrite.runtime.Profiler;
import jprewrite.runtime.ThreadRoot;

/** A broken profiling agent: its exceptions must never reach the application. */
public class ThrowingProfiler implements Profiler {
    @Override
    public int register(Thread thread, ThreadRoot root) {
        return 10;
    }

    @Override
    public int report(ThreadRoot root, Node current) {
        throw new IllegalStateException("agent bug");
    }
}
