package jprewrite.runtime;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Merged profile trees (64-bit counters, children keyed by method string) and their output, for
 * {@link Measure}'s small trees; the profile of the whole program is written by {@link ProfileWriter}.
 *
 * <p>Every traversal is iterative: recursion 10,000+ deep in the profiled program makes trees that
 * deep, and the writer must not overflow its own stack on them. Thread trees may grow while they
 * are read; {@link Node}'s child lists are immutable apart from their head, so reading the head once
 * yields a consistent list of children.
 */
final class Tree {
    /** A node of a merged tree. */
    static final class M {
        final String method;
        final int kind;
        long calls;
        long bytecodes;
        long weighted;
        long inclusive;
        long samples;
        long fresh;
        long inclusiveSamples;
        HashMap<String, M> kids;
        TreeMap<String, long[]> allocs;
        M[] sorted;

        M(String method, int kind) {
            this.method = method;
            this.kind = kind;
        }

        M child(String key, int kind) {
            HashMap<String, M> k = kids;
            if (k == null) {
                k = new HashMap<String, M>();
                kids = k;
            }
            M c = k.get(key);
            if (c == null) {
                c = new M(key, kind);
                k.put(key, c);
            }
            return c;
        }

        void addAllocation(String type, long count) {
            if (count == 0) {
                return;
            }
            if (allocs == null) {
                allocs = new TreeMap<String, long[]>();
            }
            long[] c = allocs.get(type);
            if (c == null) {
                allocs.put(type, new long[] {count});
            } else {
                c[0] += count;
            }
        }
    }

    /** A whole profile: the merge of all threads, and one tree per thread name. */
    static final class Profile {
        final M root;
        final List<String> threadNames;
        final List<M> threadRoots;
        /** The top-level {@code "sampling"} object (JSON), or null when nothing was sampled. */
        final String sampling;

        Profile(M root, List<String> threadNames, List<M> threadRoots) {
            this(root, threadNames, threadRoots, null);
        }

        Profile(M root, List<String> threadNames, List<M> threadRoots, String sampling) {
            this.root = root;
            this.threadNames = threadNames;
            this.threadRoots = threadRoots;
            this.sampling = sampling;
        }
    }

    static M newRoot() {
        return new M(ThreadRoot.ROOT.methodString(), MethodId.KIND_INSTRUMENTED);
    }

    /** Add the counters of a live thread tree under {@code src} into {@code dst} (same position). */
    static void merge(M dst, Node src) {
        ArrayList<M> ds = new ArrayList<M>();
        ArrayList<Node> ss = new ArrayList<Node>();
        ds.add(dst);
        ss.add(src);
        while (!ds.isEmpty()) {
            int last = ds.size() - 1;
            M d = ds.remove(last);
            Node s = ss.remove(last);
            d.calls += s.calls;
            d.bytecodes += s.bytecodes;
            Node.Rare rare = s.rare;
            if (rare != null) {
                d.weighted += rare.weighted;
                d.samples += rare.samples;
                d.fresh += rare.fresh;
            }
            for (Node.Alloc a = s.allocs(); a != null; a = a.next) {
                d.addAllocation(a.type, a.count);
            }
            for (Node c = s.first; c != null; c = c.next) {
                MethodId m = c.method;
                ds.add(d.child(m.methodString(), m.kind));
                ss.add(c);
            }
            for (Node c = s.leafChildren(); c != null; c = c.next) {
                MethodId m = c.method;
                ds.add(d.child(m.methodString(), m.kind));
                ss.add(c);
            }
        }
    }

    /** Add the counters of merged tree {@code src} into {@code dst} (same position). */
    static void mergeCopy(M dst, M src) {
        ArrayList<M> ds = new ArrayList<M>();
        ArrayList<M> ss = new ArrayList<M>();
        ds.add(dst);
        ss.add(src);
        while (!ds.isEmpty()) {
            int last = ds.size() - 1;
            M d = ds.remove(last);
            M s = ss.remove(last);
            d.calls += s.calls;
            d.bytecodes += s.bytecodes;
            d.weighted += s.weighted;
            d.samples += s.samples;
            d.fresh += s.fresh;
            if (s.allocs != null) {
                for (Map.Entry<String, long[]> a : s.allocs.entrySet()) {
                    d.addAllocation(a.getKey(), a.getValue()[0]);
                }
            }
            if (s.kids != null) {
                for (M c : s.kids.values()) {
                    ds.add(d.child(c.method, c.kind));
                    ss.add(c);
                }
            }
        }
    }

    private static final Comparator<M> ORDER = new Comparator<M>() {
        @Override
        public int compare(M a, M b) {
            if (a.inclusive != b.inclusive) {
                return a.inclusive > b.inclusive ? -1 : 1;
            }
            if (a.calls != b.calls) {
                return a.calls > b.calls ? -1 : 1;
            }
            return a.method.compareTo(b.method);
        }
    };

    /** The order of a sampled tree (sample mode: no calls or bytecodes counted): by inclusive samples. */
    private static final Comparator<M> SAMPLE_ORDER = new Comparator<M>() {
        @Override
        public int compare(M a, M b) {
            if (a.inclusiveSamples != b.inclusiveSamples) {
                return a.inclusiveSamples > b.inclusiveSamples ? -1 : 1;
            }
            return a.method.compareTo(b.method);
        }
    };

    private static final M[] NO_KIDS = new M[0];

    /**
     * Compute inclusive bytecodes and samples and the output order of children, bottom-up without
     * recursion. A tree that counted nothing but samples is ordered by inclusive samples; any other
     * keeps the order of exact mode (samples never reorder an exact or hybrid tree).
     */
    static void finish(M root) {
        ArrayList<M> order = new ArrayList<M>();
        ArrayList<M> stack = new ArrayList<M>();
        stack.add(root);
        boolean counted = false;
        while (!stack.isEmpty()) {
            M m = stack.remove(stack.size() - 1);
            order.add(m);
            counted |= m.calls != 0 || m.bytecodes != 0;
            if (m.kids != null) {
                stack.addAll(m.kids.values());
            }
        }
        Comparator<M> cmp = counted ? ORDER : SAMPLE_ORDER;
        for (int i = order.size() - 1; i >= 0; i--) {
            M m = order.get(i);
            long inc = m.bytecodes;
            long incSamples = m.samples;
            if (m.kids == null || m.kids.isEmpty()) {
                m.sorted = NO_KIDS;
            } else {
                M[] k = m.kids.values().toArray(new M[0]);
                for (M c : k) {
                    inc += c.inclusive;
                    incSamples += c.inclusiveSamples;
                }
                Arrays.sort(k, cmp);
                m.sorted = k;
            }
            m.inclusive = inc;
            m.inclusiveSamples = incSamples;
        }
    }

    // ------------------------------------------------------------------ JSON

    /** The whole profile as JSON (see README "Profile format"). */
    static void writeJson(Profile p, Appendable out) throws IOException {
        finish(p.root);
        out.append("{\"format\":\"jprewrite-profile\",\"version\":1,\n");
        if (p.sampling != null) {
            out.append("\"sampling\":").append(p.sampling).append(",\n");
        }
        out.append("\"root\":");
        writeNode(p.root, out);
        out.append(",\n\"threads\":[");
        for (int i = 0; i < p.threadRoots.size(); i++) {
            M t = p.threadRoots.get(i);
            finish(t);
            out.append(i == 0 ? "\n{\"name\":" : ",\n{\"name\":");
            string(p.threadNames.get(i), out);
            out.append(",\"root\":");
            writeNode(t, out);
            out.append('}');
        }
        out.append("]}\n");
    }

    private static void writeNode(M top, Appendable out) throws IOException {
        ArrayList<M> nodes = new ArrayList<M>();
        int[] next = new int[16];
        open(top, out);
        nodes.add(top);
        next[0] = 0;
        while (!nodes.isEmpty()) {
            int depth = nodes.size() - 1;
            M m = nodes.get(depth);
            int i = next[depth];
            if (i < m.sorted.length) {
                next[depth] = i + 1;
                if (i > 0) {
                    out.append(',');
                }
                out.append('\n');
                M c = m.sorted[i];
                open(c, out);
                if (depth + 1 == next.length) {
                    next = Arrays.copyOf(next, next.length * 2);
                }
                nodes.add(c);
                next[depth + 1] = 0;
            } else {
                out.append("]}");
                nodes.remove(depth);
            }
        }
    }

    /** Everything of a node up to and including the opening bracket of its children. */
    private static void open(M m, Appendable out) throws IOException {
        out.append("{\"method\":");
        string(m.method, out);
        out.append(",\"calls\":").append(Long.toString(m.calls));
        out.append(",\"bytecodes\":").append(Long.toString(m.bytecodes));
        switch (m.kind) {
            case MethodId.KIND_JDK:
                out.append(",\"kind\":\"jdk\"");
                break;
            case MethodId.KIND_UNINSTRUMENTED:
                // an application method whose bytecodes nobody counted (excluded, missing, or a body
                // kept as it was): its 0 is not a measurement
                out.append(",\"kind\":\"uninstrumented\",\"counted\":false");
                break;
            case MethodId.KIND_NATIVE:
                out.append(",\"kind\":\"native\",\"counted\":false");
                break;
            default:
                break;
        }
        if (m.weighted != 0) {
            out.append(",\"weighted\":").append(Long.toString(m.weighted));
        }
        if (m.samples != 0) {
            out.append(",\"samples\":").append(Long.toString(m.samples));
        }
        if (m.fresh != 0) {
            out.append(",\"fresh\":").append(Long.toString(m.fresh));
        }
        if (m.allocs != null && !m.allocs.isEmpty()) {
            out.append(",\"allocations\":{");
            boolean firstType = true;
            for (Map.Entry<String, long[]> a : m.allocs.entrySet()) {
                if (!firstType) {
                    out.append(',');
                }
                firstType = false;
                string(a.getKey(), out);
                out.append(':').append(Long.toString(a.getValue()[0]));
            }
            out.append('}');
        }
        if (m.sorted.length > 0) {
            out.append(",\"inclusive_bytecodes\":").append(Long.toString(m.inclusive));
        }
        out.append(",\"children\":[");
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** A JSON string; everything outside printable ASCII escaped, so the output is plain ASCII. */
    static void string(String s, Appendable out) throws IOException {
        out.append('"');
        int n = s.length();
        int start = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                continue;
            }
            out.append(s, start, i);
            start = i + 1;
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                default:
                    out.append("\\u").append(HEX[(c >> 12) & 15]).append(HEX[(c >> 8) & 15])
                            .append(HEX[(c >> 4) & 15]).append(HEX[c & 15]);
                    break;
            }
        }
        out.append(s, start, n);
        out.append('"');
    }

    private Tree() {
    }
}
