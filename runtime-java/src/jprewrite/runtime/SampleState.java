package jprewrite.runtime;

/**
 * One thread's sampling state: which round it last took a ticket in, and its previous sample, so
 * that the next one knows which frames are <em>fresh</em> (entered since; Whaley's distinction
 * between frequently called and long-running code) and, with the incremental sampler, decodes only
 * those.
 *
 * <p>Samples are recorded by the thread itself (self-sampling) or, for a thread that is blocked,
 * waiting or sampled with {@code Thread.getAllStackTraces()}, by the sampler thread: every recording
 * holds this object's lock, so the two never interleave on the thread's tree.
 */
final class SampleState {
    final ThreadRoot root;
    private final SamplingStats stats;
    /** Whether the thread has given a sample yet (for the count of threads seen). */
    private boolean sampled;
    /** The last round in which the thread reached a yieldpoint while a round was open. */
    volatile int seenRound;
    /** The last round in which it took a ticket (owner only). */
    int takenRound;
    /**
     * Calls into the sampler past the yieldpoints' per-thread check (owner only; summed at exit into
     * the profile's {@code yieldpoint_calls}): what a round costs the threads beyond their samples.
     */
    long slowCalls;

    /** The previous sample, bottom (outermost) frame first: nodes, frame classes (null: unknown) and bcis. */
    private Node[] path = new Node[64];
    private Class<?>[] keyClass = new Class<?>[64];
    private int[] keyBci = new int[64];
    private int depth;
    /** The walk buffers of self-samples (owner only). */
    final Frames.Walk walk = new Frames.Walk();
    /** Scratch for one sample's MethodIds, bottom first (decoded frames only). */
    private MethodId[] mids = new MethodId[64];

    SampleState(ThreadRoot root, SamplingStats stats) {
        this.root = root;
        this.stats = stats;
    }

    private void seen() {
        if (!sampled) {
            sampled = true;
            stats.newThread();
        }
    }

    // ------------------------------------------------------------------ hybrid mode: the node is the sample

    /**
     * A sample whose innermost context is {@code node}: O(1), plus one step per frame entered since
     * the thread's previous sample. A context whose call count has not moved since it was last on a
     * sampled path has had no new activation since: the one on the stack was sampled then, so it and
     * every caller are old and the walk stops (each frame is examined once, as Hofer's incremental
     * stack tracing does with frame objects shared between traces).
     */
    synchronized void recordNode(Node node) {
        recordNode(node, 1);
    }

    /**
     * The same, counting for {@code ticks} samples: a stack trace that stands for several ticks of the
     * sampler (see {@code Sampler.settle}); its frames are fresh once, at the first.
     */
    synchronized void recordNode(Node node, int ticks) {
        seen();
        node.rare().samples += ticks;
        for (Node x = node; x.parent != null; x = x.parent) {
            Node.Rare s = x.rare();
            long calls = x.calls;
            if (s.seenCalls == calls) {
                break;
            }
            s.seenCalls = calls;
            s.fresh++;
        }
    }

    // ------------------------------------------------------------------ sample mode: the thread's own stack

    /**
     * A self-sample: walk the calling thread's own stack, then record it; {@code drop} frames below the
     * runtime's are left out (1 at a method's entry yieldpoint: the sample is its caller's).
     */
    void walkAndRecord(boolean incremental, int drop) throws Throwable {
        walk.walk(drop);
        recordWalk(incremental);
    }

    /**
     * Record the stack just walked into {@link #walk} (top frame first) in the sampled tree. With
     * {@code incremental}, the frames shared with the previous sample (same class and bytecode index
     * from the bottom up) keep their nodes and are never decoded; otherwise every frame is decoded
     * and the path is looked up from the root.
     */
    synchronized void recordWalk(boolean incremental) throws Throwable {
        seen();
        Frames.Walk w = walk;
        int d = w.depth;
        ensure(d);
        int shared = shared(w, d);
        Node node;
        if (incremental) {
            node = shared == 0 ? root : path[shared - 1];
            for (int i = shared; i < d; i++) {
                MethodId m = mids[i] != null ? mids[i] : w.decode(d - 1 - i);
                node = node.child(m);
                path[i] = node;
            }
        } else {
            node = root;
            for (int i = 0; i < d; i++) {
                MethodId m = mids[i] != null ? mids[i] : w.decode(d - 1 - i);
                node = node.child(m);
                path[i] = node;
            }
        }
        for (int i = shared; i < d; i++) {
            int wi = d - 1 - i;
            keyClass[i] = w.classes[wi];
            keyBci[i] = w.bcis[wi];
            path[i].rare().fresh++;
            mids[i] = null;
        }
        for (int i = 0; i < shared; i++) {
            mids[i] = null;
        }
        node.rare().samples++;
        depth = d;
    }

    /**
     * How many bottom frames of the walked stack are the previous sample's (same activations, as far
     * as a stack walk can tell): same class and bytecode index below both top frames; where either
     * side's top frame is reached, the same method (the frame went on running, or returned to it).
     * Decoded frames are left in {@link #mids}.
     */
    private int shared(Frames.Walk w, int d) throws Throwable {
        int e = depth;
        int limit = Math.min(d, e);
        int n = 0;
        while (n < limit) {
            int wi = d - 1 - n;
            Class<?> k = keyClass[n];
            if (k != null) {
                if (k != w.classes[wi]) {
                    break;
                }
                if (n != d - 1 && n != e - 1) {
                    if (keyBci[n] != w.bcis[wi]) {
                        break;
                    }
                    n++;
                    continue;
                }
            }
            MethodId m = w.decode(wi);   // a top frame, or a frame recorded from a stack trace
            mids[n] = m;
            if (m != path[n].method) {
                break;
            }
            keyClass[n] = w.classes[wi];
            keyBci[n] = w.bcis[wi];
            n++;
        }
        return n;
    }

    // ------------------------------------------------------------------ stack traces (other threads)

    /**
     * Record a stack trace of this thread taken by the sampler thread (top frame first) in the
     * sampled tree; frames are fresh where the path leaves the previous sample's. The frames' methods
     * are resolved first, without the lock (resolving may load classes, and a class loader's lock may
     * be held by this very thread, waiting for ours at a yieldpoint).
     */
    void recordTrace(StackTraceElement[] trace, ClassLoader hint) {
        recordTrace(trace, hint, 0, 1);
    }

    /**
     * The same, leaving out {@code drop} frames below the runtime's (see {@link #walkAndRecord}), and
     * counting for {@code ticks} samples (see {@link #recordNode(Node, int)}).
     */
    void recordTrace(StackTraceElement[] trace, ClassLoader hint, int drop, int ticks) {
        int top = 0;
        while (top < trace.length && trace[top].getClassName().startsWith("jprewrite.runtime.")) {
            top++;
        }
        top = Math.min(trace.length, top + drop);
        int hidden = 0;
        for (int i = top; i < trace.length; i++) {
            if (isHidden(trace[i].getClassName())) {
                hidden++;
            }
        }
        int d = trace.length - top - hidden;
        Object[] ids = new Object[d];
        int[] lines = new int[d];
        int k = 0;
        for (int i = trace.length - 1; i >= top; i--) {
            StackTraceElement e = trace[i];
            if (isHidden(e.getClassName())) {
                continue;
            }
            ids[k] = Frames.candidates(e, hint);
            lines[k++] = e.getLineNumber();
        }
        record(ids, lines, ticks);
    }

    /**
     * A hidden class's frame (a lambda's proxy, {@code Main$$Lambda$14/0x0000...}): a stack trace
     * shows it, a thread's own walk does not (no {@code SHOW_HIDDEN_FRAMES}), and neither does JFR; left
     * out so that both kinds of sample of one context land on one path.
     */
    static boolean isHidden(String className) {
        return className.indexOf("/0x") >= 0 || className.indexOf("$$Lambda$") >= 0;
    }

    private synchronized void record(Object[] ids, int[] lines, int ticks) {
        seen();
        int d = ids.length;
        ensure(d);
        Node node = root;
        boolean same = true;
        for (int i = 0; i < d; i++) {
            node = node.child(Frames.pick(ids[i], lines[i], node));
            if (same && i < depth && path[i] == node) {
                continue;
            }
            same = false;
            node.rare().fresh++;
            path[i] = node;
            keyClass[i] = null;   // no class or bci from a stack trace: compared by method next time
        }
        node.rare().samples += ticks;
        depth = d;
    }

    private void ensure(int d) {
        if (d > path.length) {
            int n = Math.max(d, path.length * 2);
            path = java.util.Arrays.copyOf(path, n);
            keyClass = java.util.Arrays.copyOf(keyClass, n);
            keyBci = java.util.Arrays.copyOf(keyBci, n);
            mids = java.util.Arrays.copyOf(mids, n);
        }
    }
}
