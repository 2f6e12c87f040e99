package jprewrite.agent;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Is a class part of another Java agent given to this JVM (JaCoCo's, an APM agent's)?
 *
 * <p>An agent's classes are loaded by the application class loader, yet they are the JVM's
 * plumbing as much as the JDK's: they run inside class loading, other agents' transformers among
 * them: with JaCoCo's instrumenter classes rewritten (they load while its transformer runs, and
 * each defines a holder that the transformers see too), JaCoCo's coverage came out empty, silently
 * (the JVM drops what a transformer throws). So classes from the jar of a {@code -javaagent} (the
 * JVM's input arguments, {@code JAVA_TOOL_OPTIONS} included) stay as they are, as the JDK's do.
 * Only jars given as agents: a library that merely declares one in its manifest (H2's
 * {@code Profiler}) is the program's code.
 */
final class AgentJars {
    /** Canonical paths of the {@code -javaagent} jars; empty until {@link #findAgents}. */
    private static volatile Set<String> agents = Collections.emptySet();

    private AgentJars() {
    }

    /** Read the agents off the JVM's input arguments (once, at start-up, before any transform). */
    static void findAgents() {
        Set<String> found = new HashSet<>();
        try {
            for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (arg.startsWith("-javaagent:")) {
                    String spec = arg.substring("-javaagent:".length());
                    int eq = spec.indexOf('=');
                    String path = eq < 0 ? spec : spec.substring(0, eq);
                    try {
                        found.add(new File(path).getCanonicalPath());
                    } catch (Throwable e) {
                        found.add(new File(path).getAbsolutePath());
                    }
                }
            }
        } catch (Throwable e) {   // no java.management in this runtime: no agent is known
        }
        agents = found;
    }

    static boolean contains(ProtectionDomain pd) {
        if (pd == null || agents.isEmpty()) {
            return false;
        }
        CodeSource cs = pd.getCodeSource();
        return isAgentJar(cs == null ? null : cs.getLocation());
    }

    /**
     * Is the resource at {@code url} (a class file the worker asked for) inside an agent's jar? The
     * worker then hears "not found": such a class is never rewritten, so the plan must not count on
     * it (a call into it stays a call into uninstrumented code, as into the JDK).
     */
    static boolean containsResource(URL url) {
        if (url == null || agents.isEmpty() || !"jar".equals(url.getProtocol())) {
            return false;
        }
        String path = url.getPath();
        int bang = path.indexOf("!/");
        if (bang < 0) {
            return false;
        }
        try {
            return isAgentJar(new URL(path.substring(0, bang)));
        } catch (Throwable e) {
            return false;
        }
    }

    /** The answer per code source (a path is made canonical once, not at every class). */
    private static final ConcurrentHashMap<String, Boolean> SEEN = new ConcurrentHashMap<>();

    private static boolean isAgentJar(URL url) {
        if (url == null || !"file".equals(url.getProtocol())) {
            return false;
        }
        String key = url.toString();   // (not the URL: its hashCode may resolve a host name)
        Boolean known = SEEN.get(key);
        if (known == null) {
            try {
                known = agents.contains(new File(url.toURI()).getCanonicalPath());
            } catch (Throwable e) {
                known = Boolean.FALSE;
            }
            SEEN.put(key, known);
        }
        return known;
    }
}
