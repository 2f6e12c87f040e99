package jprewrite.agent;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Does loading a class with a given loader run code of the program?
 *
 * <p>The JVM resolves the class names in a class's code through the class's defining loader, by
 * calling its {@code loadClass} the first time a name is resolved. For the JDK's loaders (the
 * application class loader, a plain {@code URLClassLoader}) that is JDK code; a loader class the
 * program defines (a child-first plugin loader, Groovy's and Clojure's loaders), or one that asks
 * such a loader as a parent, runs the program's own instrumented code, with no call instruction in
 * the program. Such classes are rewritten so that each first resolution publishes the node of the
 * method that makes it (the rewriting's {@code resolutions} option): the loader's work then
 * attaches beneath that method. Asked once per loader and remembered weakly.
 */
final class ProgramLoaders {
    private static final Map<ClassLoader, Boolean> SEEN = Collections.synchronizedMap(new WeakHashMap<>());

    private ProgramLoaders() {
    }

    static boolean runProgramCode(ClassLoader loader) {
        if (loader == null) {
            return false;
        }
        Boolean known = SEEN.get(loader);
        if (known == null) {
            known = ask(loader);
            SEEN.put(loader, known);
        }
        return known;
    }

    private static boolean ask(ClassLoader loader) {
        try {
            for (ClassLoader l = loader; l != null; l = l.getParent()) {
                if (l.getClass().getClassLoader() != null) {
                    return true;   // a loader class that a loader other than the bootstrap one defined
                }
            }
        } catch (Throwable e) {   // a loader's own getParent failing: its loads run its code
            return true;
        }
        return false;
    }
}
