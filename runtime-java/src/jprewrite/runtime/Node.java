package jprewrite.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * One calling context: a node of a thread's calling context tree (JP's IC, CCCP's CC).
 *
 * <p>Only the owning thread mutates a node; other threads (the exit-time writer, the thread that
 * folds ended threads, profiling agents) may read it at any time. The tree is therefore built so
 * that racy reads are safe without locks or volatile accesses: a new child is fully constructed,
 * with its structure in final fields, before it is linked in front of the immutable list of its
 * older siblings; counters are plain longs that a reader may see slightly stale.
 *
 * <p>Memory: a context is 56 bytes with compressed oops (12-byte header, seven references, two
 * longs), measured by {@code tests/test_profile_output.py}; the rare counters (weighted bytecodes,
 * samples, allocations) live in one optional {@link Rare} object, and a context that has callees
 * may also have a child cache ({@code 24 + 4 * sites} bytes, rounded up to 8). Each byte counts: a
 * compiler's run makes tens of millions of contexts, and 16 bytes more a context cost scalac 9 % CPU.
 */
public class Node {
    /** The method this context is in. */
    public final MethodId method;
    /** The caller's context; null for a thread root. */
    public final Node parent;
    /** The thread root this node belongs to. */
    public final ThreadRoot root;
    /** Invocations of {@link #method} in this context. */
    public long calls;
    /** Bytecodes executed in this context (exclusive of callees). */
    public long bytecodes;

    /** The next older sibling; never changes. */
    final Node next;
    /** The most recently created child (the head of the child list). */
    Node first;
    /**
     * Child cache, allocated once walking the children costs (see {@link #LAZY_CACHE_CALLS}): one
     * slot per call site ({@code method.sites} of them), then a pair shared by unknown sites and the
     * children the sites' slots dropped. One slot, not two: a second slot per site (for bimorphic
     * virtual calls) made scalac's caches 150 MB larger, for no measurable CPU time saved.
     */
    private Node[] cache;
    /**
     * The rare counters of this context (weighted bytecodes, samples, allocations), or null until
     * the first one (see {@link Sampling}): kept out of the node so that a context stays at 56
     * bytes. Created once, by compare-and-set, since the owning thread (allocations, weights) and
     * the sampler thread (samples of a blocked thread) may both create it.
     */
    volatile Rare rare;

    private static final AtomicReferenceFieldUpdater<Node, Rare> RARE =
            AtomicReferenceFieldUpdater.newUpdater(Node.class, Rare.class, "rare");

    Node(MethodId method, Node parent, ThreadRoot root, Node next) {
        this.method = method;
        this.parent = parent;
        this.root = root;
        this.next = next;
    }

    /**
     * A new context of {@code method}: a {@link LeafNode} when the method has leaf call sites (whose
     * code counts into the node's slots), else a plain one. Every context a rewritten method's code can
     * be handed is made here (or is a {@link LeafNode} of its own, {@code ThreadRoot.Quiet}).
     */
    static Node make(MethodId method, Node parent, ThreadRoot root, Node next) {
        return method.leafCount == 0 ? new Node(method, parent, root, next) : new LeafNode(method, parent, root, next);
    }

    /**
     * The counted leaf calls of this context as detached children (see {@link LeafNode}), linked by
     * {@link #nextSibling()}, or null: readers of the tree walk them after the linked children.
     */
    Node leafChildren() {
        return null;
    }

    /** The constructor of a thread root. */
    Node(MethodId rootMethod) {
        this.method = rootMethod;
        this.parent = null;
        this.root = (ThreadRoot) this;
        this.next = null;
    }

    /**
     * The child context for a call of {@code callee} from call site {@code site} (-1 if unknown,
     * {@link #ENTERED} from an N2B wrapper), created if absent; counts the call.
     *
     * <p>The commonest hit first: the site's slot, or the newest child while there is no cache.
     * {@code ENTERED} must not reach the newest child check: a recursive method entered from the JDK
     * has itself as its newest child.
     *
     * <p>One method, fast and slow path, on purpose: its bytecode is longer than C2's
     * {@code FreqInlineSize} (325 bytes), so C2 never inlines it into an ESI twin. Inlined, the slow
     * path's live values set the size of the twin's compiled frame: a one-parameter recursion
     * reached 9,400-9,800 levels on a warm second descent against 39,300 with {@code enter} called
     * (the original: 23,600; {@code -Xss} default, JDK 17). In a large program C2 compiles this
     * method first, on its own, and then refuses to inline it anyway ("already compiled into a big
     * method"); a CPU difference between the two did not show on sunflow, math or xalan (flag-only
     * experiment, 3-4 alternating pairs each, all inside the noise).
     */
    public final Node enter(int site, MethodId callee) {
        Node[] c = cache;
        if (c != null) {
            if (site >= 0 && site < c.length) {
                Node n = c[site];
                if (n != null && n.method == callee) {
                    n.calls++;
                    return n;
                }
            }
        } else if (site != ENTERED) {   // no cache (yet): the newest child first
            Node f = first;
            if (f != null && f.method == callee) {
                f.calls++;
                return f;
            }
        }
        if (site == ENTERED) {
            return this;
        }
        Node n = null;
        if (c != null) {
            int v = c.length - 2;   // the shared pair at the end: unknown sites, and what the sites dropped
            n = c[v];
            if (n == null || n.method != callee) {
                n = c[v + 1];
                if (n != null && n.method != callee) {
                    n = null;
                }
            }
        }
        boolean walked = false;
        if (n == null) {
            n = first;
            int steps = 0;
            while (n != null && n.method != callee) {
                n = n.next;
                steps++;
            }
            if (n == null) {
                n = make(callee, this, root, first);
                first = n; // publish only once fully constructed
            }
            walked = steps > 0 && (calls > 1 || steps > 3 || n.calls >= LAZY_CACHE_CALLS);
        }
        if (c == null && walked && (site == -1 || site >= 0 && site < method.sites)) {
            c = new Node[method.sites + 2];
            cache = c;
        }
        if (c != null) {
            cacheChild(c, site, n);
        }
        n.calls++;
        return n;
    }

    /**
     * {@link #enter}, then hybrid mode's entry yieldpoint: what an ESI twin calls in place of
     * {@code enter} when its body starts with a yieldpoint. The twin's bytecode stays exactly as long
     * as in exact mode (the JIT's inlining limits count bytecodes), and this method is short enough to
     * be inlined everywhere: a volatile read and a branch, as before.
     *
     * <p>The sample is this node, the caller's, as in sample mode ({@code Sampling.entry()}): nothing of
     * the callee has run yet, and the time since the thread's previous yieldpoint was spent in the
     * caller (the callee's own time reaches its loop and exit yieldpoints). Charged to the callee, the
     * caller's code before each call went to the callee: against JFR at 1 ms, h2's overlap was 31.5 %
     * instead of 42.1 %.
     */
    public final Node enterSampled(int site, MethodId callee) {
        Node n = enter(site, callee);
        if (Sampling.requested != 0) {
            Sampling.yieldpoint(this);
        }
        return n;
    }

    /**
     * Calls of a child after which its parent gets a child cache even if the parent was entered only
     * once (a hot loop in {@code main}). Until then, and in contexts with one callee, the children
     * are found by walking their list: most contexts of a deeply recursive program (a compiler) are
     * entered once and call few methods, and a cache each cost scalac a tenth of its memory.
     */
    private static final int LAZY_CACHE_CALLS = 8;

    /** Site value meaning "this node is already the callee's, entered by an N2B wrapper". */
    public static final int ENTERED = -2;

    /**
     * Put {@code n} in the cache: in its call site's slot, the child it replaces going to the shared
     * pair at the end (so bimorphic sites, and entries from unknown sites, mostly hit there instead
     * of walking the children).
     */
    private static void cacheChild(Node[] c, int site, Node n) {
        int v = c.length - 2;
        Node dropped = n;
        if (site >= 0 && site < v) {
            dropped = c[site];
            c[site] = n;
        }
        if (dropped != null && dropped != c[v]) {
            c[v + 1] = c[v];
            c[v] = dropped;
        }
    }

    /**
     * Enter the (uninstrumented) callee's node and publish it for callbacks. The slot is written only
     * when it changes (a loop calling one JDK method): see {@link ThreadRoot#pendingCaller} on why
     * stores into the root are worth avoiding.
     */
    public final void boundary(int site, MethodId callee) {
        Node c = enter(site, callee);
        ThreadRoot r = root;
        if (r.published != c) {
            r.published = c;
        }
    }

    /**
     * Publish this node and the call site of the constructor about to be called: the constructor's
     * prologue ({@link ThreadRoot#ctorEnter}) enters beneath it (constructors have no ESI twin).
     */
    public final void publishCall(int site) {
        ThreadRoot r = root;
        if (r.published != this) {
            r.published = this;
        }
        r.publishedSite = site;
    }

    /** Make this node the parent of callbacks (static initialisers about to run). */
    public final void publish() {
        root.published = this;
    }

    /**
     * {@link #publish()} unless {@code initialised}: the caller's flag that the class it is about to
     * touch has been touched before, so its static initialiser cannot run again (the flag spares the
     * reference store into the thread's root, which G1's write barrier makes cost a fence once the
     * root is an old object).
     */
    public final void publishInit(boolean initialised) {
        if (!initialised) {
            root.published = this;
        }
    }

    /**
     * Add {@code w} weighted bytecodes (per-bytecode cost weights, {@code --weights}) to this context:
     * the rewriter's call at the start of each basic block when weights are on. Weights are a research
     * option, so their counter lives in {@link Rare} and costs every other run nothing.
     */
    public final void addWeighted(long w) {
        rare().weighted += w;
    }

    /** Weighted bytecodes executed in this context, exclusive of callees (0 unless weights are on). */
    public final long weighted() {
        Rare s = rare;
        return s == null ? 0 : s.weighted;
    }

    /** Count one allocation of {@code type} (internal name or array descriptor) in this context. */
    public final void allocate(String type) {
        Rare x = rare;
        for (Alloc a = x == null ? null : x.allocs; a != null; a = a.next) {
            if (a.type == type) {
                a.count++;
                return;
            }
        }
        allocateSlow(type == null ? "?" : type);
    }

    private void allocateSlow(String type) {
        addAllocations(type, 1);
    }

    /** The allocation counts of this context, newest type first, or null. */
    final Alloc allocs() {
        Rare x = rare;
        return x == null ? null : x.allocs;
    }

    /** The newest child, or null; with {@link #nextSibling()} a consistent snapshot of the children. */
    public final Node firstChild() {
        return first;
    }

    /** The next older sibling, or null. */
    public final Node nextSibling() {
        return next;
    }

    /** A copy of the current children, oldest first (the counted leaf calls first, detached). */
    public final Node[] children() {
        ArrayList<Node> list = new ArrayList<Node>();
        for (Node n = leafChildren(); n != null; n = n.next) {
            list.add(n);
        }
        for (Node n = first; n != null; n = n.next) {
            list.add(n);
        }
        Node[] out = new Node[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = list.get(out.length - 1 - i);
        }
        return out;
    }

    /** How many allocations of {@code type} this context made. */
    public final long allocations(String type) {
        long sum = 0;
        for (Alloc a = allocs(); a != null; a = a.next) {
            if (a.type.equals(type)) {
                sum += a.count;
            }
        }
        return sum;
    }

    /** A copy of the allocation counts of this context (type -> count), oldest type first. */
    public final Map<String, Long> allocationCounts() {
        ArrayList<Alloc> list = new ArrayList<Alloc>();
        for (Alloc a = allocs(); a != null; a = a.next) {
            list.add(a);
        }
        LinkedHashMap<String, Long> out = new LinkedHashMap<String, Long>();
        for (int i = list.size() - 1; i >= 0; i--) {
            Alloc a = list.get(i);
            Long old = out.get(a.type);
            out.put(a.type, old == null ? a.count : old + a.count);
        }
        return out;
    }

    /**
     * Add the counters of the subtree beneath {@code src} (a detached tree of this thread, see
     * {@link Measure}) to the children of this node, as if its calls had been made here. Owning
     * thread only; iterative, since measured code may recurse deeply.
     */
    final void graft(Node src) {
        ArrayList<Node> from = new ArrayList<Node>();
        ArrayList<Node> to = new ArrayList<Node>();
        from.add(src);
        to.add(this);
        while (!from.isEmpty()) {
            int last = from.size() - 1;
            Node s = from.remove(last);
            Node d = to.remove(last);
            for (Node c = s.first; c != null; c = c.next) {
                Node t = d.child(c.method);
                Nodes.addCounters(t, c);
                from.add(c);
                to.add(t);
            }
            for (Node c = s.leafChildren(); c != null; c = c.next) {
                Nodes.addCounters(d.child(c.method), c);
            }
        }
    }

    /**
     * The child for {@code callee}, created if absent, without counting a call or touching the cache
     * (grafts, and the sampled trees of sample mode, whose nodes count samples only).
     */
    final Node child(MethodId callee) {
        Node n = first;
        while (n != null && n.method != callee) {
            n = n.next;
        }
        if (n == null) {
            n = make(callee, this, root, first);
            first = n;
        }
        return n;
    }

    /** Add {@code count} allocations of {@code type} (the owning thread, or a writer holding the tree). */
    final void addAllocations(String type, long count) {
        Rare x = rare();
        for (Alloc a = x.allocs; a != null; a = a.next) {
            if (a.type.equals(type)) {
                a.count += count;
                return;
            }
        }
        Alloc a = new Alloc(type, x.allocs);
        a.count = count;
        x.allocs = a;
    }

    /** Samples whose innermost frame was this context (0 unless sampling is on). */
    public final long samples() {
        Rare s = rare;
        return s == null ? 0 : s.samples;
    }

    /** Samples in which this context's frame had been entered since the thread's previous sample. */
    public final long fresh() {
        Rare s = rare;
        return s == null ? 0 : s.fresh;
    }

    /**
     * The rare counters, created on first use: samples are recorded under the thread's sampling lock
     * (see {@link SampleState}), allocations and weights by the owning thread; creation is atomic.
     */
    final Rare rare() {
        Rare s = rare;
        if (s == null) {
            s = new Rare();
            if (!RARE.compareAndSet(this, null, s)) {
                s = rare;
            }
        }
        return s;
    }

    /** Forget the child cache (a thread that has ended: the cache only speeds up its own calls). */
    final void dropCache() {
        cache = null;
    }

    @Override
    public String toString() {
        return method.methodString() + " calls=" + calls + " bytecodes=" + bytecodes;
    }

    /** The rare counters of one context: weighted bytecodes, samples (see {@link Sampling}), allocations. */
    static final class Rare {
        long weighted;
        long samples;
        long fresh;
        /** Allocation counts, newest type first; written by the owning thread only. */
        Alloc allocs;
        /**
         * Hybrid mode: {@link #calls} of the node when it was last on a sampled path (-1: never). Equal to
         * {@code calls} now means no activation of this context began since, so the one on the stack
         * is the one sampled then: it and its callers are not fresh.
         */
        long seenCalls = -1;
    }

    /** One allocation counter; {@code type} and {@code next} never change. */
    static final class Alloc {
        final String type;
        final Alloc next;
        long count;

        Alloc(String type, Alloc next) {
            this.type = type;
            this.next = next;
        }
    }
}
