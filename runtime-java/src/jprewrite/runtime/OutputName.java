package jprewrite.runtime;

import java.io.File;
import java.lang.reflect.Method;
import java.text.SimpleDateFormat;
import java.util.Date;

/**
 * Output names for many JVMs: {@code %p} (process id), {@code %h} (host name), {@code %t} (the JVM's
 * start time, {@code 2026-11-24_06-18-57}) and {@code %%}, the placeholders of the JVM's own
 * {@code -Xlog:...:file=} names; build tools fork test JVMs with the same options, and each then
 * writes its own file.
 */
final class OutputName {
    static String expand(String name) {
        if (name.indexOf('%') < 0) {
            return name;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c != '%' || i + 1 == name.length()) {
                sb.append(c);
                continue;
            }
            char k = name.charAt(++i);
            switch (k) {
                case 'p':
                    sb.append(pid());
                    break;
                case 'h':
                    sb.append(host());
                    break;
                case 't':
                    sb.append(new SimpleDateFormat("yyyy-MM-dd_HH-mm-ss").format(new Date(startTime())));
                    break;
                case '%':
                    sb.append('%');
                    break;
                default:
                    sb.append(c).append(k);   // not a placeholder: kept as written
                    break;
            }
        }
        return sb.toString();
    }

    /** Where a run's profile goes when its target cannot take it: beside it, named by the process. */
    static File aside(File target) {
        String n = target.getName();
        int dot = n.indexOf('.');
        String stem = dot > 0 ? n.substring(0, dot) : n;
        String ext = dot > 0 ? n.substring(dot) : "";
        return new File(target.getParentFile(), stem + "-" + pid() + ext);
    }

    static long pid() {
        try {   // Java 9+: ProcessHandle (the runtime is compiled for Java 8)
            Class<?> ph = Class.forName("java.lang.ProcessHandle");
            Object current = ph.getMethod("current").invoke(null);
            Method pid = ph.getMethod("pid");
            return ((Long) pid.invoke(current)).longValue();
        } catch (Throwable e) {
            // Java 8
        }
        try {
            String n = java.lang.management.ManagementFactory.getRuntimeMXBean().getName();
            return Long.parseLong(n.substring(0, n.indexOf('@')));
        } catch (Throwable e) {
            return 0;
        }
    }

    static String host() {
        try {
            String h = java.net.InetAddress.getLocalHost().getHostName();
            if (h != null && !h.isEmpty()) {
                return h.replace(File.separatorChar, '_');
            }
        } catch (Throwable e) {
            // no name resolution
        }
        return "localhost";
    }

    private static long startTime() {
        try {
            return java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
        } catch (Throwable e) {
            return System.currentTimeMillis();
        }
    }

    private OutputName() {
    }
}
