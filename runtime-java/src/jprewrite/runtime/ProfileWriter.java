package jprewrite.runtime;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The profile written straight from the live trees (see README "Profile format"): no merged copy.
 *
 * <p>The merged tree of all threads (and the tree of each thread name, itself the merge of every
 * thread of that name) is merged node by node while it is written: a context of the output is a
 * {@link Group} of source nodes with the same method name under the same output parent, made when
 * its parent is written and dropped when its subtree is done, so memory is the depth of the tree
 * times its fan-out, not its size.
 *
 * <p>Children are written hottest first and every context carries its inclusive bytecodes, which
 * needs subtree sums before a subtree is written: a first pass ({@link #index}) numbers every source
 * node in pre-order (oldest child first) and keeps its inclusive count and subtree size in paged
 * arrays, 12 bytes a node, freed after the write. The second pass finds a node's number from its
 * parent's and its older siblings' sizes, so it needs nothing per node either. Trees of running
 * threads may grow between the passes: new children come at the head of a child list, so the second
 * pass takes exactly the children the first one saw (the oldest ones), and a node's own count is its
 * inclusive count less its children's, both read once: the output is consistent.
 */
final class ProfileWriter {
    /** {@code -Djprewrite.threads}: per-thread-name trees (the default), names only, or nothing. */
    static final int THREADS_ALL = 0;
    static final int THREADS_MERGED_ONLY = 1;
    static final int THREADS_NONE = 2;

    /** The trees of a profile: roots of the merged tree, and the roots of each thread name. */
    static final class Sources {
        /** Every distinct root, in order: what the first pass numbers. */
        final ArrayList<Node> all = new ArrayList<Node>();
        final ArrayList<Node> merged = new ArrayList<Node>();
        final LinkedHashMap<String, ArrayList<Node>> threads = new LinkedHashMap<String, ArrayList<Node>>();
        private final IdentityHashMap<Node, Boolean> seen = new IdentityHashMap<Node, Boolean>();
        private final IdentityHashMap<Node, Boolean> inMerged = new IdentityHashMap<Node, Boolean>();
        /** The top-level {@code "sampling"} object (JSON) or null. */
        String sampling;
        /** How many program runs the profile adds up (more than one after an append). */
        long runs = 1;

        /** A tree of thread {@code name} of this run: part of that thread's tree and of the merged tree. */
        void add(String name, Node root) {
            addMerged(root);
            addThread(name, root);
        }

        /** A tree of the merged tree only (an earlier run's merged tree). */
        void addMerged(Node root) {
            known(root);
            if (inMerged.put(root, Boolean.TRUE) == null) {
                merged.add(root);
            }
        }

        /** A tree of thread {@code name} only (an earlier run's thread tree; its merged tree comes apart). */
        void addThread(String name, Node root) {
            known(root);
            ArrayList<Node> list = threads.get(name);
            if (list == null) {
                list = new ArrayList<Node>();
                threads.put(name, list);
            }
            if (!list.contains(root)) {
                list.add(root);
            }
        }

        /** A thread name whose tree an earlier run did not write (kept as a name). */
        void addName(String name) {
            if (!threads.containsKey(name)) {
                threads.put(name, new ArrayList<Node>());
            }
        }

        private void known(Node root) {
            if (seen.put(root, Boolean.TRUE) == null) {
                all.add(root);
            }
        }
    }

    // ------------------------------------------------------------------ pass 1: numbers, sizes, inclusive counts

    private static final int PAGE_BITS = 16;
    private static final int PAGE = 1 << PAGE_BITS;
    private long[][] keys = new long[16][];
    private int[][] sizes = new int[16][];
    private int count;
    private final IdentityHashMap<Node, Integer> base = new IdentityHashMap<Node, Integer>();
    /** Any call or bytecode counted (else a sampled profile: children ordered by inclusive samples). */
    private boolean counted;
    private boolean anyBytecodes;
    private long totalSamples;
    /** The inclusive key is samples, not bytecodes. */
    private boolean samplesKey;

    private final Sources sources;

    ProfileWriter(Sources sources) {
        this.sources = sources;
        indexAll();
        if (!counted) {
            samplesKey = true;
            indexAll();
        }
    }

    private void indexAll() {
        count = 0;
        base.clear();
        for (Node r : sources.all) {
            index(r);
        }
    }

    private long key(int i) {
        return keys[i >>> PAGE_BITS][i & (PAGE - 1)];
    }

    private int size(int i) {
        return sizes[i >>> PAGE_BITS][i & (PAGE - 1)];
    }

    private int next() {
        int i = count++;
        int p = i >>> PAGE_BITS;
        if (p == keys.length) {
            keys = Arrays.copyOf(keys, p * 2);
            sizes = Arrays.copyOf(sizes, p * 2);
        }
        if (keys[p] == null) {
            keys[p] = new long[PAGE];
            sizes[p] = new int[PAGE];
        }
        return i;
    }

    private Node[][] kids = new Node[64][];
    private int[] left = new int[64];
    private int[] at = new int[64];
    private long[] acc = new long[64];
    private Node[] onPath = new Node[64];

    /** Number the nodes of one tree in pre-order, oldest child first; iterative (trees 10,000+ deep). */
    private void index(Node root) {
        base.put(root, count);
        push1(0, root);
        int d = 1;
        while (d > 0) {
            int t = d - 1;
            if (left[t] > 0) {
                Node c = kids[t][--left[t]];
                if (d == kids.length) {
                    int n = d * 2;
                    kids = Arrays.copyOf(kids, n);
                    left = Arrays.copyOf(left, n);
                    at = Arrays.copyOf(at, n);
                    acc = Arrays.copyOf(acc, n);
                    onPath = Arrays.copyOf(onPath, n);
                }
                push1(d, c);
                d++;
            } else {
                int i = at[t];
                Node n = onPath[t];
                long v = acc[t] + (samplesKey ? n.samples() : n.bytecodes);
                keys[i >>> PAGE_BITS][i & (PAGE - 1)] = v;
                sizes[i >>> PAGE_BITS][i & (PAGE - 1)] = count - i;
                onPath[t] = null;
                d--;
                if (d > 0) {
                    acc[d - 1] += v;
                }
            }
        }
    }

    private void push1(int d, Node n) {
        at[d] = next();
        onPath[d] = n;
        acc[d] = 0;
        if (n instanceof LeafNode) {
            acc[d] = indexPairs((LeafNode) n);
        }
        Node[] buf = kids[d];
        if (buf == null) {
            buf = new Node[8];
        }
        int k = 0;
        for (Node c = n.first; c != null; c = c.next) {
            if (k == buf.length) {
                buf = Arrays.copyOf(buf, k * 2);
            }
            buf[k++] = c;
        }
        kids[d] = buf;
        left[d] = k;
        long b = n.bytecodes;
        counted |= n.calls != 0 || b != 0;
        anyBytecodes |= b != 0;
        Node.Rare s = n.rare;
        if (s != null) {
            totalSamples += s.samples;
        }
    }

    /**
     * Number the application leaves' slot pairs of {@code n} with calls (see {@link LeafNode}) right
     * after the node itself, in slot order: each a row of one with its bytecodes as read now (the
     * second pass takes them from here, so that a node's own count stays its inclusive count less its
     * children's even where the owning thread still runs), its size the pair's slot as {@code -1 - k}
     * (so the second pass finds exactly these rows, and where the node's children start); returns
     * their sum.
     */
    private long indexPairs(LeafNode n) {
        int[] pairs = n.method.leafPairSlots();
        if (pairs.length == 0) {
            return 0;
        }
        long[] s = n.leafCalls;
        long sum = 0;
        for (int k : pairs) {
            if (k + 1 < s.length && s[k] != 0) {
                int i = next();
                long v = samplesKey ? 0 : s[k + 1];
                keys[i >>> PAGE_BITS][i & (PAGE - 1)] = v;
                sizes[i >>> PAGE_BITS][i & (PAGE - 1)] = -1 - k;
                sum += v;
                counted = true;
                anyBytecodes |= v != 0;
            }
        }
        return sum;
    }

    // ------------------------------------------------------------------ pass 2: groups, written node by node

    /** One context of the output: the source nodes merged into it. */
    static final class Group {
        MethodId mid;
        String method;
        /** {@code mid.canonical()}: the groups of one method string are one context. */
        int canon;
        int kind;
        Node node;
        int idx;
        Node[] more = new Node[0];
        int[] moreIdx = new int[0];
        int nmore;
        long key;
        long calls;

        void reset(Node n, int i, long k, int canonical) {
            mid = n.method;
            method = mid.methodString();
            canon = canonical;
            kind = mid.kind;
            node = n;
            idx = i;
            nmore = 0;
            key = k;
            calls = n.calls;
        }

        void add(Node n, int i, long k) {
            if (nmore == more.length) {
                int m = Math.max(4, nmore * 2);
                more = Arrays.copyOf(more, m);
                moreIdx = Arrays.copyOf(moreIdx, m);
            }
            more[nmore] = n;
            moreIdx[nmore++] = i;
            key += k;
            calls += n.calls;
        }

        int sources() {
            return node == null ? 0 : 1 + nmore;
        }

        Node source(int j) {
            return j == 0 ? node : more[j - 1];
        }

        int index(int j) {
            return j == 0 ? idx : moreIdx[j - 1];
        }
    }

    private static final Comparator<Group> ORDER = new Comparator<Group>() {
        @Override
        public int compare(Group a, Group b) {
            if (a.key != b.key) {
                return a.key > b.key ? -1 : 1;
            }
            if (a.calls != b.calls) {
                return a.calls > b.calls ? -1 : 1;
            }
            return a.method.compareTo(b.method);
        }
    };

    private static final Comparator<Group> SAMPLE_ORDER = new Comparator<Group>() {
        @Override
        public int compare(Group a, Group b) {
            if (a.key != b.key) {
                return a.key > b.key ? -1 : 1;
            }
            return a.method.compareTo(b.method);
        }
    };

    /** The child groups of each open output context, by depth (reused: a depth has one open context). */
    private Group[][] groups = new Group[64][];
    private int[] groupCount = new int[64];
    private int[] groupPos = new int[64];
    private Node[] scratch = new Node[64];
    /**
     * The group of each method (by {@link MethodId#canonical()}) among the children {@link #expand}
     * is grouping: valid where {@link #groupStamp} holds the current {@link #expansion}, so that
     * nothing is cleared between contexts.
     */
    private Group[] byMethod = new Group[1 << 12];
    private int[] groupStamp = new int[1 << 12];
    private int expansion;

    /** Make the child groups of {@code g} at depth {@code d}; returns how many. */
    private int expand(Group g, int d) {
        if (d == groups.length) {
            groups = Arrays.copyOf(groups, d * 2);
            groupCount = Arrays.copyOf(groupCount, d * 2);
            groupPos = Arrays.copyOf(groupPos, d * 2);
        }
        Group[] buf = groups[d];
        if (buf == null) {
            buf = new Group[8];
            groups[d] = buf;
        }
        int n = 0;
        int stamp = ++expansion;
        if (stamp == Integer.MAX_VALUE) {
            Arrays.fill(groupStamp, 0);
            expansion = stamp = 1;
        }
        int s = g.sources();
        for (int j = 0; j < s; j++) {
            Node src = g.source(j);
            int idx = g.index(j);
            if (idx < 0) {
                continue;   // a counted leaf call (LeafNode): no children, no number of the first pass
            }
            int k = 0;
            for (Node c = src.first; c != null; c = c.next) {
                if (k == scratch.length) {
                    scratch = Arrays.copyOf(scratch, k * 2);
                }
                scratch[k++] = c;
            }
            int end = idx + size(idx);
            int ci = idx + 1;
            while (ci < end && size(ci) < 0) {
                ci++;   // the rows of its slot pairs (indexPairs), read by leafGroups
            }
            for (int i = k - 1; i >= 0 && ci < end; i--) {   // the children pass 1 saw: the oldest k
                Node c = scratch[i];
                scratch[i] = null;
                n = group(c, ci, key(ci), d, n, stamp);
                ci += size(ci);
            }
            for (int i = 0; i < k; i++) {
                scratch[i] = null;
            }
            if (src instanceof LeafNode) {
                n = leafGroups((LeafNode) src, idx + 1, d, n, stamp);
            }
        }
        buf = groups[d];
        if (n > 1) {
            Arrays.sort(buf, 0, n, samplesKey ? SAMPLE_ORDER : ORDER);
        }
        groupCount[d] = n;
        groupPos[d] = 0;
        return n;
    }

    /**
     * The counted leaf calls of {@code src} as child groups: a JDK callee's slot, read once, here (a
     * context without children or bytecodes: its inclusive key is 0, with samples as the key too,
     * and the first pass numbers none); an application leaf's pair from the row the first pass gave
     * it (the rows from {@code row} on whose size is negative: {@link #indexPairs}), with the
     * bytecodes it read then.
     */
    private int leafGroups(LeafNode src, int row, int d, int n, int stamp) {
        long[] s = src.leafCalls;
        MethodId m = src.method;
        int end = row - 1 + size(row - 1);
        for (; row < end && size(row) < 0; row++) {
            int k = -1 - size(row);
            n = group(src.pairChild(k, samplesKey ? s[k + 1] : key(row)), row, key(row), d, n, stamp);
        }
        for (int k = 0; k < s.length; k++) {
            MethodId callee = m.leafCallee(k);
            if (callee != null && callee.kind != MethodId.KIND_INSTRUMENTED && s[k] != 0) {
                Node x = new Node(callee, src, src.root, null);
                x.calls = s[k];
                n = group(x, -1, 0, d, n, stamp);
            }
        }
        return n;
    }

    /**
     * Add child {@code c} (first-pass number {@code i}, -1 for a counted leaf call; inclusive key
     * {@code key}) to the groups at depth {@code d}, of which there are {@code n}: to its method's
     * group, or as a new one. Returns the number of groups.
     */
    private int group(Node c, int i, long key, int d, int n, int stamp) {
        int m = c.method.canonical();
        if (m >= groupStamp.length) {
            int size = Math.max(m + 1, groupStamp.length * 2);
            groupStamp = Arrays.copyOf(groupStamp, size);
            byMethod = Arrays.copyOf(byMethod, size);
        }
        if (groupStamp[m] == stamp) {
            byMethod[m].add(c, i, key);
            return n;
        }
        Group[] buf = groups[d];
        if (n == buf.length) {
            buf = Arrays.copyOf(buf, n * 2);
            groups[d] = buf;
        }
        Group ng = buf[n];
        if (ng == null) {
            ng = new Group();
            buf[n] = ng;
        }
        ng.reset(c, i, key, m);
        groupStamp[m] = stamp;
        byMethod[m] = ng;
        return n + 1;
    }

    /** The root group of some source trees. */
    private Group rootGroup(List<Node> roots) {
        Group g = new Group();
        g.mid = ThreadRoot.ROOT;
        g.method = ThreadRoot.ROOT.methodString();
        g.canon = ThreadRoot.ROOT.canonical();
        g.kind = MethodId.KIND_INSTRUMENTED;
        for (Node r : roots) {
            int i = base.get(r);
            if (g.node == null) {
                g.node = r;
                g.idx = i;
                g.key = key(i);
                g.calls = r.calls;
            } else {
                g.add(r, i, key(i));
            }
        }
        return g;
    }

    /** What a sink writes for one context (JSON, collapsed stacks, {@link ProfileBinary}). */
    interface Sink {
        /** The context {@code g} at {@code depth} (0: the root), with its own bytecodes and children count. */
        void open(Group g, long self, int children, int depth) throws IOException;

        /** Before each child of an open context ({@code first}: the first one). */
        void between(boolean first) throws IOException;

        /** After the last child of the context at {@code depth}. */
        void close(int depth) throws IOException;
    }

    /** Walk the merged tree of {@code roots}, depth first, children in output order. */
    void walk(List<Node> roots, Sink sink) throws IOException {
        Group root = rootGroup(roots);
        int n = expand(root, 0);
        sink.open(root, self(root, 0, n), n, 0);
        int d = 1;
        while (d > 0) {
            int t = d - 1;
            int p = groupPos[t];
            if (p < groupCount[t]) {
                groupPos[t] = p + 1;
                Group c = groups[t][p];
                sink.between(p == 0);
                int k = expand(c, d);
                sink.open(c, self(c, d, k), k, d);
                d++;
            } else {
                sink.close(t);
                d--;
            }
        }
    }

    /**
     * Only the root context of the merged tree of {@code roots} (its own counters, its inclusive key),
     * for a thread whose tree is otherwise a selection of the top-level subtrees of a tree written
     * before (see {@link #topLevelParents}).
     */
    void walkRoot(List<Node> roots, Sink sink) throws IOException {
        Group root = rootGroup(roots);
        int n = expand(root, 0);
        sink.open(root, self(root, 0, n), 0, 0);
        sink.close(0);
    }

    /**
     * After {@link #walk}: for each top-level context of the tree just walked, in output order, the
     * source roots it was merged from (the parents of its source nodes). A thread whose roots own
     * some of these contexts wholly, and no part of the others, has those subtrees, unchanged, as its
     * tree: its own walk would merge the same nodes into the same contexts in the same order.
     */
    Node[][] topLevelParents() {
        int n = groupCount[0];
        Node[][] out = new Node[n][];
        for (int i = 0; i < n; i++) {
            Group g = groups[0][i];
            Node[] p = new Node[g.sources()];
            for (int j = 0; j < p.length; j++) {
                p[j] = g.source(j).parent;
            }
            out[i] = p;
        }
        return out;
    }

    /**
     * The positions among {@code top} (see {@link #topLevelParents}) that make up the tree of
     * {@code roots}, ascending; null when that tree is not such a selection: a root that is not one of
     * {@code merged}, or a top-level context merged from these roots and others.
     */
    static int[] selection(Node[][] top, List<Node> roots, List<Node> merged) {
        IdentityHashMap<Node, Boolean> mine = new IdentityHashMap<Node, Boolean>();
        for (Node r : roots) {
            boolean found = false;
            for (Node m : merged) {
                found |= m == r;
            }
            if (!found) {
                return null;
            }
            mine.put(r, Boolean.TRUE);
        }
        int[] out = new int[top.length];
        int k = 0;
        for (int i = 0; i < top.length; i++) {
            int own = 0;
            for (Node p : top[i]) {
                if (mine.containsKey(p)) {
                    own++;
                }
            }
            if (own == top[i].length) {
                out[k++] = i;
            } else if (own != 0) {
                return null;
            }
        }
        return Arrays.copyOf(out, k);
    }

    /** The own bytecodes of {@code g}, whose {@code n} child groups are at depth {@code d}. */
    private long self(Group g, int d, int n) {
        if (samplesKey) {
            long b = 0;
            for (int j = 0; j < g.sources(); j++) {
                b += g.source(j).bytecodes;
            }
            return b;
        }
        long b = g.key;
        Group[] kids = groups[d];
        for (int i = 0; i < n; i++) {
            b -= kids[i].key;
        }
        return b;
    }

    // ------------------------------------------------------------------ JSON

    /** The whole profile in the compact format ({@code .jpprof}, see {@link ProfileBinary}). */
    void writeBinary(ByteOut out, int threadsMode) throws IOException {
        ProfileBinary.write(this, sources, out, threadsMode);
    }

    /** The whole profile as JSON (one context a line, see README "Profile format"). */
    void writeJson(ByteOut out, int threadsMode) throws IOException {
        out.ascii("{\"format\":\"jprewrite-profile\",\"version\":1,\n");
        if (sources.runs > 1) {
            out.ascii("\"runs\":");
            out.number(sources.runs);
            out.ascii(",\n");
        }
        if (sources.sampling != null) {
            out.ascii("\"sampling\":");
            out.ascii(sources.sampling);
            out.ascii(",\n");
        }
        out.ascii("\"root\":");
        JsonSink sink = new JsonSink(out);
        walk(sources.merged, sink);
        out.ascii(",\n\"threads\":[");
        if (threadsMode != THREADS_NONE) {
            boolean first = true;
            boolean alias = sources.threads.size() == 1 && sameSet(sources.threads.values().iterator().next(),
                    sources.merged);
            for (Map.Entry<String, ArrayList<Node>> t : sources.threads.entrySet()) {
                out.ascii(first ? "\n{\"name\":" : ",\n{\"name\":");
                first = false;
                out.string(t.getKey());
                if (threadsMode == THREADS_ALL && !t.getValue().isEmpty()) {
                    if (alias) {
                        // the only thread name: its tree is the merged tree, not written twice
                        out.ascii(",\"same_as_root\":true");
                    } else {
                        out.ascii(",\"root\":");
                        walk(t.getValue(), sink);
                    }
                }
                out.write('}');
            }
        }
        out.ascii("]}\n");
        out.flush();
    }

    static boolean sameSet(List<Node> a, List<Node> b) {
        if (a.size() != b.size()) {
            return false;
        }
        IdentityHashMap<Node, Boolean> s = new IdentityHashMap<Node, Boolean>();
        for (Node n : a) {
            s.put(n, Boolean.TRUE);
        }
        for (Node n : b) {
            if (!s.containsKey(n)) {
                return false;
            }
        }
        return true;
    }

    private final class JsonSink implements Sink {
        private final ByteOut out;

        JsonSink(ByteOut out) {
            this.out = out;
        }

        @Override
        public void open(Group g, long self, int children, int depth) throws IOException {
            ByteOut o = out;
            o.ascii("{\"method\":");
            o.name(g.method);
            o.ascii(",\"calls\":");
            o.number(g.calls);
            o.ascii(",\"bytecodes\":");
            o.number(self);
            switch (g.kind) {
                case MethodId.KIND_JDK:
                    o.ascii(",\"kind\":\"jdk\"");
                    break;
                case MethodId.KIND_UNINSTRUMENTED:
                    // an application method whose bytecodes nobody counted: its 0 is not a measurement
                    o.ascii(",\"kind\":\"uninstrumented\",\"counted\":false");
                    break;
                case MethodId.KIND_NATIVE:
                    o.ascii(",\"kind\":\"native\",\"counted\":false");
                    break;
                default:
                    break;
            }
            long weighted = 0;
            long samples = 0;
            long fresh = 0;
            TreeMap<String, long[]> allocs = null;
            int s = g.sources();
            for (int j = 0; j < s; j++) {
                Node n = g.source(j);
                Node.Rare x = n.rare;
                if (x != null) {
                    weighted += x.weighted;
                    samples += x.samples;
                    fresh += x.fresh;
                    for (Node.Alloc a = x.allocs; a != null; a = a.next) {
                        if (a.count == 0) {
                            continue;
                        }
                        if (allocs == null) {
                            allocs = new TreeMap<String, long[]>();
                        }
                        long[] c = allocs.get(a.type);
                        if (c == null) {
                            allocs.put(a.type, new long[] {a.count});
                        } else {
                            c[0] += a.count;
                        }
                    }
                }
            }
            if (weighted != 0) {
                o.ascii(",\"weighted\":");
                o.number(weighted);
            }
            if (samples != 0) {
                o.ascii(",\"samples\":");
                o.number(samples);
            }
            if (fresh != 0) {
                o.ascii(",\"fresh\":");
                o.number(fresh);
            }
            if (allocs != null) {
                o.ascii(",\"allocations\":{");
                boolean first = true;
                for (Map.Entry<String, long[]> a : allocs.entrySet()) {
                    if (!first) {
                        o.write(',');
                    }
                    first = false;
                    o.string(a.getKey());
                    o.write(':');
                    o.number(a.getValue()[0]);
                }
                o.write('}');
            }
            if (children > 0 && anyBytecodes) {
                o.ascii(",\"inclusive_bytecodes\":");
                o.number(g.key);
            }
            o.ascii(",\"children\":[");
        }

        @Override
        public void between(boolean first) throws IOException {
            if (!first) {
                out.write(',');
            }
            out.write('\n');
        }

        @Override
        public void close(int depth) throws IOException {
            out.write(']');
            out.write('}');
        }
    }

    // ------------------------------------------------------------------ collapsed stacks

    /**
     * One line {@code frame;frame;... N} per context of the merged tree with a non-zero exclusive
     * value, frames from the root's child down. N is the exclusive bytecode count; when no bytecodes
     * were counted, the sample count if anything was sampled (sample mode), else the call count.
     */
    void writeCollapsed(final ByteOut out) throws IOException {
        final boolean byCalls = !anyBytecodes;
        final boolean bySamples = byCalls && totalSamples != 0;
        walk(sources.merged, new Sink() {
            private byte[] path = new byte[1024];
            private int len;
            private int[] mark = new int[64];

            @Override
            public void open(Group g, long self, int children, int depth) throws IOException {
                if (depth == 0) {
                    return;
                }
                if (depth >= mark.length) {
                    mark = Arrays.copyOf(mark, depth * 2);
                }
                mark[depth] = len;
                if (depth > 1) {
                    append((byte) ';');
                }
                byte[] f = frameBytes(g.method);
                for (byte b : f) {
                    append(b);
                }
                long value;
                if (bySamples) {
                    value = 0;
                    for (int j = 0; j < g.sources(); j++) {
                        value += g.source(j).samples();
                    }
                } else {
                    value = byCalls ? g.calls : self;
                }
                if (value != 0) {
                    out.write(path, 0, len);
                    out.write(' ');
                    out.number(value);
                    out.write('\n');
                }
            }

            private void append(byte b) {
                if (len == path.length) {
                    path = Arrays.copyOf(path, len * 2);
                }
                path[len++] = b;
            }

            @Override
            public void between(boolean first) {
            }

            @Override
            public void close(int depth) {
                if (depth > 0) {
                    len = mark[depth];
                }
            }
        });
        out.flush();
    }

    private final HashMap<String, byte[]> frames = new HashMap<String, byte[]>();

    private byte[] frameBytes(String method) {
        byte[] b = frames.get(method);
        if (b == null) {
            StringBuilder sb = new StringBuilder(method.length());
            for (int i = 0; i < method.length(); i++) {
                char c = method.charAt(i);
                sb.append(c == ';' ? ',' : c == '\n' || c == '\r' ? ' ' : c);
            }
            try {
                b = sb.toString().getBytes("UTF-8");
            } catch (java.io.UnsupportedEncodingException e) {
                throw new IllegalStateException(e);
            }
            frames.put(method, b);
        }
        return b;
    }

    /** Whether each context's group key is its inclusive bytecodes (a counted profile with bytecodes). */
    boolean inclusiveBytecodes() {
        return !samplesKey && anyBytecodes;
    }

    /** Nodes numbered by the first pass (for tests and statistics). */
    int nodes() {
        return count;
    }
}
