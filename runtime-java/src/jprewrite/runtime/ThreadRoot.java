package jprewrite.runtime;

/**
 * The root of one thread's calling context tree (JP's RC), and the per-thread state that
 * instrumented code shares with the wrappers called back from uninstrumented code.
 *
 * <p>See {@code docs/runtime-contract.md}: {@link #published} is the node of the innermost
 * boundary call (where callbacks from uninstrumented code attach); the pending-call fields
 * describe a call into uninstrumented code whose dispatch may land directly in instrumented code.
 */
public final class ThreadRoot extends Node {
    /** The MID of every thread root. */
    static final MethodId ROOT = new MethodId("", "<root>", "", MethodId.KIND_INSTRUMENTED, 0);

    private static final ThreadLocal<ThreadRoot> CURRENT = new ThreadLocal<ThreadRoot>();

    /**
     * Every root by its thread, so that the sampler thread can find (or, for a thread it samples in
     * sample mode, create) another thread's root. Guarded by itself; touched once per thread start.
     */
    private static final java.util.WeakHashMap<Thread, ThreadRoot> BY_THREAD = new java.util.WeakHashMap<Thread, ThreadRoot>();

    /** The first registered thread's root (usually {@code main}); cleared when that thread ends. */
    static ThreadRoot first;

    /** Where callbacks from uninstrumented code attach; null means the root itself. */
    public Node published;

    /** The call site published with {@link #published} for a constructor call (-1: none). */
    public int publishedSite = -1;
    /** JP's activationCounter: bytecodes left until the next {@link #triggerReport}. */
    public int activation;

    /**
     * The pending call: open while {@link #pendingOpen}. Its caller and target stay behind once it is
     * closed (they are in the tree anyway) and are stored again only when they change: a reference
     * store into this root, an old object after a few collections, costs G1's write barrier and its
     * memory fence, and a loop's pending calls come from one caller to one target. The receiver, a
     * program object, is cleared at once (keeping it reachable could change what the program's
     * weak references see).
     */
    Node pendingCaller;
    int pendingSite;
    MethodId pendingTarget;
    Object pendingReceiver;
    boolean pendingOpen;

    /** Registration record: a weak reference to the owning thread. */
    final Registry.Entry owner;

    /** The thread's sampling state, created on its first sample (see {@link Sampling}); null otherwise. */
    SampleState sampleState;

    private boolean reporting;

    ThreadRoot(Thread thread) {
        super(ROOT);
        this.owner = new Registry.Entry(thread, this);
    }

    /**
     * Roots by thread id (modulo the length): a fast path for {@link #current()} in every thread, not
     * only the first. Constructors and N2B wrappers find their thread's root here on every call;
     * {@link #CURRENT}'s lookup cost as much as a quarter of the profiling overhead of programs that
     * compute in worker threads. A slot is checked against its thread (ids of other threads with the
     * same low bits, or a subclass overriding {@code getId()}, only cost the thread-local lookup).
     */
    private static final ThreadRoot[] BY_ID = new ThreadRoot[256];

    /** The calling thread's root, created and registered on first use. */
    public static ThreadRoot current() {
        Thread t = Thread.currentThread();
        ThreadRoot r = BY_ID[(int) t.getId() & (BY_ID.length - 1)];
        if (r != null && r.owner.get() == t) {
            return r;
        }
        return currentSlow(t);
    }

    private static ThreadRoot currentSlow(Thread t) {
        ThreadRoot r = CURRENT.get();
        if (r == null) {
            r = create(t);
        }
        BY_ID[(int) t.getId() & (BY_ID.length - 1)] = r;
        return r;
    }

    /** Drop {@code r} from the fast path (its thread has ended and its tree is folded). */
    static void forget(ThreadRoot r) {
        for (int i = 0; i < BY_ID.length; i++) {
            if (BY_ID[i] == r) {
                BY_ID[i] = null;
            }
        }
    }

    private static ThreadRoot create(Thread t) {
        ThreadRoot r;
        boolean made = false;
        synchronized (BY_THREAD) {
            r = BY_THREAD.get(t);
            if (r == null) {
                r = new ThreadRoot(t);
                BY_THREAD.put(t, r);
                made = true;
            }
        }
        CURRENT.set(r);
        Registry.register(t, r, made);
        return r;
    }

    /**
     * The root of {@code t}, created and registered if it has none (the sampler thread recording a
     * sample of another thread in sample mode). The profiling agent's {@code register} is called
     * later, by the thread itself, when it first asks for its root.
     */
    static ThreadRoot of(Thread t) {
        if (t == Thread.currentThread()) {
            return current();
        }
        ThreadRoot r;
        synchronized (BY_THREAD) {
            r = BY_THREAD.get(t);
            if (r != null) {
                return r;
            }
            r = new ThreadRoot(t);
            BY_THREAD.put(t, r);
        }
        Registry.registerOther(r);
        return r;
    }

    /** The root of {@code t}, or null when it has none. */
    static ThreadRoot existing(Thread t) {
        synchronized (BY_THREAD) {
            return BY_THREAD.get(t);
        }
    }

    /**
     * The parent context of an N2B (or OSI) entry into {@code callee} on receiver {@code self}
     * (null for static methods and initialisers).
     *
     * <p>With a pending call open: if {@code self} is its receiver and {@code callee} has the same
     * name and descriptor, dispatch went straight to instrumented code and the caller is the parent;
     * otherwise this is a callback from the uninstrumented callee, whose node is created and
     * published first. Without one: the published node, or the root.
     */
    public static Node n2bParent(Object self, MethodId callee) {
        return entry(self, callee, false);
    }

    /**
     * The N2B entry: find the parent as {@link #n2bParent} does and enter {@code callee}'s node beneath
     * it. A call that dispatch sent straight from an instrumented call site (a consumed pending call)
     * enters through that call site's cache slot, so hot interface and virtual calls through classes
     * that cannot take ESI methods stay a cache hit. The N2B passes the result to the ESI method with
     * site {@link Node#ENTERED}.
     */
    public static Node n2bEnter(Object self, MethodId callee) {
        return entry(self, callee, true);
    }

    /**
     * The prologue of an instrumented constructor: its node beneath the published one, entered
     * through the call site the caller published with it ({@link Node#publishCall}); the site is
     * used once. Called from uninstrumented code (reflection, the JDK) it is a callback, as for
     * an N2B wrapper. A stale site (a caller whose constructor did not consume it) only costs a
     * cache miss: {@link Node#enter} checks the method of a cached child.
     */
    public static Node ctorEnter(MethodId callee) {
        return entry(null, callee, true);   // the N2B entry of a static method: no receiver to match
    }

    /**
     * {@link #ctorEnter}, then hybrid mode's entry yieldpoint (see {@link Node#enterSampled}): the
     * constructor's bytecode stays as long as in exact mode. The sample is the caller's node.
     */
    public static Node ctorEnterSampled(MethodId callee) {
        Node n = ctorEnter(callee);
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(n.parent != null ? n.parent : n);
        }
        return n;
    }

    /**
     * The N2B entry of a class loader's {@code loadClass(String)}, {@code loadClass(String, boolean)}
     * or {@code findClass(String)} written in the program: {@link #n2bEnter}, unless the loader is
     * asked for one of jprewrite's own classes ({@link #isOwnClass}). Those requests come from the
     * rewriting (rewritten code names the runtime and its holder class, and the JVM resolves the
     * names through the class's loader): the program without jprewrite never makes them. Their
     * code runs beneath a {@link Quiet} node, counted nowhere, and leaves the thread's published
     * node and pending call as it found them; {@link #n2bLeave} restores both.
     */
    public static Node n2bEnterLoader(Object self, MethodId callee, String name) {
        if (name != null && isOwnClass(name)) {
            return new Quiet(callee, current());
        }
        return entry(self, callee, true);
    }

    /** An N2B wrapper's exit from {@link #n2bEnterLoader}: the published node as it was, and for a quiet entry the pending call too. */
    public static void n2bLeave(Node parent, Node saved) {
        if (parent instanceof Quiet) {
            ((Quiet) parent).leave();
        } else {
            parent.root.published = saved;
        }
    }

    /**
     * An N2B wrapper's exit by exception {@code t} (what its handler calls before it rethrows): the
     * published node as it was ({@code node.root.published = saved}, as on the normal exit), and
     * {@code t} made ready for the JDK to print ({@link Texts#leaving}: its trace cleaned, its texts
     * the original's) when {@code node} is a top-level context of its thread. An exception leaving
     * such a context leaves the program's code in this thread, for the JDK code that called in, which
     * may print it: a {@code Thread} running a lambda or a method reference, whose uncaught exception
     * the JVM prints, an executor. Deeper down, the program's own code gets it first. One call, so
     * the handler is shorter than the inline restore.
     */
    public static void n2bRethrow(Throwable t, Node node, Node saved) {
        ThreadRoot r = node.root;
        r.published = saved;
        if (node.parent == r) {
            Texts.leaving(t);
        }
    }

    /** Is {@code binaryName} one of jprewrite's classes: the runtime or a holder ({@code C$$jpmids})? */
    static boolean isOwnClass(String binaryName) {
        return binaryName.startsWith("jprewrite.runtime.") || binaryName.endsWith("$$jpmids");
    }

    /**
     * A node detached from the thread's tree, for code the program would not run without jprewrite:
     * whatever is counted beneath it is dropped with it. While it is the entered node, it is the
     * published one and no pending call is open (so callbacks beneath it stay beneath it and none
     * of them consumes the program's pending call); {@link #leave} puts both back.
     */
    static final class Quiet extends LeafNode {   // (a loader method's node: it may have leaf sites)
        private final Node published;
        private final int publishedSite;
        private final boolean pendingOpen;
        private final Node pendingCaller;
        private final int pendingSite;
        private final MethodId pendingTarget;
        private final Object pendingReceiver;

        Quiet(MethodId method, ThreadRoot r) {
            super(method, null, r, null);
            published = r.published;
            publishedSite = r.publishedSite;
            pendingOpen = r.pendingOpen;
            pendingCaller = r.pendingCaller;
            pendingSite = r.pendingSite;
            pendingTarget = r.pendingTarget;
            pendingReceiver = r.pendingReceiver;
            r.published = this;
            r.publishedSite = -1;
            r.pendingOpen = false;
            r.pendingReceiver = null;
        }

        void leave() {
            ThreadRoot r = root;
            r.published = published;
            r.publishedSite = publishedSite;
            r.pendingOpen = pendingOpen;
            r.pendingCaller = pendingCaller;
            r.pendingSite = pendingSite;
            r.pendingTarget = pendingTarget;
            r.pendingReceiver = pendingReceiver;
        }
    }

    /** The parent of an entry from uninstrumented code, or (with {@code enter}) the callee's node beneath it. */
    private static Node entry(Object self, MethodId callee, boolean enter) {
        ThreadRoot r = current();
        if (r.pendingOpen) {
            Node caller = r.pendingCaller;
            MethodId target = r.pendingTarget;
            Object receiver = r.pendingReceiver;
            int site = r.pendingSite;
            r.pendingOpen = false;
            r.pendingReceiver = null;
            // dispatch came straight here (a static call's receiver and an N2B's self are null: a
            // call site that is pending only because another JVM release loads another copy of the
            // class, see CctPlan.also_valid_in)
            if (self == receiver && callee != null && callee.sameSelector(target)) {
                return enter ? caller.enter(site, callee) : caller;
            }
            Node b = caller.enter(site, target);   // a callback from the uninstrumented callee
            r.published = b;
            return enter ? b.enter(-1, callee) : b;
        }
        Node p = r.published;
        if (p == null) {
            p = r;
        }
        if (!enter) {
            return p;
        }
        int site = r.publishedSite;   // set by a publishing dispatcher (Node.publishCall); used once
        r.publishedSite = -1;
        return p.enter(site, callee);
    }

    /** Open a pending call: {@code caller} is about to call {@code target} on {@code receiver}. */
    public static void pending(Node caller, int site, MethodId target, Object receiver) {
        ThreadRoot r = caller.root;
        if (r.pendingCaller != caller) {
            r.pendingCaller = caller;
        }
        r.pendingSite = site;
        if (r.pendingTarget != target) {
            r.pendingTarget = target;
        }
        r.pendingReceiver = receiver;
        r.pendingOpen = true;
    }

    /**
     * The pending call has returned (or thrown): if it is still open, the uninstrumented method ran
     * without calling back, so count it as a boundary call; close it.
     */
    public static void endPending(Node caller, int site, MethodId target) {
        ThreadRoot r = caller.root;
        if (r.pendingOpen && r.pendingCaller == caller && r.pendingSite == site && r.pendingTarget == target) {
            r.pendingOpen = false;
            r.pendingReceiver = null;
            caller.enter(site, target);
        }
    }

    /**
     * Called by an ESI whose receiver's class is not the instrumented class that declares it: null
     * when ordinary dispatch of the method on {@code self} selects instrumented code (the ESI may
     * run); otherwise the override is uninstrumented, so enter and publish its boundary node (kind
     * 2, named by the overriding class) and return it; the ESI then calls the original method.
     */
    public static Node redirect(Object self, Node caller, int site, MethodId esi) {
        if (self == null || caller == null || esi == null) {
            return null;
        }
        MethodId override;
        try {
            override = Dispatch.override(self.getClass(), esi);
        } catch (Throwable e) {
            Log.once("redirect", "cannot resolve overrides of " + esi.methodString(), e);
            return null;
        }
        if (override == null || caller.method == override) {
            // instrumented code is selected, or the override is calling super.m(...) back into us
            return null;
        }
        Node b = caller.enter(site, override);
        caller.root.published = b;
        return b;
    }

    /**
     * May an interface call pass the node to {@code self}'s ESI methods? Only when {@code self}'s class
     * and its application superclasses are all instrumented (not a proxy, lambda, mock or plugin).
     */
    public static boolean esiCapable(Object self) {
        return self != null && Dispatch.esiCapable(self.getClass());
    }

    /** JP's periodic activation: hand this thread's tree to the profiling agent. */
    public final void triggerReport(Node current) {
        if (reporting) {
            return;
        }
        reporting = true;
        activation = Integer.MAX_VALUE;
        try {
            activation = Registry.profiler().report(this, current);
        } catch (Throwable e) {
            Log.once("profiler.report", "the profiling agent failed in report()", e);
            activation = Integer.MAX_VALUE;
        } finally {
            reporting = false;
        }
    }

    /** The owning thread, or null once it has ended and been garbage collected. */
    public Thread thread() {
        return owner.get();
    }
}
