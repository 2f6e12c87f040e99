package jprewrite.agent;

import java.io.File;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * Is a class part of another Java agent (JaCoCo's, an APM agent's)?
 *
 * <p>An agent's classes are loaded by the application class loader, yet they are the JVM's
 * plumbing as much as the JDK's: they run inside class loading, other agents' transformers among
 * them: with JaCoCo's instrumenter classes rewritten (they load while its transformer runs, and
 * each defines a holder that the transformers see too), JaCoCo's coverage came out empty, silently
 * (the JVM drops what a transformer throws). So classes from a jar whose manifest declares an agent
 * ({@code Premain-Class}, {@code Agent-Class}, {@code Launcher-Agent-Class}) stay as they are,
 * as the JDK's do. Asked once per code source.
 */
final class AgentJars {
    private static final Map<URL, Boolean> SEEN = new HashMap<>();

    private AgentJars() {
    }

    static boolean contains(ProtectionDomain pd) {
        if (pd == null) {
            return false;
        }
        CodeSource cs = pd.getCodeSource();
        URL url = cs == null ? null : cs.getLocation();
        if (url == null || !"file".equals(url.getProtocol())) {
            return false;
        }
        synchronized (SEEN) {
            Boolean known = SEEN.get(url);
            if (known == null) {
                known = declaresAgent(url);
                SEEN.put(url, known);
            }
            return known;
        }
    }

    /**
     * Is the resource at {@code url} (a class file the worker asked for) inside an agent's jar? The
     * worker then hears "not found": such a class is never rewritten, so the plan must not count on
     * it (a call into it stays a call into uninstrumented code, as into the JDK).
     */
    static boolean containsResource(URL url) {
        if (url == null || !"jar".equals(url.getProtocol())) {
            return false;
        }
        String path = url.getPath();
        int bang = path.indexOf("!/");
        if (bang < 0) {
            return false;
        }
        try {
            URL jar = new URL(path.substring(0, bang));
            if (!"file".equals(jar.getProtocol())) {
                return false;
            }
            synchronized (SEEN) {
                Boolean known = SEEN.get(jar);
                if (known == null) {
                    known = declaresAgent(jar);
                    SEEN.put(jar, known);
                }
                return known;
            }
        } catch (Throwable e) {
            return false;
        }
    }

    private static boolean declaresAgent(URL url) {
        try {
            File f = new File(url.toURI());
            if (!f.isFile()) {
                return false;
            }
            try (JarFile jar = new JarFile(f, false)) {
                Manifest m = jar.getManifest();
                if (m == null) {
                    return false;
                }
                Attributes a = m.getMainAttributes();
                return a.getValue("Premain-Class") != null || a.getValue("Agent-Class") != null
                        || a.getValue("Launcher-Agent-Class") != null;
            }
        } catch (Throwable e) {   // not a jar, unreadable: an ordinary class source
            return false;
        }
    }
}
