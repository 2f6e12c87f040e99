package jprewrite.agent;

import java.nio.charset.StandardCharsets;

/**
 * The few facts the agent reads from a class file itself, without a parser: the superclass name.
 *
 * <p>{@code java.lang.reflect.Proxy} classes are generated anew in every run, with their methods
 * in {@code getMethods()} order, which varies: their bytes would miss the cache every time and
 * start the worker, which leaves them unchanged anyway (the rewriter's rule: a class whose
 * superclass is {@code java.lang.reflect.Proxy} is JDK plumbing). So the agent skips them itself.
 */
final class ClassBytes {
    static final String PROXY = "java/lang/reflect/Proxy";

    /** Is this the class file of a {@code java.lang.reflect.Proxy} subclass named like the JDK names them? */
    static boolean isJdkProxy(String className, byte[] bytes) {
        int slash = className.lastIndexOf('/');
        if (!className.startsWith("$Proxy", slash + 1)) {
            return false;
        }
        return PROXY.equals(superName(bytes));
    }

    /** The internal name of the superclass, or null (no superclass, or bytes that are not a class file). */
    static String superName(byte[] b) {
        try {
            int count = u2(b, 8);
            int[] offsets = new int[count];
            int p = 10;
            for (int i = 1; i < count; i++) {
                offsets[i] = p;
                int tag = b[p] & 0xFF;
                switch (tag) {
                    case 1: p += 3 + u2(b, p + 1); break;                       // Utf8
                    case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: p += 5; break;
                    case 5: case 6: p += 9; i++; break;                            // Long, Double: two slots
                    case 7: case 8: case 16: case 19: case 20: p += 3; break;
                    case 15: p += 4; break;                                        // MethodHandle
                    default: return null;
                }
            }
            int superIndex = u2(b, p + 4);   // after access_flags, this_class
            if (superIndex == 0 || superIndex >= count || (b[offsets[superIndex]] & 0xFF) != 7) {
                return null;
            }
            int utf8 = offsets[u2(b, offsets[superIndex] + 1)];
            return new String(b, utf8 + 3, u2(b, utf8 + 1), StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static int u2(byte[] b, int p) {
        return ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
    }

    private ClassBytes() {
    }
}
