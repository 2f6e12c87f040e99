package jprewrite.runtime;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UnsupportedEncodingException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * The profile on request: what the shutdown hook writes, available to the program itself (for
 * example to save a profile before a long-running server goes on).
 *
 * <p>A profile includes every thread: the threads that have ended, and the current counters of
 * the ones still running (read without stopping them, so a running thread's counters may be a
 * few increments behind). It is written straight from the threads' trees ({@link ProfileWriter});
 * a name ending in {@code .gz} is written gzip-compressed, one ending in {@code .jpprof} (or
 * {@code .jpprof.gz}) in the compact format ({@link ProfileBinary}).
 */
public final class Profiles {
    /** Default file name of the profile, in the working directory. */
    public static final String DEFAULT_OUTPUT = "jprewrite-profile.json";

    /** The profile as JSON: {@code {"format": "jprewrite-profile", "version": 1, ...}}. */
    public static String toJson() {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            Registry.withSources(new Registry.SourcesUser<Void>() {
                @Override
                public Void use(ProfileWriter.Sources s) throws IOException {
                    new ProfileWriter(s).writeJson(new ByteOut(bytes), threadsMode());
                    return null;
                }
            });
            return bytes.toString("US-ASCII");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a byte array does not throw
        }
    }

    /**
     * Write the profile to {@code path}: JSON, or the compact format for a name ending in
     * {@code .jpprof} (atomically: a temporary file, then a rename).
     */
    public static void write(String path) throws IOException {
        writeFiles(path, null, false, threadsMode(), false);
    }

    /** Write the profile's merged tree as collapsed stacks ({@code a;b;c N}) to {@code path}. */
    public static void writeCollapsed(String path) throws IOException {
        writeFiles(null, path, false, threadsMode(), false);
    }

    /**
     * The shutdown hook's work: {@code -Djprewrite.output} and {@code -Djprewrite.collapsed} (names
     * with {@code %p}, {@code %h}, {@code %t}), {@code -Djprewrite.append}, {@code -Djprewrite.threads}.
     */
    static void writeAtExit() {
        String output = Config.property("jprewrite.output");
        if (output == null || output.isEmpty()) {
            output = DEFAULT_OUTPUT;
        }
        if ("none".equals(output)) {
            output = null;
        }
        String collapsed = Config.property("jprewrite.collapsed");
        if (collapsed != null && (collapsed.isEmpty() || "none".equals(collapsed))) {
            collapsed = null;
        }
        if (output == null && collapsed == null) {
            return;
        }
        Sampler.stop();   // no new rounds while the profile is read
        String append = Config.property("jprewrite.append");
        boolean appending = "true".equals(append);
        if (append != null && !appending && !"false".equals(append)) {
            Log.warn("-Djprewrite.append must be true or false, not '" + append + "'; not appending");
        }
        boolean timing = "true".equals(Config.property("jprewrite.timing"));   // for benchmarks
        long start = System.nanoTime();
        long cpu = timing ? threadCpu() : 0;
        String out = output == null ? null : OutputName.expand(output);
        try {
            writeFiles(out, collapsed == null ? null : OutputName.expand(collapsed), appending, threadsMode(), true);
        } catch (Throwable e) {
            Log.warn("cannot write the profile: " + e);
        }
        if (timing) {
            long bytes = out == null ? 0 : new File(out).length();
            Log.warn(String.format(java.util.Locale.ROOT, "profile written in %.3f s (CPU %.3f s), %d bytes",
                    (System.nanoTime() - start) / 1e9, (threadCpu() - cpu) / 1e9, bytes));
        }
    }

    /** CPU time of the writing thread (nanoseconds; 0 where the JVM does not tell). */
    private static long threadCpu() {
        try {
            return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        } catch (Throwable e) {
            return 0;
        }
    }

    /** {@code -Djprewrite.threads}: all (the default), merged-only or none. */
    static int threadsMode() {
        String t = Config.property("jprewrite.threads");
        if (t == null || t.isEmpty() || "all".equals(t)) {
            return ProfileWriter.THREADS_ALL;
        }
        if ("merged-only".equals(t)) {
            return ProfileWriter.THREADS_MERGED_ONLY;
        }
        if ("none".equals(t)) {
            return ProfileWriter.THREADS_NONE;
        }
        Log.once("threads", "-Djprewrite.threads must be all, merged-only or none, not '" + t + "'; using all", null);
        return ProfileWriter.THREADS_ALL;
    }

    /**
     * Write the JSON profile and/or the collapsed stacks from one look at the trees; failures are
     * warned ({@code atExit}: the other file is still written) or thrown.
     */
    private static void writeFiles(final String output, final String collapsed, final boolean append,
            final int threads, final boolean atExit) throws IOException {
        Registry.withSources(new Registry.SourcesUser<Void>() {
            @Override
            public Void use(ProfileWriter.Sources s) throws IOException {
                ProfileWriter w = null;
                if (output != null) {
                    try {
                        w = writeJson(new File(output), s, append, threads);
                    } catch (Throwable e) {
                        if (!atExit) {
                            throw rethrow(e);
                        }
                        Log.warn("cannot write the profile to " + output + ": " + e);
                    }
                }
                if (collapsed != null) {
                    try {
                        final ProfileWriter c = w != null && !append ? w : new ProfileWriter(s);
                        atomicWrite(new File(collapsed), new Body() {
                            @Override
                            public void write(ByteOut out) throws IOException {
                                c.writeCollapsed(out);
                            }
                        });
                    } catch (Throwable e) {
                        if (!atExit) {
                            throw rethrow(e);
                        }
                        Log.warn("cannot write the collapsed stacks to " + collapsed + ": " + e);
                    }
                }
                return null;
            }
        });
    }

    /**
     * The JSON profile; with {@code append}, added to the profile already in {@code file} (JaCoCo's
     * {@code append}): under an exclusive lock on {@code file.lock}, so that JVMs ending together
     * (test forks, executors) each add their own. An existing file that is not a profile is kept,
     * and this run's profile goes beside it (one warning).
     */
    private static ProfileWriter writeJson(File file, final ProfileWriter.Sources s, boolean append, final int threads)
            throws IOException {
        if (!append) {
            final ProfileWriter w = new ProfileWriter(s);
            atomicWrite(file, body(file, w, threads));
            return w;
        }
        File target = file.getAbsoluteFile();
        mkdirs(target.getParentFile());
        FileChannel lockChannel = FileChannel.open(new File(target.getPath() + ".lock").toPath(),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            FileLock lock = lockChannel.lock();
            try {
                if (target.isFile() && target.length() > 0) {
                    try {
                        ProfileParser.read(target).addTo(s);
                    } catch (IOException e) {
                        File aside = OutputName.aside(target);
                        Log.warn("cannot append to " + target + " (not a profile: " + e.getMessage()
                                + "); this run's profile is in " + aside);
                        target = aside;
                    }
                }
                ProfileWriter w = new ProfileWriter(s);
                atomicWrite(target, body(target, w, threads));
                return w;
            } finally {
                lock.release();
            }
        } finally {
            lockChannel.close();
        }
    }

    private static IOException rethrow(Throwable e) {
        if (e instanceof IOException) {
            return (IOException) e;
        }
        if (e instanceof RuntimeException) {
            throw (RuntimeException) e;
        }
        if (e instanceof Error) {
            throw (Error) e;
        }
        return new IOException(e);
    }

    /** JSON, or the compact format for a name ending in {@code .jpprof} (or {@code .jpprof.gz}). */
    private static Body body(File file, final ProfileWriter w, final int threads) {
        final boolean binary = ProfileBinary.wanted(file.getName());
        return new Body() {
            @Override
            public void write(ByteOut out) throws IOException {
                if (binary) {
                    w.writeBinary(out, threads);
                } else {
                    w.writeJson(out, threads);
                }
            }
        };
    }

    private interface Body {
        void write(ByteOut out) throws IOException;
    }

    /** A gzip stream at the fastest level: profiles are repetitive text, level 1 already shrinks them ~15x. */
    private static final class FastGzip extends GZIPOutputStream {
        FastGzip(OutputStream out) throws IOException {
            super(out, 1 << 16);
            def.setLevel(Deflater.BEST_SPEED);
        }
    }

    private static void mkdirs(File dir) throws IOException {
        if (dir != null && !dir.isDirectory() && !dir.mkdirs() && !dir.isDirectory()) {
            throw new IOException("cannot create directory " + dir);
        }
    }

    /** Readers never see a half-written profile: write a temporary file beside the target, rename. */
    private static void atomicWrite(File target, Body body) throws IOException {
        File file = target.getAbsoluteFile();
        File dir = file.getParentFile();
        mkdirs(dir);
        File tmp = File.createTempFile("." + file.getName() + ".", ".tmp", dir);
        boolean done = false;
        try {
            OutputStream out = new FileOutputStream(tmp);
            try {
                if (file.getName().endsWith(".gz")) {
                    out = new FastGzip(out);
                }
                body.write(new ByteOut(out));
            } finally {
                out.close();
            }
            try {
                Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING);
            }
            done = true;
        } finally {
            if (!done) {
                tmp.delete();
            }
        }
    }

    private Profiles() {
    }
}
