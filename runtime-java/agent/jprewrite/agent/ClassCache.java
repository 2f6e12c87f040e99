package jprewrite.agent;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.CRC32;

/**
 * The on-disk cache of rewritten classes (docs/agent.md, "The cache"), so that a warm run never
 * starts Python: {@code <dir>/<context>/<h[0:2]>/<h[2:]>}, {@code h} the SHA-256 of the class
 * bytes and {@code context} a digest of everything else the rewriting depends on.
 *
 * <p>A cache must never break the application: unreadable, truncated or corrupt entries are
 * misses (and get replaced), write errors are ignored. Entries are written to a temporary file
 * and renamed, so concurrent JVMs only ever see complete entries.
 */
final class ClassCache {
    private static final byte[] MAGIC = {'J', 'P', 'R', 'C'};
    private static final int FORMAT = 1;

    /** The context directory, or null when the cache is disabled. */
    private final Path dir;
    private volatile boolean dirReady;

    private ClassCache(Path dir) {
        this.dir = dir;
    }

    /** A disabled cache: every lookup misses, nothing is stored. */
    static ClassCache disabled() {
        return new ClassCache(null);
    }

    static ClassCache create(AgentOptions options, String buildId) {
        if (options.cache == null) {
            return disabled();
        }
        try {
            return new ClassCache(options.cache.resolve(context(options, buildId)));
        } catch (Throwable e) {
            Log.warn("cannot use the cache " + options.cache + " (" + Log.describe(e) + "); classes are rewritten on every run");
            return disabled();
        }
    }

    boolean enabled() {
        return dir != null;
    }

    /**
     * The first 24 hex digits of SHA-256 over the agent build, the rewriting options, the JDK and
     * the class path (each entry with its size and modification time), one {@code key=value} line
     * each.
     */
    static String context(AgentOptions o, String buildId) throws IOException {
        StringBuilder sb = new StringBuilder();
        line(sb, "build", buildId);
        line(sb, "counting", o.counting);
        line(sb, "allocations", String.valueOf(o.allocations));
        line(sb, "weights", o.weights == null ? "" : hex(sha256(Files.readAllBytes(o.weights))));
        line(sb, "activation", String.valueOf(o.activation));
        if (!o.mode.equals("exact")) {
            line(sb, "mode", o.mode);   // yieldpoints; exact mode's keys stay as they were
        }
        line(sb, "verify", String.valueOf(o.verify) + "/" + System.getenv("JPREWRITE_VERIFY"));
        line(sb, "includes", String.join(":", o.includes));
        line(sb, "excludes", String.join(":", o.excludes));
        line(sb, "java.home", System.getProperty("java.home", ""));
        line(sb, "java.version", System.getProperty("java.version", ""));
        String jarRelease = WorkerClient.jarRelease();
        if (!jarRelease.equals(Integer.toString(Runtime.version().feature()))) {
            line(sb, "jar.release", jarRelease);   // multi-release copies of another release; else as before
        }
        String classPath = System.getProperty("java.class.path", "");
        for (String entry : classPath.split(File.pathSeparator, -1)) {
            if (entry.isEmpty()) {
                continue;
            }
            File f = new File(entry).getAbsoluteFile();
            line(sb, "classpath", f.getPath() + "\t" + f.length() + "\t" + f.lastModified());
        }
        return hex(sha256(sb.toString().getBytes(StandardCharsets.UTF_8))).substring(0, 24);
    }

    private static void line(StringBuilder sb, String key, String value) {
        sb.append(key).append('=').append(value == null ? "" : value).append('\n');
    }

    /** The key of a class: SHA-256 (hex) of its bytes. */
    static String key(byte[] classBytes, boolean resolutions) {
        String key = hex(sha256(classBytes));
        return resolutions ? key + "r" : key;   // rewritten for a loader of the program: other code
    }

    private Path file(String key) {
        return dir.resolve(key.substring(0, 2)).resolve(key.substring(2));
    }

    /** The cached result for {@code key}, or null (absent, unreadable, corrupt: all misses). */
    Result lookup(String key) {
        if (dir == null) {
            return null;
        }
        byte[] data;
        try {
            data = Files.readAllBytes(file(key));
        } catch (NoSuchFileException e) {
            return null;
        } catch (Throwable e) {
            return null;
        }
        return decode(data);
    }

    /** Parses an entry; null unless magic, format, every length and the CRC are right. */
    static Result decode(byte[] data) {
        try {
            if (data.length < MAGIC.length + 2 + 4 + 2 + 4 + 4) {
                return null;
            }
            for (int i = 0; i < MAGIC.length; i++) {
                if (data[i] != MAGIC[i]) {
                    return null;
                }
            }
            int end = data.length - 4;
            CRC32 crc = new CRC32();
            crc.update(data, 0, end);
            Frames.Reader tail = new Frames.Reader(data, end, data.length);
            if ((int) crc.getValue() != tail.u4()) {
                return null;
            }
            Frames.Reader r = new Frames.Reader(data, MAGIC.length, end);
            if (r.u1() != FORMAT) {
                return null;
            }
            int status = r.u1();
            if (status > Result.FAILED) {
                return null;
            }
            return Result.read(status, r);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static byte[] encode(Result result) {
        Frames.Writer w = new Frames.Writer();
        w.write(MAGIC, 0, MAGIC.length);
        w.u1(FORMAT).u1(result.status).bytes(result.classBytes).u2(result.extraNames.length);
        for (int i = 0; i < result.extraNames.length; i++) {
            w.str(result.extraNames[i]).bytes(result.extraClasses[i]);
        }
        w.str(result.message);
        CRC32 crc = new CRC32();
        crc.update(w.array(), 0, w.size());
        w.u4((int) crc.getValue());
        return w.toByteArray();
    }

    /** Stores a result; every failure is ignored (the class is simply rewritten again next run). */
    void store(String key, Result result) {
        if (dir == null) {
            return;
        }
        Path target = file(key);
        Path parent = target.getParent();
        try {
            if (!dirReady) {
                Files.createDirectories(dir);
                dirReady = true;
            }
        } catch (Throwable e) {
            Log.once("cache-dir", "cannot create the cache directory " + dir + " (" + Log.describe(e)
                    + "); rewritten classes are not cached");
            return;
        }
        Path tmp = null;
        try {
            Files.createDirectories(parent);
            tmp = Files.createTempFile(parent, ".tmp-", "");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                out.write(encode(result));
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (Throwable e) {
            // a cache must never break the application
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (Throwable ignored) {
                    // leave it
                }
            }
        }
    }

    static byte[] sha256(byte[] data) {
        return Sha256.digest(data);
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    static String hex(byte[] b) {
        char[] c = new char[b.length * 2];
        for (int i = 0; i < b.length; i++) {
            c[2 * i] = HEX[(b[i] >> 4) & 0xf];
            c[2 * i + 1] = HEX[b[i] & 0xf];
        }
        return new String(c);
    }
}
