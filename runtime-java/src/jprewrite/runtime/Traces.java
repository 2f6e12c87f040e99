package jprewrite.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Stack traces as the original program's: what rewritten code prints or reads of a stack trace.
 *
 * <p>The rewriting gives each instrumented method {@code m} an ESI twin {@code m$jp} that holds its
 * body, and turns {@code m} itself into an N2B wrapper that calls the twin: so a stack trace shows
 * {@code m$jp} where the program had {@code m}, one more {@code m} frame without a line number
 * below it where uninstrumented code called in, and frames of holder classes ({@code $$jpmids}:
 * interface dispatchers), outlined parts ({@code m$jp$3}), delegating and B2N twins. A program
 * that prints a stack trace, or reads method names from one, would print something else than
 * without jprewrite. Where rewritten code prints or reads a trace (the call sites of
 * {@code Throwable.printStackTrace}, {@code Throwable.getStackTrace} and
 * {@code Thread.getStackTrace}), and where an exception leaves {@code main} or {@code run} for
 * the JVM to print, the trace is cleaned first:
 * <ul>
 * <li>a twin's frame {@code m$jp} is named {@code m} (its line numbers are the original's);</li>
 * <li>an N2B wrapper's frame (the same class and {@code m}, no line number) right below its
 * twin's is dropped;</li>
 * <li>an outlined part's frame {@code m$jp$N} is named {@code m}, and the frames of the twin (and
 * parts) of the same method right below it, which called it, are dropped: the part is where the
 * original method was;</li>
 * <li>a twin frame without a line number right below a frame of the same class and method as
 * written (a delegating ESI method, a B2N twin around a native method) is dropped;</li>
 * <li>frames of holder classes are dropped.</li>
 * </ul>
 * {@code StackWalker} frames read by rewritten code get their names from {@link #methodName}, and
 * its walks leave out the same frames ({@link Walks}). Traces read inside uninstrumented code are not cleaned, with one
 * exception: the JDK's loggers ({@code java.util.logging}, {@code System.Logger}) name the
 * method that logged after its frame, so a twin calls them through a <em>logging trampoline</em>
 * named as the original method (no line number; its frame is dropped here, right above its
 * twin's), and the throwables it hands them are cleaned first ({@link #cleanRecord}).
 */
public final class Traces {
    private static final String TWIN = "$jp";
    private static final String PART = "$jp$";
    private static final String HOLDER = "$$jpmids";

    private Traces() {
    }

    /** {@code trace} cleaned (a new array), or {@code trace} itself when nothing needs it. */
    public static StackTraceElement[] clean(StackTraceElement[] trace) {
        try {
            return trace == null || !needsCleaning(trace) ? trace : cleaned(trace);
        } catch (Throwable x) {   // out of memory, say: the program's trace as the JVM made it
            return trace;
        }
    }

    private static StackTraceElement[] cleaned(StackTraceElement[] trace) {
        int n = trace.length;
        String[] classes = new String[n];
        String[] names = new String[n];
        int[] lines = new int[n];
        for (int i = 0; i < n; i++) {
            classes[i] = trace[i].getClassName();
            names[i] = trace[i].getMethodName();
            lines[i] = trace[i].getLineNumber();
        }
        int[] keep = keptFrames(classes, names, lines);
        StackTraceElement[] out = new StackTraceElement[keep.length];
        for (int k = 0; k < keep.length; k++) {
            StackTraceElement e = trace[keep[k]];
            String original = methodName(e.getMethodName());
            out[k] = original.equals(e.getMethodName()) ? e : renamed(e, original);
        }
        return out;
    }

    /**
     * The indexes, in order, of the frames of a trace (top first; each frame's class, method name
     * and line number) that the original program's trace has: the rules of the class comment.
     * What {@link #clean} keeps of a trace and {@link Walks} of a walk.
     */
    static int[] keptFrames(String[] classes, String[] names, int[] lines) {
        int n = names.length;
        int[] out = new int[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            String cls = classes[i];
            String name = names[i];
            if (cls.endsWith(HOLDER)) {
                continue;
            }
            String original = methodName(name);
            if (original.equals(name)) {
                if (!isTrampoline(classes, names, lines, i)) {
                    out[k++] = i;
                }
                continue;
            }
            if (isPart(name)) {
                out[k++] = i;
                // the twin and parts of the same method that called this part: one original frame
                while (i + 1 < n && cls.equals(classes[i + 1]) && isOwnTwinOrPart(names[i + 1], original)) {
                    i++;
                }
                i = skipWrapper(classes, names, lines, i, cls, original);
                continue;
            }
            if (lines[i] < 0 && i > 0 && cls.equals(classes[i - 1]) && original.equals(names[i - 1])) {
                i = skipWrapper(classes, names, lines, i, cls, original);   // a delegating or B2N twin below its callee
                continue;
            }
            out[k++] = i;
            i = skipWrapper(classes, names, lines, i, cls, original);
        }
        return k == n ? out : java.util.Arrays.copyOf(out, k);
    }

    /**
     * Is {@code trace[i]} a logging trampoline's frame: a frame without a line number of the same
     * class and name right above the twin (or part) of that name that called it. The twin's frame
     * below, named as the method, stands for the original's.
     */
    private static boolean isTrampoline(String[] classes, String[] names, int[] lines, int i) {
        if (lines[i] != -1 || i + 1 >= names.length) {
            return false;
        }
        String name = names[i + 1];
        return isAddedName(name) && classes[i].equals(classes[i + 1]) && names[i].equals(methodName(name));
    }

    /**
     * {@code Thread.dumpStack()} as the original program's: the JDK's prints the trace of an
     * exception it makes, in its own code; here the same exception's trace is the original's (this
     * method's frame in the place of {@code Thread.dumpStack}'s own, at the line its class file
     * gives that one-line method), then printed the same way, to {@code System.err}.
     */
    public static void dumpStack() {
        Exception e = new Exception("Stack trace");
        try {
            StackTraceElement top = DumpStack.FRAME;
            StackTraceElement[] trace = e.getStackTrace();
            if (top != null && trace.length > 0) {
                StackTraceElement[] rest = clean(java.util.Arrays.copyOfRange(trace, 1, trace.length));
                StackTraceElement[] out = new StackTraceElement[rest.length + 1];
                out[0] = top;
                System.arraycopy(rest, 0, out, 1, rest.length);
                e.setStackTrace(out);
            }
        } catch (Throwable x) {
            // the trace as the JVM made it
        }
        e.printStackTrace();
    }

    /** {@code Thread.dumpStack}'s own frame, as the JVM would make it (null when its line cannot be read), read once. */
    private static final class DumpStack {
        static final StackTraceElement FRAME = frame();

        private static StackTraceElement frame() {
            java.util.ArrayList<LineNumbers.Entry> methods = LineNumbers.read(Thread.class);
            if (methods == null) {
                return null;
            }
            for (LineNumbers.Entry m : methods) {
                if (m.name.equals("dumpStack") && m.descriptor.equals("()V") && m.lines.length > 0) {
                    StackTraceElement plain = new StackTraceElement("java.lang.Thread", "dumpStack", "Thread.java",
                            m.lines[0]);
                    String module = moduleOf(Thread.class);
                    if (module == null) {
                        return plain;
                    }
                    StackTraceElement named = withModule(null, module, null, "java.lang.Thread", "dumpStack", plain);
                    return named != null ? named : plain;
                }
            }
            return null;
        }
    }

    /** The name of {@code c}'s module (Java 9: through reflection), or null. */
    private static String moduleOf(Class<?> c) {
        try {
            Object module = Class.class.getMethod("getModule").invoke(c);
            return (String) module.getClass().getMethod("getName").invoke(module);
        } catch (ReflectiveOperationException | RuntimeException x) {
            return null;
        }
    }

    /**
     * {@code Thread.getAllStackTraces()} as the original program's: a new map (a {@code HashMap},
     * as the JDK's) of the same threads with every trace {@link #clean}ed.
     */
    public static Map<Thread, StackTraceElement[]> cleanAll(Map<Thread, StackTraceElement[]> traces) {
        if (traces == null) {
            return null;
        }
        try {
            HashMap<Thread, StackTraceElement[]> out = new HashMap<Thread, StackTraceElement[]>(traces.size() * 2);
            for (Map.Entry<Thread, StackTraceElement[]> e : traces.entrySet()) {
                out.put(e.getKey(), clean(e.getValue()));
            }
            return out;
        } catch (Throwable x) {
            return traces;
        }
    }

    /**
     * {@link #cleanThrowable} on the throwable of {@code record}, a {@code java.util.logging.LogRecord}
     * handed to a logger (a logging trampoline's: its handlers print that trace in the JDK's code).
     * An {@code Object} so that this class does not need {@code java.logging} to load.
     */
    public static void cleanRecord(Object record) {
        try {
            if (record instanceof java.util.logging.LogRecord) {
                cleanThrowable(((java.util.logging.LogRecord) record).getThrown());
            }
        } catch (Throwable x) {
            // a record subclass of the program's that misbehaves: its trace stays as it is
        }
    }

    /** Does {@code t}'s class print with {@code Throwable}'s method {@code name(types)} (no override)? */
    static boolean printsAsThrowable(Throwable t, String name, Class<?>... types) {
        try {
            return t.getClass().getMethod(name, types).getDeclaringClass() == Throwable.class;
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * Does the text of a throwable in {@code t}'s chain (causes, suppressed) name twins? Only texts
     * that are the JDK's are looked at ({@link Texts#jdkText}): a program's {@code toString} is not
     * called here, once more than the original calls it.
     */
    static boolean namesTwins(Throwable t) {
        try {
            for (Throwable x : chain(t)) {
                if (!Texts.jdkText(x)) {
                    continue;
                }
                String text = x.toString();
                if (text != null && text != message(text)) {
                    return true;
                }
            }
        } catch (Throwable e) {
            // a Throwable of the program's that misbehaves: printed its own way
        }
        return false;
    }

    /**
     * {@code t}, its causes and suppressed exceptions, theirs, and so on, each once (a chain may be
     * circular). Calls the program's {@code getCause()}: it may throw.
     */
    private static ArrayList<Throwable> chain(Throwable t) {
        IdentityHashMap<Throwable, Boolean> seen = new IdentityHashMap<Throwable, Boolean>();
        ArrayList<Throwable> out = new ArrayList<Throwable>();
        ArrayList<Throwable> work = new ArrayList<Throwable>();
        work.add(t);
        while (!work.isEmpty()) {
            Throwable x = work.remove(work.size() - 1);
            if (x == null || seen.put(x, Boolean.TRUE) != null) {
                continue;
            }
            out.add(x);
            work.add(x.getCause());
            for (Throwable s : x.getSuppressed()) {
                work.add(s);
            }
        }
        return out;
    }

    /** Where {@link #print} writes: a stream or a writer, line by line. */
    private static final class Lines {
        private final java.io.PrintStream stream;
        private final java.io.PrintWriter writer;

        Lines(java.io.PrintStream stream, java.io.PrintWriter writer) {
            this.stream = stream;
            this.writer = writer;
        }

        void println(String line) {
            if (stream != null) {
                stream.println(line);
            } else {
                writer.println(line);
            }
        }
    }

    /**
     * {@code t.printStackTrace()} as the original program's: {@link #cleanThrowable} first; then, when a
     * text in the chain names twins ({@link #message}: a {@code NullPointerException}'s) and {@code t}'s
     * class does not print its own way, printed here as {@code Throwable} prints, each throwable's text
     * through {@link #message}; otherwise {@code t}'s own {@code printStackTrace()}.
     */
    public static void printStackTrace(Throwable t) {
        if (!printedHere(t, System.err, null, true)) {
            t.printStackTrace();
        }
    }

    /** {@code t.printStackTrace(s)} as the original program's (see {@link #printStackTrace(Throwable)}). */
    public static void printStackTrace(Throwable t, java.io.PrintStream s) {
        if (!printedHere(t, s, null, false)) {
            t.printStackTrace(s);
        }
    }

    /** {@code t.printStackTrace(w)} as the original program's (see {@link #printStackTrace(Throwable)}). */
    public static void printStackTrace(Throwable t, java.io.PrintWriter w) {
        if (!printedHere(t, null, w, false)) {
            t.printStackTrace(w);
        }
    }

    /**
     * {@link #cleanThrowable}, then {@link #print} to {@code s} or {@code w} where a text in the chain
     * names twins and {@code t}'s class prints with {@code Throwable}'s method (with {@code noArgs},
     * its {@code printStackTrace()} too, which calls the {@code PrintStream} one); whether it printed.
     */
    private static boolean printedHere(Throwable t, java.io.PrintStream s, java.io.PrintWriter w, boolean noArgs) {
        cleanThrowable(t);
        Class<?> out = s != null ? java.io.PrintStream.class : java.io.PrintWriter.class;
        if (s == null && w == null || !namesTwins(t) || noArgs && !printsAsThrowable(t, "printStackTrace")
                || !printsAsThrowable(t, "printStackTrace", out)) {
            return false;
        }
        print(t, s, w);
        return true;
    }

    /**
     * {@code Throwable.printStackTrace}'s text (Java 7 and later) to {@code s} or {@code w}, under the
     * lock {@code Throwable} takes, each throwable's text through {@link #message}: the throwable as
     * a cause-less enclosed one (nothing in common with an empty enclosing trace, no caption).
     */
    static void print(Throwable t, java.io.PrintStream s, java.io.PrintWriter w) {
        synchronized (s != null ? s : w) {
            printEnclosed(t, new Lines(s, w), new StackTraceElement[0], "", "",
                    new IdentityHashMap<Throwable, Boolean>());
        }
    }

    private static void printEnclosed(Throwable t, Lines s, StackTraceElement[] enclosing, String caption,
            String prefix, IdentityHashMap<Throwable, Boolean> dejaVu) {
        if (dejaVu.containsKey(t)) {
            s.println(prefix + caption + "[CIRCULAR REFERENCE: " + message(String.valueOf(t)) + "]");
            return;
        }
        dejaVu.put(t, Boolean.TRUE);
        StackTraceElement[] trace = t.getStackTrace();
        int m = trace.length - 1;
        int n = enclosing.length - 1;
        while (m >= 0 && n >= 0 && trace[m].equals(enclosing[n])) {
            m--;
            n--;
        }
        int inCommon = trace.length - 1 - m;
        s.println(prefix + caption + message(String.valueOf(t)));
        for (int i = 0; i <= m; i++) {
            s.println(prefix + "\tat " + trace[i]);
        }
        if (inCommon != 0) {
            s.println(prefix + "\t... " + inCommon + " more");
        }
        for (Throwable x : t.getSuppressed()) {
            printEnclosed(x, s, trace, "Suppressed: ", prefix + "\t", dejaVu);
        }
        Throwable cause = t.getCause();
        if (cause != null) {
            printEnclosed(cause, s, trace, "Caused by: ", prefix, dejaVu);
        }
    }

    /**
     * Clean the stack traces of {@code t}, its causes and its suppressed exceptions in place
     * ({@link Throwable#setStackTrace}; no effect on one whose trace is not writable): before rewritten
     * code prints it, and before an exception leaves {@code main} or {@code run} for the JVM to print.
     */
    public static void cleanThrowable(Throwable t) {
        try {
            for (Throwable x : chain(t)) {
                StackTraceElement[] trace = x.getStackTrace();
                StackTraceElement[] cleaned = clean(trace);
                if (cleaned != trace) {
                    x.setStackTrace(cleaned);
                }
            }
        } catch (Throwable e) {
            // a Throwable subclass of the program's that misbehaves, or no memory left: the trace
            // stays as it is, and the exception being printed or thrown is still the program's
        }
    }

    /**
     * A method name as the program wrote it: a twin's ({@code m$jp}) or an outlined part's
     * ({@code m$jp$N}) is {@code m}. What {@code StackWalker.StackFrame.getMethodName()} returns to
     * rewritten code (its frames are not dropped or merged: only their names are the original's).
     */
    public static String methodName(String name) {
        if (name == null) {
            return null;
        }
        if (isPart(name)) {
            return name.substring(0, name.lastIndexOf(PART));
        }
        return isTwin(name) ? name.substring(0, name.length() - TWIN.length()) : name;
    }

    /**
     * A message as the original program's, what rewritten code gets from {@code Throwable.getMessage()},
     * {@code getLocalizedMessage()} and {@code toString()}: a {@code NullPointerException}'s message,
     * which the JVM writes from the bytecode of the method that threw, names the twins that rewritten
     * code calls, with their parameters ({@code Cannot invoke "a.B.m$jp(int, jprewrite.runtime.Node, int)"},
     * {@code the return value of "a.B.get$jp(jprewrite.runtime.Node, int)"}): those are named as the
     * methods ({@code "a.B.m(int)"}). Any other text comes back as it is (the same string).
     */
    public static String message(String m) {
        return m == null || m.indexOf(TWIN_CALL) < 0 ? m : renamed(m);   // (small: inlined where it is hot)
    }

    private static String renamed(String m) {
        StringBuilder out = new StringBuilder(m.length());
        int from = 0;
        boolean renamed = false;
        while (true) {
            int at = m.indexOf(TWIN_CALL, from);
            int close = at < 0 ? -1 : m.indexOf(')', at);
            if (close < 0) {
                break;
            }
            String params = m.substring(at + TWIN_CALL.length(), close);
            if (params.equals(TWIN_PARAMS) || params.equals(SLOT_PARAMS)) {
                params = "";
            } else if (params.endsWith(", " + TWIN_PARAMS)) {
                params = params.substring(0, params.length() - TWIN_PARAMS.length() - 2);
            } else if (params.endsWith(", " + SLOT_PARAMS)) {
                params = params.substring(0, params.length() - SLOT_PARAMS.length() - 2);
            } else {   // not a twin's parameters: as it is
                out.append(m, from, close + 1);
                from = close + 1;
                continue;
            }
            out.append(m, from, at).append('(').append(params).append(')');
            from = close + 1;
            renamed = true;
        }
        return renamed ? out.append(m, from, m.length()).toString() : m;
    }

    /** A call of a twin in a message, and how its parameters end (the JVM's way of writing them). */
    private static final String TWIN_CALL = "$jp(";
    private static final String TWIN_PARAMS = "jprewrite.runtime.Node, int";
    /** How a slot twin's parameters end (an application leaf's, which counts into its caller's slots). */
    private static final String SLOT_PARAMS = "jprewrite.runtime.LeafNode, int";

    /** A name the rewriting gives a method: a twin's ({@code m$jp}) or an outlined part's ({@code m$jp$N}). */
    static boolean isAddedName(String name) {
        return isTwin(name) || isPart(name);
    }

    private static boolean isTwin(String name) {
        return name.endsWith(TWIN) && name.length() > TWIN.length();
    }

    /** {@code e} named by {@link #methodName}: what {@code StackFrame.toStackTraceElement()} returns to rewritten code. */
    public static StackTraceElement element(StackTraceElement e) {
        try {
            String name = e == null ? null : methodName(e.getMethodName());
            return name == null || name.equals(e.getMethodName()) ? e : renamed(e, name);
        } catch (Throwable x) {
            return e;
        }
    }

    private static boolean needsCleaning(StackTraceElement[] trace) {
        for (StackTraceElement e : trace) {
            if (e == null) {
                return false;   // not a trace the JVM made: leave it
            }
            if (isAddedName(e.getMethodName()) || e.getClassName().endsWith(HOLDER)) {
                return true;
            }
        }
        return false;
    }

    /** Past the N2B wrapper's frame of {@code original} right below frame {@code i}, if there is one. */
    private static int skipWrapper(String[] classes, String[] names, int[] lines, int i, String cls, String original) {
        if (i + 1 < names.length && lines[i + 1] < 0 && lines[i + 1] != -2 && cls.equals(classes[i + 1])
                && original.equals(names[i + 1])) {
            return i + 1;
        }
        return i;
    }

    /** An outlined part's name: {@code m$jp$N}. */
    static boolean isPart(String name) {
        int part = name.lastIndexOf(PART);
        return part > 0 && isDigits(name, part + PART.length());
    }

    private static boolean isOwnTwinOrPart(String name, String original) {
        if (!name.startsWith(original) || !name.startsWith(TWIN, original.length())) {
            return false;
        }
        int rest = original.length() + TWIN.length();
        return rest == name.length() || (name.charAt(rest) == '$' && isDigits(name, rest + 1));
    }

    private static boolean isDigits(String s, int from) {
        if (from >= s.length()) {
            return false;
        }
        for (int k = from; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code e} with another method name, printed as the JVM prints {@code e}: what
     * {@code toString()} shows in front of the class (a class loader's and a module's name, Java 9
     * and later) is passed on, and nothing else (the JVM's own elements leave out the built-in
     * loaders' names by a flag that a constructed element cannot have).
     */
    private static StackTraceElement renamed(StackTraceElement e, String name) {
        String cls = e.getClassName();
        String shown = e.toString();
        int at = shown.indexOf(cls + "." + e.getMethodName() + "(");
        if (at > 0) {
            String[] parts = shown.substring(0, at - 1).split("/", -1);   // loader/module, or module
            String loader = parts.length == 2 ? parts[0] : null;
            String module = parts[parts.length - 1];
            String version = null;
            int v = module.indexOf('@');
            if (v >= 0) {
                version = module.substring(v + 1);
                module = module.substring(0, v);
            }
            StackTraceElement named = withModule(loader, module.isEmpty() ? null : module, version, cls, name, e);
            if (named != null) {
                return named;
            }
        }
        return new StackTraceElement(cls, name, e.getFileName(), e.getLineNumber());
    }

    /** Java 9's seven-argument constructor, through reflection (the runtime is compiled for Java 8). */
    private static StackTraceElement withModule(
            String loader, String module, String version, String cls, String name, StackTraceElement e) {
        try {
            java.lang.reflect.Constructor<StackTraceElement> c = StackTraceElement.class.getConstructor(
                    String.class, String.class, String.class, String.class, String.class, String.class, int.class);
            return c.newInstance(loader, module, version, cls, name, e.getFileName(), e.getLineNumber());
        } catch (ReflectiveOperationException | RuntimeException x) {
            return null;
        }
    }
}
