package jprewrite.runtime;

/**
 * A throwable's text as the original program's where the JDK, not rewritten code, turns it into
 * text.
 *
 * <p>The JVM writes a {@code NullPointerException}'s message from the bytecode of the method that
 * threw, and rewritten code calls twins: {@code Cannot invoke "a.B.m$jp(jprewrite.runtime.Node,
 * int)"}. Where rewritten code reads a message or prints a trace, {@link Traces#message} and
 * {@link Traces#printStackTrace} name the methods instead. But a program also hands throwables to
 * the JDK, which converts them itself: {@code "caught " + e}, {@code System.out.println(e)},
 * {@code sb.append(e)}, {@code String.valueOf(e)}, {@code printf("%s", e)}; and the JVM prints an
 * exception that leaves a thread. There is no hook in the JDK for either, so:
 * <ul>
 * <li>rewritten code hands such a call {@link #shown}{@code (e)} (or {@link #shownArgs} for a
 * format's arguments): for a throwable whose text names twins, that text as the original's, a
 * {@code String}, which the JDK converts to itself; anything else as it is;</li>
 * <li>an exception leaving the program's outermost frame of a thread, for the JDK to print
 * ({@link #leaving}), gets a handler of the thread that prints it as the JDK would, with the
 * original's texts.</li>
 * </ul>
 * Only a throwable whose text is the JDK's (its class takes {@code toString},
 * {@code getLocalizedMessage} and {@code getMessage} from the JDK) is looked at: working its text
 * out here then runs no code of the program (a program's {@code toString} would run once more than
 * in the original), and a program's own text is the program's business (read through rewritten
 * code, an NPE's message in it is already the original's).
 */
public final class Texts {
    private Texts() {
    }

    /** Is the text of a throwable of class {@code c} the JDK's own? */
    private static final ClassValue<Boolean> JDK_TEXT = new ClassValue<Boolean>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
            try {
                return fromJdk(c, "toString") && fromJdk(c, "getLocalizedMessage") && fromJdk(c, "getMessage");
            } catch (Throwable e) {
                return Boolean.FALSE;
            }
        }
    };

    private static boolean fromJdk(Class<?> c, String name) throws NoSuchMethodException {
        return c.getMethod(name).getDeclaringClass().getClassLoader() == null;
    }

    /** Is {@code t}'s text the JDK's (see the class comment)? */
    static boolean jdkText(Throwable t) {
        return JDK_TEXT.get(t.getClass());
    }

    /**
     * {@code o} for a string conversion in the JDK ({@code String.valueOf(Object)} and what calls it):
     * a throwable whose text names twins is that text through {@link Traces#message}, a
     * {@code String}; anything else is {@code o} itself, converted where the original converts it.
     */
    public static Object shown(Object o) {
        return o instanceof Throwable ? shownThrowable((Throwable) o) : o;
    }

    private static Object shownThrowable(Throwable t) {
        try {
            if (!jdkText(t)) {
                return t;
            }
            String text = t.toString();
            String original = Traces.message(text);
            return original == text ? t : original;
        } catch (Throwable e) {
            return t;   // (no memory left, a stack overflow: converted where the original converts it)
        }
    }

    /**
     * The arguments {@code args} of a format {@code format} ({@code String.format},
     * {@code printf}...) with each throwable that only a {@code %s} (or {@code %b}) conversion uses
     * {@link #shown}: the same array when none changes, else a copy. A throwable that another
     * conversion uses stays ({@code %h} formats its hash code, {@code %d} fails naming its class),
     * and so does one that formats itself ({@code Formattable}); a format this cannot read leaves
     * every argument as it is (the JDK then says what is wrong with it).
     */
    public static Object[] shownArgs(String format, Object[] args) {
        if (format == null || args == null) {
            return args;
        }
        Object[] out = args;
        boolean[] other = null;
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (!(a instanceof Throwable) || a instanceof java.util.Formattable) {
                continue;
            }
            Object shown = shownThrowable((Throwable) a);
            if (shown == a) {
                continue;
            }
            if (other == null) {
                other = otherConversions(format, args.length);
                if (other == null) {
                    return args;
                }
            }
            if (other[i]) {
                continue;
            }
            if (out == args) {
                out = args.clone();
            }
            out[i] = shown;
        }
        return out;
    }

    /**
     * Which of {@code n} arguments a conversion other than {@code %s}/{@code %S}/{@code %b}/{@code %B}
     * of {@code format} uses, by {@code java.util.Formatter}'s rules (an explicit index {@code 2$},
     * the previous argument {@code <}, else the next ordinary one); null for a format it cannot read.
     */
    static boolean[] otherConversions(String format, int n) {
        boolean[] other = new boolean[n];
        int ordinary = 0;
        int last = -1;
        int i = format.indexOf('%');
        while (i >= 0) {
            int j = i + 1;
            int index = -1;
            int digits = j;
            while (digits < format.length() && Character.isDigit(format.charAt(digits))) {
                digits++;
            }
            if (digits > j && digits < format.length() && format.charAt(digits) == '$') {
                try {
                    index = Integer.parseInt(format.substring(j, digits)) - 1;
                } catch (NumberFormatException e) {
                    return null;
                }
                j = digits + 1;
            }
            boolean previous = false;
            while (j < format.length() && "-#+ 0,(<".indexOf(format.charAt(j)) >= 0) {
                previous |= format.charAt(j) == '<';
                j++;
            }
            while (j < format.length() && (Character.isDigit(format.charAt(j)) || format.charAt(j) == '.')) {
                j++;
            }
            if (j >= format.length()) {
                return null;
            }
            char c = format.charAt(j);
            if (c == 't' || c == 'T') {
                j++;
            }
            if (c != '%' && c != 'n') {
                int arg = index >= 0 ? index : previous ? last : ordinary++;
                last = arg;
                if (arg >= 0 && arg < n && "sSbB".indexOf(c) < 0) {
                    other[arg] = true;
                }
            }
            i = format.indexOf('%', j + 1);
        }
        return other;
    }

    /**
     * What the N2B wrapper of the program's outermost frame in a thread calls on an exception
     * leaving it for the JDK ({@code main}, a thread's {@code run()}, a top-level context's
     * wrapper): the trace cleaned ({@link Traces#cleanThrowable}); and where the JDK will print it
     * with a text naming twins, as {@code ThreadGroup.uncaughtException} prints, the thread gets a
     * handler that prints it so with the original's texts ({@link Uncaught}).
     */
    public static void leaving(Throwable t) {
        Traces.cleanThrowable(t);
        try {
            Thread thread = Thread.currentThread();
            if (thread.getUncaughtExceptionHandler() != thread.getThreadGroup() || !Uncaught.printsHere(thread, t)
                    || !uncaughtFromHere(t)) {
                return;
            }
            thread.setUncaughtExceptionHandler(new Uncaught());
        } catch (Throwable e) {
            // a security manager, or no memory left: the JDK prints it as it is
        }
    }

    /** Do {@code thread}'s groups print what it leaves uncaught (the JDK's groups, no default handler)? */
    static boolean printedByGroups(Thread thread) {
        if (Thread.getDefaultUncaughtExceptionHandler() != null) {
            return false;
        }
        for (ThreadGroup g = thread.getThreadGroup(); g != null; g = g.getParent()) {
            if (g.getClass() != ThreadGroup.class) {
                return false;
            }
        }
        return thread.getThreadGroup() != null;
    }

    /**
     * Is {@code t}, thrown on from the wrapper calling {@link #leaving}, uncaught: only the JDK's
     * code that starts a thread (or runs a pool's or a {@code Timer}'s tasks, and lets it through)
     * below it? Elsewhere the JDK may catch it (a {@code FutureTask}, a reflective call): the thread
     * then must keep its handler.
     *
     * <p>A fork-join pool lets through only what a task given to {@code execute(Runnable)} throws
     * ({@code ForkJoinTask$RunnableExecuteAction} rethrows it, and the worker's {@code run()} hands
     * it on as it ends); every other kind of task records its exception for {@code join}/{@code get}.
     * So the pool's frames count only with that task right below the wrapper.
     */
    private static boolean uncaughtFromHere(Throwable t) {
        StackTraceElement[] frames = new Throwable().getStackTrace();
        int i = 0;
        while (i < frames.length && ThreadRoot.isOwnClass(frames[i].getClassName())) {
            i++;
        }
        i++;   // (past the wrapper's own frame)
        boolean forkJoin = i < frames.length
                && frames[i].getClassName().equals("java.util.concurrent.ForkJoinTask$RunnableExecuteAction");
        for (; i < frames.length; i++) {
            String c = frames[i].getClassName();
            if (!c.equals("java.lang.Thread") && !c.startsWith("java.lang.VirtualThread")
                    && !c.startsWith("jdk.internal.vm.Continuation")
                    && !c.equals("java.util.concurrent.ThreadPoolExecutor")
                    && !c.equals("java.util.concurrent.ThreadPoolExecutor$Worker")
                    && !(forkJoin && c.startsWith("java.util.concurrent.ForkJoin"))
                    && !(c.equals("java.util.TimerThread") && !(t instanceof InterruptedException))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A thread's handler of what it leaves uncaught, set by {@link #leaving}: as
     * {@code ThreadGroup.uncaughtException} prints it when the thread's groups still print it and its
     * text names twins, each text through {@link Traces#message}; otherwise the thread's group's own
     * handling. (A thread ending clears its handler.)
     */
    static final class Uncaught implements Thread.UncaughtExceptionHandler {
        @Override
        public void uncaughtException(Thread thread, Throwable e) {
            ThreadGroup group = thread.getThreadGroup();
            boolean here;
            try {
                here = printsHere(thread, e);
            } catch (Throwable x) {
                here = false;
            }
            if (!here) {
                if (group != null) {
                    group.uncaughtException(thread, e);
                }
                return;
            }
            java.io.PrintStream err = System.err;
            err.print("Exception in thread \"" + thread.getName() + "\" ");
            Traces.print(e, err, null);
        }

        /**
         * Is {@code t}, left uncaught by {@code thread}, for this handler to print: would the thread's
         * groups print it ({@link #printedByGroups}, not a {@code ThreadDeath}) with
         * {@code Throwable}'s method, a text in its chain naming twins?
         */
        static boolean printsHere(Thread thread, Throwable t) {
            return !(t instanceof ThreadDeath) && printedByGroups(thread) && Traces.namesTwins(t)
                    && Traces.printsAsThrowable(t, "printStackTrace", java.io.PrintStream.class);
        }
    }
}
