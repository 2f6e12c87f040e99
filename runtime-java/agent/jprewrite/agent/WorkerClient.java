package jprewrite.agent;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The conversation with the Python worker ({@code python -m jprewrite.agent.worker}) over its
 * stdin/stdout, framed as in docs/agent.md. The worker is started at the first cache miss, so a
 * warm run never starts Python.
 *
 * <p>One request is open at a time: callers queue on a fair lock, each waiting at most
 * {@code timeout} seconds. A daemon watchdog kills a worker whose answer takes longer than
 * {@code timeout}, which makes the blocked read fail: nothing here can hang the JVM or throw into
 * it. After a failure the worker is restarted once (and the open request retried); after a
 * second failure, or an {@code E} answer to the hello (a start-up problem restarting cannot fix),
 * every later request returns null at once: those classes get the contract-only form the agent
 * writes itself (see {@link Transformer#contract}).
 */
final class WorkerClient {
    /** A failure of the worker; {@code fatal}: restarting cannot help. */
    private static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final boolean fatal;

        Failure(String what, boolean fatal) {
            super(what, null, false, false);
            this.fatal = fatal;
        }
    }

    private final AgentOptions options;
    private final List<String> command;
    private final long timeoutNanos;
    private final ReentrantLock lock = new ReentrantLock(true);
    /** Set while this thread holds the lock (is in a conversation with the worker). */
    private final ThreadLocal<Boolean> inConversation = new ThreadLocal<>();

    // guarded by lock
    private DataInputStream in;
    private OutputStream out;
    private int restarts;
    private int nextId;

    private volatile Process process;
    private volatile boolean gaveUp;
    private volatile boolean closed;

    // the watchdog, guarded by watchLock
    private final Object watchLock = new Object();
    private Thread watchdog;
    private boolean armed;
    private long deadline;
    private volatile boolean timedOut;

    WorkerClient(AgentOptions options, String buildPython) {
        this.options = options;
        this.command = command(options, buildPython);
        this.timeoutNanos = TimeUnit.SECONDS.toNanos(options.timeoutSeconds);
    }

    /** {@code worker=...} split on spaces, else {@code <python> -m jprewrite.agent.worker}. */
    static List<String> command(AgentOptions options, String buildPython) {
        if (options.worker != null) {
            return options.worker;
        }
        String python = options.python;
        if (python == null) {
            python = buildPython == null || buildPython.isEmpty() ? "python3" : buildPython;
        }
        List<String> c = new ArrayList<>();
        c.add(python);
        c.add("-m");
        c.add("jprewrite.agent.worker");
        return c;
    }

    /** Whether the current thread is in a conversation with the worker (a nested class load). */
    boolean busyOnThisThread() {
        return inConversation.get() != null;
    }

    /** Whether requests can still be answered (false once the worker was given up or closed). */
    boolean usable() {
        return !gaveUp && !closed;
    }

    /**
     * Rewrites one class: its result, or null when there is no answer (worker given up, closed, or
     * busy for longer than the timeout); failures have been reported.
     */
    Result request(String internalName, byte[] classBytes, ClassLoader loader, boolean resolutions) {
        if (!usable()) {
            return null;
        }
        if (!acquire(timeoutNanos)) {
            if (usable()) {
                Log.once("wait:" + internalName, internalName.replace('/', '.') + " waited more than "
                        + options.timeoutSeconds + " s for the rewriting worker; left uninstrumented"
                        + " (with the delegating ESI methods written by the agent)");
            }
            return null;
        }
        inConversation.set(Boolean.TRUE);
        try {
            while (usable()) {
                Failure failure;
                try {
                    if (process == null) {
                        start();
                    }
                    return converse(internalName, classBytes, loader, resolutions);
                } catch (Failure f) {
                    failure = f;
                } catch (Throwable e) {
                    failure = new Failure(describe(e), false);
                }
                stop();
                if (closed) {
                    return null;
                }
                if (failure.fatal || restarts > 0) {
                    gaveUp = true;
                    Log.warn("the rewriting worker " + failure.getMessage()
                            + "; classes loaded from now on stay uninstrumented, with the delegating ESI"
                            + " methods rewritten callers need written by the agent");
                    return null;
                }
                restarts++;
                Log.warn("the rewriting worker " + failure.getMessage() + "; restarting it");
            }
            return null;
        } finally {
            inConversation.remove();
            lock.unlock();
        }
    }

    /** Takes the lock within {@code nanos}, ignoring (but keeping) interrupts: class loading must not fail on them. */
    private boolean acquire(long nanos) {
        long end = System.nanoTime() + nanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return lock.tryLock(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void start() throws Failure, IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectInput(Redirect.PIPE).redirectOutput(Redirect.PIPE).redirectError(Redirect.INHERIT);
        Process p;
        try {
            p = pb.start();
        } catch (Throwable e) {
            throw new Failure("cannot be started (" + String.join(" ", command) + ": " + Log.describe(e) + ")", false);
        }
        process = p;
        in = new DataInputStream(new BufferedInputStream(p.getInputStream(), 1 << 16));
        out = new BufferedOutputStream(p.getOutputStream(), 1 << 16);
        startWatchdog();
        Frames.Writer hello = new Frames.Writer().str("2").str(options.raw)
                .str(System.getProperty("java.home", "")).str(System.getProperty("java.class.path", ""))
                .str(jarRelease());
        arm();
        try {
            Frames.write(out, 'H', hello);
            Frames.Frame f = Frames.read(in);
            if (f.type == 'R') {
                f.payload.str();
                return;
            }
            if (f.type == 'E') {
                throw new Failure("cannot work: " + f.payload.str(), true);
            }
            throw new Failure("broke the protocol (answered the hello with frame " + show(f.type) + ")", false);
        } finally {
            disarm();
        }
    }

    private Result converse(String internalName, byte[] classBytes, ClassLoader loader, boolean resolutions)
            throws Failure, IOException {
        int id = ++nextId;
        arm();
        try {
            Frames.Writer request = new Frames.Writer().u4(id).str(internalName).u1(resolutions ? 1 : 0);
            Frames.write(out, 'C', request.bytes(classBytes));
            while (true) {
                Frames.Frame f = Frames.read(in);
                Frames.Reader r = f.payload;
                if (f.type == 'Q') {
                    disarm(); // reading a resource is the application's time, not the worker's
                    byte[] answer = resource(loader, r.str());
                    arm();
                    Frames.write(out, 'A', new Frames.Writer().bytes(answer));
                } else if (f.type == 'D') {
                    int answered = r.u4();
                    if (answered != id) {
                        throw new Failure("broke the protocol (answered request " + answered + " instead of " + id + ")", false);
                    }
                    Result result = Result.read(r.u1(), r);
                    if (result == null) {
                        throw new Failure("broke the protocol (malformed answer for " + internalName + ")", false);
                    }
                    return result;
                } else {
                    throw new Failure("broke the protocol (unexpected frame " + show(f.type) + ")", false);
                }
            }
        } finally {
            disarm();
        }
    }

    /** The class file {@code name} as {@code loader} sees it; empty when absent or on any error. */
    private static byte[] resource(ClassLoader loader, String name) {
        try {
            if (AgentJars.containsResource(loader.getResource(name + ".class"))) {
                return new byte[0];   // another agent's class: never rewritten (see AgentJars)
            }
        } catch (Throwable e) {   // a loader's own getResource failing: read it as before
        }
        try (InputStream s = loader.getResourceAsStream(name + ".class")) {
            return s == null ? new byte[0] : s.readAllBytes();
        } catch (Throwable e) {
            return new byte[0];
        }
    }

    /** What went wrong, for the warning: a timeout, the worker's exit, or the error itself. */
    private String describe(Throwable e) {
        if (timedOut) {
            return "did not answer within " + options.timeoutSeconds + " s (killed)";
        }
        Process p = process;
        if (p != null) {
            try {
                if (p.waitFor(2, TimeUnit.SECONDS)) {
                    return "stopped unexpectedly (exit status " + p.exitValue() + ")";
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
        return "failed (" + Log.describe(e) + ")";
    }

    private static String show(char type) {
        return type >= ' ' && type < 127 ? "'" + type + "'" : "0x" + Integer.toHexString(type);
    }

    /** Kills the current worker process (if any) and forgets it. */
    private void stop() {
        Process p = process;
        process = null;
        closeQuietly(out);
        closeQuietly(in);
        in = null;
        out = null;
        if (p != null) {
            p.destroyForcibly();
        }
        timedOut = false;
    }

    private static void closeQuietly(java.io.Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Throwable ignored) {
                // already broken
            }
        }
    }

    /**
     * At JVM exit: sends {@code X} (the worker then prints its final progress summary and ends)
     * and waits a little for it. A conversation still open in another thread is cut short.
     */
    void close() {
        closed = true;
        Process p = process;
        if (p == null) {
            return;
        }
        if (acquire(TimeUnit.SECONDS.toNanos(Math.min(5, options.timeoutSeconds)))) {
            try {
                if (out != null) {
                    arm();
                    try {
                        Frames.write(out, 'X', null);
                    } catch (Throwable ignored) {
                        // the worker is gone; nothing to finish
                    } finally {
                        disarm();
                    }
                }
                closeQuietly(out);
            } finally {
                lock.unlock();
            }
        } else {
            closeQuietly(p.getOutputStream());
        }
        try {
            if (!p.waitFor(Math.min(10, options.timeoutSeconds), TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (Throwable e) {
            p.destroyForcibly();
        }
    }

    // ---- watchdog ----

    private void startWatchdog() {
        synchronized (watchLock) {
            if (watchdog != null) {
                return;
            }
            Thread t = new Thread(this::watch, "jprewrite-agent-watchdog");
            t.setDaemon(true);
            t.setContextClassLoader(null);
            t.start();
            watchdog = t;
        }
    }

    private void arm() {
        synchronized (watchLock) {
            deadline = System.nanoTime() + timeoutNanos;
            if (!armed) {
                armed = true;
                watchLock.notifyAll();
            }
        }
    }

    private void disarm() {
        synchronized (watchLock) {
            armed = false;
        }
    }

    private void watch() {
        synchronized (watchLock) {
            while (true) {
                try {
                    if (!armed) {
                        watchLock.wait();
                        continue;
                    }
                    long left = deadline - System.nanoTime();
                    if (left > 0) {
                        TimeUnit.NANOSECONDS.timedWait(watchLock, left);
                        continue;
                    }
                    armed = false;
                    Process p = process;
                    if (p != null) {
                        timedOut = true;
                        p.destroyForcibly();
                    }
                } catch (Throwable e) {
                    // keep watching: an interrupt or an error here must not end the watchdog
                }
            }
        }
    }

    /**
     * The copies of multi-release jars this JVM's class path loads, as {@code java.util.jar.JarFile}
     * picks them: {@code base} when {@code -Djdk.util.jar.enableMultiRelease=false}, else the
     * feature release, lowered by {@code -Djdk.util.jar.version} (at least 8, at most this JVM's).
     * The worker plans the classes it has not seen yet from these copies; also part of the cache
     * context.
     */
    static String jarRelease() {
        if ("false".equals(System.getProperty("jdk.util.jar.enableMultiRelease"))) {
            return "base";
        }
        int release = Runtime.version().feature();
        String v = System.getProperty("jdk.util.jar.version");
        if (v != null) {
            try {
                int asked = Integer.parseInt(v.trim());
                release = asked > release ? release : Math.max(asked, 8);
            } catch (NumberFormatException e) {
                // JarFile itself fails to initialise on such a value: the program's problem, not ours
            }
        }
        return Integer.toString(release);
    }
}
