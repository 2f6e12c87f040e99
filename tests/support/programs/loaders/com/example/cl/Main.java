package com.example.cl;

import java.io.InputStream;
import java.util.function.IntUnaryOperator;

/**
 * A child-first loader defines the plugin classes: when their code first names another class, the JVM
 * calls the loader's {@code loadClass} itself, with no call instruction in the program.
 */
public class Main {
    static class ChildFirst extends ClassLoader {
        ChildFirst(ClassLoader parent) { super(parent); }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && name.startsWith("com.example.cl.plugin.")) {
                    c = define(name);
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                return c;
            }
        }

        private Class<?> define(String name) throws ClassNotFoundException {
            try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                byte[] b = in.readAllBytes();
                return defineClass(name, b, 0, b.length);
            } catch (java.io.IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        ChildFirst loader = new ChildFirst(Main.class.getClassLoader());
        Class<?> c = Class.forName("com.example.cl.plugin.A", true, loader);
        IntUnaryOperator op = (IntUnaryOperator) c.getDeclaredConstructor().newInstance();
        System.out.println("sum=" + op.applyAsInt(3));
        System.out.println("sum=" + op.applyAsInt(4));
    }
}
