package jprewrite.runtime;

/**
 * The sampling settings: system properties {@code jprewrite.mode}, {@code jprewrite.interval},
 * {@code jprewrite.sampler}, {@code jprewrite.sample-threads} and {@code jprewrite.sample-waiting},
 * and the tuning ones {@code jprewrite.sample-grace} and {@code jprewrite.trace-interval}.
 * The agent sets them from its options (it has checked them already); users of offline-rewritten
 * jars give them with {@code -D}. A bad value would silently measure something other than what was
 * asked, so it is one line on stderr and exit status 2 ({@link Sampling}).
 */
final class SamplingConfig {
    static final int EXACT = 0;
    static final int SAMPLE = 1;
    static final int HYBRID = 2;
    static final String[] MODES = {"exact", "sample", "hybrid"};

    static final int SAFEPOINT = 0;
    static final int PARTIAL = 1;
    static final int INCREMENTAL = 2;
    static final String[] SAMPLERS = {"safepoint", "partial", "incremental"};

    static final long DEFAULT_INTERVAL_NS = 10000000L;
    /** Shorter intervals than this would keep the sampler thread busy all the time. */
    static final long MIN_INTERVAL_NS = 10000L;
    static final long MAX_INTERVAL_NS = 60000000000L;
    static final int MAX_THREADS = 4096;

    /** One of {@link #MODES}' indexes, or -1 when {@code jprewrite.mode} is not given. */
    final int mode;
    final long intervalNs;
    final int sampler;
    final int threads;
    final boolean waiting;
    /**
     * How long a round of the ticket samplers waits for its tickets to be taken before it counts the
     * rest lost ({@code jprewrite.sample-grace}; default {@link #defaultGrace}): the longest a thread
     * that sampled itself keeps passing the yieldpoints' per-thread check, and a bound on latency.
     */
    final long graceNs;
    /**
     * How often, on average, the ticket samplers may stop every thread to take the stack trace of a
     * thread inside the JDK's code ({@code jprewrite.trace-interval}, default
     * {@link #DEFAULT_TRACE_INTERVAL_NS}; see {@link #traceEvery}).
     */
    final long traceIntervalNs;

    /**
     * JFR samples threads in native code every 20 ms by default and Java code every 10-20 ms: a
     * safepoint every 10 ms at most costs a program about what JFR's sampling does.
     */
    static final long DEFAULT_TRACE_INTERVAL_NS = 10000000L;

    private SamplingConfig(int mode, long intervalNs, int sampler, int threads, boolean waiting, long graceNs,
            long traceIntervalNs) {
        this.mode = mode;
        this.intervalNs = intervalNs;
        this.sampler = sampler;
        this.threads = threads;
        this.waiting = waiting;
        this.graceNs = graceNs;
        this.traceIntervalNs = traceIntervalNs;
    }

    /**
     * One round in how many may take stack traces of threads in the JDK's code, each then counting
     * for that many samples: the trace interval over the sampling interval, rounded, at least 1
     * (every round at the default 10 ms; one round in ten at 1 ms). {@code Thread.getStackTrace()}
     * of another thread is a global safepoint on JDK 17, exactly the pause partial safepoints exist to
     * avoid: at 1 ms a thread that spends its time in JDK calls would stop every other thread every
     * millisecond, as the safepoint sampler does, and each such round waits for the safepoint (batik at
     * 1 ms: latency p97.5 4.4 ms). Drawn at random per round, the weighted traces count each tick in
     * a JDK call once on average, as before, at a tenth of the pauses.
     */
    int traceEvery() {
        return (int) Math.max(1L, Math.min(1000000L, (traceIntervalNs + intervalNs / 2) / intervalNs));
    }

    /**
     * 50 µs (timer slack makes shorter waits meaningless), never more than half the interval: a running
     * thread reaches a yieldpoint within microseconds, so a ticket still untaken after that belongs to
     * a thread that is not running (descheduled, in native code, in a long JDK call), which has no CPU
     * time to attribute, while the threads that did sample themselves pay a call at every yieldpoint
     * until the round ends. (It was a twentieth of the interval, up to 500 µs: at 10 ms on sunflow,
     * whose second thread was often descheduled, 7,000-12,000 such calls a round instead of about 70,
     * and 8 % more CPU.)
     */
    static long defaultGrace(long intervalNs) {
        return Math.min(50000L, intervalNs / 2);
    }

    /** A bad setting; the message is the whole line (without the "jprewrite: " prefix). */
    static final class Bad extends Exception {
        private static final long serialVersionUID = 1L;

        Bad(String message) {
            super(message, null, false, false);
        }
    }

    /** The settings of this JVM's system properties. */
    static SamplingConfig fromProperties() throws Bad {
        int mode = -1;
        String m = Config.property("jprewrite.mode");
        if (m != null) {
            mode = index(MODES, m);
            if (mode < 0) {
                throw bad("jprewrite.mode", m, "must be exact, sample or hybrid");
            }
        }
        long interval = DEFAULT_INTERVAL_NS;
        String i = Config.property("jprewrite.interval");
        if (i != null) {
            interval = parseInterval(i);
            if (interval < 0) {
                throw bad("jprewrite.interval", i, "must be a time with a unit, ms or us, from 10us to 60000ms (e.g. 10ms, 0.5ms, 100us)");
            }
        }
        int sampler = INCREMENTAL;
        String s = Config.property("jprewrite.sampler");
        if (s != null) {
            sampler = index(SAMPLERS, s);
            if (sampler < 0) {
                throw bad("jprewrite.sampler", s, "must be safepoint, partial or incremental");
            }
        }
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        String t = Config.property("jprewrite.sample-threads");
        if (t != null) {
            threads = parseThreads(t);
            if (threads < 0) {
                throw bad("jprewrite.sample-threads", t, "must be a whole number from 1 to " + MAX_THREADS);
            }
        }
        boolean waiting = false;
        String w = Config.property("jprewrite.sample-waiting");
        if (w != null) {
            if (!w.equals("true") && !w.equals("false")) {
                throw bad("jprewrite.sample-waiting", w, "must be true or false");
            }
            waiting = w.equals("true");
        }
        long grace = defaultGrace(interval);
        String g = Config.property("jprewrite.sample-grace");
        if (g != null) {
            grace = parseInterval(g);
            if (grace < 0 || grace > interval) {
                throw bad("jprewrite.sample-grace", g, "must be a time with a unit, ms or us, from 10us to the interval");
            }
        }
        long traces = DEFAULT_TRACE_INTERVAL_NS;
        String ti = Config.property("jprewrite.trace-interval");
        if (ti != null) {
            traces = parseInterval(ti);
            if (traces < 0) {
                throw bad("jprewrite.trace-interval", ti, "must be a time with a unit, ms or us, from 10us to 60000ms (e.g. 10ms)");
            }
        }
        return new SamplingConfig(mode, interval, sampler, threads, waiting, grace, traces);
    }

    private static Bad bad(String key, String value, String why) {
        return new Bad("bad -D" + key + "=" + value + ": " + why);
    }

    private static int index(String[] names, String value) {
        for (int k = 0; k < names.length; k++) {
            if (names[k].equals(value)) {
                return k;
            }
        }
        return -1;
    }

    /**
     * Nanoseconds of {@code <number><unit>} (unit {@code ms} or {@code us}; the number may have a
     * fraction: {@code 0.5ms}), or -1 when malformed or outside 10us..60000ms. The agent's option
     * parser and the Python side accept exactly the same strings.
     */
    static long parseInterval(String text) {
        String v = text;
        long unit;
        if (v.endsWith("ms")) {
            unit = 1000000L;
        } else if (v.endsWith("us")) {
            unit = 1000L;
        } else {
            return -1;
        }
        String number = v.substring(0, v.length() - 2);
        if (number.isEmpty() || !number.matches("[0-9]{1,12}(\\.[0-9]{1,9})?")) {
            return -1;
        }
        long ns;
        try {
            ns = new java.math.BigDecimal(number).multiply(java.math.BigDecimal.valueOf(unit)).longValue();
        } catch (ArithmeticException | NumberFormatException e) {
            return -1;
        }
        return ns < MIN_INTERVAL_NS || ns > MAX_INTERVAL_NS ? -1 : ns;
    }

    static int parseThreads(String text) {
        if (!text.matches("[0-9]{1,5}")) {
            return -1;
        }
        int n = Integer.parseInt(text);
        return n < 1 || n > MAX_THREADS ? -1 : n;
    }
}
