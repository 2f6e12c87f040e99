package jprewrite.runtime;

/**
 * What sampling cost, per round (Hofer §7.2): rounds, samples taken and lost, the latency from the
 * request to the last sample of each round, and how long a thread spent sampling itself. Written by
 * the sampler thread (rounds) and by sampling threads (their own cost), read at exit: every method
 * is synchronized, which costs nothing measurable at one round per interval.
 */
final class SamplingStats {
    long rounds;
    long samples;
    long lost;
    /** Samples of blocked, waiting or sleeping threads, taken by the sampler thread. */
    long waitingSamples;
    /**
     * Samples of runnable threads in the JDK's code when a round's grace period was over, taken by the
     * sampler thread from a stack trace (a thread in a long JDK call cannot reach a yieldpoint),
     * including the later ticks such a trace counted for.
     */
    long uninstrumentedSamples;
    /** Ticks skipped because the sampler thread was not scheduled in time (no thread sampled at them). */
    long missedTicks;
    /**
     * The sampler thread's calls of {@code Thread.getStackTrace()} on other threads (threads in the
     * JDK's code, waiting threads): each is a global safepoint on JDK 17, the pause the ticket samplers
     * otherwise avoid.
     */
    long stackTraces;
    /** Distinct threads that gave at least one sample. */
    long threadsSeen;
    /** Sum over rounds of the threads the round considered (runnable and waiting). */
    long threadsConsidered;
    final Histogram latency = new Histogram();
    /** Time one sample took in the sampled thread (self-sampling) or in the sampler (others). */
    final Histogram cost = new Histogram();
    /** CPU time of the sampler thread (ns, -1: unknown), read when the profile is written. */
    volatile long samplerCpuNs = -1;
    /**
     * Per round of the ticket samplers, how long {@link Sampling#requested} stayed set (every
     * yieldpoint of every thread calls into the sampler meanwhile): the cost a round puts on the
     * threads beyond their own samples.
     */
    final Histogram armed = new Histogram();
    /** Passes of threads that had sampled themselves through the yieldpoints' per-thread check. */
    long passes;
    /** Rounds that ended with tickets left when their grace period was over. */
    long expired;
    /** Every thread's sampling state, for the sum of their {@link SampleState#slowCalls} at exit. */
    private final java.util.ArrayList<SampleState> states = new java.util.ArrayList<SampleState>();

    synchronized void round(int taken, int missed, int waiting, int considered, long latencyNs) {
        rounds++;
        samples += taken;
        lost += missed;
        waitingSamples += waiting;
        threadsConsidered += considered;
        if (latencyNs >= 0) {
            latency.add(latencyNs);
        }
    }

    synchronized void cost(long ns) {
        cost.add(ns);
    }

    synchronized void uninstrumented(int ticks) {
        uninstrumentedSamples += ticks;
    }

    synchronized void stackTrace() {
        stackTraces++;
    }

    synchronized void missedTicks(long n) {
        missedTicks += n;
    }

    synchronized void newThread() {
        threadsSeen++;
    }

    synchronized void armed(long ns, long takerPasses) {
        armed.add(ns);
        passes += takerPasses;
    }

    synchronized void expired() {
        expired++;
    }

    synchronized void add(SampleState st) {
        states.add(st);
    }

    /** Calls into the sampler past the yieldpoints' per-thread check, all threads (racy reads at exit: a count). */
    private long slowCalls() {
        long n = 0;
        for (SampleState st : states) {
            n += st.slowCalls;
        }
        return n;
    }

    /** The top-level {@code "sampling"} object of the profile. */
    synchronized String json(SamplingConfig cfg, int mode) {
        StringBuilder sb = new StringBuilder(256);
        sb.append("{\"mode\":\"").append(SamplingConfig.MODES[mode]).append('"');
        sb.append(",\"sampler\":\"").append(SamplingConfig.SAMPLERS[cfg.sampler]).append('"');
        sb.append(",\"interval_ns\":").append(cfg.intervalNs);
        sb.append(",\"sample_threads\":").append(cfg.threads);
        sb.append(",\"sample_waiting\":").append(cfg.waiting);
        if (cfg.sampler != SamplingConfig.SAFEPOINT) {
            sb.append(",\"grace_ns\":").append(cfg.graceNs);
        }
        sb.append(",\"rounds\":").append(rounds);
        sb.append(",\"samples\":").append(samples);
        sb.append(",\"lost\":").append(lost);
        sb.append(",\"waiting_samples\":").append(waitingSamples);
        sb.append(",\"threads_seen\":").append(threadsSeen);
        if (cfg.sampler != SamplingConfig.SAFEPOINT) {
            sb.append(",\"uninstrumented_samples\":").append(uninstrumentedSamples);
            sb.append(",\"missed_ticks\":").append(missedTicks);
            sb.append(",\"stack_traces\":").append(stackTraces);
            sb.append(",\"trace_every\":").append(cfg.traceEvery());
            sb.append(",\"rounds_expired\":").append(expired);
            sb.append(",\"yieldpoint_calls\":").append(slowCalls() + passes);
        }
        sb.append(",\"threads_per_round\":").append(rounds == 0 ? "0" : String.format(java.util.Locale.ROOT,
                "%.2f", threadsConsidered / (double) rounds));
        sb.append(",\"sampler_cpu_ns\":").append(samplerCpuNs);
        sb.append(",\"latency_ns\":");
        latency.json(sb);
        sb.append(",\"sample_cost_ns\":");
        cost.json(sb);
        if (cfg.sampler != SamplingConfig.SAFEPOINT) {
            sb.append(",\"armed_ns\":");
            armed.json(sb);
        }
        return sb.append('}').toString();
    }

    /**
     * A log-linear histogram of nanosecond values: exact below 64, then 32 buckets per power of two
     * (about 3 % resolution), so percentiles of millions of rounds need a few KB. The maximum is exact.
     */
    static final class Histogram {
        private static final int SUB = 32;
        private final long[] counts = new long[64 + 58 * SUB];
        long n;
        long max;
        long sum;

        void add(long v) {
            if (v < 0) {
                v = 0;
            }
            counts[index(v)]++;
            n++;
            sum += v;
            if (v > max) {
                max = v;
            }
        }

        private static int index(long v) {
            if (v < 64) {
                return (int) v;
            }
            int e = 63 - Long.numberOfLeadingZeros(v);   // >= 6
            int sub = (int) (v >>> (e - 5)) & (SUB - 1);
            return 64 + (e - 6) * SUB + sub;
        }

        /** The middle of bucket {@code i}. */
        private static long value(int i) {
            if (i < 64) {
                return i;
            }
            int e = (i - 64) / SUB + 6;
            int sub = (i - 64) % SUB;
            long lo = (1L << e) + ((long) sub << (e - 5));
            return lo + (1L << (e - 6));
        }

        /** The nearest-rank {@code q}-quantile (0 < q <= 1), or 0 when empty; never above the maximum. */
        long quantile(double q) {
            if (n == 0) {
                return 0;
            }
            long rank = (long) Math.ceil(q * n);
            if (rank < 1) {
                rank = 1;
            }
            long seen = 0;
            for (int i = 0; i < counts.length; i++) {
                seen += counts[i];
                if (seen >= rank) {
                    return Math.min(value(i), max);
                }
            }
            return max;
        }

        void json(StringBuilder sb) {
            sb.append("{\"median\":").append(quantile(0.5));
            sb.append(",\"p97_5\":").append(quantile(0.975));
            sb.append(",\"max\":").append(max);
            sb.append(",\"sum\":").append(sum);
            sb.append(",\"count\":").append(n).append('}');
        }
    }
}
