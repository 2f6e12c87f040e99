package jprewrite.agent;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The agent's options ({@code -javaagent:jprewrite-agent.jar=key=value,key=value}), see the table in
 * docs/agent.md. Parsing is strict: a mistyped key or value would otherwise silently produce a
 * profile measured differently from what was asked, so it ends the JVM before {@code main} runs.
 *
 * <p>The worker re-parses {@link #raw} itself (it needs the rewriting options), so the string is
 * kept exactly as given.
 */
final class AgentOptions {
    static final List<String> KEYS = Collections.unmodifiableList(Arrays.asList(
            "output", "collapsed", "includes", "excludes", "counting", "allocations", "weights",
            "activation", "cache", "python", "worker", "progress", "timeout", "verify",
            "mode", "interval", "sampler", "sample-threads", "sample-waiting", "append", "threads"));

    /** A bad option; the message is the "what is wrong" part of the one-line error. */
    static final class BadOption extends Exception {
        private static final long serialVersionUID = 1L;

        BadOption(String message) {
            super(message, null, false, false);
        }
    }

    /** The option string exactly as given to premain ("" when there was none). */
    final String raw;
    /** {@code jprewrite.output}: null when not given (the runtime's default applies). */
    String output;
    /** {@code jprewrite.collapsed}: null when not given. */
    String collapsed;
    List<String> includes = Collections.emptyList();
    List<String> excludes = Collections.emptyList();
    String counting = "default";
    boolean allocations;
    /** The weights file (checked readable), or null. */
    Path weights;
    boolean activation;
    /** The cache directory, or null for {@code cache=none}. */
    Path cache;
    /** Interpreter given with {@code python=}, or null (build.properties, then python3). */
    String python;
    /** Whole worker command given with {@code worker=}, or null. */
    List<String> worker;
    boolean progress = true;
    int timeoutSeconds = 120;
    /** The verification gate in the worker: true, false, or null (the worker's default). */
    Boolean verify;
    /** exact (the default), sample or hybrid. */
    String mode = "exact";
    /** The sampling interval as given ({@code 10ms}, {@code 100us}), or null for the runtime's default. */
    String interval;
    /** safepoint, partial or incremental, or null for the runtime's default. */
    String sampler;
    /** sample-threads as given, or null (available processors). */
    String sampleThreads;
    /** sample-waiting as given ({@code true}/{@code false}), or null (false). */
    String sampleWaiting;
    /** {@code jprewrite.append}: add to the existing profile (true/false), or null (false). */
    String append;
    /** {@code jprewrite.threads}: all, merged-only or none, or null (all). */
    String threads;

    private AgentOptions(String raw) {
        this.raw = raw;
    }

    /** The one line printed for a bad option (without trailing newline). */
    static String errorLine(String problem) {
        return Log.PREFIX + problem + " (known options: " + String.join(", ", KEYS) + ")";
    }

    /** The one-line error for a bad option string, or null when it is fine. */
    static String check(String args) {
        try {
            parse(args);
            return null;
        } catch (BadOption e) {
            return errorLine(e.getMessage());
        }
    }

    static AgentOptions parse(String args) throws BadOption {
        AgentOptions o = new AgentOptions(args == null ? "" : args);
        boolean cacheGiven = false;
        Set<String> seen = new HashSet<>();
        for (String piece : o.raw.split(",", -1)) {
            if (piece.isEmpty()) {
                continue; // "-javaagent:x.jar=" and stray commas mean nothing
            }
            int eq = piece.indexOf('=');
            if (eq < 0) {
                throw new BadOption(KEYS.contains(piece) ? "option '" + piece + "' needs a value (" + piece + "=...)"
                        : "unknown option '" + piece + "' (options are key=value pairs separated by ',')");
            }
            String key = piece.substring(0, eq);
            String value = piece.substring(eq + 1);
            if (!KEYS.contains(key)) {
                throw new BadOption("unknown option '" + key + "'");
            }
            if (!seen.add(key)) {
                throw new BadOption("option '" + key + "' is given twice");
            }
            switch (key) {
                case "output":
                    o.output = nonEmpty(key, value);
                    break;
                case "collapsed":
                    o.collapsed = nonEmpty(key, value);
                    break;
                case "includes":
                    o.includes = list(value);
                    break;
                case "excludes":
                    o.excludes = list(value);
                    break;
                case "counting":
                    if (!value.equals("none") && !value.equals("default") && !value.equals("precise")) {
                        throw new BadOption("counting must be none, default or precise, not '" + value + "'");
                    }
                    o.counting = value;
                    break;
                case "allocations":
                    o.allocations = bool(key, value);
                    break;
                case "activation":
                    o.activation = bool(key, value);
                    break;
                case "progress":
                    o.progress = bool(key, value);
                    break;
                case "verify":
                    o.verify = bool(key, value);
                    break;
                case "weights":
                    o.weights = readableFile(key, value);
                    break;
                case "cache":
                    cacheGiven = true;
                    o.cache = value.equals("none") ? null : path(key, nonEmpty(key, value)).toAbsolutePath();
                    break;
                case "python":
                    o.python = nonEmpty(key, value);
                    break;
                case "worker":
                    o.worker = words(key, value);
                    break;
                case "timeout":
                    o.timeoutSeconds = positive(key, value);
                    break;
                case "mode":
                    o.mode = oneOf(key, value, "exact", "sample", "hybrid");
                    break;
                case "interval":
                    if (intervalNanos(value) < 0) {
                        throw new BadOption("interval must be a time with a unit, ms or us, from 10us to 60000ms "
                                + "(e.g. 10ms, 0.5ms, 100us), not '" + value + "'");
                    }
                    o.interval = value;
                    break;
                case "sampler":
                    o.sampler = oneOf(key, value, "safepoint", "partial", "incremental");
                    break;
                case "sample-threads":
                    if (!value.matches("[0-9]{1,5}") || Integer.parseInt(value) < 1 || Integer.parseInt(value) > 4096) {
                        throw new BadOption("sample-threads must be a whole number from 1 to 4096, not '" + value + "'");
                    }
                    o.sampleThreads = value;
                    break;
                case "sample-waiting":
                    o.sampleWaiting = String.valueOf(bool(key, value));
                    break;
                case "append":
                    o.append = String.valueOf(bool(key, value));
                    break;
                case "threads":
                    o.threads = oneOf(key, value, "all", "merged-only", "none");
                    break;
                default:
                    throw new BadOption("unknown option '" + key + "'");
            }
        }
        if (!cacheGiven) {
            o.cache = defaultCache();
        }
        return o;
    }

    /**
     * Whether the agent needs to rewrite classes at all: sample mode with the safepoint sampler takes
     * stack traces of unchanged code, so no class is touched and no Python process starts.
     */
    boolean rewrites() {
        return !(mode.equals("sample") && "safepoint".equals(sampler));
    }

    /**
     * Nanoseconds of an interval ({@code <number>ms} or {@code <number>us}, fraction allowed), or -1
     * when malformed or outside 10us..60000ms; the same rule as the runtime's
     * ({@code jprewrite.runtime.SamplingConfig.parseInterval}) and the Python side's.
     */
    static long intervalNanos(String text) {
        long unit;
        if (text.endsWith("ms")) {
            unit = 1000000L;
        } else if (text.endsWith("us")) {
            unit = 1000L;
        } else {
            return -1;
        }
        String number = text.substring(0, text.length() - 2);
        if (!number.matches("[0-9]{1,12}(\\.[0-9]{1,9})?")) {
            return -1;
        }
        long ns = new java.math.BigDecimal(number).multiply(java.math.BigDecimal.valueOf(unit)).longValue();
        return ns < 10000L || ns > 60000000000L ? -1 : ns;
    }

    private static String oneOf(String key, String value, String... allowed) throws BadOption {
        for (String a : allowed) {
            if (a.equals(value)) {
                return value;
            }
        }
        throw new BadOption(key + " must be " + String.join(", ", Arrays.copyOf(allowed, allowed.length - 1))
                + " or " + allowed[allowed.length - 1] + ", not '" + value + "'");
    }

    /** {@code $XDG_CACHE_HOME/jprewrite/agent} (if absolute), else {@code ~/.cache/jprewrite/agent}. */
    static Path defaultCache() {
        try {
            String xdg = System.getenv("XDG_CACHE_HOME");
            if (xdg != null && !xdg.isEmpty()) {
                Path p = Paths.get(xdg);
                if (p.isAbsolute()) {
                    return p.resolve("jprewrite").resolve("agent");
                }
            }
            String home = System.getProperty("user.home");
            if (home == null || home.isEmpty() || home.equals("?")) {
                return null;
            }
            return Paths.get(home, ".cache", "jprewrite", "agent");
        } catch (Throwable e) {
            return null;
        }
    }

    /**
     * Whether a class (internal name, with '/') passes {@code includes} and {@code excludes}, which
     * are globs over binary names (with '.').
     */
    boolean accepts(String internalName) {
        if (includes.isEmpty() && excludes.isEmpty()) {
            return true;
        }
        String name = internalName.replace('/', '.');
        if (!includes.isEmpty()) {
            boolean included = false;
            for (String glob : includes) {
                if (glob(glob, name)) {
                    included = true;
                    break;
                }
            }
            if (!included) {
                return false;
            }
        }
        for (String glob : excludes) {
            if (glob(glob, name)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Python's {@code fnmatch.fnmatchcase} without character classes: {@code *} matches any run of
     * characters (dots included), {@code ?} exactly one, everything else itself. Greedy matching
     * with a single backtrack point, linear in practice.
     */
    static boolean glob(String pattern, String s) {
        int p = 0;
        int i = 0;
        int star = -1;
        int mark = 0;
        while (i < s.length()) {
            if (p < pattern.length() && (pattern.charAt(p) == '?' || pattern.charAt(p) == s.charAt(i))
                    && pattern.charAt(p) != '*') {
                p++;
                i++;
            } else if (p < pattern.length() && pattern.charAt(p) == '*') {
                star = p++;
                mark = i;
            } else if (star >= 0) {
                p = star + 1;
                i = ++mark;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }

    private static String nonEmpty(String key, String value) throws BadOption {
        if (value.isEmpty()) {
            throw new BadOption("option '" + key + "' needs a value");
        }
        return value;
    }

    private static List<String> list(String value) {
        List<String> items = new ArrayList<>();
        for (String item : value.split(":")) {
            if (!item.isEmpty()) {
                items.add(item);
            }
        }
        return Collections.unmodifiableList(items);
    }

    private static List<String> words(String key, String value) throws BadOption {
        List<String> items = new ArrayList<>();
        for (String item : value.split(" ")) {
            if (!item.isEmpty()) {
                items.add(item);
            }
        }
        if (items.isEmpty()) {
            throw new BadOption("option '" + key + "' needs a command");
        }
        return Collections.unmodifiableList(items);
    }

    private static boolean bool(String key, String value) throws BadOption {
        if (value.equals("true")) {
            return true;
        }
        if (value.equals("false")) {
            return false;
        }
        throw new BadOption(key + " must be true or false, not '" + value + "'");
    }

    private static int positive(String key, String value) throws BadOption {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadOption(key + " must be a positive whole number of seconds, not '" + value + "'");
    }

    private static Path path(String key, String value) throws BadOption {
        try {
            return Paths.get(value);
        } catch (InvalidPathException e) {
            throw new BadOption(key + ": '" + value + "' is not a valid path");
        }
    }

    private static Path readableFile(String key, String value) throws BadOption {
        Path p = path(key, nonEmpty(key, value));
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            throw new BadOption(key + ": '" + value + "' is not a readable file");
        }
        return p.toAbsolutePath();
    }
}
