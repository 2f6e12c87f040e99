package jprewrite.agent;

import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.util.Collections;
import java.util.Properties;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The agent's start-up, called by {@link Agent#premain} once the jar is on the bootstrap search
 * path (so this class, and everything it uses, comes from the bootstrap loader). The steps of
 * docs/agent.md: options, system properties for the runtime, {@code java.lang} opened to the
 * {@link Injector}, the transformer, and a shutdown hook that finishes the worker.
 */
public final class Startup {
    /** Where the Python build records the build id and its interpreter. */
    static final String BUILD_PROPERTIES = "jprewrite/agent/build.properties";

    public static void start(String args, Instrumentation inst, JarFile jar, String appendProblem) {
        AgentOptions options;
        try {
            options = AgentOptions.parse(args);
        } catch (AgentOptions.BadOption e) {
            System.err.println(AgentOptions.errorLine(e.getMessage()));
            System.err.flush();
            System.exit(2);
            return;
        }
        if (appendProblem != null) {
            Log.warn(appendProblem + "; the program runs uninstrumented");
            return;
        }
        if (Startup.class.getClassLoader() != null) {
            Log.warn("the agent was not loaded by the bootstrap class loader; the program runs uninstrumented");
            return;
        }
        if (options.output != null) {
            System.setProperty("jprewrite.output", options.output);
        }
        if (options.collapsed != null) {
            System.setProperty("jprewrite.collapsed", options.collapsed);
        }
        setIfGiven("jprewrite.append", options.append);
        setIfGiven("jprewrite.threads", options.threads);
        if (!startSampling(options)) {
            return;   // sample mode with the safepoint sampler: nothing to rewrite, no Python
        }
        String problem = openJavaLang(inst);
        if (problem == null) {
            problem = Injector.init();
        }
        if (problem != null) {
            Log.warn("cannot define classes in the application's class loaders (" + problem
                    + "); the program runs uninstrumented");
            return;
        }
        Properties build = buildProperties(jar);
        ClassCache cache = ClassCache.create(options, build.getProperty("build", "unknown"));
        WorkerClient worker = new WorkerClient(options, build.getProperty("python"));
        AgentJars.findAgents();
        inst.addTransformer(new Transformer(options, cache, worker), false);
        Thread hook = new Thread(worker::close, "jprewrite-agent-shutdown");
        hook.setContextClassLoader(null);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Hand the sampling options to the runtime (system properties {@code jprewrite.mode},
     * {@code jprewrite.interval}, ...) and, in sample or hybrid mode, start its sampler now rather than
     * at the first yieldpoint. Returns whether classes must be rewritten.
     */
    static boolean startSampling(AgentOptions options) {
        System.setProperty("jprewrite.mode", options.mode);
        setIfGiven("jprewrite.interval", options.interval);
        setIfGiven("jprewrite.sampler", options.sampler);
        setIfGiven("jprewrite.sample-threads", options.sampleThreads);
        setIfGiven("jprewrite.sample-waiting", options.sampleWaiting);
        if (!options.mode.equals("exact")) {
            jprewrite.runtime.Sampling.active();   // loading it starts the sampler thread
        }
        return options.rewrites();
    }

    private static void setIfGiven(String key, String value) {
        if (value != null) {
            System.setProperty(key, value);
        }
    }

    /** Opens {@code java.lang} (in {@code java.base}) to the Injector's module; null on success. */
    private static String openJavaLang(Instrumentation inst) {
        try {
            Module base = Object.class.getModule();
            Module ours = Injector.class.getModule();
            inst.redefineModule(base, Collections.<Module>emptySet(), Collections.<String, Set<Module>>emptyMap(),
                    Collections.singletonMap("java.lang", Collections.singleton(ours)),
                    Collections.<Class<?>>emptySet(), Collections.<Class<?>, java.util.List<Class<?>>>emptyMap());
            return null;
        } catch (Throwable e) {
            return Log.describe(e);
        }
    }

    /** {@code jprewrite/agent/build.properties} of the agent jar; empty if missing or unreadable. */
    static Properties buildProperties(JarFile jar) {
        Properties p = new Properties();
        try {
            InputStream in = null;
            if (jar != null) {
                JarEntry entry = jar.getJarEntry(BUILD_PROPERTIES);
                if (entry != null) {
                    in = jar.getInputStream(entry);
                }
            }
            if (in == null) {
                in = ClassLoader.getSystemResourceAsStream(BUILD_PROPERTIES);
            }
            if (in != null) {
                try (InputStream s = in) {
                    p.load(s);
                }
            }
        } catch (Throwable e) {
            // defaults: no build id, python3
        }
        return p;
    }

    private Startup() {
    }
}
