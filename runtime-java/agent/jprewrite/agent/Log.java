package jprewrite.agent;

import java.util.HashSet;
import java.util.Set;

/**
 * The agent's only output: one {@code jprewrite agent: ...} line on stderr when something is
 * worth knowing. Never throws, since it is called from failure paths inside class loading.
 */
final class Log {
    static final String PREFIX = "jprewrite agent: ";

    private static final Set<String> SEEN = new HashSet<>();

    static void warn(String message) {
        try {
            System.err.println(PREFIX + message);
        } catch (Throwable ignored) {
            // nowhere left to report to
        }
    }

    /** Warn once per {@code key}, so a failure repeated for every class does not flood stderr. */
    static void once(String key, String message) {
        synchronized (SEEN) {
            if (!SEEN.add(key)) {
                return;
            }
        }
        warn(message);
    }

    /** A one-line description of a throwable (class and message, no stack trace). */
    static String describe(Throwable t) {
        if (t == null) {
            return "unknown error";
        }
        String message = t.getMessage();
        String name = t.getClass().getSimpleName();
        return message == null || message.isEmpty() ? name : name + ": " + message;
    }

    private Log() {
    }
}
