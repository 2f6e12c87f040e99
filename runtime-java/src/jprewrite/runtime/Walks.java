package jprewrite.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code StackWalker} walks that rewritten code makes, as the original program's: the frames the
 * rewriting added (N2B wrappers, the twins that called an outlined part, delegating and B2N twins,
 * logging trampolines, holder frames) left out, by the rules of {@link Traces} (the kept frames'
 * names come from {@link Traces#methodName} where rewritten code reads them).
 *
 * <p>A call of {@code StackWalker.walk(Function)}, {@code forEach(Consumer)} or
 * {@code getCallerClass()} in rewritten code comes here. The walk collects the frames (which the JDK hands out lazily), keeps the program's,
 * and hands the function a stream of those: the same frames, in the same order, with the same
 * answers. The runtime is compiled for Java 8, so the walker and its frames are reached through
 * {@link StackWalkers}' method handles.
 */
public final class Walks {
    private Walks() {
    }

    /** {@code walker.walk(function)} over the program's frames. */
    @SuppressWarnings("unchecked")
    public static Object walk(Object walker, final Function<Object, Object> function) throws Throwable {
        if (walker != null && function != null) {
            return StackWalkers.WALK.invokeExact(walker, (Function<Object, Object>) s -> function.apply(kept((Stream<Object>) s)));
        }
        return StackWalkers.WALK.invokeExact(walker, function);   // the JDK's exception for a null
    }

    /** {@code walker.forEach(action)} over the program's frames. */
    @SuppressWarnings("unchecked")
    public static void forEach(Object walker, final Consumer<Object> action) throws Throwable {
        if (walker != null && action != null) {
            Object unused = StackWalkers.WALK.invokeExact(walker, (Function<Object, Object>) s -> {
                kept((Stream<Object>) s).forEach(action);
                return null;
            });
            return;
        }
        StackWalkers.FOR_EACH.invokeExact(walker, action);
    }

    /**
     * {@code walker.getCallerClass()} as in the original program: the class of the caller of the
     * method that asks, past that method's N2B wrapper (where uninstrumented code called in, the
     * JVM's answer is the wrapper's, the method's own class). The program's walker answers first,
     * so that its options and a null walker fail as in the original; the answer is then found on
     * the program's frames (reflection and hidden frames left out, as {@code getCallerClass} does).
     */
    @SuppressWarnings("unchecked")
    public static Class<?> callerClass(Object walker) throws Throwable {
        Class<?> unused = (Class<?>) StackWalkers.CALLER_CLASS.invokeExact(walker);
        Object two = StackWalkers.WALK.invokeExact(Own.WALKER,
                (Function<Object, Object>) s -> kept((Stream<Object>) s).limit(2).collect(Collectors.toList()));
        @SuppressWarnings("unchecked")
        List<Object> frames = (List<Object>) two;
        if (frames.size() < 2) {
            throw noCaller();
        }
        return (Class<?>) StackWalkers.DECLARING.invokeExact(frames.get(1));
    }

    /** The JDK's {@code IllegalCallerException("no caller frame")} (Java 9: made by reflection). */
    private static Throwable noCaller() throws ReflectiveOperationException {
        return (Throwable) Class.forName("java.lang.IllegalCallerException").getConstructor(String.class)
                .newInstance("no caller frame");
    }

    /** The frames of {@code frames} past this class's own (and the method handles' between), cleaned. */
    private static Stream<Object> kept(Stream<Object> frames) throws RuntimeException {
        List<Object> all = frames.collect(Collectors.toList());
        int from = 0;
        try {
            while (from < all.size()) {
                String cls = (String) StackWalkers.CLASS_NAME.invokeExact(all.get(from));
                if (!cls.startsWith("jprewrite.runtime.") && !cls.startsWith("java.lang.invoke.")) {
                    break;
                }
                from++;
            }
            int n = all.size() - from;
            String[] classes = new String[n];
            String[] names = new String[n];
            int[] lines = new int[n];
            for (int i = 0; i < n; i++) {
                Object f = all.get(from + i);
                classes[i] = (String) StackWalkers.CLASS_NAME.invokeExact(f);
                names[i] = (String) StackWalkers.METHOD_NAME.invokeExact(f);
                lines[i] = (int) StackWalkers.LINE.invokeExact(f);
            }
            int[] keep = Traces.keptFrames(classes, names, lines);
            ArrayList<Object> out = new ArrayList<Object>(keep.length);
            for (int k : keep) {
                out.add(all.get(from + k));
            }
            return out.stream();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {   // (the method handles declare Throwable; these do not throw checked ones)
            throw new IllegalStateException(e);
        }
    }

    /** A walker of this runtime's that keeps classes (and, by default, shows no reflection or hidden frames). */
    private static final class Own {
        static final Object WALKER;

        static {
            try {
                WALKER = StackWalkers.walker("RETAIN_CLASS_REFERENCE");
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }
}
