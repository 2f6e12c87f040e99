package jprewrite.runtime;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which method ordinary virtual dispatch selects, for {@link ThreadRoot#redirect}: an override in an
 * uninstrumented subclass must run instead of the instrumented ESI.
 *
 * <p>Answers are cached per receiver class (a {@link ClassValue}, so classes can still be unloaded)
 * and per ESI MID, so reflection runs once per class and method.
 */
final class Dispatch {
    /** Name of the method every rewritten class declares; its presence marks a class instrumented. */
    static final String MARKER = "$jprewrite$class";
    static final String MARKER_FIELD = "$jprewrite$instrumented";
    private static final String ESI_SUFFIX = "Ljprewrite/runtime/Node;I";
    private static final Object INSTRUMENTED_CODE = new Object();

    private static final ClassValue<ConcurrentHashMap<MethodId, Object>> CACHE =
            new ClassValue<ConcurrentHashMap<MethodId, Object>>() {
                @Override
                protected ConcurrentHashMap<MethodId, Object> computeValue(Class<?> type) {
                    return new ConcurrentHashMap<MethodId, Object>(4);
                }
            };

    private static final ClassValue<Boolean> INSTRUMENTED = new ClassValue<Boolean>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                // a field, not the $jprewrite$class method: classes generated at run time as
                // subclasses (cglib's Enhancer) override every visible method, that one included
                for (java.lang.reflect.Field f : type.getDeclaredFields()) {
                    if (f.getName().equals(MARKER_FIELD)) {
                        return Boolean.TRUE;
                    }
                }
            } catch (Throwable ignored) {
                // a class whose methods cannot be listed is not one of ours
            }
            return Boolean.FALSE;
        }
    };

    /**
     * Classes whose whole application superclass chain is instrumented: interface calls may pass the
     * node to their ESI methods. Proxies, lambdas, mocks and uninstrumented subclasses may not: a
     * proxy would hand the ESI method to its invocation handler, and an uninstrumented override of a
     * default method would be skipped.
     */
    private static final ClassValue<Boolean> ESI_CAPABLE = new ClassValue<Boolean>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            if (java.lang.reflect.Proxy.isProxyClass(type) || !isInstrumented(type)) {
                return Boolean.FALSE;
            }
            for (Class<?> c = type.getSuperclass(); c != null && c != Object.class; c = c.getSuperclass()) {
                if (!isJdk(c) && !isInstrumented(c)) {
                    return Boolean.FALSE;
                }
            }
            return Boolean.TRUE;
        }
    };

    private static boolean isJdk(Class<?> c) {
        return c.getClassLoader() == null || isJdkName(c.getName());
    }

    /** Whether a binary class name is in one of the JDK's packages. */
    static boolean isJdkName(String n) {
        return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.")
                || n.startsWith("com.sun.");
    }

    static boolean esiCapable(Class<?> type) {
        return ESI_CAPABLE.get(type).booleanValue();
    }

    /** One boundary MID per overriding method, so that a super call recognises its own boundary node. */
    private static final ConcurrentHashMap<String, MethodId> OVERRIDE_MIDS = new ConcurrentHashMap<String, MethodId>();

    /** The MID of the uninstrumented method dispatch selects for {@code esi} on {@code type}, or null. */
    static MethodId override(Class<?> type, MethodId esi) {
        ConcurrentHashMap<MethodId, Object> byMethod = CACHE.get(type);
        Object r = byMethod.get(esi);
        if (r == null) {
            r = compute(type, esi);
            Object prev = byMethod.putIfAbsent(esi, r);
            if (prev != null) {
                r = prev;
            }
        }
        return r == INSTRUMENTED_CODE ? null : (MethodId) r;
    }

    static boolean isInstrumented(Class<?> c) {
        return INSTRUMENTED.get(c).booleanValue();
    }

    private static Object compute(Class<?> type, MethodId esi) {
        String name = esi.name;
        String desc = originalDescriptor(esi.descriptor);
        Class<?> selected = select(type, esi.className, name, desc);
        if (selected == null || isInstrumented(selected)) {
            return INSTRUMENTED_CODE;
        }
        String key = selected.getName() + "." + name + desc;
        MethodId mid = OVERRIDE_MIDS.get(key);
        if (mid == null) {
            mid = MethodId.get(selected.getName(), name, desc, MethodId.KIND_UNINSTRUMENTED, 0);
            MethodId prev = OVERRIDE_MIDS.putIfAbsent(key, mid);
            if (prev != null) {
                mid = prev;
            }
        }
        return mid;
    }

    /** MIDs name original methods; accept an ESI descriptor too. */
    static String originalDescriptor(String desc) {
        int close = desc.lastIndexOf(')');
        if (close >= ESI_SUFFIX.length() && desc.startsWith(ESI_SUFFIX, close - ESI_SUFFIX.length())) {
            return desc.substring(0, close - ESI_SUFFIX.length()) + desc.substring(close);
        }
        return desc;
    }

    /**
     * The class whose method {@code name desc} virtual dispatch selects on an instance of
     * {@code type} (JVMS 5.4.6), when the resolved method is declared in {@code declaring}; null when
     * nothing concrete is found.
     */
    static Class<?> select(Class<?> type, String declaring, String name, String desc) {
        ArrayList<Class<?>> chain = new ArrayList<Class<?>>();
        for (Class<?> k = type; k != null; k = k.getSuperclass()) {
            chain.add(k);
        }
        int at = -1;
        for (int i = 0; i < chain.size(); i++) {
            if (chain.get(i).getName().equals(declaring)) {
                at = i;
                break;
            }
        }
        if (at >= 0) {
            // walk down from the declaring class; a method overrides if it overrides anything on the
            // chain of overriders so far (JVMS 5.4.5, transitive; package-private only within its
            // runtime package)
            ArrayList<Class<?>> owners = new ArrayList<Class<?>>();
            ArrayList<Integer> flags = new ArrayList<Integer>();
            Class<?> top = chain.get(at);
            Method dm = declared(top, name, desc);
            owners.add(top);
            flags.add(dm == null ? Modifier.PUBLIC : dm.getModifiers());
            Class<?> selected = dm == null || Modifier.isAbstract(dm.getModifiers()) ? null : top;
            for (int i = at - 1; i >= 0; i--) {
                Class<?> k = chain.get(i);
                Method m = declared(k, name, desc);
                if (m == null) {
                    continue;
                }
                boolean overrides = false;
                for (int j = 0; j < owners.size() && !overrides; j++) {
                    int f = flags.get(j);
                    overrides = Modifier.isPublic(f) || Modifier.isProtected(f) || samePackage(owners.get(j), k);
                }
                if (overrides) {
                    owners.add(k);
                    flags.add(m.getModifiers());
                    selected = Modifier.isAbstract(m.getModifiers()) ? null : k;
                }
            }
            return selected;
        }
        // resolved in an interface (or a class we cannot see): first concrete method up the chain,
        // else a default method of a superinterface
        for (Class<?> k : chain) {
            Method m = declared(k, name, desc);
            if (m != null) {
                return Modifier.isAbstract(m.getModifiers()) ? null : k;
            }
        }
        ArrayDeque<Class<?>> queue = new ArrayDeque<Class<?>>();
        HashSet<Class<?>> seen = new HashSet<Class<?>>();
        for (Class<?> k : chain) {
            for (Class<?> i : k.getInterfaces()) {
                queue.add(i);
            }
        }
        while (!queue.isEmpty()) {
            Class<?> i = queue.poll();
            if (!seen.add(i)) {
                continue;
            }
            Method m = declared(i, name, desc);
            if (m != null && !Modifier.isAbstract(m.getModifiers())) {
                return i;
            }
            for (Class<?> s : i.getInterfaces()) {
                queue.add(s);
            }
        }
        return null;
    }

    /** The non-static, non-private method {@code name desc} declared by {@code k}, or null. */
    private static Method declared(Class<?> k, String name, String desc) {
        Method[] methods;
        try {
            methods = k.getDeclaredMethods();
        } catch (Throwable e) {
            return null;
        }
        for (Method m : methods) {
            int f = m.getModifiers();
            if (m.getName().equals(name) && !Modifier.isStatic(f) && !Modifier.isPrivate(f)
                    && desc.equals(descriptor(m))) {
                return m;
            }
        }
        return null;
    }

    static String descriptor(Method m) {
        StringBuilder sb = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
            descriptor(p, sb);
        }
        sb.append(')');
        descriptor(m.getReturnType(), sb);
        return sb.toString();
    }

    /** The descriptor of a type ({@code I}, {@code [J}, {@code Ljava/lang/String;}). */
    static String typeDescriptor(Class<?> t) {
        StringBuilder sb = new StringBuilder();
        descriptor(t, sb);
        return sb.toString();
    }

    private static void descriptor(Class<?> t, StringBuilder sb) {
        if (t.isPrimitive()) {
            if (t == int.class) {
                sb.append('I');
            } else if (t == long.class) {
                sb.append('J');
            } else if (t == boolean.class) {
                sb.append('Z');
            } else if (t == byte.class) {
                sb.append('B');
            } else if (t == char.class) {
                sb.append('C');
            } else if (t == short.class) {
                sb.append('S');
            } else if (t == float.class) {
                sb.append('F');
            } else if (t == double.class) {
                sb.append('D');
            } else {
                sb.append('V');
            }
        } else if (t.isArray()) {
            sb.append(t.getName().replace('.', '/'));
        } else {
            sb.append('L').append(t.getName().replace('.', '/')).append(';');
        }
    }

    private static boolean samePackage(Class<?> a, Class<?> b) {
        return a.getClassLoader() == b.getClassLoader() && packageOf(a.getName()).equals(packageOf(b.getName()));
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    private Dispatch() {
    }
}
