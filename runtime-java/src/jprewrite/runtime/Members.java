package jprewrite.runtime;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * The members a rewritten class declares as the original declares them: what rewritten code reads
 * through reflection.
 *
 * <p>The rewriting adds synthetic members to each class it instruments: an ESI twin
 * {@code m$jp} per method, outlined parts {@code m$jp$N}, the class method
 * {@code $jprewrite$class()}, logging trampolines (see {@link Traces}) and the marker field
 * {@code $jprewrite$instrumented}. A program that
 * lists its classes' methods or fields (printing them, counting them, serialising or binding by
 * them) would see them. Where rewritten code calls {@code Class.getDeclaredMethods},
 * {@code getMethods}, {@code getDeclaredFields} or {@code getFields}, the result goes through
 * here and comes back without them. Only synthetic members with those names (or a trampoline's
 * last parameter) are left out, so the program's own members all stay, synthetic bridges and
 * accessors included.
 */
public final class Members {
    private static final String CLASS_METHOD = "$jprewrite$class";
    private static final String MARKER_FIELD = "$jprewrite$instrumented";

    private Members() {
    }

    /** {@code methods} without the rewriting's own (a new array), or {@code methods} itself. */
    public static Method[] methods(Method[] methods) {
        return kept(methods, false);
    }

    /** {@code fields} without the rewriting's marker field (a new array), or {@code fields} itself. */
    public static Field[] fields(Field[] fields) {
        return kept(fields, true);
    }

    private static <T extends Member> T[] kept(T[] members, boolean fields) {
        if (members == null) {
            return null;
        }
        try {
            T[] out = null;
            int n = 0;
            for (int i = 0; i < members.length; i++) {
                T m = members[i];
                String name = m.getName();
                if (m.isSynthetic() && (fields ? MARKER_FIELD.equals(name) : isAdded(name) || isTrampoline(m))) {
                    if (out == null) {
                        out = Arrays.copyOf(members, members.length);
                        n = i;
                    }
                } else if (out != null) {
                    out[n++] = m;
                }
            }
            return out == null ? members : Arrays.copyOf(out, n);
        } catch (Throwable e) {   // no memory left, say: the JVM's answer as it was
            return members;
        }
    }

    /** A logging trampoline: named as a method of the program, its last parameter a {@link Traces} (see there). */
    private static boolean isTrampoline(Member m) {
        if (!(m instanceof Method)) {
            return false;
        }
        Class<?>[] params = ((Method) m).getParameterTypes();
        return params.length > 0 && params[params.length - 1].getName().equals(TRAMPOLINE_MARKER);
    }

    private static final String TRAMPOLINE_MARKER = Traces.class.getName();

    private static boolean isAdded(String name) {
        return name.equals(CLASS_METHOD) || Traces.isAddedName(name);
    }
}
