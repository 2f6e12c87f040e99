package jprewrite.runtime;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

/**
 * An existing profile read back into {@link Node} trees, for {@code -Djprewrite.append=true}: the
 * profile of this run is then written as the sum of both. Reads any JSON layout of the profile
 * format (the runtime's, the Python tools', pretty-printed), plain or gzip, and the compact format
 * ({@link ProfileBinaryReader}, told by its magic, not the name); iterative, since trees
 * are deep. A context's {@code "method"} must come before its {@code "children"} (every writer of
 * the format does so). Every problem is an {@link IOException} naming the byte offset.
 */
final class ProfileParser {
    /** The trees of a profile file. */
    static final class Parsed {
        Node merged;
        /** Thread trees by name; a thread whose tree is the merged tree maps to {@link #merged}. */
        final LinkedHashMap<String, Node> threads = new LinkedHashMap<String, Node>();
        /** Thread names listed without a tree. */
        final ArrayList<String> names = new ArrayList<String>();
        long runs = 1;

        /** Add these trees to the ones of this run. */
        void addTo(ProfileWriter.Sources s) {
            if (merged != null) {
                s.addMerged(merged);
            }
            for (Map.Entry<String, Node> t : threads.entrySet()) {
                s.addThread(t.getKey(), t.getValue());
            }
            for (String n : names) {
                s.addName(n);
            }
            s.runs += runs;
        }
    }

    private final InputStream in;
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    private int len;
    private long offset;
    private final HashMap<String, MethodId> mids = new HashMap<String, MethodId>();
    private final StringBuilder sb = new StringBuilder();

    private ProfileParser(InputStream in) {
        this.in = in;
    }

    /** Read a profile file ({@code .gz} or plain, told by its first bytes). */
    static Parsed read(File file) throws IOException {
        PushbackInputStream raw = new PushbackInputStream(new FileInputStream(file), 2);
        InputStream in = raw;
        try {
            int a = raw.read();
            int b = a < 0 ? -1 : raw.read();
            if (b >= 0) {
                raw.unread(b);
            }
            if (a >= 0) {
                raw.unread(a);
            }
            if (a == 0x1f && b == 0x8b) {
                in = new GZIPInputStream(raw, 1 << 16);
            }
            in = new java.io.BufferedInputStream(in, 1 << 16);
            in.mark(8);
            byte[] head = new byte[8];
            int n = 0;
            while (n < 8) {
                int k = in.read(head, n, 8 - n);
                if (k <= 0) {
                    break;
                }
                n += k;
            }
            if (n == 8 && java.util.Arrays.equals(java.util.Arrays.copyOf(head, 7), ProfileBinary.MAGIC)) {
                if (!ProfileBinary.readable(head[7])) {
                    throw new IOException("compact profile version " + head[7] + ", this runtime reads 1 and "
                            + ProfileBinary.VERSION);
                }
                return ProfileBinaryReader.read(in);   // the compact format (.jpprof)
            }
            in.reset();
            return new ProfileParser(in).profile();
        } finally {
            in.close();
        }
    }

    // ------------------------------------------------------------------ bytes

    private int peek() throws IOException {
        if (pos == len) {
            offset += len;
            pos = 0;
            len = 0;
            int n = in.read(buf, 0, buf.length);
            if (n <= 0) {
                return -1;
            }
            len = n;
        }
        return buf[pos] & 0xff;
    }

    private int nextByte() throws IOException {
        int c = peek();
        if (c >= 0) {
            pos++;
        }
        return c;
    }

    /** The next byte that is not white space (not consumed). */
    private int skipSpace() throws IOException {
        for (;;) {
            int c = peek();
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                pos++;
            } else {
                return c;
            }
        }
    }

    private IOException fail(String what) {
        return new IOException("byte " + (offset + pos) + ": " + what);
    }

    private void expect(int ch, String what) throws IOException {
        if (skipSpace() != ch) {
            throw fail(peek() < 0 ? "the file ends early" : "expected " + what);
        }
        pos++;
    }

    /** After a value in an object or array: true when another one follows (a comma), false at {@code close}. */
    private boolean more(int close) throws IOException {
        int c = skipSpace();
        if (c == ',') {
            pos++;
            return true;
        }
        if (c == close) {
            pos++;
            return false;
        }
        throw fail(c < 0 ? "the file ends early" : "expected ',' or '" + (char) close + "'");
    }

    private String string() throws IOException {
        expect('"', "a string");
        sb.setLength(0);
        for (;;) {
            int c = nextByte();
            if (c < 0) {
                throw fail("the file ends early");
            }
            if (c == '"') {
                return sb.toString();
            }
            if (c == '\\') {
                int e = nextByte();
                switch (e) {
                    case '"': sb.append('"'); break;
                    case '\\': sb.append('\\'); break;
                    case '/': sb.append('/'); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'n': sb.append('\n'); break;
                    case 'r': sb.append('\r'); break;
                    case 't': sb.append('\t'); break;
                    case 'u':
                        int v = 0;
                        for (int i = 0; i < 4; i++) {
                            int h = Character.digit(nextByte(), 16);
                            if (h < 0) {
                                throw fail("malformed \\u escape");
                            }
                            v = v * 16 + h;
                        }
                        sb.append((char) v);
                        break;
                    default:
                        throw fail("malformed escape");
                }
            } else if (c < 0x80) {
                sb.append((char) c);
            } else {
                utf8(c);
            }
        }
    }

    private void utf8(int c) throws IOException {
        int n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : -1;
        if (n < 0) {
            throw fail("malformed UTF-8");
        }
        int v = c & (0x3f >> n);
        for (int i = 0; i < n; i++) {
            int d = nextByte();
            if (d < 0x80 || d > 0xbf) {
                throw fail("malformed UTF-8");
            }
            v = (v << 6) | (d & 0x3f);
        }
        sb.appendCodePoint(v);
    }

    private long number() throws IOException {
        skipSpace();
        sb.setLength(0);
        for (;;) {
            int c = peek();
            if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
                sb.append((char) c);
                pos++;
            } else {
                break;
            }
        }
        String t = sb.toString();
        if (t.isEmpty()) {
            throw fail(peek() < 0 ? "the file ends early" : "expected a value");
        }
        try {
            return Long.parseLong(t);
        } catch (NumberFormatException e) {
            try {
                return (long) Double.parseDouble(t);
            } catch (NumberFormatException e2) {
                throw fail("expected a number");
            }
        }
    }

    private boolean bool() throws IOException {
        int c = skipSpace();
        String word = c == 't' ? "true" : c == 'f' ? "false" : null;
        if (word == null) {
            throw fail("expected true or false");
        }
        for (int i = 0; i < word.length(); i++) {
            if (nextByte() != word.charAt(i)) {
                throw fail("expected true or false");
            }
        }
        return c == 't';
    }

    /** Pass over any JSON value; iterative (containers on an explicit stack). */
    private void skipValue() throws IOException {
        boolean[] object = new boolean[16];
        int depth = 0;
        for (;;) {
            int c = skipSpace();
            if (c == '{' || c == '[') {
                pos++;
                if (skipSpace() == (c == '{' ? '}' : ']')) {
                    pos++;
                } else {
                    if (depth == object.length) {
                        object = java.util.Arrays.copyOf(object, depth * 2);
                    }
                    object[depth++] = c == '{';
                    if (c == '{') {
                        string();
                        expect(':', "':'");
                    }
                    continue;
                }
            } else if (c == '"') {
                string();
            } else if (c == 't' || c == 'f') {
                bool();
            } else if (c == 'n') {
                for (int i = 0; i < 4; i++) {
                    if (nextByte() != "null".charAt(i)) {
                        throw fail("malformed JSON value");
                    }
                }
            } else if (c < 0) {
                throw fail("the file ends early");
            } else {
                number();
            }
            for (;;) {   // after a value: the next one, or the end of containers
                if (depth == 0) {
                    return;
                }
                boolean obj = object[depth - 1];
                int e = skipSpace();
                if (e == ',') {
                    pos++;
                    if (obj) {
                        string();
                        expect(':', "':'");
                    }
                    break;
                }
                if (e == (obj ? '}' : ']')) {
                    pos++;
                    depth--;
                    continue;
                }
                throw fail(e < 0 ? "the file ends early" : "malformed JSON");
            }
        }
    }

    // ------------------------------------------------------------------ the profile

    private Parsed profile() throws IOException {
        Parsed p = new Parsed();
        expect('{', "a JSON object (not a jprewrite profile)");
        if (skipSpace() == '}') {
            throw fail("not a jprewrite profile (no 'root' object)");
        }
        do {
            String key = string();
            expect(':', "':'");
            if ("root".equals(key)) {
                p.merged = tree();
            } else if ("threads".equals(key)) {
                threads(p);
            } else if ("format".equals(key)) {
                String f = string();
                if (!"jprewrite-profile".equals(f)) {
                    throw fail("not a jprewrite profile (format '" + f + "')");
                }
            } else if ("runs".equals(key)) {
                p.runs = Math.max(1, number());
            } else {
                skipValue();
            }
        } while (more('}'));
        if (p.merged == null) {
            throw fail("not a jprewrite profile (no 'root' object)");
        }
        if (skipSpace() >= 0) {
            throw fail("unexpected text after the profile");
        }
        for (Map.Entry<String, Node> t : p.threads.entrySet()) {
            if (t.getValue() == null) {
                t.setValue(p.merged);   // "same_as_root": written before or after the merged tree
            }
        }
        return p;
    }

    private void threads(Parsed p) throws IOException {
        expect('[', "the list of threads");
        if (skipSpace() == ']') {
            pos++;
            return;
        }
        do {
            expect('{', "a thread");
            String name = null;
            Node root = null;
            boolean same = false;
            if (skipSpace() != '}') {
                do {
                    String key = string();
                    expect(':', "':'");
                    if ("name".equals(key)) {
                        name = string();
                    } else if ("root".equals(key)) {
                        root = tree();
                    } else if ("same_as_root".equals(key)) {
                        same = bool();
                    } else {
                        skipValue();
                    }
                } while (more('}'));
            } else {
                pos++;
            }
            if (name == null) {
                throw fail("a thread without a name");
            }
            if (root != null || same) {
                p.threads.put(name, root);
            } else {
                p.names.add(name);
            }
        } while (more(']'));
    }

    /** One context under construction: its fields until its node is made (at "children" or its end). */
    private static final class Open {
        Node node;
        String method;
        int kind;
        long calls;
        long bytecodes;
        long weighted;
        long samples;
        long fresh;
        TreeMap<String, Long> allocs;
    }

    private static int kind(String k) {
        if ("jdk".equals(k)) {
            return MethodId.KIND_JDK;
        }
        if ("uninstrumented".equals(k)) {
            return MethodId.KIND_UNINSTRUMENTED;
        }
        if ("native".equals(k)) {
            return MethodId.KIND_NATIVE;
        }
        return MethodId.KIND_INSTRUMENTED;
    }

    private MethodId mid(String method, int kind) {
        return interned(mids, method, kind);
    }

    /**
     * One MethodId per (method, kind) of a profile read back: the trees it is added to find a child
     * by MethodId identity, so equal methods must share one object (both readers use it).
     */
    static MethodId interned(Map<String, MethodId> mids, String method, int kind) {
        String key = kind + method;
        MethodId m = mids.get(key);
        if (m == null) {
            m = new MethodId("", method, "", kind, 0);
            mids.put(key, m);
        }
        return m;
    }

    private Node make(Open o, Node parent) throws IOException {
        if (o.method == null) {
            throw fail("a calling context without a method");
        }
        Node n = new Node(mid(o.method, o.kind), parent, null, parent == null ? null : parent.first);
        if (parent != null) {
            parent.first = n;
        }
        n.calls = o.calls;
        n.bytecodes = o.bytecodes;
        if (o.weighted != 0) {
            n.addWeighted(o.weighted);
        }
        if (o.samples != 0 || o.fresh != 0) {
            Node.Rare s = n.rare();
            s.samples = o.samples;
            s.fresh = o.fresh;
        }
        if (o.allocs != null) {
            for (Map.Entry<String, Long> a : o.allocs.entrySet()) {
                n.addAllocations(a.getKey(), a.getValue());
            }
        }
        return n;
    }

    /** A tree: the root object and everything beneath it, with an explicit stack. */
    private Node tree() throws IOException {
        ArrayList<Open> stack = new ArrayList<Open>();
        expect('{', "a calling context");
        Open root = new Open();
        stack.add(root);
        boolean fresh = true;   // just after the '{' of the context on top
        while (!stack.isEmpty()) {
            Open o = stack.get(stack.size() - 1);
            boolean ended;
            if (fresh) {
                fresh = false;
                ended = skipSpace() == '}';
                if (ended) {
                    pos++;
                }
            } else {
                ended = !more('}');
            }
            if (ended) {
                stack.remove(stack.size() - 1);
                if (o.node == null) {
                    o.node = make(o, stack.isEmpty() ? null : stack.get(stack.size() - 1).node);
                }
                if (!stack.isEmpty() && more(']')) {   // the parent's list of children goes on
                    expect('{', "a calling context");
                    stack.add(new Open());
                    fresh = true;
                }
                continue;
            }
            String key = string();
            expect(':', "':'");
            if ("children".equals(key)) {
                if (o.node != null) {
                    throw fail("a calling context with two lists of children");
                }
                o.node = make(o, stack.size() > 1 ? stack.get(stack.size() - 2).node : null);
                expect('[', "the list of children");
                if (skipSpace() == ']') {
                    pos++;
                    continue;
                }
                expect('{', "a calling context");
                stack.add(new Open());
                fresh = true;
            } else if ("method".equals(key)) {
                o.method = string();
            } else if ("calls".equals(key)) {
                o.calls = number();
            } else if ("bytecodes".equals(key)) {
                o.bytecodes = number();
            } else if ("weighted".equals(key)) {
                o.weighted = number();
            } else if ("samples".equals(key)) {
                o.samples = number();
            } else if ("fresh".equals(key)) {
                o.fresh = number();
            } else if ("kind".equals(key)) {
                o.kind = kind(string());
            } else if ("allocations".equals(key)) {
                o.allocs = allocations();
            } else {
                skipValue();
            }
        }
        return root.node;
    }

    private TreeMap<String, Long> allocations() throws IOException {
        TreeMap<String, Long> m = new TreeMap<String, Long>();
        expect('{', "an object of allocation counts");
        if (skipSpace() == '}') {
            pos++;
            return m;
        }
        do {
            String type = string();
            expect(':', "':'");
            long n = number();
            Long old = m.get(type);
            m.put(type, old == null ? n : old + n);
        } while (more('}'));
        return m;
    }
}
