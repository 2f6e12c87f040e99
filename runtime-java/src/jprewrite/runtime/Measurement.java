package jprewrite.runtime;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@link Measure} counted: totals over the measured calling context tree (inclusive of
 * everything the calling thread ran), the tree itself as profile JSON, and the value the measured
 * code returned. Immutable.
 *
 * <p>It keeps the measured tree as {@link Measure} built it (detached from the thread's tree, so
 * nothing changes it once the measurement is over) and works out totals, and the merged form that
 * JSON and messages need, only when asked: a measurement that is only compared with a budget costs
 * one walk over its nodes.
 */
public final class Measurement {
    /** The detached tree of the measurement (its root has no counters), or null for {@link #within}'s. */
    private final Node top;
    private final Object value;
    private final String thread;
    /** The merged tree (method strings, sorted children, inclusive counts); built on first use. */
    private Tree.M root;
    private boolean counted;
    private long bytecodes;
    private long calls;
    private long weighted;
    private TreeMap<String, Long> allocations;

    Measurement(Node top, Object value, String thread) {
        this.top = top;
        this.value = value;
        this.thread = thread;
    }

    private Measurement(Tree.M root, Object value, String thread) {
        this.top = null;
        this.value = value;
        this.thread = thread;
        Tree.finish(root);
        this.root = root;
    }

    /** The merged tree, built from the detached one on first use. */
    private synchronized Tree.M tree() {
        if (root == null) {
            Tree.M m = Tree.newRoot();
            Tree.merge(m, top);
            m.calls = 0;   // the measuring node itself is no call
            Tree.finish(m);
            root = m;
        }
        return root;
    }

    /** Add up every counter once (over the detached nodes, or the merged tree of {@link #within}). */
    private synchronized void count() {
        if (counted) {
            return;
        }
        TreeMap<String, Long> allocs = new TreeMap<String, Long>();
        if (top != null) {
            ArrayList<Node> stack = new ArrayList<Node>();
            for (Node c = top.first; c != null; c = c.next) {
                stack.add(c);
            }
            for (Node c = top.leafChildren(); c != null; c = c.next) {
                stack.add(c);
            }
            while (!stack.isEmpty()) {
                Node n = stack.remove(stack.size() - 1);
                bytecodes += n.bytecodes;
                calls += n.calls;
                weighted += n.weighted();
                for (Node.Alloc a = n.allocs(); a != null; a = a.next) {
                    add(allocs, a.type, a.count);
                }
                for (Node c = n.first; c != null; c = c.next) {
                    stack.add(c);
                }
                for (Node c = n.leafChildren(); c != null; c = c.next) {
                    stack.add(c);
                }
            }
        } else {
            for (Tree.M m : preorder(root)) {
                bytecodes += m.bytecodes;
                calls += m.calls;
                weighted += m.weighted;
                if (m.allocs != null) {
                    for (Map.Entry<String, long[]> a : m.allocs.entrySet()) {
                        add(allocs, a.getKey(), a.getValue()[0]);
                    }
                }
            }
        }
        allocations = allocs;
        counted = true;
    }

    private static void add(TreeMap<String, Long> allocs, String type, long count) {
        Long old = allocs.get(type);
        allocs.put(type, (old == null ? 0 : old) + count);
    }

    /** Bytecodes executed in instrumented code, inclusive of every callee. */
    public long bytecodes() {
        count();
        return bytecodes;
    }

    /** Method invocations counted (instrumented methods and calls into uninstrumented code). */
    public long calls() {
        count();
        return calls;
    }

    /** Weighted bytecodes (with a weights file), inclusive; 0 otherwise. */
    public long weighted() {
        count();
        return weighted;
    }

    /** Allocations counted (with the {@code allocations} option; 0 without it), all types. */
    public long allocations() {
        count();
        long sum = 0;
        for (Long n : allocations.values()) {
            sum += n;
        }
        return sum;
    }

    /** Allocations per type (internal name or array descriptor), sorted by type. */
    public Map<String, Long> allocationsByType() {
        count();
        return Collections.unmodifiableMap(allocations);
    }

    /** What the measured {@code Callable} returned (null for a {@code Runnable}). */
    public Object value() {
        return value;
    }

    /** Name of the thread that was measured. */
    public String thread() {
        return thread;
    }

    /**
     * The part of this measurement beneath the outermost contexts of {@code method} (a method
     * string, {@code com.acme.Foo.bar(I)V}), those contexts merged into one child of the root; an
     * empty measurement when the method never ran. A test framework uses it to keep only the test
     * method's own subtree when its own (instrumented) invocation code ran around it.
     */
    public Measurement within(String method) {
        Tree.M out = Tree.newRoot();
        ArrayList<Tree.M> stack = new ArrayList<Tree.M>();
        stack.add(tree());
        while (!stack.isEmpty()) {
            Tree.M m = stack.remove(stack.size() - 1);
            for (Tree.M c : m.sorted) {
                if (c.method.equals(method)) {
                    Tree.mergeCopy(out.child(c.method, c.kind), c);
                } else {
                    stack.add(c);
                }
            }
        }
        return new Measurement(out, value, thread);
    }

    /** Whether any context of {@code method} (a method string) ran during the measurement. */
    public boolean contains(String method) {
        for (Tree.M m : preorder(tree())) {
            if (m.method.equals(method)) {
                return true;
            }
        }
        return false;
    }

    /** The measured tree in the runtime's profile format (one thread: the measured one). */
    public synchronized String toJson() {
        StringBuilder sb = new StringBuilder();
        try {
            Tree.M m = tree();
            Tree.writeJson(new Tree.Profile(m, Collections.singletonList(thread), Collections.singletonList(m)), sb);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a StringBuilder does not throw
        }
        return sb.toString();
    }

    /** Totals and the {@code n} contexts with the most bytecodes of their own, one line each. */
    public String summary(int n) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%,d bytecodes, %,d calls", bytecodes(), calls()));
        long a = allocations();
        if (a != 0) {
            sb.append(String.format(Locale.ROOT, ", %,d allocations", a));
        }
        List<Object[]> top = hottest(n);
        if (!top.isEmpty()) {
            sb.append(String.format(Locale.ROOT, "%n  %12s %12s %10s  %s", "inclusive", "exclusive", "calls", "context"));
        }
        for (Object[] row : top) {
            Tree.M m = (Tree.M) row[0];
            sb.append(String.format(Locale.ROOT, "%n  %,12d %,12d %,10d  %s", m.inclusive, m.bytecodes, m.calls, row[1]));
        }
        return sb.toString();
    }

    /** Totals and the ten hottest contexts. */
    @Override
    public String toString() {
        return "Measurement: " + summary(10);
    }

    /** (node, path) of the {@code n} contexts with the most exclusive bytecodes (then calls). */
    private List<Object[]> hottest(int n) {
        ArrayList<Object[]> all = new ArrayList<Object[]>();
        ArrayList<Tree.M> nodes = new ArrayList<Tree.M>();
        ArrayList<Integer> depths = new ArrayList<Integer>();
        ArrayList<String> path = new ArrayList<String>();   // method strings of the current node's path
        for (Tree.M c : tree().sorted) {
            nodes.add(c);
            depths.add(0);
        }
        while (!nodes.isEmpty()) {
            Tree.M m = nodes.remove(nodes.size() - 1);
            int depth = depths.remove(depths.size() - 1);
            while (path.size() > depth) {
                path.remove(path.size() - 1);
            }
            path.add(m.method);
            all.add(new Object[] {m, describePath(path)});
            for (Tree.M c : m.sorted) {
                nodes.add(c);
                depths.add(depth + 1);
            }
        }
        Collections.sort(all, new Comparator<Object[]>() {
            @Override
            public int compare(Object[] x, Object[] y) {
                Tree.M a = (Tree.M) x[0], b = (Tree.M) y[0];
                if (a.bytecodes != b.bytecodes) {
                    return a.bytecodes > b.bytecodes ? -1 : 1;
                }
                if (a.calls != b.calls) {
                    return a.calls > b.calls ? -1 : 1;
                }
                return ((String) x[1]).compareTo((String) y[1]);
            }
        });
        return all.subList(0, Math.min(Math.max(n, 0), all.size()));
    }

    private static List<Tree.M> preorder(Tree.M root) {
        ArrayList<Tree.M> out = new ArrayList<Tree.M>();
        ArrayList<Tree.M> stack = new ArrayList<Tree.M>();
        stack.add(root);
        while (!stack.isEmpty()) {
            Tree.M m = stack.remove(stack.size() - 1);
            out.add(m);
            stack.addAll(Arrays.asList(m.sorted));
        }
        return out;
    }

    /**
     * A calling context for messages: the {@link #shortName}s of its path of method strings joined
     * by {@code " > "}; a path longer than six frames keeps its first two and last three.
     */
    public static String describePath(List<String> methods) {
        StringBuilder sb = new StringBuilder();
        int n = methods.size();
        for (int i = 0; i < n; i++) {
            if (n > 6 && i == 2) {
                sb.append(" > ... (").append(n - 5).append(" more)");
                i = n - 4;
                continue;
            }
            sb.append(i == 0 ? "" : " > ").append(shortName(methods.get(i)));
        }
        return sb.toString();
    }

    /**
     * A method string in a form for messages: simple class name, method name and Java parameter
     * types ({@code com.acme.Lib.sort([II)V} becomes {@code Lib.sort(int[], int)}). Strings that are
     * not method strings come back unchanged.
     */
    public static String shortName(String method) {
        int paren = method.indexOf('(');
        if (paren < 0) {
            return method;
        }
        int close = method.indexOf(')', paren);
        String owner = method.substring(0, paren);
        int dot = owner.lastIndexOf('.', owner.length() - 1);
        int prev = dot > 0 ? owner.lastIndexOf('.', dot - 1) : -1;
        String shortOwner = owner.substring(prev + 1);
        if (close < 0) {
            return shortOwner + method.substring(paren);
        }
        StringBuilder sb = new StringBuilder(shortOwner).append('(');
        String params = method.substring(paren + 1, close);
        int i = 0;
        boolean firstParam = true;
        while (i < params.length()) {
            int dims = 0;
            while (i < params.length() && params.charAt(i) == '[') {
                dims++;
                i++;
            }
            if (i >= params.length()) {
                break;
            }
            String type;
            char c = params.charAt(i);
            if (c == 'L') {
                int end = params.indexOf(';', i);
                end = end < 0 ? params.length() : end;
                String name = params.substring(i + 1, end);
                type = name.substring(name.lastIndexOf('/') + 1);
                i = end + 1;
            } else {
                type = primitive(c);
                i++;
            }
            sb.append(firstParam ? "" : ", ").append(type);
            for (int d = 0; d < dims; d++) {
                sb.append("[]");
            }
            firstParam = false;
        }
        return sb.append(')').toString();
    }

    private static String primitive(char c) {
        switch (c) {
            case 'Z': return "boolean";
            case 'B': return "byte";
            case 'C': return "char";
            case 'S': return "short";
            case 'I': return "int";
            case 'J': return "long";
            case 'F': return "float";
            case 'D': return "double";
            default: return String.valueOf(c);
        }
    }
}
