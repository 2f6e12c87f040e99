package jprewrite.runtime;

import java.util.ArrayList;
import java.util.IdentityHashMap;

/**
 * Whole-tree operations on {@link Node} trees that nobody else mutates any more: the trees of ended
 * threads (folded by the registry) and trees read back from a profile file (append). Iterative:
 * trees can be 10,000+ levels deep.
 */
final class Nodes {
    /** Children beyond this many are looked up through a map while adding (wide dispatchers). */
    private static final int WIDE = 16;

    /** Add the counters of the tree under {@code src} into the tree under {@code dst} (same MethodIds merge). */
    static void add(Node dst, Node src) {
        ArrayList<Node> ds = new ArrayList<Node>();
        ArrayList<Node> ss = new ArrayList<Node>();
        ds.add(dst);
        ss.add(src);
        while (!ds.isEmpty()) {
            int last = ds.size() - 1;
            Node d = ds.remove(last);
            Node s = ss.remove(last);
            addCounters(d, s);
            for (Node c = s.leafChildren(); c != null; c = c.next) {
                addCounters(d.child(c.method), c);   // (a leaf call's context has no children)
            }
            if (s.first == null) {
                continue;
            }
            IdentityHashMap<MethodId, Node> map = null;
            int n = 0;
            for (Node c = d.first; c != null; c = c.next) {
                n++;
            }
            if (n > WIDE) {
                map = new IdentityHashMap<MethodId, Node>();
                for (Node c = d.first; c != null; c = c.next) {
                    if (!map.containsKey(c.method)) {
                        map.put(c.method, c);
                    }
                }
            }
            for (Node c = s.first; c != null; c = c.next) {
                Node t = map == null ? null : map.get(c.method);
                if (t == null) {
                    t = d.child(c.method);
                    if (map != null) {
                        map.put(c.method, t);
                    }
                }
                ds.add(t);
                ss.add(c);
            }
        }
    }

    /** Add the counters of node {@code s} (not its children) to {@code d}. */
    static void addCounters(Node d, Node s) {
        d.calls += s.calls;
        d.bytecodes += s.bytecodes;
        Node.Rare x = s.rare;
        if (x != null) {
            if (x.weighted != 0) {
                d.addWeighted(x.weighted);
            }
            if (x.samples != 0 || x.fresh != 0) {
                Node.Rare y = d.rare();
                y.samples += x.samples;
                y.fresh += x.fresh;
            }
            for (Node.Alloc a = x.allocs; a != null; a = a.next) {
                d.addAllocations(a.type, a.count);
            }
        }
    }

    /** Drop the child caches of a tree whose thread has ended. */
    static void dropCaches(Node root) {
        ArrayList<Node> stack = new ArrayList<Node>();
        stack.add(root);
        while (!stack.isEmpty()) {
            Node n = stack.remove(stack.size() - 1);
            n.dropCache();
            for (Node c = n.first; c != null; c = c.next) {
                stack.add(c);
            }
        }
    }

    private Nodes() {
    }
}
