package jprewrite.junit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import jprewrite.runtime.Measurement;

/**
 * The calling contexts of a profile (JSON text in the runtime's format) keyed by their path of
 * method strings, and the per-context comparison of two of them that failure messages show.
 */
final class Contexts {
    /** Columns of {@link #byPath}. */
    static final int CALLS = 0, BYTECODES = 1, ALLOCATIONS = 2;

    /** Path (method strings joined by a newline) -> {calls, exclusive bytecodes, allocations}. */
    final Map<String, long[]> byPath = new LinkedHashMap<String, long[]>();
    long bytecodes;
    long allocations;

    /** The contexts of {@code json} (its merged {@code root}); IllegalArgumentException if it is no profile. */
    @SuppressWarnings("unchecked")
    static Contexts of(String json) {
        Object doc = Json.parse(json);
        if (!(doc instanceof Map) || !(((Map<String, Object>) doc).get("root") instanceof Map)) {
            throw new IllegalArgumentException("not a jprewrite profile (no \"root\" object)");
        }
        Contexts out = new Contexts();
        ArrayList<Map<String, Object>> nodes = new ArrayList<Map<String, Object>>();
        ArrayList<String> paths = new ArrayList<String>();
        nodes.add((Map<String, Object>) ((Map<String, Object>) doc).get("root"));
        paths.add(null);
        while (!nodes.isEmpty()) {
            Map<String, Object> n = nodes.remove(nodes.size() - 1);
            String path = paths.remove(paths.size() - 1);
            if (path != null) {
                long[] v = out.byPath.get(path);
                if (v == null) {
                    v = new long[3];
                    out.byPath.put(path, v);
                }
                v[0] += number(n.get("calls"));
                v[1] += number(n.get("bytecodes"));
                v[2] += allocations(n.get("allocations"));
                out.bytecodes += number(n.get("bytecodes"));
                out.allocations += allocations(n.get("allocations"));
            }
            Object kids = n.get("children");
            if (kids instanceof List) {
                for (Object k : (List<Object>) kids) {
                    if (k instanceof Map) {
                        Map<String, Object> c = (Map<String, Object>) k;
                        nodes.add(c);
                        String m = String.valueOf(c.get("method"));
                        paths.add(path == null ? m : path + "\n" + m);
                    }
                }
            }
        }
        return out;
    }

    private static long number(Object o) {
        return o instanceof Number ? ((Number) o).longValue() : 0;
    }

    @SuppressWarnings("unchecked")
    private static long allocations(Object o) {
        long sum = 0;
        if (o instanceof Map) {
            for (Object v : ((Map<String, Object>) o).values()) {
                sum += number(v);
            }
        }
        return sum;
    }

    /** Whether the total of {@code column}, or any context's own value, grew by more than {@code allowance}. */
    static boolean grew(Contexts before, Contexts after, int column, double allowance) {
        long total0 = column == BYTECODES ? before.bytecodes : before.allocations;
        long total1 = column == BYTECODES ? after.bytecodes : after.allocations;
        if (total1 - total0 > allowance) {
            return true;
        }
        for (Map.Entry<String, long[]> e : after.byPath.entrySet()) {
            long[] b = before.byPath.get(e.getKey());
            if (e.getValue()[column] - (b == null ? 0 : b[column]) > allowance) {
                return true;
            }
        }
        return false;
    }

    /**
     * The contexts whose exclusive bytecodes changed from {@code before} to {@code after}, the
     * largest growth first (then the largest shrinking), at most {@code limit} lines, each
     * {@code path: before -> after bytecodes (change)}.
     */
    static List<String> grownMost(Contexts before, Contexts after, int limit) {
        Set<String> all = new LinkedHashSet<String>(before.byPath.keySet());
        all.addAll(after.byPath.keySet());
        List<Object[]> changes = new ArrayList<Object[]>();
        for (String p : all) {
            long[] b = before.byPath.get(p);
            long[] a = after.byPath.get(p);
            long vb = b == null ? 0 : b[1];
            long va = a == null ? 0 : a[1];
            if (vb != va || (b == null) != (a == null)) {
                changes.add(new Object[] {p, b == null ? null : vb, a == null ? null : va, va - vb});
            }
        }
        Collections.sort(changes, new Comparator<Object[]>() {
            @Override
            public int compare(Object[] x, Object[] y) {
                long dx = (Long) x[3], dy = (Long) y[3];
                if ((dx > 0) != (dy > 0)) {
                    return dx > 0 ? -1 : 1;   // growth before shrinking
                }
                if (Math.abs(dx) != Math.abs(dy)) {
                    return Math.abs(dx) > Math.abs(dy) ? -1 : 1;
                }
                return ((String) x[0]).compareTo((String) y[0]);
            }
        });
        List<String> lines = new ArrayList<String>();
        for (int i = 0; i < changes.size() && i < limit; i++) {
            Object[] c = changes.get(i);
            lines.add(String.format(Locale.ROOT, "%s: %s -> %s bytecodes (%s)", display((String) c[0]),
                    c[1] == null ? "new" : String.format(Locale.ROOT, "%,d", (Long) c[1]),
                    c[2] == null ? "gone" : String.format(Locale.ROOT, "%,d", (Long) c[2]),
                    change(c[1] == null ? 0 : (Long) c[1], c[2] == null ? 0 : (Long) c[2])));
        }
        if (changes.size() > limit) {
            lines.add(String.format(Locale.ROOT, "... and %d more changed contexts", changes.size() - limit));
        }
        return lines;
    }

    /** {@code +120, +25.0%} (no percentage from zero). */
    static String change(long before, long after) {
        long d = after - before;
        String abs = String.format(Locale.ROOT, "%+,d", d);
        return before == 0 ? abs : abs + String.format(Locale.ROOT, ", %+.1f%%", 100.0 * d / before);
    }

    /** A path for a message: short method names joined by {@code >}, long paths elided in the middle. */
    static String display(String path) {
        return Measurement.describePath(Arrays.asList(path.split("\n")));
    }
}
