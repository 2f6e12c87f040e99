package jprewrite.runtime;

import java.io.IOException;
import java.io.UnsupportedEncodingException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The compact profile format, {@code .jpprof} (see docs/profiles.md "The compact format"): the same
 * trees as the JSON, written by the same merge-while-writing walk, in about a tenth of the bytes and
 * a fraction of the time. JSON spends most of its bytes and time on method names and key names
 * repeated on every context; here a method name is written once, and a context is a handful of
 * varints.
 *
 * <p>Layout: the magic {@code JPPROF\0} and a version byte; the top-level fields as one JSON object
 * (varint length, UTF-8); then records, each a tag byte: {@code 'R'} the merged tree, {@code 'T'} a
 * thread (name, then 0 = name only, 1 = same as the merged tree, 2 = its tree follows, 3 = its root
 * context as a tree of one context, then a count and the ascending positions, among the merged root's
 * children in file order, of the merged tree's subtrees that are the rest of its tree), {@code 'Z'}
 * the end. A tree is chunks ({@code 'C'}) of up to {@value #CHUNK} contexts in pre-order, then
 * {@code 'E'} and its context count. A chunk: its context count, the methods it uses first (kind
 * byte, UTF-8 name), the allocation types it uses first, then its columns as one protobuf message
 * (varint length first): packed varints, one value per context, so any protobuf library (Python's,
 * in C) decodes a column at once: 1 parent distance (row less parent's row; 1 for the root), 2
 * method, 3 calls, 4 own bytecodes, 5 weighted, 6 samples, 7 fresh (the counters zig-zag), and the
 * allocations as 8 row in chunk, 9 type, 10 count, and 12 inclusive bytecodes (a profile that
 * counted bytecodes). A column that is all zeros is left out. After
 * {@code 'E'}, the subtree size of every context (rows, itself included), in messages of field 11
 * of up to {@value #CHUNK} values each: a reader gets each subtree's extent without a pass.
 */
final class ProfileBinary implements ProfileWriter.Sink {
    static final byte[] MAGIC = {'J', 'P', 'P', 'R', 'O', 'F', 0};
    /** The container version written: 2 since a thread may be a selection of the merged tree (tag 3). */
    static final int VERSION = 2;

    /** Whether this runtime reads files of container version {@code v} (1: the same without tag 3). */
    static boolean readable(int v) {
        return v == 1 || v == VERSION;
    }
    static final int CHUNK = 1 << 16;   // also the page size of the subtree sizes (row >>> 16)

    /** Whether a file name asks for this format ({@code .jpprof}, also before {@code .gz}). */
    static boolean wanted(String fileName) {
        return fileName.endsWith(".jpprof") || fileName.endsWith(".jpprof.gz");
    }

    private final ByteOut out;
    /**
     * Method numbers plus one (0: not numbered yet), at {@code 4 * canonical + kind} of the group's
     * method ({@link MethodId#canonical()}): one array read a context. MIDs of the same name and kind
     * are one method.
     */
    private int[] methodNumbers = new int[1 << 14];
    private int methodCount;
    private final HashMap<String, Integer> types = new HashMap<String, Integer>();

    // the chunk being filled
    private int rows;
    private final Col parent = new Col();
    private final Col method = new Col();
    private final Col calls = new Col();
    private final Col bytecodes = new Col();
    private final Col weighted = new Col();
    private final Col samples = new Col();
    private final Col fresh = new Col();
    private final Col allocRow = new Col();
    private final Col allocType = new Col();
    private final Col allocCount = new Col();
    private final Col inclusive = new Col();
    /** Fields 1-10 and 12 (11 is the subtree sizes, after the tree). */
    private final Col[] columns = {parent, method, calls, bytecodes, weighted, samples, fresh, allocRow, allocType,
        allocCount, null, inclusive};
    /** Write each context's inclusive bytecodes (the walk's group key): readers need no pass for them. */
    private boolean withInclusive;
    private final Col newNames = new Col();
    private int newNameCount;
    private final Col newTypes = new Col();
    private int newTypeCount;
    /** Rows of the tree being written, and the row of the open context at each depth. */
    private long row;
    private long[] open = new long[64];
    private final TreeMap<String, long[]> allocs = new TreeMap<String, long[]>();
    private final byte[] small = new byte[10];

    ProfileBinary(ByteOut out) {
        this.out = out;
    }

    /** The whole profile ({@code writer}'s walk, this as its sink). */
    static void write(ProfileWriter writer, ProfileWriter.Sources sources, ByteOut out, int threadsMode)
            throws IOException {
        ProfileBinary b = new ProfileBinary(out);
        b.withInclusive = writer.inclusiveBytecodes();
        out.write(MAGIC);
        out.write(VERSION);
        StringBuilder h = new StringBuilder("{\"format\":\"jprewrite-profile\",\"version\":1");
        if (sources.runs > 1) {
            h.append(",\"runs\":").append(sources.runs);
        }
        if (sources.sampling != null) {
            h.append(",\"sampling\":").append(sources.sampling);
        }
        h.append('}');
        b.bytes(utf8(h.toString()));
        out.write('R');
        b.tree(writer, sources.merged, false);
        if (threadsMode != ProfileWriter.THREADS_NONE) {
            boolean alias = sources.threads.size() == 1
                    && ProfileWriter.sameSet(sources.threads.values().iterator().next(), sources.merged);
            Node[][] top = writer.topLevelParents();
            for (Map.Entry<String, java.util.ArrayList<Node>> t : sources.threads.entrySet()) {
                out.write('T');
                b.bytes(utf8(t.getKey()));
                int[] pick = null;
                if (threadsMode != ProfileWriter.THREADS_ALL || t.getValue().isEmpty()) {
                    out.write(0);
                } else if (alias) {
                    out.write(1);   // the only thread name: its tree is the merged tree, not written twice
                } else if ((pick = ProfileWriter.selection(top, t.getValue(), sources.merged)) != null) {
                    // a dominant thread beside small ones (cleaner threads): its root, then which of the
                    // merged tree's top-level subtrees are its own, instead of all its contexts again
                    out.write(3);
                    b.tree(writer, t.getValue(), true);
                    b.varint(pick.length);
                    for (int p : pick) {
                        b.varint(p);
                    }
                } else {
                    out.write(2);
                    b.tree(writer, t.getValue(), false);
                }
            }
        }
        out.write('Z');
        out.flush();
    }

    private void tree(ProfileWriter writer, java.util.List<Node> roots, boolean rootOnly) throws IOException {
        row = 0;
        if (rootOnly) {
            writer.walkRoot(roots, this);
        } else {
            writer.walk(roots, this);
        }
        flushChunk();
        out.write('E');
        varint(row);
        // the subtree sizes, known only as contexts close: readers get each subtree's end without a pass
        for (long base = 0; base < row; base += CHUNK) {
            int n = (int) Math.min(CHUNK, row - base);
            Col c = columns[0];
            for (int i = 0; i < n; i++) {
                long r = base + i;
                c.u(sizes[(int) (r >>> 16)][(int) (r & (CHUNK - 1))]);
            }
            varint(1 + varintSize(c.len) + c.len);
            out.write((SIZE_FIELD << 3) | 2);
            varint(c.len);
            out.write(c.buf, 0, c.len);
            c.clear();
        }
    }

    /** The message field of the subtree sizes (after a tree's chunks). */
    static final int SIZE_FIELD = 11;
    /** Subtree size of each row of the tree being written, in pages of {@link #CHUNK}. */
    private int[][] sizes = new int[16][];

    // ------------------------------------------------------------------ the sink

    @Override
    public void open(ProfileWriter.Group g, long self, int children, int depth) throws IOException {
        if (depth == open.length) {
            open = Arrays.copyOf(open, depth * 2);
        }
        parent.u(depth == 0 ? 1 : row - open[depth - 1]);
        open[depth] = row;
        int page = (int) (row >>> 16);
        if (page == sizes.length) {
            sizes = Arrays.copyOf(sizes, page * 2);
        }
        if (sizes[page] == null) {
            sizes[page] = new int[CHUNK];
        }
        method.u(methodIndex(g));
        calls.s(g.calls);
        bytecodes.s(self);
        if (withInclusive) {
            inclusive.s(g.key);
        }
        long w = 0;
        long smp = 0;
        long fr = 0;
        boolean any = false;
        int s = g.sources();
        for (int j = 0; j < s; j++) {
            Node n = g.source(j);
            Node.Rare x = n.rare;
            if (x != null) {
                w += x.weighted;
                smp += x.samples;
                fr += x.fresh;
                for (Node.Alloc a = x.allocs; a != null; a = a.next) {
                    if (a.count == 0) {
                        continue;
                    }
                    any = true;
                    long[] c = allocs.get(a.type);
                    if (c == null) {
                        allocs.put(a.type, new long[] {a.count});
                    } else {
                        c[0] += a.count;
                    }
                }
            }
        }
        weighted.sparse(w);
        samples.sparse(smp);
        fresh.sparse(fr);
        if (any) {
            for (Map.Entry<String, long[]> a : allocs.entrySet()) {
                allocRow.u(rows);
                allocType.u(typeIndex(a.getKey()));
                allocCount.s(a.getValue()[0]);
            }
            allocs.clear();
        }
        row++;
        if (++rows == CHUNK) {
            flushChunk();
        }
    }

    @Override
    public void between(boolean first) {
    }

    @Override
    public void close(int depth) {
        long r = open[depth];
        sizes[(int) (r >>> 16)][(int) (r & (CHUNK - 1))] = (int) (row - r);
    }

    private int methodIndex(ProfileWriter.Group g) throws IOException {
        if ((g.kind & ~3) != 0) {   // kinds are 0-3: MethodId.KIND_*, and readers refuse others
            throw new IOException("method kind " + g.kind + " of " + g.method);
        }
        int at = 4 * g.canon + g.kind;
        if (at >= methodNumbers.length) {
            methodNumbers = Arrays.copyOf(methodNumbers, Math.max(at + 1, methodNumbers.length * 2));
        }
        int i = methodNumbers[at] - 1;
        if (i < 0) {
            i = methodCount++;
            methodNumbers[at] = i + 1;
            newNames.raw(g.kind);
            byte[] b = utf8(g.method);
            newNames.u(b.length);
            newNames.raw(b);
            newNameCount++;
        }
        return i;
    }

    private int typeIndex(String type) throws IOException {
        Integer i = types.get(type);
        if (i == null) {
            i = types.size();
            types.put(type, i);
            byte[] b = utf8(type);
            newTypes.u(b.length);
            newTypes.raw(b);
            newTypeCount++;
        }
        return i;
    }

    private void flushChunk() throws IOException {
        if (rows == 0) {
            return;
        }
        out.write('C');
        varint(rows);
        varint(newNameCount);
        out.write(newNames.buf, 0, newNames.len);
        varint(newTypeCount);
        out.write(newTypes.buf, 0, newTypes.len);
        long size = 0;
        for (int f = 0; f < columns.length; f++) {
            Col c = columns[f];
            if (c != null && c.nonZero) {
                size += 1 + varintSize(c.len) + c.len;
            }
        }
        varint(size);
        for (int f = 0; f < columns.length; f++) {
            Col c = columns[f];
            if (c == null) {
                continue;
            }
            if (c.nonZero) {
                out.write(((f + 1) << 3) | 2);   // field f+1, length-delimited: packed
                varint(c.len);
                out.write(c.buf, 0, c.len);
            }
            c.clear();
        }
        newNames.clear();
        newTypes.clear();
        newNameCount = 0;
        newTypeCount = 0;
        rows = 0;
    }

    private void varint(long v) throws IOException {
        int n = 0;
        while ((v & ~0x7FL) != 0) {
            small[n++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        small[n++] = (byte) v;
        out.write(small, 0, n);
    }

    private void bytes(byte[] b) throws IOException {
        varint(b.length);
        out.write(b);
    }

    private static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    static byte[] utf8(String s) {
        try {
            return s.getBytes("UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One column of a chunk: packed varints in a growing byte array. */
    static final class Col {
        byte[] buf = new byte[1 << 12];
        int len;
        boolean nonZero;
        /** Zeros not written yet: a column that stays all zeros is never written (most are, in most profiles). */
        int pending;

        void clear() {
            len = 0;
            nonZero = false;
            pending = 0;
        }

        /** A signed value of a column that is usually all zeros. */
        void sparse(long v) {
            if (!nonZero) {
                if (v == 0) {
                    pending++;
                    return;
                }
                room(pending);
                Arrays.fill(buf, len, len + pending, (byte) 0);
                len += pending;
                pending = 0;
            }
            s(v);
        }

        private void room(int n) {
            if (len + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
            }
        }

        /** An unsigned value. */
        void u(long v) {
            room(10);
            if (v != 0) {
                nonZero = true;
            }
            byte[] b = buf;
            int p = len;
            while ((v & ~0x7FL) != 0) {
                b[p++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            b[p++] = (byte) v;
            len = p;
        }

        /** A signed value, zig-zag (protobuf's sint64). */
        void s(long v) {
            u((v << 1) ^ (v >> 63));
        }

        void raw(int b) {
            room(1);
            buf[len++] = (byte) b;
        }

        void raw(byte[] b) {
            room(b.length);
            System.arraycopy(b, 0, buf, len, b.length);
            len += b.length;
        }
    }
}
