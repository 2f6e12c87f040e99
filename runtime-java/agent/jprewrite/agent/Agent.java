package jprewrite.agent;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.util.jar.JarFile;

/**
 * The {@code Premain-Class} of the agent jar. Deliberately tiny: the JVM loads it with the
 * application class loader, but the runtime ({@code jprewrite.runtime.*}) must be loaded once,
 * by the bootstrap loader, so that classes of every loader share it. So this appends the jar to
 * the bootstrap search path first and only then hands over to {@link Startup}, by name through
 * the bootstrap loader; it refers to no other class of the agent, so none is loaded here by the
 * application loader.
 *
 * <p>The options are checked before anything else (a bad one ends the JVM with status 2), using
 * {@link AgentOptions} as this class's loader finds it: a second, unused copy of that class may
 * stay in the application loader, which is harmless (it holds no state).
 *
 * <p>If the manifest names the jar in {@code Boot-Class-Path}, the JVM appends it before loading
 * this class, which then already comes from the bootstrap loader: nothing to append. That way is
 * preferable, since appending at run time makes HotSpot print a warning about class-data sharing.
 */
public final class Agent {
    public static void premain(String args, Instrumentation inst) {
        try {
            String error = AgentOptions.check(args);
            if (error != null) {
                System.err.println(error);
                System.err.flush();
                System.exit(2);
            }
            if (Agent.class.getClassLoader() == null) {
                handOver(args, inst, null, null); // Boot-Class-Path did it
                return;
            }
            String jarPath = null;
            JarFile jar = null;
            String problem = null;
            try {
                jarPath = new File(Agent.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
                jar = new JarFile(jarPath);
                inst.appendToBootstrapClassLoaderSearch(jar);
            } catch (Throwable e) {
                problem = "cannot add the agent jar " + (jarPath == null ? "" : jarPath + " ")
                        + "to the boot class path (" + e + ")";
            }
            // with the jar appended, load the rest from the bootstrap loader; if that failed, from
            // ours (the options are still checked, then the agent stands down)
            handOver(args, inst, jar, problem);
        } catch (Throwable e) {
            // an exception out of premain would abort the JVM with a stack trace
            Throwable cause = e instanceof java.lang.reflect.InvocationTargetException && e.getCause() != null ? e.getCause() : e;
            System.err.println("jprewrite agent: cannot start (" + cause + "); the program runs uninstrumented");
        }
    }

    private static void handOver(String args, Instrumentation inst, JarFile jar, String problem) throws Exception {
        ClassLoader loader = problem == null ? null : Agent.class.getClassLoader();
        Class.forName("jprewrite.agent.Startup", true, loader)
                .getMethod("start", String.class, Instrumentation.class, JarFile.class, String.class)
                .invoke(null, args, inst, jar, problem);
    }

    private Agent() {
    }
}
