package jprewrite.runtime;

/**
 * A profiling agent that each thread activates periodically (JP's Profiler, Fig. 6).
 *
 * <p>Select one with {@code -Djprewrite.profiler=<binary class name>} (public no-argument
 * constructor). Both methods run synchronously in the profiled thread and return the profiling
 * granularity: roughly how many bytecodes the thread executes before it calls
 * {@link #report} again (through {@link ThreadRoot#triggerReport}, with {@code --activation}).
 * The runtime keeps its own registry of threads for the profile it writes at exit, whatever the
 * agent does; an agent that writes its own output can disable that with
 * {@code -Djprewrite.output=none}. Exceptions thrown by an agent are reported once on stderr and
 * never reach the application.
 */
public interface Profiler {
    /** A thread has created its root context; called once per thread, in that thread. */
    int register(Thread thread, ThreadRoot root);

    /** Periodic activation: {@code root}'s thread is executing in context {@code current}. */
    int report(ThreadRoot root, Node current);
}
