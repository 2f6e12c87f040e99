package jprewrite.agent;

/**
 * SHA-256 (FIPS 180-4), for the cache keys. The first call of {@code MessageDigest.getInstance}
 * initialises the whole JCA provider framework, which costs some 40 ms of every warm run; this
 * plain implementation has no start-up cost. The JDK's is several times faster once running
 * (an intrinsic), so after {@link #OWN_BYTES} hashed here (a big program) we switch to it.
 */
final class Sha256 {
    /** Bytes to hash here before switching: about what the switch costs (ski rental). */
    static final long OWN_BYTES = 8L << 20;

    private static final java.util.concurrent.atomic.AtomicLong HASHED = new java.util.concurrent.atomic.AtomicLong();
    private static volatile boolean jdkFailed;
    private static final ThreadLocal<java.security.MessageDigest> JDK = new ThreadLocal<>();

    private static final int[] K = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    };

    /** The digest of {@code data} (32 bytes). */
    static byte[] digest(byte[] data) {
        if (!jdkFailed && HASHED.get() > OWN_BYTES) {
            try {
                java.security.MessageDigest md = JDK.get();
                if (md == null) {
                    md = java.security.MessageDigest.getInstance("SHA-256");
                    JDK.set(md);
                }
                return md.digest(data);
            } catch (Throwable e) {
                jdkFailed = true;
            }
        }
        HASHED.addAndGet(data.length);
        return own(data);
    }

    /** This class's implementation (package-private for tests). */
    static byte[] own(byte[] data) {
        int[] h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        int[] w = new int[64];
        int full = data.length & ~63;
        for (int off = 0; off < full; off += 64) {
            block(h, w, data, off);
        }
        // the last 1 or 2 blocks: the rest, 0x80, zeros, the length in bits (big-endian u8)
        int rest = data.length - full;
        byte[] tail = new byte[rest < 56 ? 64 : 128];
        System.arraycopy(data, full, tail, 0, rest);
        tail[rest] = (byte) 0x80;
        long bits = (long) data.length << 3;
        for (int i = 0; i < 8; i++) {
            tail[tail.length - 1 - i] = (byte) (bits >>> (8 * i));
        }
        for (int off = 0; off < tail.length; off += 64) {
            block(h, w, tail, off);
        }
        byte[] out = new byte[32];
        for (int i = 0; i < 8; i++) {
            out[4 * i] = (byte) (h[i] >>> 24);
            out[4 * i + 1] = (byte) (h[i] >>> 16);
            out[4 * i + 2] = (byte) (h[i] >>> 8);
            out[4 * i + 3] = (byte) h[i];
        }
        return out;
    }

    private static void block(int[] h, int[] w, byte[] b, int off) {
        for (int i = 0; i < 16; i++) {
            int p = off + 4 * i;
            w[i] = (b[p] << 24) | ((b[p + 1] & 0xff) << 16) | ((b[p + 2] & 0xff) << 8) | (b[p + 3] & 0xff);
        }
        for (int i = 16; i < 64; i++) {
            int x = w[i - 15];
            int y = w[i - 2];
            int s0 = Integer.rotateRight(x, 7) ^ Integer.rotateRight(x, 18) ^ (x >>> 3);
            int s1 = Integer.rotateRight(y, 17) ^ Integer.rotateRight(y, 19) ^ (y >>> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        int a = h[0];
        int bb = h[1];
        int c = h[2];
        int d = h[3];
        int e = h[4];
        int f = h[5];
        int g = h[6];
        int hh = h[7];
        for (int i = 0; i < 64; i++) {
            int s1 = Integer.rotateRight(e, 6) ^ Integer.rotateRight(e, 11) ^ Integer.rotateRight(e, 25);
            int ch = (e & f) ^ (~e & g);
            int t1 = hh + s1 + ch + K[i] + w[i];
            int s0 = Integer.rotateRight(a, 2) ^ Integer.rotateRight(a, 13) ^ Integer.rotateRight(a, 22);
            int maj = (a & bb) ^ (a & c) ^ (bb & c);
            int t2 = s0 + maj;
            hh = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = bb;
            bb = a;
            a = t1 + t2;
        }
        h[0] += a;
        h[1] += bb;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += hh;
    }

    private Sha256() {
    }
}
