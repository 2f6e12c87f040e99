package jprewrite.runtime;

/** System properties and user-selected classes (profiler, MID factory), read defensively. */
final class Config {
    static String property(String key) {
        try {
            return System.getProperty(key);
        } catch (Throwable e) {
            return null;
        }
    }

    /**
     * An instance of the class named by a system property, or null (with a warning).
     *
     * <p>The runtime may sit on the boot class path while the class lives on the application class
     * path, so try the context loader, the system loader and our own loader in turn.
     */
    static Object instantiate(String className, String property) {
        Throwable failure = null;
        ClassLoader[] loaders = new ClassLoader[3];
        try {
            loaders[0] = Thread.currentThread().getContextClassLoader();
        } catch (Throwable ignored) {
            // keep null
        }
        try {
            loaders[1] = ClassLoader.getSystemClassLoader();
        } catch (Throwable ignored) {
            // keep null
        }
        loaders[2] = Config.class.getClassLoader();
        for (ClassLoader loader : loaders) {
            try {
                Class<?> c = Class.forName(className, true, loader);
                return c.getDeclaredConstructor().newInstance();
            } catch (Throwable e) {
                if (failure == null || !(e instanceof ClassNotFoundException)) {
                    failure = e;
                }
            }
        }
        Log.warn("cannot use -D" + property + "=" + className + " (" + failure + "); using the default");
        return null;
    }

    private Config() {
    }
}
