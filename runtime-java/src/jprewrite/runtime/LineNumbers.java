package jprewrite.runtime;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;

/**
 * The methods of a class file with the source lines of their code ({@code LineNumberTable}): how a
 * {@link StackTraceElement}, which names a method but gives no descriptor, is told apart from its
 * overloads ({@code Long.toString()}, {@code toString(J)}, {@code toString(JI)}): by its line.
 * Read from the class's own {@code .class} resource (class files are never encapsulated by
 * modules), only for classes whose frames have an overloaded name.
 */
final class LineNumbers {
    /** One method: name, descriptor and the lines its code covers (sorted, possibly empty). */
    static final class Entry {
        final String name;
        final String descriptor;
        final int[] lines;

        Entry(String name, String descriptor, int[] lines) {
            this.name = name;
            this.descriptor = descriptor;
            this.lines = lines;
        }

        boolean covers(int line) {
            return java.util.Arrays.binarySearch(lines, line) >= 0;
        }
    }

    /** The methods of {@code c}'s class file, or null when its bytes cannot be found or read. */
    static ArrayList<Entry> read(Class<?> c) {
        String resource = "/" + c.getName().replace('.', '/') + ".class";
        try {
            InputStream in = c.getResourceAsStream(resource);
            if (in == null) {
                return null;
            }
            try {
                return parse(new DataInputStream(new java.io.BufferedInputStream(in)));
            } finally {
                in.close();
            }
        } catch (Throwable e) {
            return null;   // not a class file we can read: no lines, no harm
        }
    }

    private static ArrayList<Entry> parse(DataInputStream in) throws IOException {
        if (in.readInt() != 0xCAFEBABE) {
            return null;
        }
        in.readInt();   // minor, major
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1:
                    utf8[i] = in.readUTF();
                    break;
                case 5:
                case 6:
                    in.readLong();
                    i++;   // takes two slots
                    break;
                case 3:
                case 4:
                case 9:
                case 10:
                case 11:
                case 12:
                case 17:
                case 18:
                    in.readInt();
                    break;
                case 15:
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                    break;
                case 7:
                case 8:
                case 16:
                case 19:
                case 20:
                    in.readUnsignedShort();
                    break;
                default:
                    return null;
            }
        }
        in.readUnsignedShort();   // access
        in.readUnsignedShort();   // this
        in.readUnsignedShort();   // super
        skip(in, 2 * in.readUnsignedShort());   // interfaces
        int fields = in.readUnsignedShort();
        for (int f = 0; f < fields; f++) {
            skip(in, 6);
            skipAttributes(in);
        }
        int methods = in.readUnsignedShort();
        ArrayList<Entry> out = new ArrayList<Entry>(methods);
        for (int m = 0; m < methods; m++) {
            in.readUnsignedShort();
            String name = utf8[in.readUnsignedShort()];
            String desc = utf8[in.readUnsignedShort()];
            int[] lines = new int[0];
            int attributes = in.readUnsignedShort();
            for (int a = 0; a < attributes; a++) {
                String attr = utf8[in.readUnsignedShort()];
                int length = in.readInt();
                if ("Code".equals(attr)) {
                    lines = code(in, utf8);
                } else {
                    skip(in, length);
                }
            }
            out.add(new Entry(name, desc, lines));
        }
        return out;
    }

    /** The lines of a Code attribute (positioned after its length). */
    private static int[] code(DataInputStream in, String[] utf8) throws IOException {
        skip(in, 4);   // max_stack, max_locals
        skip(in, in.readInt());   // code
        skip(in, 8 * in.readUnsignedShort());   // exception table
        int[] lines = new int[0];
        int attributes = in.readUnsignedShort();
        for (int a = 0; a < attributes; a++) {
            String attr = utf8[in.readUnsignedShort()];
            int length = in.readInt();
            if ("LineNumberTable".equals(attr)) {
                int n = in.readUnsignedShort();
                int[] more = new int[n];
                for (int k = 0; k < n; k++) {
                    in.readUnsignedShort();
                    more[k] = in.readUnsignedShort();
                }
                int[] all = java.util.Arrays.copyOf(lines, lines.length + n);
                System.arraycopy(more, 0, all, lines.length, n);
                lines = all;
            } else {
                skip(in, length);
            }
        }
        java.util.Arrays.sort(lines);
        return lines;
    }

    private static void skipAttributes(DataInputStream in) throws IOException {
        int n = in.readUnsignedShort();
        for (int a = 0; a < n; a++) {
            in.readUnsignedShort();
            skip(in, in.readInt());
        }
    }

    private static void skip(DataInputStream in, long n) throws IOException {
        while (n > 0) {
            long k = in.skip(n);
            if (k <= 0) {
                if (in.read() < 0) {
                    throw new java.io.EOFException();
                }
                k = 1;
            }
            n -= k;
        }
    }

    private LineNumbers() {
    }
}
