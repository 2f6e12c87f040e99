package jprewrite.runtime;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stack frames for the sampled trees of sample mode: a thread's own stack through
 * {@code java.lang.StackWalker} (Java 10+, by {@link StackWalkers}' method handles), and the frames of other threads
 * ({@link StackTraceElement}s), both turned into {@link MethodId}s named exactly as rewritten code
 * names its methods ({@code class.name(descriptor)}), so sampled and exact profiles compare.
 *
 * <p>A frame is <em>walked</em> cheaply (its class and bytecode index, both filled in by the JVM in
 * batches) and <em>decoded</em> (name and descriptor: a call into the VM and a new string) only when
 * its context is not known yet; the incremental sampler decodes only frames that changed since the
 * thread's previous sample.
 */
final class Frames {
    /** The StackWalker (RETAIN_CLASS_REFERENCE, SHOW_REFLECT_FRAMES), or null before Java 9. */
    private static final Object WALKER;

    static {
        Object walker = null;
        try {
            if (StackWalkers.DESCRIPTOR != null) {   // (Java 9 has no getDescriptor)
                walker = StackWalkers.walker("RETAIN_CLASS_REFERENCE", "SHOW_REFLECT_FRAMES");
            }
        } catch (Throwable e) {
            walker = null;   // Java 8: full stack traces instead
        }
        WALKER = walker;
    }

    static boolean canWalk() {
        return WALKER != null;
    }

    /**
     * One thread's walk buffers (top frame first), reused from sample to sample: the frames after the
     * runtime's own, their classes and bytecode indexes. Owned by one thread.
     */
    static final class Walk implements java.util.function.Function<Object, Object> {
        Object[] frames = new Object[64];
        Class<?>[] classes = new Class<?>[64];
        int[] bcis = new int[64];
        int depth;
        /** Frames below the runtime's own to leave out of this walk (1: the caller's stack, see {@link #walk}). */
        private int drop;

        /**
         * Walk the calling thread's stack into the buffers, leaving out the runtime's frames on top
         * and {@code drop} frames below them: 1 when the yieldpoint was a method's entry, whose
         * activation has not run yet (the time before it is its caller's).
         */
        void walk(int drop) throws Throwable {
            depth = 0;
            this.drop = drop;
            Object unused = (Object) StackWalkers.WALK.invokeExact(WALKER, (java.util.function.Function) this);
        }

        @Override
        public Object apply(Object stream) {
            try {
                @SuppressWarnings("unchecked")
                Iterator<Object> it = ((java.util.stream.Stream<Object>) stream).iterator();
                boolean ours = true;
                int skip = drop;
                int n = 0;
                while (it.hasNext()) {
                    Object f = it.next();
                    Class<?> c = (Class<?>) StackWalkers.DECLARING.invokeExact(f);
                    if (ours && isRuntime(c)) {
                        continue;   // the sampler's own frames on top
                    }
                    ours = false;
                    if (skip > 0) {
                        skip--;   // the entered method's frame: the sample is its caller's
                        continue;
                    }
                    if (n == frames.length) {
                        grow();
                    }
                    frames[n] = f;
                    classes[n] = c;
                    bcis[n] = (int) StackWalkers.BCI.invokeExact(f);
                    n++;
                }
                depth = n;
                return null;
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        private void grow() {
            int n = frames.length * 2;
            frames = java.util.Arrays.copyOf(frames, n);
            classes = java.util.Arrays.copyOf(classes, n);
            bcis = java.util.Arrays.copyOf(bcis, n);
        }

        /** The MethodId of walked frame {@code i} (decodes it: name and descriptor). */
        MethodId decode(int i) throws Throwable {
            Object f = frames[i];
            String name = (String) StackWalkers.METHOD_NAME.invokeExact(f);
            String desc = (String) StackWalkers.DESCRIPTOR.invokeExact(f);
            return of(classes[i], name, desc);
        }

        /** Drop the references to frame objects (and so to classes) once a sample is recorded. */
        void clear() {
            java.util.Arrays.fill(frames, 0, depth, null);
        }
    }

    static boolean isRuntime(Class<?> c) {
        return c.getName().startsWith("jprewrite.runtime.");
    }

    // ------------------------------------------------------------------ MethodIds of frames

    /** Per class: {@code name + descriptor} -> MethodId. */
    private static final ClassValue<ConcurrentHashMap<String, MethodId>> BY_CLASS =
            new ClassValue<ConcurrentHashMap<String, MethodId>>() {
                @Override
                protected ConcurrentHashMap<String, MethodId> computeValue(Class<?> type) {
                    return new ConcurrentHashMap<String, MethodId>(8);
                }
            };

    static MethodId of(Class<?> c, String name, String desc) {
        ConcurrentHashMap<String, MethodId> m = BY_CLASS.get(c);
        String key = name + desc;
        MethodId id = m.get(key);
        if (id == null) {
            id = new MethodId(c.getName(), name, desc, kind(c), 0);
            MethodId prev = m.putIfAbsent(key, id);
            if (prev != null) {
                id = prev;
            }
        }
        return id;
    }

    private static int kind(Class<?> c) {
        return c.getClassLoader() == null || Dispatch.isJdkName(c.getName()) ? MethodId.KIND_JDK
                : MethodId.KIND_INSTRUMENTED;
    }

    /**
     * {@code class.name} of a {@link StackTraceElement} -> its MethodId, or {@link Overloads}. A stack
     * trace element has no descriptor: it comes from the class (its class file, else reflection),
     * once per method name.
     */
    private static final ConcurrentHashMap<String, Object> BY_NAME = new ConcurrentHashMap<String, Object>();

    /** The overloads of one name, with the lines of each one's code. */
    static final class Overloads {
        final MethodId[] ids;
        /** Per overload, its lines (sorted; empty when unknown). */
        final int[][] lines;

        Overloads(MethodId[] ids, int[][] lines) {
            this.ids = ids;
            this.lines = lines;
        }
    }

    /**
     * The MethodId of a frame of another thread, or its {@link Overloads} (see {@link #pick}). Found
     * from the class, which may load classes: never call it holding a lock a sampled thread may want.
     */
    static Object candidates(StackTraceElement e, ClassLoader hint) {
        String key = e.getClassName() + "." + e.getMethodName();
        Object v = BY_NAME.get(key);
        if (v == null) {
            v = resolve(e.getClassName(), e.getMethodName(), hint);
            Object prev = BY_NAME.putIfAbsent(key, v);
            if (prev != null) {
                v = prev;
            }
        }
        return v;
    }

    /**
     * One MethodId of {@link #candidates}: among overloads, the one whose code covers the frame's
     * {@code line}; else the one {@code parent} already has a child for; else the first by descriptor.
     */
    static MethodId pick(Object candidates, int line, Node parent) {
        if (candidates instanceof MethodId) {
            return (MethodId) candidates;
        }
        Overloads o = (Overloads) candidates;
        if (line > 0) {
            for (int i = 0; i < o.ids.length; i++) {
                if (java.util.Arrays.binarySearch(o.lines[i], line) >= 0) {
                    return o.ids[i];
                }
            }
        }
        for (Node c = parent.firstChild(); c != null; c = c.nextSibling()) {
            for (MethodId m : o.ids) {
                if (c.method == m) {
                    return m;
                }
            }
        }
        return o.ids[0];
    }

    private static Object resolve(String className, String name, ClassLoader hint) {
        Class<?> c = find(className, hint);
        if (c == null) {
            boolean jdk = Dispatch.isJdkName(className);
            return new MethodId(className, name, "", jdk ? MethodId.KIND_JDK : MethodId.KIND_INSTRUMENTED, 0);
        }
        ArrayList<String> descs = new ArrayList<String>();
        java.util.HashMap<String, int[]> lines = new java.util.HashMap<String, int[]>();
        ArrayList<LineNumbers.Entry> table = LineNumbers.read(c);
        if (table != null) {
            for (LineNumbers.Entry m : table) {
                if (m.name.equals(name) && m.descriptor != null && !lines.containsKey(m.descriptor)) {
                    descs.add(m.descriptor);
                    lines.put(m.descriptor, m.lines);
                }
            }
        } else {
            reflect(c, name, descs);
        }
        if (descs.isEmpty()) {
            return of(c, name, "");
        }
        Collections.sort(descs);
        if (descs.size() == 1) {
            return of(c, name, descs.get(0));
        }
        MethodId[] ids = new MethodId[descs.size()];
        int[][] covered = new int[ids.length][];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = of(c, name, descs.get(i));
            int[] l = lines.get(descs.get(i));
            covered[i] = l == null ? new int[0] : l;
        }
        return new Overloads(ids, covered);
    }

    /** The descriptors of the methods named {@code name} by reflection (no class file to read). */
    private static void reflect(Class<?> c, String name, ArrayList<String> descs) {
        try {
            if (name.equals("<init>")) {
                for (Constructor<?> k : c.getDeclaredConstructors()) {
                    descs.add(descriptor(k.getParameterTypes(), void.class));
                }
            } else if (name.equals("<clinit>")) {
                descs.add("()V");
            } else {
                for (Method m : c.getDeclaredMethods()) {
                    if (m.getName().equals(name)) {
                        descs.add(Dispatch.descriptor(m));
                    }
                }
            }
        } catch (Throwable ignored) {
            // a class whose members cannot be listed (a missing parameter type): no descriptor
        }
    }

    private static Class<?> find(String className, ClassLoader hint) {
        ClassLoader[] loaders = {hint, ClassLoader.getSystemClassLoader(), null};
        for (ClassLoader l : loaders) {
            try {
                return Class.forName(className, false, l);
            } catch (Throwable ignored) {
                // next loader
            }
        }
        return null;
    }

    private static String descriptor(Class<?>[] params, Class<?> ret) {
        StringBuilder sb = new StringBuilder("(");
        for (Class<?> p : params) {
            sb.append(Dispatch.typeDescriptor(p));
        }
        return sb.append(')').append(Dispatch.typeDescriptor(ret)).toString();
    }

    private Frames() {
    }
}
