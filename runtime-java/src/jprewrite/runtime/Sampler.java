package jprewrite.runtime;

import java.util.ArrayList;
import java.util.Map;
import java.util.Random;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The sampler thread and its rounds (Hofer, Gnedt, Mössenböck §2–5).
 *
 * <ul>
 * <li>{@code safepoint}: every interval, {@code Thread.getAllStackTraces()} (a global safepoint, the
 * JVMTI baseline), merged into the sampled trees.</li>
 * <li>{@code partial} and {@code incremental}: every interval a round issues tickets (at most
 * {@code sample-threads}, at most the runnable threads that can reach a yieldpoint) and sets
 * {@link Sampling#requested}; the first threads to reach a yieldpoint take a ticket and sample
 * themselves (no other thread pauses); the last ticket clears the field. A round whose tickets are
 * not all taken within its grace period (a twentieth of the interval, 50 to 500 µs) ends there and
 * counts the rest as lost: a thread in a long native call, running code without yieldpoints, or
 * runnable but not running (descheduled), never hangs the sampler, and the threads that did sample
 * themselves pass their yieldpoints through the cheap per-thread check of {@link Sampling} only for
 * that long. With {@code sample-waiting},
 * the samples are split between runnable and blocked/waiting threads in proportion to their numbers
 * (§3.1), and the sampler thread takes the waiting ones itself while the others run to a yieldpoint.
 * When the grace period is over and tickets are left, the sampler thread takes a stack trace of each
 * runnable thread that ran meanwhile without reaching a yieldpoint, if that thread is in the JDK's
 * code ({@link #settle}): a thread inside a long JDK call (sorting, a regular expression, class
 * loading) cannot sample itself, and without this its time would be missing from the profile.</li>
 * </ul>
 *
 * <p>Only application threads are sampled: not the JDK's own (the {@code system} thread group), not
 * jprewrite's ({@code jprewrite-*}).
 */
final class Sampler implements Runnable {
    /** The running sampler, or null (exact mode, or before start). Read by the profile writer. */
    static volatile Sampler active;

    final SamplingConfig cfg;
    /** SAMPLE or HYBRID: where samples go (sampled trees, or the exact tree's nodes). */
    volatile int mode;
    final SamplingStats stats = new SamplingStats();
    private final Thread thread;
    private volatile boolean stopped;
    /** The open round of the ticket samplers, or null: what {@link Sampling}'s yieldpoints read. */
    static volatile Round open;
    /** How long a round waits for its tickets to be taken (see {@link SamplingConfig#graceNs}). */
    private final long graceNs;
    /** One round in how many takes stack traces of threads in the JDK's code ({@link SamplingConfig#traceEvery}). */
    private final int traceEvery;
    /** Ticks of the ticket samplers so far (the id of the latest round). */
    private int roundIds;
    private final Random random = new Random(12345);
    /** Per application thread, what the sampler knows of it (sampler thread only). */
    private final WeakHashMap<Thread, Info> infos = new WeakHashMap<Thread, Info>();
    private Thread[] scratch = new Thread[64];
    /** The application threads of the last enumeration (sampler thread only). */
    private final ArrayList<Thread> apps = new ArrayList<Thread>();
    private long enumerated;
    private boolean listed;
    /** Other threads' CPU time, or null (no {@code java.management}): see {@link #settle}. */
    private final ThreadCpu cpu = ThreadCpu.create();
    /** Per runnable thread of the open round, its CPU time when the round was opened (-1: unknown). */
    private long[] cpuAtOpen = new long[16];
    /** Ticks scheduled up to this time were counted by a stack trace of {@link #settle}: not run. */
    private long creditedUntil = Long.MIN_VALUE;
    /** Threads are listed again at most this often: their states are read every round. */
    private static final long ENUMERATE_NS = 10000000L;

    /** One round of tickets. */
    static final class Round {
        final int id;
        final int issued;
        final long start;
        final AtomicInteger tickets;
        final AtomicInteger done = new AtomicInteger();
        final AtomicLong lastEnd = new AtomicLong(-1);
        /**
         * The threads that took a ticket, in the order they took them (plain stores: a thread reads
         * only its own entry back, which program order makes visible to it; other threads see null or
         * another thread, never themselves).
         */
        final Thread[] takers;
        /** When the grace period is over (a {@link System#nanoTime()} value). */
        final long expires;
        /**
         * Per taker (every 16th int: one cache line each), its passes through the per-thread check
         * while the round stays open: every 256th looks at the clock (see {@link #lingering()}).
         */
        private final int[] passes;
        /** When {@link Sampling#requested} was cleared for this round (0: not yet). */
        final AtomicLong disarmed = new AtomicLong();
        /** When the round was due (its tick: {@link #start} is a little later). */
        long tick;
        /** Samples beyond one of the stack traces of {@link #settle} that counted for later ticks (sampler thread only). */
        int extra;

        Round(int id, int issued, long start, long grace) {
            this.id = id;
            this.issued = issued;
            this.start = start;
            this.tickets = new AtomicInteger(issued);
            this.takers = new Thread[issued];
            this.expires = start + grace;
            this.passes = new int[issued << 4];
        }

        /** Whether {@code t} took a ticket in this round: the check every yieldpoint makes while it is open. */
        boolean took(Thread t) {
            Thread[] k = takers;
            for (int i = 0; i < k.length; i++) {
                if (k[i] == t) {
                    if ((++passes[i << 4] & 255) == 0) {
                        lingering();
                    }
                    return true;
                }
            }
            return false;
        }

        /**
         * A thread that sampled itself keeps passing yieldpoints while the round waits for others: once
         * the grace period is over it ends the round itself. The sampler thread would, but on a busy
         * machine it may not be scheduled for milliseconds, and until {@link Sampling#requested} is
         * cleared every yieldpoint of every thread takes the slower path. The tickets left are
         * counted lost by the sampler thread when it wakes.
         */
        private void lingering() {
            if (System.nanoTime() - expires > 0) {
                disarm();
            }
        }

        /** Clear {@link Sampling#requested} if this round is the open one, noting when (the first time). */
        void disarm() {
            if (open == this) {
                Sampling.requested = 0;
                disarmed.compareAndSet(0, System.nanoTime());
            }
        }

        /** A sample of this round ended at {@code end} ({@link System#nanoTime()}): the round's latency reaches it. */
        void finished(long end) {
            long last;
            while ((last = lastEnd.get()) < end && !lastEnd.compareAndSet(last, end)) {
                // retry: another sample of the round finished at the same time
            }
            done.incrementAndGet();
        }

        /** The passes of the takers through the per-thread check (read once the round is closed). */
        long passes() {
            long n = 0;
            for (int i = 0; i < passes.length; i += 16) {
                n += passes[i];
            }
            return n;
        }
    }

    /** What the sampler knows of one application thread. */
    private static final class Info {
        SampleState state;
        /** The round in which it was last found unable to reach a yieldpoint (0: it can). */
        int quietSince;
        /** While quiet, the round from which it is counted again (a probe). */
        int retryAt;
        /** Rounds until the next probe: doubles with every probe it misses, up to {@link #MAX_BACKOFF}. */
        int backoff = 1;
        /** The round in which the sampler first listed it. */
        int listedAt;
        /** The last round in which a stack trace found it running outside the JDK's Java code ({@link #settle}). */
        int stuckRound;
    }

    /** A thread stuck in native code costs at most one lost sample per this many rounds. */
    static final int MAX_BACKOFF = 64;

    private Sampler(SamplingConfig cfg, int mode) {
        this.cfg = cfg;
        this.mode = mode;
        this.graceNs = cfg.graceNs;
        this.traceEvery = cfg.traceEvery();
        this.thread = new Thread(this, "jprewrite-sampler");
    }

    /** Start the sampler of this configuration (once). */
    static synchronized void start(SamplingConfig cfg, int mode) {
        if (active != null) {
            return;
        }
        Sampler s = new Sampler(cfg, mode);
        s.thread.setDaemon(true);
        s.thread.setPriority(Thread.MAX_PRIORITY);
        s.thread.setContextClassLoader(null);
        active = s;
        Registry.start();
        s.thread.start();
    }

    /** The profile's {@code "sampling"} object, or null when no sampler ran. */
    static String report() {
        Sampler s = active;
        if (s == null) {
            return null;
        }
        if (s.thread.isAlive()) {
            s.stats.samplerCpuNs = s.cpuTime();
        }
        return s.stats.json(s.cfg, s.mode);
    }

    /**
     * The sampler thread's CPU time so far (ns), or -1 where the JVM cannot tell (no
     * {@code java.management} module): the part of sampling's cost that no sampled thread pays.
     */
    private long cpuTime() {
        return cpu == null ? -1 : cpu.of(thread);
    }

    /**
     * Stop issuing rounds (the profile is being written at exit), and let the open round finish, so
     * that the counts agree with the trees: at most an interval and a little.
     */
    static void stop() {
        Sampler s = active;
        if (s == null) {
            return;
        }
        s.stopped = true;
        Sampling.requested = 0;
        open = null;
        LockSupport.unpark(s.thread);
        try {
            s.thread.join(s.cfg.intervalNs / 1000000L + 200L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ the sampling thread's side

    /**
     * {@link #pass}'s {@code kind}: sample mode, hybrid mode, hybrid mode inferred from the code, and
     * sample mode at a method's entry (the sample is the caller's stack).
     */
    static final int SELF = 0;
    static final int NODE = 1;
    static final int NODE_INFERRED = 2;
    static final int SELF_CALLER = 3;

    /**
     * Every yieldpoint taken ({@link Sampling#requested} set) comes here: if a round is open and this
     * thread has not sampled itself in it, take a ticket if one is left and sample itself (the node in
     * hybrid mode, its own stack in sample mode).
     *
     * <p>One method, and more than 325 bytes of bytecode on purpose ({@code tests/test_sampling.py}
     * checks): C2 inlines a hot callee up to {@code FreqInlineSize} (325 bytes), and once rounds have
     * made a yieldpoint's branch hot, an inlinable slow path would be copied into every yieldpoint of
     * every compiled method. That made C2 compile several times longer, its queue backed up, and
     * methods ran for seconds in profiled C1 code: sunflow's threads took 60 % more CPU, with only a few
     * hundred samples taken. Kept out of line, a taken yieldpoint is one call in compiled code.
     */
    static void pass(Node node, int kind) {
        Round rd = open;
        Thread me = Thread.currentThread();
        if (rd == null || rd.took(me)) {
            return;   // between rounds, or sampled in this one already: nothing is cleared globally
        }
        Sampler s = active;
        ThreadRoot r;
        if (kind == SELF || kind == SELF_CALLER) {
            if (s == null) {
                return;
            }
            r = ThreadRoot.current();   // marks the thread seen even when no ticket is left
        } else {
            if (s == null || node == null) {
                return;
            }
            if (kind == NODE_INFERRED && s.mode != SamplingConfig.HYBRID) {
                s.mode = SamplingConfig.HYBRID;
            }
            r = node.root;
        }
        SampleState st = r.sampleState;
        if (st == null) {
            st = s.newState(r);
        }
        st.slowCalls++;
        if (st.seenRound != rd.id) {
            st.seenRound = rd.id;
        }
        if (st.takenRound == rd.id || rd.tickets.get() <= 0) {
            return;
        }
        if (System.nanoTime() - rd.expires > 0) {
            rd.disarm();   // too late: the round is over (its sampler thread has not woken yet)
            return;
        }
        int left = rd.tickets.decrementAndGet();
        if (left < 0) {
            return;
        }
        st.takenRound = rd.id;
        rd.takers[rd.issued - 1 - left] = me;
        if (left == 0) {
            rd.disarm();   // the last ticket: no more threads need to stop
        }
        long t0 = System.nanoTime();
        try {
            if (node != null) {
                st.recordNode(node);
            } else if (Frames.canWalk()) {
                st.walkAndRecord(s.cfg.sampler == SamplingConfig.INCREMENTAL, kind == SELF_CALLER ? 1 : 0);
            } else {
                st.recordTrace(new Throwable().getStackTrace(), null, kind == SELF_CALLER ? 1 : 0, 1);
            }
        } catch (Throwable e) {
            Log.once("sampling.self", "a thread could not sample itself", e);
        }
        long end = System.nanoTime();
        s.stats.cost(end - t0);
        rd.finished(end);
    }

    private SampleState newState(ThreadRoot r) {
        synchronized (r) {
            SampleState st = r.sampleState;
            if (st == null) {
                st = new SampleState(r, stats);
                r.sampleState = st;
                stats.add(st);
            }
            return st;
        }
    }

    // ------------------------------------------------------------------ the sampler thread

    @Override
    public void run() {
        Warm warm = warmer();
        long interval = cfg.intervalNs;
        long next = System.nanoTime() + interval;
        while (!stopped) {
            long now = System.nanoTime();
            while (now < next && !stopped) {
                LockSupport.parkNanos(next - now);
                now = System.nanoTime();
            }
            if (stopped) {
                break;
            }
            try {
                if (cfg.sampler == SamplingConfig.SAFEPOINT) {
                    safepointRound();
                } else {
                    ticketRound(next);
                }
                if (warm != null && !warm.walk(System.nanoTime() + interval / 4)) {
                    warm = null;
                }
            } catch (Throwable e) {
                Log.once("sampling.round", "a sampling round failed", e);
            }
            next += jittered(interval);
            now = System.nanoTime();
            if (cfg.sampler == SamplingConfig.SAFEPOINT) {
                if (next < now) {
                    next = now + interval / 2;   // fell behind: no burst of rounds to catch up
                }
                continue;
            }
            if (next <= creditedUntil) {
                next = creditedUntil + interval;   // ticks a stack trace of this round counted for (settle)
            }
            if (now - next >= interval) {
                // fell behind by whole ticks (this thread was not scheduled): skipped, the schedule's
                // phase kept; a tick late by less than an interval runs at once
                long missed = (now - next) / interval;
                next += missed * interval;
                stats.missedTicks(missed);
            }
        }
        try {
            closeRound();
        } catch (Throwable e) {
            Log.once("sampling.round", "a sampling round failed", e);
        }
        open = null;
        Sampling.requested = 0;
        stats.samplerCpuNs = cpuTime();   // now: once this thread has ended the JVM no longer tells
    }

    /**
     * The time to the next tick: the interval on average, drawn uniformly from half an interval to one
     * and a half. Ticks at a fixed rate alias with a program that repeats itself at a related period: a
     * loop of about 12 ms of sorting and 13 ms of arithmetic, sampled every 10 ms, met only a few
     * phases of its cycle, and three runs each gave the sort 56.7 / 56.9 / 60.3 % of the samples
     * against 44.6-46.1 % of the time (sample mode; hybrid 33.9-35.2 % against 39.5-39.8 %). With
     * these ticks: 47.1 / 44.1 / 46.6 % against 45.1-46.7 % (hybrid 40.0-40.8 % against 40.7-41.4 %).
     */
    private long jittered(long interval) {
        return interval / 2 + (long) (random.nextDouble() * interval);
    }

    /**
     * Self-samples of this thread's own stack, into a tree nobody reads, in the first rounds (sample
     * mode's ticket samplers, intervals of 2 ms and more): until the JIT has compiled the walk
     * ({@code StackWalker}'s stream, the decoding of frames, the tree lookups), an interpreted
     * self-sample takes milliseconds, not tens of microseconds. At 10 ms a run of a few seconds takes
     * only a few hundred samples, and its first few dozen, interpreted, were the tail of the latency
     * (p97.5 1-3 ms). At shorter intervals the threads' own samples warm it up soon enough.
     */
    static final int WARM_UP_WALKS = 400;

    private Warm warmer() {
        if (cfg.sampler == SamplingConfig.SAFEPOINT || mode != SamplingConfig.SAMPLE || !Frames.canWalk()
                || cfg.intervalNs < 2000000L) {
            return null;
        }
        return new Warm(new SampleState(new ThreadRoot(thread), new SamplingStats()), cfg.sampler);
    }

    /**
     * The warm-up walks, a share of each interval at a time (rounds start at once), taken in a
     * callback of a JDK method so that the walk records the frames beneath it (a walk leaves out the
     * runtime's own frames above the first other one), at changing depths (frames are decoded, and
     * shared).
     */
    private static final class Warm implements java.util.function.Consumer<Object> {
        final SampleState state;
        final boolean incremental;
        final java.util.List<Object> one = java.util.Collections.singletonList(null);
        int done;

        Warm(SampleState state, int sampler) {
            this.state = state;
            this.incremental = sampler == SamplingConfig.INCREMENTAL;
        }

        /** Walk until {@code deadline} ({@link System#nanoTime()}); false once all are done (or failed). */
        boolean walk(long deadline) {
            try {
                while (done < WARM_UP_WALKS && System.nanoTime() < deadline) {
                    down(4 + (done % 24));
                    done++;
                }
                return done < WARM_UP_WALKS;
            } catch (Throwable e) {
                Log.once("sampling.warm", "the sampler's warm-up failed", e);
                return false;
            }
        }

        private void down(int d) {
            if (d > 0) {
                down(d - 1);
                return;
            }
            one.forEach(this);
        }

        @Override
        public void accept(Object unused) {
            try {
                state.walkAndRecord(incremental, 0);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** The JVMTI-style baseline: every thread's stack in one global safepoint. */
    private void safepointRound() {
        long t0 = System.nanoTime();
        Map<Thread, StackTraceElement[]> all = Thread.getAllStackTraces();
        long latency = System.nanoTime() - t0;
        int taken = 0;
        int waiting = 0;
        int considered = 0;
        for (Map.Entry<Thread, StackTraceElement[]> e : all.entrySet()) {
            Thread t = e.getKey();
            StackTraceElement[] trace = e.getValue();
            if (!isApplication(t) || trace.length == 0) {
                continue;
            }
            considered++;
            Thread.State s = t.getState();
            boolean runnable = s == Thread.State.RUNNABLE;
            if (!runnable && !cfg.waiting) {
                continue;
            }
            if (recordOther(t, trace) != null) {
                taken++;
                if (!runnable) {
                    waiting++;
                }
            }
        }
        stats.cost(latency);
        stats.round(taken, 0, waiting, considered, taken > 0 ? latency : -1);
    }

    /** The round opened at the last tick, closed at the next one (sampler thread only). */
    private static final class Pending {
        final Round rd;
        final ArrayList<Thread> runnable;
        final int tickets;
        final int waitingTaken;
        final int waitingLost;
        final long lastWaiting;
        final long start;
        final int considered;

        Pending(Round rd, ArrayList<Thread> runnable, int tickets, int waitingTaken, int waitingLost,
                long lastWaiting, long start, int considered) {
            this.rd = rd;
            this.runnable = runnable;
            this.tickets = tickets;
            this.waitingTaken = waitingTaken;
            this.waitingLost = waitingLost;
            this.lastWaiting = lastWaiting;
            this.start = start;
            this.considered = considered;
        }
    }

    private Pending pending;

    /**
     * One tick of the ticket samplers ({@code tick}: when it was due): close the round of the previous
     * tick, then open the next one (runnable threads sample themselves, the sampler takes waiting ones),
     * then park until its grace period is over and take the threads that ran without reaching a
     * yieldpoint ({@link #settle}). The grace period is enforced by the threads themselves
     * ({@link #pass}, {@link Round#took}): a sampler thread that wakes late changes no round's length.
     */
    private void ticketRound(long tick) {
        closeRound();
        ArrayList<Thread> runnable = new ArrayList<Thread>();
        ArrayList<Thread> waiting = new ArrayList<Thread>();
        classify(runnable, waiting);
        int n = cfg.threads;
        int w = 0;
        if (cfg.waiting && !waiting.isEmpty()) {
            // §3.1: in proportion to their numbers; with two samples or more, each side that has
            // threads gets at least one (else one busy thread among many idle ones is never sampled)
            int all = runnable.size() + waiting.size();
            w = runnable.isEmpty() ? n : (int) Math.round(n * (double) waiting.size() / all);
            if (n >= 2 && !runnable.isEmpty()) {
                w = Math.max(1, Math.min(w, n - 1));
            }
            w = Math.min(w, waiting.size());
        }
        int tickets = Math.min(n - w, runnable.size());
        if (tickets > 0) {
            readCpu(runnable);
        }
        long t0 = System.nanoTime();
        Round rd = null;
        int id = ++roundIds;   // every tick, tickets or not: quiet threads' probes count ticks
        if (tickets > 0) {
            rd = new Round(id, tickets, t0, graceNs);
            rd.tick = Math.min(tick, t0);
            open = rd;
            Sampling.requested = 1;
        }
        int waitingTaken = 0;
        long lastWaiting = -1;
        for (int i = 0; i < w; i++) {
            int pick = i + random.nextInt(waiting.size() - i);   // a random one not yet chosen
            Thread t = waiting.get(pick);
            waiting.set(pick, waiting.get(i));
            long s0 = System.nanoTime();
            StackTraceElement[] trace = t.getStackTrace();
            stats.stackTrace();
            if (trace.length > 0 && recordOther(t, trace) != null) {
                waitingTaken++;
                lastWaiting = System.nanoTime();
                stats.cost(lastWaiting - s0);
            }
        }
        pending = new Pending(rd, runnable, tickets, waitingTaken, w - waitingTaken, lastWaiting, t0,
                runnable.size() + waiting.size());
        if (rd != null) {
            settle(rd, runnable);
        }
    }

    /** Note each runnable thread's CPU time before the round is opened (for {@link #settle}). */
    private void readCpu(ArrayList<Thread> runnable) {
        int n = runnable.size();
        if (cpuAtOpen.length < n) {
            cpuAtOpen = new long[Math.max(n, cpuAtOpen.length * 2)];
        }
        for (int i = 0; i < n; i++) {
            cpuAtOpen[i] = cpu == null ? -1 : cpu.of(runnable.get(i));
        }
    }

    /**
     * Wait out the round's grace period; if tickets are left, they belong to runnable threads that
     * did not reach a yieldpoint in time. One that ran meanwhile (its CPU time moved by all the time since
     * the request but the grace period: the chance a thread in rewritten code has to run to a yieldpoint
     * within it, no better) was executing code without yieldpoints: if its innermost frame is the JDK's, it
     * is inside a JDK call (a sort, a regular expression, class loading) that may take milliseconds,
     * and the sampler takes its stack trace ({@code Thread.getStackTrace()}: a safepoint, the price of
     * a thread that cannot sample itself). Its time then goes where JFR puts it, under the application
     * frame that made the call; without this, time in long JDK calls was missing from the profile
     * altogether (a loop of half sorting and half arithmetic gave the sorting no sample at all).
     *
     * <p>Not taken: threads that reached a yieldpoint in the round (they run rewritten code), threads
     * whose CPU time did not move (descheduled, or blocked in a system call: no time to attribute),
     * threads whose innermost frame is application code (descheduled there: a stack trace would carry
     * the safepoint bias that self-sampling avoids), threads in native code unless
     * {@code sample-waiting} (§3.1 counts them as waiting), and any thread when this thread wakes
     * more than half an interval after another thread ended the round (a thread not seen at a
     * yieldpoint since then may have left the JDK's code and come back: its stack would say little of
     * the request's moment).
     */
    private void settle(Round rd, ArrayList<Thread> runnable) {
        if (traceEvery > 1 && random.nextInt(traceEvery) != 0) {
            return;   // not a round for stack traces (SamplingConfig.traceEvery): no safepoint, no wake-up
        }
        long now;
        while ((now = System.nanoTime()) - rd.expires < 0) {
            if (rd.tickets.get() <= 0 || stopped) {
                return;
            }
            LockSupport.parkNanos(rd.expires - now);
        }
        if (rd.tickets.get() <= 0 || open != rd) {
            return;
        }
        // While requested is set, a thread that reaches a yieldpoint marks itself seen (even after the
        // grace period): one not seen has run no rewritten code since the request, however late this
        // thread woke. Once another thread has cleared it, that is known only up to then.
        long off = rd.disarmed.get();
        if (off != 0 && now - off > cfg.intervalNs / 2) {
            return;
        }
        // requested stays set: the first thread to pass a yieldpoint now clears it and is marked seen (a
        // runnable thread merely descheduled through the grace period must not count as quiet)
        int n = runnable.size();
        int from = random.nextInt(n);
        for (int k = 0; k < n && rd.tickets.get() > 0; k++) {
            int i = (from + k) % n;
            Thread t = runnable.get(i);
            if (tookTicket(rd, t) || reachedYieldpoint(t, rd.id)) {
                continue;
            }
            if (cpu != null) {
                // ran through the grace period, as a thread in rewritten code must to take its ticket:
                // off the CPU for no longer than the grace in all (this thread wakes later than that)
                long before = cpuAtOpen[i];
                long after = cpu.of(t);
                if (before < 0 || after - before < System.nanoTime() - rd.start - graceNs) {
                    continue;
                }
            }
            if (t.getState() != Thread.State.RUNNABLE) {
                continue;
            }
            if (!cfg.waiting && cpu != null && cpu.inNative(t)) {
                continue;   // running native code (no trace: known without a safepoint), and not quiet
            }
            long s0 = System.nanoTime();
            StackTraceElement[] trace = t.getStackTrace();
            stats.stackTrace();
            if (!inJdkCode(trace)) {
                Info inf = infos.get(t);
                if (inf != null && !(trace.length > 0 && trace[0].isNativeMethod())) {
                    inf.stuckRound = rd.id;   // application code without yieldpoints
                }
                continue;
            }
            if (rd.tickets.decrementAndGet() < 0) {
                continue;
            }
            long end = System.nanoTime();
            int ticks = ticksCovered(rd, t, end, cpuAtOpen[i]);
            // this round's tick counts traceEvery times (rounds without traces count it 0 times); the
            // later ticks the trace stands for were not run, and count once each
            int weight = traceEvery + ticks - 1;
            SampleState st = recordOther(t, trace, weight);
            if (st == null) {
                rd.tickets.incrementAndGet();   // nowhere to put it (hybrid: the thread has no tree)
                continue;
            }
            st.seenRound = rd.id;   // sampled in this round: not quiet
            rd.extra += weight - 1;
            creditedUntil = Math.max(creditedUntil, rd.tick + (ticks - 1) * cfg.intervalNs);
            stats.uninstrumented(weight);
            stats.cost(end - s0);
            rd.finished(end);
        }
    }

    /**
     * How many of the sampler's ticks a stack trace taken at {@code end} stands for: its own, and each
     * later one that passed while this thread waited for the trace (a safepoint, a millisecond and more
     * on a loaded machine), as long as {@code t} provably reached no yieldpoint meanwhile (requested
     * still set, or set until then). Those ticks found the thread in this same call, and are not run
     * (see {@link #run}): else a thread in a long JDK call would be sampled at a lower rate than one in
     * rewritten code exactly because sampling it is slower (measured on a loaded machine: a loop of
     * half sorting got 30-40 % of the samples). No more ticks than the thread's CPU time meanwhile
     * fills: a thread that waited for a CPU at a tick takes no sample at it in rewritten code either.
     */
    private int ticksCovered(Round rd, Thread t, long end, long cpuBefore) {
        long off = rd.disarmed.get();
        long until = off != 0 ? Math.min(off, end) : end;
        if (reachedYieldpoint(t, rd.id) || until <= rd.tick) {
            return 1;
        }
        long later = (until - rd.tick) / cfg.intervalNs;
        if (cpu != null && cpuBefore >= 0) {
            long ran = cpu.of(t) - cpuBefore;
            later = Math.min(later, Math.max(0, ran) / cfg.intervalNs);
        }
        return (int) Math.min(1 + later, 1000);
    }

    private static boolean tookTicket(Round rd, Thread t) {
        for (Thread k : rd.takers) {
            if (k == t) {
                return true;
            }
        }
        return false;
    }

    private boolean reachedYieldpoint(Thread t, int round) {
        Info inf = infos.get(t);
        SampleState st = inf == null ? null : state(t, inf);
        return st != null && st.seenRound == round;
    }

    /**
     * Whether a stack trace (top frame first) shows a thread inside the JDK's code (by class name, as the
     * profile marks JDK frames) called from the application: not from jprewrite's runtime (a thread
     * that has reached a yieldpoint and is on its way into the sampler), not in native code unless
     * {@code sample-waiting}.
     */
    private boolean inJdkCode(StackTraceElement[] trace) {
        for (int i = 0; i < trace.length; i++) {
            String cls = trace[i].getClassName();
            if (!Dispatch.isJdkName(cls)) {
                return i > 0 && !cls.startsWith("jprewrite.runtime.") && (cfg.waiting || !trace[0].isNativeMethod());
            }
        }
        return trace.length > 0 && (cfg.waiting || !trace[0].isNativeMethod());   // a JDK thread's own code
    }

    /** Close the open round: tickets not taken are lost; the round's counts go to the statistics. */
    private void closeRound() {
        Pending p = pending;
        if (p == null) {
            return;
        }
        pending = null;
        int lost = p.waitingLost;
        int taken = 0;
        long last = p.lastWaiting;
        Round rd = p.rd;
        if (rd != null) {
            rd.disarm();
            int left = Math.max(0, rd.tickets.getAndSet(Integer.MIN_VALUE / 2));
            open = null;
            long off = rd.disarmed.get();
            stats.armed((off != 0 ? off : System.nanoTime()) - p.start, rd.passes());
            taken = p.tickets - left;
            lost += left;
            awaitDone(rd, taken);
            if (left > 0) {
                stats.expired();
                markQuiet(p.runnable, rd.id);
            }
            last = Math.max(last, rd.lastEnd.get());
        }
        int samples = taken + p.waitingTaken + (rd != null ? rd.extra : 0);
        stats.round(samples, lost, p.waitingTaken, p.considered, samples > 0 && last >= 0 ? last - p.start : -1);
    }

    /** Threads that took a ticket are sampling themselves: a few microseconds; never wait forever. */
    private void awaitDone(Round rd, int taken) {
        long limit = System.nanoTime() + 50000000L;
        while (rd.done.get() < taken && System.nanoTime() < limit) {
            LockSupport.parkNanos(20000L);
        }
    }

    /**
     * The application threads now: runnable ones that can reach a yieldpoint (not found quiet in a
     * round that lost samples, unless they reached one since), and blocked/waiting/sleeping ones,
     * with {@code sample-waiting} also the quiet ones (most likely in native code, which Hofer's
     * split counts as waiting).
     */
    private void classify(ArrayList<Thread> runnable, ArrayList<Thread> waiting) {
        long now = System.nanoTime();
        if (!listed || now - enumerated >= ENUMERATE_NS) {
            listed = true;
            enumerated = now;
            apps.clear();
            int count = enumerate();
            for (int i = 0; i < count; i++) {
                Thread t = scratch[i];
                scratch[i] = null;
                if (isApplication(t)) {
                    apps.add(t);
                }
            }
        }
        for (Thread t : apps) {
            Thread.State s = t.getState();
            if (s == Thread.State.NEW || s == Thread.State.TERMINATED) {
                continue;
            }
            if (s != Thread.State.RUNNABLE) {
                if (attributable(t)) {
                    waiting.add(t);
                }
                continue;
            }
            Info inf = infos.get(t);
            if (inf == null) {
                inf = new Info();
                inf.listedAt = roundIds;
                infos.put(t, inf);
            }
            if (cfg.waiting && unseen(t, inf)) {
                if (attributable(t)) {
                    waiting.add(t);   // runnable, but no yieldpoint for a long while: native code, most likely
                }
                continue;
            }
            if (inf.quietSince != 0) {
                SampleState st = state(t, inf);
                if (st != null && st.seenRound > inf.quietSince) {
                    inf.quietSince = 0;   // it has reached a yieldpoint since
                    inf.backoff = 1;
                } else if (roundIds + 1 < inf.retryAt) {
                    if (cfg.waiting && attributable(t)) {
                        waiting.add(t);   // runnable but unable to reach a yieldpoint (native code): §3.1's waiting side
                    }
                    continue;   // still quiet: no ticket for it
                }
            }
            runnable.add(t);
        }
    }

    /**
     * With {@code sample-waiting}: a runnable thread not seen at a yieldpoint for {@link #MAX_BACKOFF}
     * rounds (a thread that runs yieldpoints is seen, or samples itself, long before) counts as
     * waiting, so that the sampler thread takes it; one that was never seen, once it has been listed
     * that long.
     */
    private boolean unseen(Thread t, Info inf) {
        SampleState st = state(t, inf);
        int last = st == null ? inf.listedAt : Math.max(st.seenRound, inf.listedAt);
        return roundIds - last > MAX_BACKOFF;
    }

    /** Whether a sample of {@code t} taken by this thread has somewhere to go (hybrid: an exact tree). */
    private boolean attributable(Thread t) {
        return mode == SamplingConfig.SAMPLE || ThreadRoot.existing(t) != null;
    }

    /**
     * After a round that lost samples: the runnable threads that never reached a yieldpoint in it, unless
     * they ran meanwhile (their CPU time moved) and no stack trace found them outside the JDK's Java
     * code: such a thread is inside a long JDK call, which {@link #settle} can sample, not stuck. (Marked
     * quiet, a thread halfway through a sort that had been descheduled at one request sat out the next
     * rounds, and the sort's share of the profile shrank on a loaded machine.)
     */
    private void markQuiet(ArrayList<Thread> runnable, int round) {
        for (int i = 0; i < runnable.size(); i++) {
            Thread t = runnable.get(i);
            Info inf = infos.get(t);
            if (inf == null) {
                continue;
            }
            if (inf.stuckRound != round && ranSinceOpen(i, t)) {
                continue;
            }
            SampleState st = state(t, inf);
            if (st == null || st.seenRound != round) {
                if (inf.quietSince != 0) {
                    inf.backoff = Math.min(MAX_BACKOFF, inf.backoff * 2);   // a probe missed
                }
                inf.quietSince = round;
                inf.retryAt = round + inf.backoff;
            }
        }
    }

    /** Whether the {@code i}th runnable thread of the round being closed has run since it was opened. */
    private boolean ranSinceOpen(int i, Thread t) {
        if (cpu == null || i >= cpuAtOpen.length || cpuAtOpen[i] < 0) {
            return false;
        }
        return cpu.of(t) > cpuAtOpen[i];
    }

    private static SampleState state(Thread t, Info inf) {
        if (inf.state == null) {
            ThreadRoot r = ThreadRoot.existing(t);
            inf.state = r == null ? null : r.sampleState;
        }
        return inf.state;
    }

    private int enumerate() {
        ThreadGroup g = Thread.currentThread().getThreadGroup();
        while (g.getParent() != null) {
            g = g.getParent();
        }
        for (;;) {
            int n = g.enumerate(scratch, true);
            if (n < scratch.length) {
                return n;
            }
            scratch = new Thread[scratch.length * 2];
        }
    }

    /**
     * Application threads are those of the {@code main} thread group and its descendants: not the
     * JDK's (the {@code system} group, and groups beneath it such as the one of {@code Common-Cleaner}),
     * not jprewrite's ({@code jprewrite-*}), not this one.
     */
    private boolean isApplication(Thread t) {
        if (t == thread || t == null) {
            return false;
        }
        ThreadGroup g = t.getThreadGroup();
        if (g == null) {
            return false;   // ended
        }
        ThreadGroup parent = g.getParent();
        if (parent == null) {
            return false;   // the system group itself: Reference Handler, Signal Dispatcher, ...
        }
        while (parent.getParent() != null) {
            g = parent;
            parent = g.getParent();
        }
        return "main".equals(g.getName()) && !t.getName().startsWith("jprewrite-");
    }

    /**
     * Record a stack trace of another thread: its sampled tree (sample mode) or its exact node (hybrid).
     * Returns the thread's sampling state, or null when the sample has nowhere to go (hybrid: no tree).
     */
    private SampleState recordOther(Thread t, StackTraceElement[] trace) {
        return recordOther(t, trace, 1);
    }

    /** The same, counting for {@code ticks} samples (see {@link #ticksCovered}). */
    private SampleState recordOther(Thread t, StackTraceElement[] trace, int ticks) {
        if (mode == SamplingConfig.HYBRID) {
            ThreadRoot r = ThreadRoot.existing(t);
            if (r == null) {
                return null;
            }
            Node node = ContextMapper.map(r, trace);
            SampleState st = stateOf(r);
            st.recordNode(node, ticks);
            return st;
        }
        ThreadRoot r = ThreadRoot.of(t);
        ClassLoader hint;
        try {
            hint = t.getContextClassLoader();
        } catch (Throwable e) {
            hint = null;
        }
        SampleState st = stateOf(r);
        st.recordTrace(trace, hint, 0, ticks);
        return st;
    }

    private SampleState stateOf(ThreadRoot r) {
        SampleState st = r.sampleState;
        return st != null ? st : newState(r);
    }
}
