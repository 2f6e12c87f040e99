package jprewrite.agent;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.security.ProtectionDomain;

/**
 * Defines the extra classes of a rewritten class (its holder {@code C$$jpmids}) in C's loader,
 * with C's protection domain, before the transformer returns C's new bytes: C's code refers to
 * the holder, which must be in the same runtime package (same loader, same package).
 *
 * <p>There is no public API to define a class into an arbitrary loader for a class that does not
 * exist yet ({@code Lookup.defineClass} needs a class of that package), so this calls the
 * protected {@code ClassLoader.defineClass} reflectively; the agent opens {@code java.lang} to
 * this class's module at start-up for that.
 */
final class Injector {
    private static Method defineClass;
    private static Method findLoadedClass;

    /** Makes the two ClassLoader methods accessible; null on success, else what went wrong. */
    static synchronized String init() {
        try {
            Method define = ClassLoader.class.getDeclaredMethod("defineClass", String.class, byte[].class,
                    int.class, int.class, ProtectionDomain.class);
            Method find = ClassLoader.class.getDeclaredMethod("findLoadedClass", String.class);
            define.setAccessible(true);
            find.setAccessible(true);
            defineClass = define;
            findLoadedClass = find;
            return null;
        } catch (Throwable e) {
            return Log.describe(e);
        }
    }

    /**
     * Defines every extra class of {@code result} in {@code loader}; a class that the loader
     * already has (defined earlier, or concurrently by another thread) is left as it is.
     *
     * @return null when all are there, else why not (then C must stay unchanged)
     */
    static String defineExtras(ClassLoader loader, ProtectionDomain pd, Result result) {
        Method define = defineClass;
        Method find = findLoadedClass;
        if (define == null || find == null) {
            return "cannot define classes in the application's class loaders";
        }
        for (int i = 0; i < result.extraNames.length; i++) {
            String name = result.extraNames[i].replace('/', '.');
            byte[] bytes = result.extraClasses[i];
            try {
                if (find.invoke(loader, name) != null) {
                    continue;
                }
                define.invoke(loader, name, bytes, 0, bytes.length, pd);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof LinkageError && alreadyDefined(loader, find, name, cause)) {
                    continue;
                }
                return "cannot define " + name + ": " + Log.describe(cause);
            } catch (Throwable e) {
                return "cannot define " + name + ": " + Log.describe(e);
            }
        }
        return null;
    }

    /**
     * The class {@code name} (binary name) if {@code loader} has loaded it already (as its defining
     * or an initiating loader), else null. Never loads anything.
     */
    static Class<?> findLoaded(ClassLoader loader, String name) {
        Method find = findLoadedClass;
        if (find == null || loader == null) {
            return null;
        }
        try {
            return (Class<?>) find.invoke(loader, name);
        } catch (Throwable e) {
            return null;
        }
    }

    private static boolean alreadyDefined(ClassLoader loader, Method find, String name, Throwable error) {
        String message = error.getMessage();
        if (message != null && message.contains("duplicate")) {
            return true;
        }
        try {
            return find.invoke(loader, name) != null;
        } catch (Throwable e) {
            return false;
        }
    }

    private Injector() {
    }
}
