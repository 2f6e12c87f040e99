package jprewrite.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;

/**
 * A {@code .jpprof} profile ({@link ProfileBinary}) read back into {@link Node} trees, for
 * {@code -Djprewrite.append=true} with a compact output: the counterpart of {@link ProfileParser}.
 * A context's parent is on the path to the previous context (pre-order), so the reader keeps only
 * that path. Every problem is an {@link IOException} naming the byte offset.
 */
final class ProfileBinaryReader {
    private final InputStream in;
    private long offset;
    private final ArrayList<MethodId> methods = new ArrayList<MethodId>();
    private final ArrayList<String> types = new ArrayList<String>();
    private final java.util.HashMap<String, MethodId> mids = new java.util.HashMap<String, MethodId>();

    private ProfileBinaryReader(InputStream in) {
        this.in = in;
    }

    /** Read the profile after its magic and version (already checked by the caller, 8 bytes). */
    static ProfileParser.Parsed read(InputStream in) throws IOException {
        ProfileBinaryReader r = new ProfileBinaryReader(in);
        r.offset = 8;
        try {
            return r.profile();
        } catch (RuntimeException e) {   // damage the checks did not name: still "not a profile", not a crash
            throw r.fail("malformed compact profile (" + e + ")");
        }
    }

    private IOException fail(String what) {
        return new IOException("byte " + offset + ": " + what);
    }

    private int next() throws IOException {
        int c = in.read();
        if (c < 0) {
            throw fail("the file ends early");
        }
        offset++;
        return c;
    }

    private long varint() throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = next();
            v |= (long) (b & 0x7F) << shift;
            if (b < 0x80) {
                return v;
            }
        }
        throw fail("malformed varint");
    }

    private byte[] bytes(long max) throws IOException {
        long n = varint();
        if (n < 0 || n > max) {
            throw fail("malformed length " + n);
        }
        // grown as the bytes arrive: a damaged length fails at the end of the file, not in a huge allocation
        byte[] b = new byte[(int) Math.min(n, 1 << 20)];
        int p = 0;
        while (p < n) {
            if (p == b.length) {
                b = Arrays.copyOf(b, (int) Math.min(n, 2L * b.length));
            }
            int k = in.read(b, p, b.length - p);
            if (k <= 0) {
                throw fail("the file ends early");
            }
            p += k;
            offset += k;
        }
        return b;
    }

    private String string() throws IOException {
        return new String(bytes(1 << 24), "UTF-8");
    }

    private ProfileParser.Parsed profile() throws IOException {
        ProfileParser.Parsed p = new ProfileParser.Parsed();
        p.runs = runs(string());
        if (next() != 'R') {
            throw fail("expected the merged tree");
        }
        p.merged = tree();
        for (;;) {
            int tag = next();
            if (tag == 'Z') {
                return p;
            }
            if (tag != 'T') {
                throw fail("expected a thread or the end");
            }
            String name = string();
            int what = next();
            if (what == 0) {
                p.names.add(name);
            } else if (what == 1) {
                p.threads.put(name, p.merged);
            } else if (what == 2) {
                p.threads.put(name, tree());
            } else if (what == 3) {
                p.threads.put(name, selection(p.merged));
            } else {
                throw fail("malformed thread entry");
            }
        }
    }

    /**
     * A thread written as its root context and a selection of the merged tree's top-level subtrees
     * (tag 3): the root, with copies of the selected top-level contexts as its children, whose
     * subtrees are shared with the merged tree (the profile's trees are read-only sources).
     */
    private Node selection(Node merged) throws IOException {
        Node root = tree();
        if (root.first != null) {
            throw fail("malformed thread entry");
        }
        ArrayList<Node> tops = new ArrayList<Node>();
        for (Node c = merged.first; c != null; c = c.next) {
            tops.add(c);
        }
        Collections.reverse(tops);   // children are linked newest first: back to file order
        long k = varint();
        long prev = -1;
        for (long i = 0; i < k; i++) {
            long x = varint();
            if (x <= prev || x >= tops.size()) {
                throw fail("malformed thread entry");
            }
            prev = x;
            Node c = tops.get((int) x);
            Node n = new Node(c.method, root, null, root.first);
            Nodes.addCounters(n, c);
            n.first = c.first;
            root.first = n;
        }
        return root;
    }

    /** {@code "runs"} of the top-level JSON object (1 when absent). */
    private long runs(String header) throws IOException {
        int depth = 0;
        boolean str = false;
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (str) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    str = false;
                }
            } else if (c == '"') {
                if (depth == 1 && header.startsWith("\"runs\":", i)) {
                    int j = i + 7;
                    int k = j;
                    while (k < header.length() && Character.isDigit(header.charAt(k))) {
                        k++;
                    }
                    try {
                        return Math.max(1, Long.parseLong(header.substring(j, k)));
                    } catch (NumberFormatException e) {
                        throw fail("malformed 'runs'");
                    }
                }
                str = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
        }
        return 1;
    }

    private MethodId mid(String method, int kind) {
        return ProfileParser.interned(mids, method, kind);
    }

    /** A tree: its chunks up to {@code 'E'}. */
    private Node tree() throws IOException {
        Node[] path = new Node[64];
        long[] pathRow = new long[64];
        int depth = 0;
        long row = 0;
        Node root = null;
        for (;;) {
            int tag = next();
            if (tag == 'E') {
                if (varint() != row || root == null) {
                    throw fail("the tree's context count does not match");
                }
                for (long r = 0; r < row; r += ProfileBinary.CHUNK) {
                    bytes(1 << 30);   // the subtree sizes: the reader's path needs none
                }
                return root;
            }
            if (tag != 'C') {
                throw fail("expected a chunk of contexts");
            }
            int rows = (int) varint();
            if (rows <= 0 || rows > ProfileBinary.CHUNK) {
                throw fail("malformed chunk");
            }
            long newMethods = varint();
            for (long i = 0; i < newMethods; i++) {
                int kind = next();
                if (kind > MethodId.KIND_NATIVE) {
                    throw fail("unknown method kind " + kind);   // as the Python reader says
                }
                methods.add(mid(string(), kind));
            }
            long newTypes = varint();
            for (long i = 0; i < newTypes; i++) {
                types.add(string());
            }
            long[][] col = columns(bytes(1 << 30), rows);
            long[] par = col[0];
            for (int i = 0; i < rows; i++, row++) {
                long up = row - par[i];
                if (row == 0 ? up != -1 : up < 0) {
                    throw fail("malformed parent of context " + row);
                }
                while (depth > 0 && pathRow[depth - 1] != up) {
                    path[--depth] = null;
                }
                if (row > 0 && depth == 0) {
                    throw fail("malformed parent of context " + row);
                }
                long m = col[1][i];
                if (m < 0 || m >= methods.size()) {
                    throw fail("unknown method " + m);
                }
                Node parent = depth == 0 ? null : path[depth - 1];
                Node n = new Node(methods.get((int) m), parent, null, parent == null ? null : parent.first);
                if (parent != null) {
                    parent.first = n;
                } else {
                    root = n;
                }
                n.calls = col[2][i];
                n.bytecodes = col[3][i];
                if (col[4][i] != 0) {
                    n.addWeighted(col[4][i]);
                }
                if (col[5][i] != 0 || col[6][i] != 0) {
                    Node.Rare s = n.rare();
                    s.samples = col[5][i];
                    s.fresh = col[6][i];
                }
                if (depth == path.length) {
                    path = Arrays.copyOf(path, depth * 2);
                    pathRow = Arrays.copyOf(pathRow, depth * 2);
                }
                path[depth] = n;
                pathRow[depth++] = row;
                allocTarget[i] = n;   // the chunk's allocations name their context by row in the chunk
            }
            addAllocations(col, rows);
        }
    }

    private Node[] allocTarget = new Node[ProfileBinary.CHUNK];

    private void addAllocations(long[][] col, int rows) throws IOException {
        long[] count = col[9];
        for (int k = 0; k < count.length; k++) {
            long r = k < col[7].length ? col[7][k] : 0;
            long t = k < col[8].length ? col[8][k] : 0;
            if (r < 0 || r >= rows || t < 0 || t >= types.size()) {
                throw fail("malformed allocation entry");
            }
            allocTarget[(int) r].addAllocations(types.get((int) t), count[k]);
        }
        Arrays.fill(allocTarget, 0, rows, null);
    }

    /** The columns of a chunk's message: 1-7 one value per context (zeros when absent), 8-10 any length. */
    private long[][] columns(byte[] msg, int rows) throws IOException {
        long[][] col = new long[10][];
        int p = 0;
        while (p < msg.length) {
            long[] v = new long[1];
            p = varint(msg, p, v);
            int field = (int) (v[0] >>> 3);
            if ((v[0] & 7) != 2 || field < 1 || field > 12 || field == 11
                    || (field <= 10 && col[field - 1] != null)) {
                throw fail("malformed chunk columns");
            }
            p = varint(msg, p, v);
            int end = p + (int) v[0];
            if (v[0] < 0 || end > msg.length || end < p) {
                throw fail("malformed chunk columns");
            }
            if (field == 12) {   // inclusive bytecodes: sums of the tree, not needed here
                p = end;
                continue;
            }
            long[] out = new long[field <= 7 ? rows : 16];
            int n = 0;
            while (p < end) {
                if (n == out.length) {
                    if (field <= 7) {
                        throw fail("a column longer than its chunk");
                    }
                    out = Arrays.copyOf(out, n * 2);
                }
                p = varint(msg, p, v);
                long x = v[0];
                out[n++] = field == 1 || field == 2 || field == 8 || field == 9 ? x : (x >>> 1) ^ -(x & 1);
            }
            if (p != end || (field <= 7 && n != rows)) {
                throw fail("malformed chunk columns");
            }
            col[field - 1] = field <= 7 ? out : Arrays.copyOf(out, n);
        }
        for (int f = 0; f < 10; f++) {
            if (col[f] == null) {
                col[f] = new long[f < 7 ? rows : 0];
            }
        }
        if (col[7].length > col[9].length || col[8].length > col[9].length) {
            throw fail("malformed allocation columns");
        }
        return col;
    }

    private int varint(byte[] b, int p, long[] v) throws IOException {
        long x = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= b.length) {
                throw fail("malformed chunk columns");
            }
            int c = b[p++] & 0xff;
            x |= (long) (c & 0x7F) << shift;
            if (c < 0x80) {
                v[0] = x;
                return p;
            }
        }
        throw fail("malformed varint");
    }
}
