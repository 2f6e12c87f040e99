"""Stack traces that a rewritten program prints or reads are the original program's.

The rewriting moves each method's body into an ESI twin ``m$jp`` and makes ``m`` an N2B wrapper
around it, so without ``Traces`` a trace shows ``m$jp`` frames, an extra wrapper frame wherever
uninstrumented code called in, and frames of holder classes (interface dispatchers). The program
below prints traces in each way a program does (``printStackTrace`` to a stream, a writer and
stderr, ``getStackTrace``, ``Thread.getStackTrace`` and ``ThreadInfo.getStackTrace`` read name by
name, the names of ``StackWalker``'s frames, an exception leaving ``main`` and one leaving a
thread's ``run``), through recursion, an interface call, a JDK callback (``List.sort`` calling a
``Comparator`` and a lambda), a cause and a suppressed exception, and ``StackWalker`` walks
(``walk``, ``forEach``, ``getCallerClass``) from a JDK callback, past its N2B wrapper, and
``getCallerClass`` in ``main``, which has no caller frame, and ``Thread.dumpStack``. Rewritten
offline and run under the agent, stdout, stderr and the exit status are those of the original, byte
for byte.
"""

from __future__ import annotations

import pytest

from support.jdk import javac
from support.profiling import assert_same_output, make_jar, run_java, run_rewritten

SOURCE = """
package traces;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

public class Main {
    interface Shape {
        int area();

        default String name() {
            return "shape";
        }
    }

    static class Bad implements Shape {
        public int area() {
            return Helper.fail(3);
        }
    }

    static class Helper {
        static int fail(int x) {
            if (x > 0) {
                return fail(x - 1) + 1;
            }
            throw new IllegalStateException("deep");
        }
    }

    static class ByValue implements Comparator<Integer> {
        public int compare(Integer a, Integer b) {
            if (a == 3) {
                throw new RuntimeException("in compare");
            }
            return a - b;
        }
    }

    static int sortWithLambda(List<Integer> xs) {
        xs.sort((a, b) -> {
            if (a == 3) {
                throw new RuntimeException("in lambda");
            }
            return a - b;
        });
        return xs.size();
    }

    static String caller() {
        return StackWalker.getInstance().walk(s -> s.skip(1).findFirst()).get().getMethodName();
    }

    static String walked() {
        return StackWalker.getInstance().walk(s -> s.limit(2).map(f -> f.getMethodName() + "/"
                + f.toStackTraceElement().getMethodName()).reduce("", (a, b) -> a + b + " "));
    }

    static String walkedNames;

    static class Walking implements Comparator<Integer> {   // a walk from a JDK callback: past its N2B wrapper
        public int compare(Integer a, Integer b) {
            if (walkedNames == null) {
                StringBuilder sb = new StringBuilder();
                StackWalker.getInstance().forEach(f -> sb.append(f.getMethodName()).append(' '));
                walkedNames = sb + "| " + StackWalker.getInstance().walk(s -> s.map(f -> f.getClassName() + "."
                        + f.getMethodName() + ":" + f.getLineNumber()).collect(java.util.stream.Collectors.joining(" ")))
                        + " | called by " + StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                        .getCallerClass().getName();
            }
            return a - b;
        }
    }

    static String where() {
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : Thread.currentThread().getStackTrace()) {
            sb.append(e.getMethodName()).append(' ');
        }
        sb.append("| ");
        for (StackTraceElement e : java.lang.management.ManagementFactory.getThreadMXBean()
                .getThreadInfo(Thread.currentThread().getId(), Integer.MAX_VALUE).getStackTrace()) {
            if (e.getClassName().startsWith("traces.")) {
                sb.append(e.getMethodName()).append(' ');
            }
        }
        return sb.toString();
    }

    public static void main(String[] args) throws Exception {
        try {
            new Bad().area();
        } catch (IllegalStateException e) {
            e.printStackTrace(System.out);
        }
        try {
            Shape s = new Bad();
            s.area();
        } catch (IllegalStateException e) {
            RuntimeException wrapped = new RuntimeException("wrapped", e);
            wrapped.addSuppressed(new IOException("suppressed"));
            PrintWriter w = new PrintWriter(System.out, true);
            wrapped.printStackTrace(w);
            w.flush();
        }
        try {
            sortWithLambda(new ArrayList<>(Arrays.asList(5, 3, 1)));
        } catch (RuntimeException e) {
            for (StackTraceElement el : e.getStackTrace()) {
                System.out.println(el);
            }
        }
        try {
            new ArrayList<>(Arrays.asList(5, 3, 1)).sort(new ByValue());
        } catch (RuntimeException e) {
            StackTraceElement top = e.getStackTrace()[0];
            System.out.println(top.getClassName() + " " + top.getMethodName() + " " + top.getLineNumber());
            System.out.println(e.getStackTrace().length);
        }
        System.out.println(where());
        System.out.println(caller() + " | " + walked());
        try {   // main has no caller frame (the launcher calls it through JNI)
            System.out.println(StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass());
        } catch (IllegalCallerException e) {
            System.out.println(e);
        }
        Arrays.asList(1).forEach(x -> System.out.println("a lambda called by "
                + StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass().getName()));
        new ArrayList<>(Arrays.asList(2, 1)).sort(new Walking());
        System.out.println(walkedNames);
        Thread t = new Thread(new Runnable() {
            public void run() {
                Helper.fail(1);
            }
        }, "worker");
        t.start();
        t.join();
        try {
            Helper.fail(0);
        } catch (RuntimeException e) {
            e.printStackTrace();
        }
        Thread.dumpStack();
        System.err.flush();
        Helper.fail(2);
    }
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("traces")
    classes = javac({"traces/Main.java": SOURCE}, tmp / "classes", "-g")
    jar = make_jar(classes, tmp / "traces.jar")
    plain = run_java([jar], "traces.Main")
    assert plain.returncode == 1, plain.stderr  # the exception that leaves main
    assert "at traces.Main$Helper.fail(Main.java:" in plain.stdout, plain.stdout
    return jar, plain


@pytest.mark.parametrize("how", ["default", "precise", "agent"])
def test_rewritten_program_prints_the_original_stack_traces(program, how, tmp_path) -> None:
    jar, plain = program
    options = [] if how == "agent" else ["--counting", how]
    run = run_rewritten(jar, "traces.Main", tmp_path, *options, agent=how == "agent")
    assert "$jp" not in run.stdout + run.stderr
    assert_same_output(run, plain)


UNCAUGHT = """
package uncaught;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

public class Main {
    void loop() {
        deeper(3);
    }

    void deeper(int n) {
        if (n == 0) {
            throw new IllegalStateException("from a method reference");
        }
        deeper(n - 1);
    }

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> {
            throw new RuntimeException("from a lambda");
        }, "lambda");
        a.start();
        a.join();
        Main m = new Main();
        Thread b = new Thread(m::loop, "reference");
        b.start();
        b.join();
        ExecutorService ex = Executors.newSingleThreadExecutor(r -> new Thread(r, "pool"));
        Future<?> f = ex.submit(() -> m.deeper(1));
        try {
            f.get();
        } catch (ExecutionException e) {
            e.getCause().printStackTrace();
        }
        ex.execute(m::loop);
        ex.shutdown();
        ex.awaitTermination(30, TimeUnit.SECONDS);
    }
}
"""


@pytest.mark.parametrize("how", ["default", "agent"])
def test_uncaught_exceptions_of_lambdas_and_method_references_print_the_original_trace(how, tmp_path) -> None:
    """A ``Thread`` running a lambda or a method reference, and an executor's task: the JVM (or the
    executor) prints what leaves them, from the JDK's code, below no frame of the program. The N2B
    wrapper of such a top-level context cleans the exception on its way out
    (``Traces.cleanLeaving``); only ``main`` and ``run()`` wrappers did, so these printed twin and
    wrapper frames."""
    classes = javac({"uncaught/Main.java": UNCAUGHT}, tmp_path / "classes", "-g")
    jar = make_jar(classes, tmp_path / "uncaught.jar")
    plain = run_java([jar], "uncaught.Main")
    assert plain.stderr.count("Exception in thread") == 3, plain.stderr
    run = run_rewritten(jar, "uncaught.Main", tmp_path, *([] if how == "agent" else []), agent=how == "agent")
    assert "$jp" not in run.stderr
    assert_same_output(run, plain)


MESSAGES = """
package npes;

public class Main {
    static final class Box {
        String value;

        String get() {
            return value;
        }

        static Box none(int a, String b) {
            return null;
        }

        int size(int[] xs) {
            return xs.length;
        }
    }

    static void show(Runnable r) {
        try {
            r.run();
        } catch (NullPointerException e) {
            Exception x = e;
            System.out.println(e.getMessage());
            System.out.println(x.getLocalizedMessage());
            System.out.println(x.toString());
        }
    }

    public static void main(String[] args) {
        Box nothing = null;
        show(() -> nothing.get());                       // a twin called on null
        show(() -> Box.none(1, "b").get());              // a twin's null result dereferenced
        show(() -> new Box().get().length());            // the same, then a JDK method
        show(() -> new Box().size(null));                // inside a twin: the program's own text
        show(() -> {
            throw new NullPointerException("Box.get$jp(jprewrite.runtime.Node, x) stays");
        });
        // printed: as it is, as a cause, as a suppressed exception, to a stream, a writer and stderr
        try {
            nothing.get();
        } catch (NullPointerException e) {
            e.printStackTrace(System.out);
            RuntimeException wrapped = new RuntimeException("wrapped", e);
            wrapped.addSuppressed(new IllegalStateException("beside", e));
            wrapped.printStackTrace(System.out);
            java.io.PrintWriter w = new java.io.PrintWriter(System.out, true);
            wrapped.printStackTrace(w);
            w.flush();
            e.printStackTrace();
        }
    }
}
"""


@pytest.mark.parametrize("how", ["default", "agent"])
def test_null_pointer_messages_read_by_the_program_name_the_methods(how, tmp_path) -> None:
    """The JVM writes a NullPointerException's message from the bytecode of the method that threw,
    and rewritten code calls twins: ``Cannot invoke "npes.Main$Box.get$jp(jprewrite.runtime.Node,
    int)"``, ``the return value of "npes.Main$Box.none$jp(int, String, jprewrite.runtime.Node,
    int)"``. Read through ``getMessage``, ``getLocalizedMessage`` and ``toString``, or printed by
    ``printStackTrace`` (itself, as a cause, as a suppressed exception; stream, writer, stderr),
    the program gets the original's text; a message of its own that merely looks alike stays as it
    is."""
    classes = javac({"npes/Main.java": MESSAGES}, tmp_path / "classes", "-g")
    jar = make_jar(classes, tmp_path / "npes.jar")
    plain = run_java([jar], "npes.Main")
    assert 'because "nothing" is null' in plain.stdout and "$jp" in plain.stdout, plain.stdout
    run = run_rewritten(jar, "npes.Main", tmp_path, agent=how == "agent")
    assert_same_output(run, plain)


CONVERSIONS = """
package texts;

import java.io.PrintWriter;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

public class Main {
    static final class Box {
        String value;

        String get() {
            return value;
        }

        static Box none(int a) {
            return null;
        }
    }

    /** Its text is the program's: looked at by nobody but the JDK's conversion, once. */
    static final class Loud extends RuntimeException {
        static int texts;

        Loud(Throwable cause) {
            super(cause);
        }

        @Override
        public String toString() {
            texts++;
            return "Loud(" + getCause().getMessage() + ")";
        }
    }

    /** Its text is Throwable's: the cause's, which names twins when the JDK writes it. */
    static final class Quiet extends RuntimeException {
        Quiet(Throwable cause) {
            super(cause);
        }
    }

    static NullPointerException npe() {
        try {
            Box.none(1).get();
        } catch (NullPointerException e) {
            return e;
        }
        return null;
    }

    static NullPointerException twinOnNull() {
        Box nothing = null;
        try {
            nothing.get();
        } catch (NullPointerException e) {
            return e;
        }
        return null;
    }

    static void converted(Exception e) {
        Object o = e;
        Serializable s = e;
        System.out.println("concatenated " + e);
        System.out.println("in the middle [" + e + "] " + 3 + ' ' + o + " " + s + " " + 2.5);
        System.out.println(e);
        System.out.print(o);
        System.out.println();
        StringBuilder sb = new StringBuilder("builder ");
        sb.append(e).append(' ').append(o);
        System.out.println(sb);
        StringBuffer sf = new StringBuffer("buffer ");
        sf.append(o);
        System.out.println(sf);
        System.out.println(String.valueOf(e) + " | " + Objects.toString(o));
        System.out.println("toString " + o.toString() + " " + s.toString());
        PrintWriter w = new PrintWriter(System.out, true);
        w.println(e);
        w.print(o);
        w.println();
        System.out.printf("printf %s%n", e);
        System.out.println(String.format("format %2$s %1$s %<S", "first", e));
        System.out.println(String.format("%-12.20s|%b", e, e));
        try {
            System.out.println(String.format("%d", e));
        } catch (RuntimeException x) {
            System.out.println("bad format: " + x.getMessage());
        }
    }

    public static void main(String[] args) throws Exception {
        converted(npe());
        converted(twinOnNull());
        converted(new Quiet(npe()));
        converted(new RuntimeException("wrapped", npe()));
        Loud loud = new Loud(npe());
        System.out.println("loud " + loud);
        System.out.println(loud);
        System.out.println("the program's text was made " + Loud.texts + " times");

        // uncaught: a lambda's, a thread's own run(), a pool's task; then a program's handlers
        Thread a = new Thread(() -> Box.none(2).get(), "lambda");
        a.start();
        a.join();
        Thread b = new Thread("subclass") {
            @Override
            public void run() {
                Box.none(8).get();
            }
        };
        b.start();
        b.join();
        List<Thread> pool = new ArrayList<>();
        ExecutorService ex = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "pool-" + pool.size());
            pool.add(t);
            return t;
        });
        Future<?> f = ex.submit(() -> Box.none(3).get());
        try {
            f.get();
        } catch (ExecutionException e) {
            System.out.println("submitted: " + e);
        }
        ex.submit(() -> System.out.println("the pool keeps its handler: "
                + (Thread.currentThread().getUncaughtExceptionHandler() == Thread.currentThread().getThreadGroup())))
                .get();
        ex.execute(() -> Box.none(4).get());
        ex.shutdown();
        ex.awaitTermination(30, TimeUnit.SECONDS);
        for (int i = 0; i < pool.size(); i++) {
            pool.get(i).join();
        }
        Thread c = new Thread(() -> Box.none(5).get(), "own handler");
        c.setUncaughtExceptionHandler((t, e) -> System.out.println("handled in " + t.getName() + ": " + e));
        c.start();
        c.join();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> System.out.println("default handler: " + e));
        Thread d = new Thread(() -> Box.none(6).get(), "default");
        d.start();
        d.join();
        Thread.setDefaultUncaughtExceptionHandler(null);
        java.util.Timer timer = new java.util.Timer("timer");
        Thread timerThread = null;
        Thread[] all = new Thread[Thread.activeCount() + 8];
        for (int i = 0, n = Thread.enumerate(all); i < n; i++) {
            if (all[i].getName().equals("timer")) {
                timerThread = all[i];
            }
        }
        timer.schedule(new java.util.TimerTask() {
            @Override
            public void run() {
                Box.none(9).get();
            }
        }, 0);
        timerThread.join();

        // a fork-join pool: what execute's task throws kills the worker, which the JDK prints;
        // a submitted task's exception goes to get(), and its worker keeps the group as handler
        List<Thread> workers = new ArrayList<>();
        ForkJoinPool fj = new ForkJoinPool(1, p -> {
            ForkJoinWorkerThread w = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            synchronized (workers) {
                w.setName("forked-" + workers.size());
                workers.add(w);
            }
            return w;
        }, null, false);
        fj.execute(() -> Box.none(10).get());
        Thread first = null;
        while (first == null) {
            synchronized (workers) {
                first = workers.isEmpty() ? null : workers.get(0);
            }
            Thread.sleep(1);
        }
        first.join();
        ForkJoinTask<?> forked = fj.submit(() -> Box.none(11).get());
        try {
            forked.get();
        } catch (ExecutionException e) {
            System.out.println("forked: " + e.getCause());
        }
        fj.submit(() -> System.out.println("the fork-join worker keeps its handler: "
                + (Thread.currentThread().getUncaughtExceptionHandler() == Thread.currentThread().getThreadGroup())))
                .get();
        fj.shutdown();
        fj.awaitTermination(30, TimeUnit.SECONDS);
        synchronized (workers) {
            for (Thread w : workers) {
                w.join();
            }
        }
        System.out.flush();
        Box.none(7).get();
    }
}
"""


@pytest.mark.parametrize("how", ["exact", "hybrid", "agent"])
def test_throwables_the_jdk_turns_into_text_read_as_the_originals(how, tmp_path) -> None:
    """A NullPointerException's message names twins (the JVM writes it from the rewritten
    bytecode), and the JDK turns a throwable into text itself: string concatenation, ``println``,
    ``append``, ``valueOf``, formats (``%s`` and an index; ``%d`` fails naming the class), a cause's
    text in its wrapper's message, and the JVM's print of an exception leaving ``main``, a thread
    running a lambda, a thread's own ``run()``, a pool's task, a ``Timer``'s and a fork-join pool's
    ``execute`` task. All read as the original's; a program's own ``toString`` runs as often as in
    the original; a pool thread whose task's exception a ``Future`` caught keeps no handler of
    jprewrite's, nor does a fork-join worker whose submitted task failed; the program's handlers get
    the exceptions. Offline (exact and hybrid mode) and under the agent."""
    classes = javac({"texts/Main.java": CONVERSIONS}, tmp_path / "classes", "-g")
    jar = make_jar(classes, tmp_path / "texts.jar")
    plain = run_java([jar], "texts.Main")
    assert plain.returncode == 1 and plain.stderr.count("Exception in thread") == 6, plain.stderr
    assert 'in thread "forked-0"' in plain.stderr and "forked: java.lang.NullPointerException" in plain.stdout
    assert "made 2 times" in plain.stdout and "bad format: d != java.lang.NullPointerException" in plain.stdout
    run = run_rewritten(jar, "texts.Main", tmp_path, *([] if how == "agent" else ["--mode", how]), agent=how == "agent")
    assert "$jp" not in run.stdout + run.stderr
    assert_same_output(run, plain)
