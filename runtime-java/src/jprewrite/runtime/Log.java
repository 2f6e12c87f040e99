package jprewrite.runtime;

import java.util.HashSet;
import java.util.Set;

/** The runtime's only output besides profiles: one line on stderr when something goes wrong. */
final class Log {
    private static final Set<String> SEEN = new HashSet<String>();

    static void warn(String message) {
        try {
            System.err.println("jprewrite: " + message);
        } catch (Throwable ignored) {
            // nowhere left to report to
        }
    }

    /** Warn once per {@code key}, so a failure on a hot path does not flood stderr. */
    static void once(String key, String message, Throwable cause) {
        synchronized (SEEN) {
            if (!SEEN.add(key)) {
                return;
            }
        }
        warn(cause == null ? message : message + ": " + cause);
    }

    private Log() {
    }
}
