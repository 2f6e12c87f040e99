package isolated;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * A class loader that isolates its classes, as Ant's {@code <java fork="false">} and OSGi
 * frameworks do: it asks the bootstrap loader for {@code java.*} only and defines everything else
 * itself, from the directory given as the first argument. {@code Work} runs once through it and
 * once from the class path.
 */
public class Main {
    static final class Isolating extends ClassLoader {
        private final Path root;

        Isolating(Path root) {
            super(null);
            this.root = root;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c != null) {
                    return c;
                }
                if (name.startsWith("java.")) {
                    return super.loadClass(name, resolve);
                }
                try {
                    byte[] b = Files.readAllBytes(root.resolve(name.replace('.', '/') + ".class"));
                    return defineClass(name, b, 0, b.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name);
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        ClassLoader isolating = new Isolating(Paths.get(args[0]));
        Object r = isolating.loadClass("isolated.Work").getMethod("run", int.class).invoke(null, 10);
        System.out.println("isolated " + r + " " + Work.run(10));
    }
}
