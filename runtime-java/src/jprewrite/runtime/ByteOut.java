package jprewrite.runtime;

import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;

/**
 * The profile writer's output: ASCII bytes into a buffer, numbers without a String each, method names
 * escaped once. A profile of millions of contexts is mostly method names and digits, and going
 * through a {@link java.io.Writer} (a String per number, a char encoder) took most of the time.
 */
final class ByteOut {
    private final OutputStream out;
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    /** JSON strings of method names, quotes included (few distinct names, written millions of times). */
    private final HashMap<String, byte[]> json = new HashMap<String, byte[]>();
    private final byte[] digits = new byte[20];

    ByteOut(OutputStream out) {
        this.out = out;
    }

    void flush() throws IOException {
        if (pos > 0) {
            out.write(buf, 0, pos);
            pos = 0;
        }
    }

    void write(int b) throws IOException {
        if (pos == buf.length) {
            flush();
        }
        buf[pos++] = (byte) b;
    }

    void write(byte[] b) throws IOException {
        write(b, 0, b.length);
    }

    void write(byte[] b, int off, int len) throws IOException {
        if (len > buf.length - pos) {
            flush();
            if (len > buf.length) {
                out.write(b, off, len);
                return;
            }
        }
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
    }

    /** Text known to be ASCII (keys, punctuation, JSON made by the runtime itself). */
    void ascii(String s) throws IOException {
        int n = s.length();
        if (n > buf.length - pos) {
            flush();
        }
        if (n > buf.length) {
            for (int i = 0; i < n; i++) {
                write(s.charAt(i));
            }
            return;
        }
        for (int i = 0; i < n; i++) {
            buf[pos++] = (byte) s.charAt(i);
        }
    }

    void number(long v) throws IOException {
        if (v >= 0 && v < 10) {
            write('0' + (int) v);
            return;
        }
        if (v == Long.MIN_VALUE) {
            ascii(Long.toString(v));
            return;
        }
        if (v < 0) {
            write('-');
            v = -v;
        }
        int i = digits.length;
        while (v != 0) {
            digits[--i] = (byte) ('0' + (int) (v % 10));
            v /= 10;
        }
        write(digits, i, digits.length - i);
    }

    /** A method name as a JSON string (cached). */
    void name(String method) throws IOException {
        byte[] b = json.get(method);
        if (b == null) {
            StringBuilder sb = new StringBuilder(method.length() + 2);
            Tree.string(method, sb);
            b = asciiBytes(sb);
            json.put(method, b);
        }
        write(b);
    }

    /** Any string as a JSON string (thread names: not cached). */
    void string(String s) throws IOException {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        Tree.string(s, sb);
        write(asciiBytes(sb));
    }

    private static byte[] asciiBytes(CharSequence s) {
        byte[] b = new byte[s.length()];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) s.charAt(i);
        }
        return b;
    }
}
