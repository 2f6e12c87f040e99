package app;

import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Two sibling class loaders that see each other's classes through a shared registry, as Clojure's
 * DynamicClassLoader does (a static class cache consulted before the parent; Clojure makes a new
 * loader for each top-level form): the interface dyn.Shape is defined by one loader, dyn.Square,
 * which implements and calls it, by another. The classes' bytes are resources
 * (/generated/dyn/*.bin), so only these loaders define them.
 */
public class SharedLoaders {
    static final Map<String, Class<?>> CACHE = new ConcurrentHashMap<>();

    static final class Loader extends ClassLoader {
        Loader(ClassLoader parent) {
            super(parent);
        }

        Class<?> define(String name) throws Exception {
            try (InputStream in = SharedLoaders.class.getResourceAsStream("/generated/" + name.replace('.', '/') + ".bin")) {
                byte[] b = in.readAllBytes();
                Class<?> c = defineClass(name, b, 0, b.length);
                CACHE.put(name, c);
                return c;
            }
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            Class<?> c = CACHE.get(name);
            return c != null ? c : super.loadClass(name, resolve);
        }
    }

    public static void main(String[] args) throws Exception {
        ClassLoader app = SharedLoaders.class.getClassLoader();
        new Loader(app).define("dyn.Shape");
        Class<?> square = new Loader(app).define("dyn.Square");
        System.out.println("sum " + square.getMethod("run", int.class).invoke(null, 10));
    }
}
