package jprewrite.runtime;

import java.io.BufferedWriter;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

/**
 * The merged profile on request: what the shutdown hook writes, available to the program itself
 * (for example to save a profile before a long-running server goes on).
 *
 * <p>A snapshot includes every thread: the threads that have ended, and the current counters of
 * the ones still running (read without stopping them, so a running thread's counters may be a
 * few increments behind).
 */
public final class Profiles {
    /** Default file name of the profile, in the working directory. */
    public static final String DEFAULT_OUTPUT = "jprewrite-profile.json";

    /** The merged profile as JSON: {@code {"format": "jprewrite-profile", "version": 1, ...}}. */
    public static String toJson() {
        StringBuilder sb = new StringBuilder();
        try {
            Tree.writeJson(Registry.snapshot(), sb);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a StringBuilder does not throw
        }
        return sb.toString();
    }

    /** Write the merged profile as JSON to {@code path} (atomically: a temporary file, then a rename). */
    public static void write(String path) throws IOException {
        final Tree.Profile p = Registry.snapshot();
        atomicWrite(new File(path), new Body() {
            @Override
            public void write(Writer out) throws IOException {
                Tree.writeJson(p, out);
            }
        });
    }

    /** Write the merged profile as collapsed stacks ({@code a;b;c N}) to {@code path}. */
    public static void writeCollapsed(String path) throws IOException {
        final Tree.Profile p = Registry.snapshot();
        atomicWrite(new File(path), new Body() {
            @Override
            public void write(Writer out) throws IOException {
                Tree.writeCollapsed(p.root, out);
            }
        });
    }

    /** The shutdown hook's work: {@code -Djprewrite.output} and {@code -Djprewrite.collapsed}. */
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
        final Tree.Profile p;
        try {
            p = Registry.snapshot();
        } catch (Throwable e) {
            Log.warn("cannot collect the profile: " + e);
            return;
        }
        if (output != null) {
            try {
                atomicWrite(new File(output), new Body() {
                    @Override
                    public void write(Writer out) throws IOException {
                        Tree.writeJson(p, out);
                    }
                });
            } catch (Throwable e) {
                Log.warn("cannot write the profile to " + output + ": " + e);
            }
        }
        if (collapsed != null) {
            try {
                atomicWrite(new File(collapsed), new Body() {
                    @Override
                    public void write(Writer out) throws IOException {
                        Tree.writeCollapsed(p.root, out);
                    }
                });
            } catch (Throwable e) {
                Log.warn("cannot write the collapsed stacks to " + collapsed + ": " + e);
            }
        }
    }

    private interface Body {
        void write(Writer out) throws IOException;
    }

    /** Readers never see a half-written profile: write a temporary file beside the target, rename. */
    private static void atomicWrite(File target, Body body) throws IOException {
        File file = target.getAbsoluteFile();
        File dir = file.getParentFile();
        if (dir != null && !dir.isDirectory() && !dir.mkdirs() && !dir.isDirectory()) {
            throw new IOException("cannot create directory " + dir);
        }
        File tmp = File.createTempFile("." + file.getName() + ".", ".tmp", dir);
        boolean done = false;
        try {
            Writer out = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(tmp), "UTF-8"), 1 << 16);
            try {
                body.write(out);
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
