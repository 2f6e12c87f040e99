package jprewrite.runtime;

import java.util.concurrent.Callable;

/**
 * Exact counts of one piece of code, for tests that assert a bytecode budget: what the calling
 * thread executed in instrumented code while {@code body} ran, as a {@link Measurement}.
 *
 * <p>How the measured code is found: the call of {@code Measure.run} from rewritten code is a call
 * into uninstrumented code (the runtime is never instrumented), so the runtime sees the body's
 * instrumented methods as callbacks: their N2B wrappers enter beneath the thread's published node.
 * {@code Measure} publishes a fresh node of its own, detached from the thread's tree, for the
 * duration of the call, so the body's contexts grow beneath it from zero: no before/after
 * subtraction, and repeated measurements of deterministic code are identical. Afterwards the
 * counters are added to the thread's tree where the body would have been counted without
 * {@code Measure} (beneath the node that called it), so the profile written at exit is unchanged.
 * The same holds whether the classes were rewritten offline or by the agent, and when the caller
 * itself is not instrumented (a test framework calling instrumented test code).
 *
 * <p>What is counted: the bytecodes, calls, weighted bytecodes and allocations (with the
 * {@code allocations} option) of every instrumented method the calling thread runs during the
 * call, and the calls into uninstrumented code (the JDK) it makes. Not counted: work done by other
 * threads, including threads the body starts and executors it hands tasks to (their trees are
 * their own and appear in the profile under their thread names; the body's {@code Thread.start()}
 * and {@code join()} are counted as calls); code that is not instrumented (the JDK, excluded
 * classes) beyond the call into it. Static initialisers that run for the first time during the
 * call are counted where they run, so a first measurement may include class initialisation that
 * later ones do not. Nested measurements are allowed. A profile snapshot taken by another thread
 * while a measurement is open does not yet see the measured part.
 */
public final class Measure {
    /** The detached node's method (never written out: a measurement's root is {@code <root>}). */
    static final MethodId MID = new MethodId("jprewrite.runtime.Measure", "run", "(Ljava/lang/Runnable;)V",
            MethodId.KIND_UNINSTRUMENTED, 0);

    /** The one line an {@link IllegalStateException} gives when jprewrite is not enabled. */
    static final String NOT_ENABLED = "jprewrite is not enabled in this JVM, so there is nothing to measure: "
            + "run it with -javaagent:$(jprewrite agent-path), or rewrite the classes with "
            + "'jprewrite rewrite IN OUT' and run the rewritten ones";

    /**
     * Run {@code body} and return what the calling thread executed in it. An exception thrown by
     * the body is thrown on (its counts still reach the thread's profile).
     *
     * @throws IllegalStateException when jprewrite is not enabled (no rewritten class in this JVM)
     */
    public static Measurement run(Runnable body) {
        if (body == null) {
            throw new NullPointerException("Measure.run: body is null");
        }
        try {
            return measure(body, null);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // Runnable.run throws no checked exception
        }
    }

    /**
     * Call {@code body} and return what the calling thread executed in it, with the value it
     * returned ({@link Measurement#value()}). An exception thrown by the body is thrown on.
     *
     * @throws IllegalStateException when jprewrite is not enabled (no rewritten class in this JVM)
     */
    public static Measurement call(Callable<?> body) throws Exception {
        if (body == null) {
            throw new NullPointerException("Measure.call: body is null");
        }
        return measure(null, body);
    }

    private static Measurement measure(Runnable runnable, Callable<?> callable) throws Exception {
        ThreadRoot r = ThreadRoot.current();
        // Where the body would be counted: the published node, or the node of a pending call that
        // a framework's instrumented code left open when it called us (it is closed here).
        Node parent = ThreadRoot.n2bParent(null, null);
        Node saved = r.published;
        Node top = new Node(MID, parent, r, null);
        r.published = top;
        r.publishedSite = -1;
        Object value = null;
        try {
            if (runnable != null) {
                runnable.run();
            } else {
                value = callable.call();
            }
        } finally {
            r.published = saved;
            r.publishedSite = -1;
            parent.graft(top);
        }
        if (top.first == null && !MethodId.seen) {
            throw new IllegalStateException(NOT_ENABLED);
        }
        return new Measurement(top, value, threadName());
    }

    private static String threadName() {
        try {
            return Thread.currentThread().getName();
        } catch (Throwable e) {
            return "?";
        }
    }

    private Measure() {
    }
}
