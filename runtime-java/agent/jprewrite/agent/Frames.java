package jprewrite.agent;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The binary encoding shared by the worker pipe and the cache entries (docs/agent.md): big-endian
 * integers, {@code str} = u4 length + UTF-8 (not {@code writeUTF}'s modified UTF-8 with a u2
 * length), {@code bytes} = u4 length + data. A frame is {@code u4 length, u1 type, payload}, the
 * length counting the type byte.
 */
final class Frames {
    /** Refuse frames larger than this: a corrupt length must not make us allocate gigabytes. */
    static final int MAX_FRAME = 256 * 1024 * 1024;

    /** Builds a payload (or a cache entry) in memory. */
    static final class Writer extends ByteArrayOutputStream {
        Writer() {
            super(256);
        }

        Writer u1(int v) {
            write(v);
            return this;
        }

        Writer u2(int v) {
            write(v >>> 8);
            write(v);
            return this;
        }

        Writer u4(int v) {
            write(v >>> 24);
            write(v >>> 16);
            write(v >>> 8);
            write(v);
            return this;
        }

        Writer bytes(byte[] b) {
            byte[] data = b == null ? new byte[0] : b;
            u4(data.length);
            write(data, 0, data.length);
            return this;
        }

        Writer str(String s) {
            return bytes((s == null ? "" : s).getBytes(StandardCharsets.UTF_8));
        }

        /** The bytes written so far, without copying when the buffer is exactly full. */
        byte[] array() {
            return buf.length == count ? buf : toByteArray();
        }
    }

    /** Reads a payload; every overrun is an {@link IOException} (a corrupt or truncated input). */
    static final class Reader {
        private final byte[] data;
        private int pos;
        private final int end;

        Reader(byte[] data, int start, int end) {
            this.data = data;
            this.pos = start;
            this.end = end;
        }

        int remaining() {
            return end - pos;
        }

        private void need(int n) throws IOException {
            if (n < 0 || end - pos < n) {
                throw new EOFException("truncated data");
            }
        }

        int u1() throws IOException {
            need(1);
            return data[pos++] & 0xff;
        }

        int u2() throws IOException {
            need(2);
            int v = ((data[pos] & 0xff) << 8) | (data[pos + 1] & 0xff);
            pos += 2;
            return v;
        }

        int u4() throws IOException {
            need(4);
            int v = ((data[pos] & 0xff) << 24) | ((data[pos + 1] & 0xff) << 16)
                    | ((data[pos + 2] & 0xff) << 8) | (data[pos + 3] & 0xff);
            pos += 4;
            return v;
        }

        byte[] bytes() throws IOException {
            int n = u4();
            need(n);
            byte[] b = new byte[n];
            System.arraycopy(data, pos, b, 0, n);
            pos += n;
            return b;
        }

        String str() throws IOException {
            int n = u4();
            need(n);
            String s = new String(data, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }
    }

    /** One frame read from the worker. */
    static final class Frame {
        final char type;
        final Reader payload;

        Frame(char type, Reader payload) {
            this.type = type;
            this.payload = payload;
        }
    }

    /** Writes one frame ({@code type} + payload) and flushes it. */
    static void write(OutputStream out, char type, Writer payload) throws IOException {
        int n = payload == null ? 0 : payload.size();
        byte[] header = {(byte) ((n + 1) >>> 24), (byte) ((n + 1) >>> 16), (byte) ((n + 1) >>> 8),
            (byte) (n + 1), (byte) type};
        out.write(header);
        if (payload != null) {
            payload.writeTo(out);
        }
        out.flush();
    }

    /** Reads one frame; {@link EOFException} when the stream ends (also in the middle of a frame). */
    static Frame read(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 1 || n > MAX_FRAME) {
            throw new IOException("bad frame length " + Integer.toUnsignedString(n));
        }
        byte[] data = new byte[n];
        in.readFully(data);
        return new Frame((char) (data[0] & 0xff), new Reader(data, 1, n));
    }

    private Frames() {
    }
}
