package jprewrite.agent;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.WeakHashMap;

/**
 * Does a class loader see jprewrite's runtime, the one the agent put on the bootstrap class path?
 *
 * <p>A rewritten class names {@code jprewrite.runtime.Node} and its siblings, and the JVM resolves
 * them through the class's own loader. Most loaders ask their parent, and so in the end the
 * bootstrap loader, but isolating ones do not: Ant's {@code <java fork="false">} loader
 * delegates only {@code java.*}, as OSGi frameworks and some containers do. A class of such a
 * loader, rewritten, fails with {@code NoClassDefFoundError: jprewrite/runtime/Node} when it
 * runs; so every class of a loader that does not find the very runtime the agent uses stays as
 * it is (reported at exit, once per loader class). Asked once per loader and remembered weakly.
 */
final class RuntimeVisibility {
    private static final Map<ClassLoader, Boolean> SEEN = Collections.synchronizedMap(new WeakHashMap<>());
    private static final String PROBE = "jprewrite.runtime.Node";

    private RuntimeVisibility() {
    }

    static boolean sees(ClassLoader loader) {
        Boolean known = SEEN.get(loader);
        if (known == null) {
            known = probe(loader);
            SEEN.put(loader, known);
            if (!known) {
                isolated(loader.getClass().getName());
            }
        }
        return known;
    }

    private static final Set<String> ISOLATING = new TreeSet<>();

    /**
     * Reported at exit, not while the class loads: the loader's owner may have redirected
     * {@code System.err} into the program's own output then (Ant logs a task's stderr).
     */
    private static void isolated(String kind) {
        synchronized (ISOLATING) {
            if (ISOLATING.isEmpty()) {
                try {
                    Runtime.getRuntime().addShutdownHook(new Thread(RuntimeVisibility::report, "jprewrite-isolated"));
                } catch (Throwable e) {   // shutting down already
                    return;
                }
            }
            ISOLATING.add(kind);
        }
    }

    private static void report() {
        synchronized (ISOLATING) {
            for (String kind : ISOLATING) {
                Log.warn("classes of " + kind + " stayed uninstrumented: that class loader does not find"
                        + " jprewrite's runtime on the bootstrap class path (it isolates its classes)");
            }
        }
    }

    private static boolean probe(ClassLoader loader) {
        try {
            return Class.forName(PROBE, false, loader) == jprewrite.runtime.Node.class;
        } catch (Throwable e) {   // ClassNotFoundException, LinkageError, a loader's own failure
            return false;
        }
    }
}
