package jprewrite.runtime;

/**
 * The yieldpoints of sample and hybrid mode (see {@code docs/sampling.md}).
 *
 * <p>Rewritten code reads {@link #requested} at the start of every instrumented method body and at
 * every loop header, and calls a {@code yieldpoint} only when it is non-zero, which is only while a
 * sampling round has tickets out: the rest of the time a yieldpoint is a volatile read and a branch.
 * <ul>
 * <li>hybrid mode (exact calling context tree and counters, plus samples):
 * {@code getstatic requested; ifeq skip; aload node; invokestatic yieldpoint(Node)}, at an ESI
 * twin's or a constructor's entry the same inside {@link Node#enterSampled} or
 * {@link ThreadRoot#ctorEnterSampled}: the current node is the sample (O(1)).</li>
 * <li>sample mode (no tree passing, no counters):
 * {@code getstatic requested; ifeq skip; invokestatic yieldpoint()}: the thread walks its own stack.</li>
 * </ul>
 *
 * <p>Loading this class starts the sampler (the first yieldpoint of rewritten code loads it; the agent
 * loads it at start-up), with the settings of the system properties {@code jprewrite.mode},
 * {@code jprewrite.interval}, {@code jprewrite.sampler}, {@code jprewrite.sample-threads} and
 * {@code jprewrite.sample-waiting}. A bad value is one line on stderr and exit status 2, at once: a
 * run that measures something other than what was asked is worse than no run. {@code mode=exact}
 * turns sampling off (the yieldpoints stay, never taken). Without {@code jprewrite.mode} the mode is
 * what the code shows: hybrid when rewritten code made MethodIds before the first yieldpoint (it
 * passes nodes) or calls {@link #yieldpoint(Node)}, sample otherwise.
 */
public final class Sampling {
    /** Non-zero while a sampling round has tickets out: the one field every yieldpoint reads. */
    public static volatile int requested;

    private static final Sampler SAMPLER = start();
    /** Whether the mode was inferred from the code (no {@code jprewrite.mode}). */
    private static boolean inferred;

    private static Sampler start() {
        SamplingConfig cfg;
        try {
            cfg = SamplingConfig.fromProperties();
        } catch (SamplingConfig.Bad e) {
            Log.warn(e.getMessage());
            try {
                System.err.flush();
            } finally {
                Runtime.getRuntime().halt(2);   // not exit(): shutdown hooks would wait on this class
            }
            return null;
        }
        int mode = cfg.mode;
        if (mode == SamplingConfig.EXACT) {
            return null;
        }
        if (mode < 0) {
            inferred = true;
            mode = MethodId.seen ? SamplingConfig.HYBRID : SamplingConfig.SAMPLE;
        }
        if (cfg.sampler != SamplingConfig.SAFEPOINT && !Frames.canWalk() && mode == SamplingConfig.SAMPLE) {
            Log.warn("no StackWalker on this JVM (Java 8): threads sample themselves with full stack traces");
        }
        Sampler.start(cfg, mode);
        return Sampler.active;
    }

    /**
     * Hybrid mode's yieldpoint: if a ticket is left in this round and this thread has not taken one,
     * take it; the sample is {@code node}, the thread's current calling context.
     *
     * <p>Both yieldpoints only forward to one method too large for the JIT to inline even where it is
     * called often ({@link Sampler#pass}): once sampling has taken the branch, the compiled caller holds
     * one call instruction there, not the sampler's code (which would make every compiled method with
     * yieldpoints larger and slower to compile).
     */
    public static void yieldpoint(Node node) {
        Sampler.pass(node, inferred ? Sampler.NODE_INFERRED : Sampler.NODE);
    }

    /**
     * Sample mode's yieldpoint: if a ticket is left in this round and this thread has not taken one,
     * take it and walk this thread's own stack into its sampled calling context tree.
     */
    public static void yieldpoint() {
        Sampler.pass(null, Sampler.SELF);
    }

    /**
     * Sample mode's yieldpoint at a method's entry: as {@link #yieldpoint()}, but the sample is the
     * caller's stack (this frame left out). Nothing of the entered activation has run yet, so the
     * time since the thread's previous yieldpoint was spent before the call: in the caller, or in
     * uninstrumented code (the JDK) that called back into this method.
     */
    public static void entry() {
        Sampler.pass(null, Sampler.SELF_CALLER);
    }

    /** Whether a sampler runs in this JVM (loading this class starts it when the settings ask for one). */
    public static boolean active() {
        return SAMPLER != null;
    }

    private Sampling() {
    }
}
