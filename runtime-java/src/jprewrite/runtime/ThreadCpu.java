package jprewrite.runtime;

/**
 * Other threads' CPU time, and whether they are in native code, where the JVM tells it without
 * stopping them ({@code java.management}; absent from a trimmed runtime image, where
 * {@link #create()} gives null and callers do without).
 *
 * <p>The ticket samplers use it to tell apart the two kinds of runnable thread that let a round's
 * grace period pass without reaching a yieldpoint: one that ran meanwhile was executing code without
 * yieldpoints (the JDK, a library not rewritten) and is worth a stack trace; one that did not run
 * (descheduled, or blocked in a system call while Java calls it runnable) has no CPU time to attribute
 * and costs nothing.
 */
final class ThreadCpu {
    private final java.lang.management.ThreadMXBean mx;

    private ThreadCpu(java.lang.management.ThreadMXBean mx) {
        this.mx = mx;
    }

    /** A clock of other threads' CPU time, or null where the JVM has none. */
    static ThreadCpu create() {
        try {
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            if (!mx.isThreadCpuTimeSupported() || !mx.isThreadCpuTimeEnabled()) {
                return null;   // not switched on by us: that is the program's (or its operator's) setting
            }
            return new ThreadCpu(mx);
        } catch (Throwable e) {
            return null;
        }
    }

    /**
     * Whether {@code t} is running native code now, as far as the JVM says (false when it cannot tell).
     * {@code getThreadInfo} with a stack depth of 0 reads the thread's state without a safepoint
     * (HotSpot's {@code jmm_GetThreadInfo}: no stack, no VM operation), where
     * {@code Thread.getStackTrace()} stops every thread: the ticket samplers ask this first, so a
     * thread that spends its time in native code (batik's main thread in {@code Deflater}'s zlib: 185
     * of 200 stack traces a run at 1 ms found it there) no longer costs a global pause a round.
     */
    boolean inNative(Thread t) {
        try {
            java.lang.management.ThreadInfo info = mx.getThreadInfo(t.getId(), 0);
            return info != null && info.isInNative();
        } catch (Throwable e) {
            return false;
        }
    }

    /** {@code t}'s CPU time so far (ns), or -1 (ended, or the JVM cannot tell). */
    long of(Thread t) {
        try {
            return mx.getThreadCpuTime(t.getId());
        } catch (Throwable e) {
            return -1;
        }
    }
}
