package jprewrite.runtime;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;

/**
 * The members a rewritten class declares as the original declares them: what rewritten code reads
 * through reflection.
 *
 * <p>The rewriting adds synthetic members to each class it instruments: an ESI twin
 * {@code m$jp} per method, outlined parts {@code m$jp$N}, the class method
 * {@code $jprewrite$class()} and the marker field {@code $jprewrite$instrumented}. A program that
 * lists its classes' methods or fields (printing them, counting them, serialising or binding by
 * them) would see them. Where rewritten code calls {@code Class.getDeclaredMethods},
 * {@code getMethods}, {@code getDeclaredFields} or {@code getFields}, the result goes through
 * here and comes back without them. Only synthetic members with those names are left out, so
 * the program's own members all stay, synthetic bridges and accessors included.
 */
public final class Members {
    private static final String TWIN = "$jp";
    private static final String PART = "$jp$";
    private static final String CLASS_METHOD = "$jprewrite$class";
    private static final String MARKER_FIELD = "$jprewrite$instrumented";

    private Members() {
    }

    /** {@code methods} without the rewriting's own (a new array), or {@code methods} itself. */
    public static Method[] methods(Method[] methods) {
        if (methods == null) {
            return null;
        }
        try {
            ArrayList<Method> kept = null;
            for (int i = 0; i < methods.length; i++) {
                Method m = methods[i];
                boolean added = m.isSynthetic() && isAdded(m.getName());
                if (added && kept == null) {
                    kept = new ArrayList<Method>(methods.length);
                    for (int k = 0; k < i; k++) {
                        kept.add(methods[k]);
                    }
                } else if (!added && kept != null) {
                    kept.add(m);
                }
            }
            return kept == null ? methods : kept.toArray(new Method[0]);
        } catch (Throwable e) {   // no memory left, say: the JVM's answer as it was
            return methods;
        }
    }

    /** {@code fields} without the rewriting's marker field (a new array), or {@code fields} itself. */
    public static Field[] fields(Field[] fields) {
        if (fields == null) {
            return null;
        }
        try {
            ArrayList<Field> kept = null;
            for (int i = 0; i < fields.length; i++) {
                Field f = fields[i];
                boolean added = f.isSynthetic() && MARKER_FIELD.equals(f.getName());
                if (added && kept == null) {
                    kept = new ArrayList<Field>(fields.length);
                    for (int k = 0; k < i; k++) {
                        kept.add(fields[k]);
                    }
                } else if (!added && kept != null) {
                    kept.add(f);
                }
            }
            return kept == null ? fields : kept.toArray(new Field[0]);
        } catch (Throwable e) {
            return fields;
        }
    }

    private static boolean isAdded(String name) {
        if (name.equals(CLASS_METHOD) || (name.endsWith(TWIN) && name.length() > TWIN.length())) {
            return true;
        }
        int part = name.lastIndexOf(PART);
        if (part <= 0 || part + PART.length() >= name.length()) {
            return false;
        }
        for (int k = part + PART.length(); k < name.length(); k++) {
            char c = name.charAt(k);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
