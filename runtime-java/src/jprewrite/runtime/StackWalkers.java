package jprewrite.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * {@code java.lang.StackWalker} and its frames (Java 9 and later) for a runtime compiled for Java
 * 8: method handles, which the JIT binds like direct calls, each typed on {@code Object}. Loading
 * this class fails before Java 9; its users (the sampler's {@link Frames}, {@link Walks}) load it
 * only where a walker can exist.
 */
final class StackWalkers {
    private StackWalkers() {
    }

    static final MethodHandle WALK;            // (Object walker, Function) Object
    static final MethodHandle FOR_EACH;        // (Object walker, Consumer) void
    static final MethodHandle CALLER_CLASS;    // (Object walker) Class
    static final MethodHandle CLASS_NAME;      // (Object frame) String
    static final MethodHandle METHOD_NAME;     // (Object frame) String
    static final MethodHandle LINE;            // (Object frame) int
    static final MethodHandle DECLARING;       // (Object frame) Class
    static final MethodHandle BCI;             // (Object frame) int
    /** (Object frame) String; null on Java 9 (there since 10). */
    static final MethodHandle DESCRIPTOR;

    private static final Class<?> WALKER;
    private static final Class<?> OPTION;

    static {
        try {
            WALKER = Class.forName("java.lang.StackWalker");
            OPTION = Class.forName("java.lang.StackWalker$Option");
            Class<?> frame = Class.forName("java.lang.StackWalker$StackFrame");
            MethodHandles.Lookup l = MethodHandles.lookup();   // walk() is caller-sensitive: not publicLookup()
            WALK = l.findVirtual(WALKER, "walk", MethodType.methodType(Object.class, Function.class))
                    .asType(MethodType.methodType(Object.class, Object.class, Function.class));
            FOR_EACH = l.findVirtual(WALKER, "forEach", MethodType.methodType(void.class, Consumer.class))
                    .asType(MethodType.methodType(void.class, Object.class, Consumer.class));
            CALLER_CLASS = l.findVirtual(WALKER, "getCallerClass", MethodType.methodType(Class.class))
                    .asType(MethodType.methodType(Class.class, Object.class));
            CLASS_NAME = frameMethod(l, frame, "getClassName", String.class);
            METHOD_NAME = frameMethod(l, frame, "getMethodName", String.class);
            LINE = frameMethod(l, frame, "getLineNumber", int.class);
            DECLARING = frameMethod(l, frame, "getDeclaringClass", Class.class);
            BCI = frameMethod(l, frame, "getByteCodeIndex", int.class);
            MethodHandle descriptor;
            try {
                descriptor = frameMethod(l, frame, "getDescriptor", String.class);
            } catch (NoSuchMethodException e) {
                descriptor = null;
            }
            DESCRIPTOR = descriptor;
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static MethodHandle frameMethod(MethodHandles.Lookup l, Class<?> frame, String name, Class<?> type)
            throws ReflectiveOperationException {
        return l.findVirtual(frame, name, MethodType.methodType(type))
                .asType(MethodType.methodType(type, Object.class));
    }

    /** A new walker with {@code options} (names of {@code StackWalker.Option}s). */
    static Object walker(String... options) throws ReflectiveOperationException {
        Set<Object> set = new HashSet<Object>();
        for (Object o : OPTION.getEnumConstants()) {
            for (String name : options) {
                if (((Enum<?>) o).name().equals(name)) {
                    set.add(o);
                }
            }
        }
        return WALKER.getMethod("getInstance", Set.class).invoke(null, set);
    }
}
