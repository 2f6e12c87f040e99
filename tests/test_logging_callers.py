"""The JDK's loggers name the program's methods, not their twins (logging trampolines).

``java.util.logging`` and ``System.Logger`` find the method that logged by walking the stack in
the JDK's own code, which the rewriting leaves alone; without the trampolines every record of a
rewritten program was named after an ESI twin (``L work$jp``) and every logged exception printed
its twins and wrapper frames. The program below logs the ways programs do: by level, ``log`` with
a parameter, a throwable (with a cause, thrown through a JDK callback) and a ``LogRecord``, a
``Supplier`` the logger calls back, ``logp`` with a throwable, a ``Logger`` subclass calling
``super.info``, ``System.Logger``, two logging methods of one descriptor from one lambda, and a
default method of an interface; the format prints the source (class and method), the level, the
message and the trace. It also prints ``Thread.getAllStackTraces()``'s frames of its own thread
and its own sorted declared methods (the trampolines left out). Rewritten offline (default and
hybrid mode) and under the agent, stdout, stderr and the exit status are the original's, byte
for byte.
"""

from __future__ import annotations

import zipfile

import pytest

from jprewrite.classfile import read_class

from support.jdk import javac
from support.profiling import assert_same_output, make_jar, rewrite, run_java, run_rewritten

SOURCE = """
package logs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.logging.StreamHandler;

public class Main {
    static final Logger LOG = Logger.getLogger("logs");

    interface Reporter {
        default void report(String what) {
            LOG.info("reported " + what);
        }
    }

    static class Quiet implements Reporter {
    }

    static class Tagged extends Logger {
        Tagged() {
            super("tagged", null);
        }

        @Override
        public void info(String msg) {
            super.info("[tagged] " + msg);
        }
    }

    void work(int i) {
        LOG.info("working " + i);
        LOG.log(Level.FINE, "step {0}", i);
    }

    static String expensive() {
        return "computed";
    }

    static int fail(int depth) {
        if (depth > 0) {
            return fail(depth - 1) + 1;
        }
        throw new IllegalStateException("deep");
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.util.logging.SimpleFormatter.format", "%2$s %4$s %5$s%6$s%n");
        Logger root = Logger.getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        StreamHandler out = new StreamHandler(System.out, new SimpleFormatter());
        out.setLevel(Level.ALL);
        root.addHandler(out);
        LOG.setLevel(Level.ALL);
        new Main().work(1);
        Runnable r = () -> LOG.warning("from a lambda");
        r.run();
        LOG.info(() -> "supplied " + expensive());
        try {
            fail(2);
        } catch (IllegalStateException e) {
            LOG.log(Level.SEVERE, "failed", new RuntimeException("wrapped", e));
        }
        try {
            new ArrayList<>(Arrays.asList(3, 1, 2)).sort((a, b) -> a == 1 ? fail(0) : a - b);
        } catch (IllegalStateException e) {
            LOG.log(Level.WARNING, e, () -> "in a comparator");
        }
        LogRecord record = new LogRecord(Level.INFO, "a record");
        record.setThrown(new IllegalArgumentException("recorded"));
        LOG.log(record);
        LOG.logp(Level.INFO, "Somewhere", "else", "explicit", new RuntimeException("explicit"));
        Logger tagged = new Tagged();
        tagged.setParent(root);
        tagged.info("from a subclass");
        System.getLogger("system").log(System.Logger.Level.INFO, "through System.Logger");
        List<Integer> xs = new ArrayList<>(Arrays.asList(3, 1, 2));
        xs.sort((a, b) -> {
            LOG.fine("compare " + a);
            LOG.info("compare " + b);
            return a - b;
        });
        new Quiet().report("by default");
        for (StackTraceElement e : Thread.getAllStackTraces().get(Thread.currentThread())) {
            if (e.getClassName().startsWith("logs.")) {
                System.out.println("frame " + e);
            }
        }
        TreeSet<String> methods = new TreeSet<>();
        for (java.lang.reflect.Method m : Main.class.getDeclaredMethods()) {
            methods.add(m.getName() + "/" + m.getParameterCount());
        }
        System.out.println(methods);
        out.flush();
        LOG.severe("last");
        out.flush();
    }
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("logs")
    classes = javac({"logs/Main.java": SOURCE}, tmp / "classes", "-g")
    jar = make_jar(classes, tmp / "logs.jar")
    plain = run_java([jar], "logs.Main")
    assert plain.returncode == 0, plain.stderr
    for line in (
        "logs.Main work INFO working 1",
        "logs.Main lambda$main$0 WARNING",
        "logs.Main$Tagged info INFO",
        "logs.Main$Reporter report INFO",
        "at logs.Main.fail(Main.java:",
    ):
        assert line in plain.stdout, plain.stdout
    return jar, plain


@pytest.mark.parametrize("how", ["exact", "hybrid", "agent"])
def test_rewritten_program_logs_as_the_original(program, how, tmp_path) -> None:
    jar, plain = program
    run = run_rewritten(jar, "logs.Main", tmp_path, *([] if how == "agent" else ["--mode", how]), agent=how == "agent")
    assert "$jp" not in run.stdout + run.stderr
    assert_same_output(run, plain)


def test_no_trampoline_is_named_doCall(tmp_path) -> None:
    """Groovy's runtime takes a closure's arity from its ``doCall`` methods (synthetic ones too):
    a logging call in a ``doCall`` keeps its plain call, so the class has no other ``doCall``."""
    source = """
package g;

public class Closureish {
    static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger("g");

    public Object doCall(Object x) {
        LOG.info("called with " + x);
        return x;
    }

    public Object other(Object x) {
        LOG.info("other " + x);
        return x;
    }
}
"""
    classes = javac({"g/Closureish.java": source}, tmp_path / "classes", "-g")
    out = tmp_path / "out.jar"
    rewrite([make_jar(classes, tmp_path / "g.jar")], out)
    with zipfile.ZipFile(out) as z:
        cf = read_class(z.read("g/Closureish.class"))
    methods = {(m.name, m.descriptor) for m in cf.methods}
    assert ("doCall$jp", "(Ljava/lang/Object;Ljprewrite/runtime/Node;I)Ljava/lang/Object;") in methods
    assert [d for n, d in methods if n == "doCall"] == ["(Ljava/lang/Object;)Ljava/lang/Object;"]
    assert ("other", "(Ljava/util/logging/Logger;Ljava/lang/String;Ljprewrite/runtime/Traces;)V") in methods


NULLS = """
package nulls;

import java.util.function.Supplier;
import java.util.logging.Logger;

public class Main {
    static Logger STATIC_LOG;
    Logger log;
    System.Logger systemLog;

    static void report(Runnable r) {
        try {
            r.run();
            System.out.println("no exception");
        } catch (NullPointerException e) {
            System.out.println(e.getMessage());
            StackTraceElement top = e.getStackTrace()[0];
            System.out.println("  at " + top.getMethodName() + ":" + top.getLineNumber());
        }
    }

    public static void main(String[] args) throws Exception {
        Main m = new Main();
        Logger real = Logger.getLogger("nulls");
        real.setLevel(java.util.logging.Level.OFF);
        report(() -> real.info("fine"));
        report(() -> STATIC_LOG.info("x"));
        report(() -> m.log.warning("y"));
        report(() -> Logger.getLogger("").getParent().fine("z"));
        report(() -> {
            Logger local = null;
            long wide = 7L;
            local.log(java.util.logging.Level.INFO, "w {0}", wide);
        });
        report(() -> m.systemLog.log(System.Logger.Level.INFO, "s"));
        report(() -> {
            Supplier<String> s = () -> "lazy";
            STATIC_LOG.info(s);
        });
        report(() -> {
            StackWalker w = null;
            w.getCallerClass();
        });
        report(() -> {
            StackWalker w = null;
            w.forEach(f -> { });
        });
        report(() -> {
            StackWalker w = null;
            long n = w.walk(s -> s.count());
            System.out.println(n);
        });
        report(() -> {
            Throwable t = null;
            t.printStackTrace();
        });
        report(() -> {
            Throwable t = null;
            System.out.println(t.getStackTrace().length);
        });
        Thread thread = new Thread(() -> STATIC_LOG.severe("uncaught"));
        thread.start();
        thread.join();
        m.log.info("uncaught in main");
    }
}
"""


@pytest.mark.parametrize("how", ["exact", "hybrid", "agent", "no-details"])
def test_a_null_logger_or_walker_fails_as_in_the_original(how, tmp_path) -> None:
    """A logging call or a ``StackWalker`` call on a null receiver: the ``NullPointerException`` is the
    original's, its message included, which the JVM makes from the bytecode of the method it is
    thrown in (``because "m.log" is null``, ``because "<local1>" is null`` without debug information,
    ``the return value of "java.util.logging.Logger.getParent()"``). The trampolines and the
    runtime's ``Walks`` had named their own
    parameter (``because "<parameter1>" is null``), or thrown one without a message. Caught and
    printed, and uncaught in a thread and in ``main``; offline (exact, hybrid), under the agent, and
    with the JVM's detailed messages off. (Compiled with ``-g``: without a local-variable table the
    JVM names a local by its slot, and a twin's locals sit two slots higher, after the node and
    site parameters: a known difference of every rewritten method.)"""
    classes = javac({"nulls/Main.java": NULLS}, tmp_path / "classes", "-g")
    jar = make_jar(classes, tmp_path / "nulls.jar")
    jvm: tuple[str, ...] = ("-Xverify:all",)
    if how == "no-details":
        jvm += ("-XX:-ShowCodeDetailsInExceptionMessages",)
    plain = run_java([jar], "nulls.Main", jvm=jvm)
    assert plain.returncode == 1 and "because" in plain.stdout + plain.stderr or how == "no-details", plain.stdout
    assert plain.stdout.count("no exception") == 1, plain.stdout
    if how == "agent":
        run = run_rewritten(jar, "nulls.Main", tmp_path, agent=True)
    else:
        out = tmp_path / "out.jar"
        rewrite([jar], out, *(["--mode", how] if how != "no-details" else []))
        run = run_java([out], "nulls.Main", jvm=jvm, profile=tmp_path / "p.json")
    assert_same_output(run, plain)
