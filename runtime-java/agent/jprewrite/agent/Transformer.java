package jprewrite.agent;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Arrays;

/**
 * Rewrites each class as it is loaded: from the cache when it can, else through the worker.
 *
 * <p>Left alone: the JDK (bootstrap and platform loaders), the agent and runtime themselves
 * ({@code jprewrite/*}), holder classes ({@code $$jpmids}), redefinitions and retransformations,
 * classes the {@code includes}/{@code excludes} patterns reject (these never reach the
 * worker), classes of another Java agent's jar ({@link AgentJars}), and classes of a loader that
 * does not see the runtime ({@link RuntimeVisibility}). A throwable never escapes: the class then
 * loads unchanged.
 *
 * <p>When Python cannot rewrite a class (the worker is gone for good, closed at exit, or busy for
 * longer than the timeout; or it failed both the full and the contract-only rewrite), the class
 * gets the contract-only form from {@link ContractWriter} instead of loading unchanged: callers
 * rewritten earlier (or served from the cache) pass it nodes and must still link. Such forms are
 * never cached. A class the contract writer cannot handle loads unchanged, reported once.
 */
final class Transformer implements ClassFileTransformer {
    private static final ClassLoader PLATFORM = platformLoader();

    private final AgentOptions options;
    private final ClassCache cache;
    private final WorkerClient worker;

    Transformer(AgentOptions options, ClassCache cache, WorkerClient worker) {
        this.options = options;
        this.cache = cache;
        this.worker = worker;
    }

    private static ClassLoader platformLoader() {
        try {
            return ClassLoader.getPlatformClassLoader();
        } catch (Throwable e) {
            return null;
        }
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
            ProtectionDomain pd, byte[] bytes) {
        if (loader == null || loader == PLATFORM || className == null || redefined != null || bytes == null
                || className.startsWith("jprewrite/") || className.endsWith("$$jpmids")
                // reflection's generated accessors, defined into JDK packages by their own loaders
                || className.startsWith("jdk/internal/reflect/") || className.startsWith("sun/reflect/")) {
            return null;
        }
        try {
            if (!options.accepts(className) || ClassBytes.isJdkProxy(className, bytes)
                    || AgentJars.contains(pd) || !RuntimeVisibility.sees(loader)) {
                return null;
            }
            return rewrite(loader, className, pd, bytes);
        } catch (Throwable e) {
            Log.once("transform", "cannot rewrite " + className.replace('/', '.') + " (" + Log.describe(e)
                    + "); it and possibly other classes stay uninstrumented");
            return contract(loader, className, pd, bytes, null);
        }
    }

    private byte[] rewrite(ClassLoader loader, String className, ProtectionDomain pd, byte[] bytes) {
        boolean resolutions = ProgramLoaders.runProgramCode(loader);
        String key = cache.enabled() ? ClassCache.key(bytes, resolutions) : null;
        Result result = key == null ? null : cache.lookup(key);
        if (result == null) {
            if (worker.busyOnThisThread()) {
                // loaded while this thread answers a hierarchy query: the pipe is mid-conversation.
                // (HotSpot's java.lang.instrument does not call transformers re-entrantly on one
                // thread, so such classes normally load unchanged without reaching us; this guard
                // keeps the pipe safe should a JVM do so.)
                Log.once("nested:" + className, className.replace('/', '.')
                        + " loaded during a hierarchy query; left uninstrumented");
                return contract(loader, className, pd, bytes, null);
            }
            result = worker.request(className, bytes, loader, resolutions);
            if (result == null) {
                // no answer: the worker is gone for good or closed (reported once), or busy for too
                // long (reported for this class)
                return contract(loader, className, pd, bytes, null);
            }
            if (result.status != Result.REWRITTEN) {
                // the class bytes of an unchanged or failed class are never used: do not store them
                result = new Result(result.status, null, null, null, result.message);
            }
            if (key != null) {
                cache.store(key, result);
            }
        }
        return apply(loader, className, pd, bytes, result);
    }

    /**
     * {@code <class> stays uninstrumented: <why>}; a message that already starts with "stays
     * uninstrumented" (the worker's wording for the contract-only form) follows the class name.
     */
    static String report(String className, String message) {
        String name = className.replace('/', '.');
        if (message.isEmpty()) {
            return name + " stays uninstrumented";
        }
        return message.startsWith("stays uninstrumented") ? name + " " + message : name + " stays uninstrumented: " + message;
    }

    private static byte[] apply(ClassLoader loader, String className, ProtectionDomain pd, byte[] bytes, Result result) {
        if (result.status == Result.FAILED) {
            // both of Python's forms failed: the agent writes the contract itself
            return contract(loader, className, pd, bytes, report(className, result.message));
        }
        if (result.status == Result.REWRITTEN && !result.message.isEmpty()) {
            // REWRITTEN with a message: the contract-only form (bodies unchanged)
            Log.once("status:" + className, report(className, result.message));
        }
        if (result.status != Result.REWRITTEN || result.classBytes.length == 0) {
            return null;
        }
        String problem = Injector.defineExtras(loader, pd, result);
        if (problem != null) {
            Log.once("inject:" + className, className.replace('/', '.') + " stays uninstrumented: " + problem);
            return null;
        }
        return Arrays.equals(result.classBytes, bytes) ? null : result.classBytes;
    }

    /**
     * The class in the contract-only form the agent writes itself ({@link ContractWriter}), or null
     * (unchanged) when the plan leaves such classes alone or the writer cannot handle it. Never
     * throws. {@code failure}: the report line of a class Python failed on (reported once, with
     * what became of the class), or null when the worker gave no answer (reported once for the
     * whole run by the worker client; a class is then reported only if it stays without contract).
     */
    static byte[] contract(ClassLoader loader, String className, ProtectionDomain pd, byte[] bytes, String failure) {
        String name = className.replace('/', '.');
        try {
            Result r = ContractWriter.write(bytes, supertypes(loader));
            if (r.status != Result.REWRITTEN) {
                if (failure != null) {
                    Log.once("status:" + className, failure);
                }
                return null;
            }
            String problem = Injector.defineExtras(loader, pd, r);
            if (problem != null) {
                Log.once("status:" + className, (failure != null ? failure + "; " : name + " stays uninstrumented: ")
                        + "its contract written by the agent cannot be used (" + problem + "); it loads unchanged");
                return null;
            }
            if (failure != null) {
                Log.once("status:" + className, failure + "; the agent gave it delegating ESI methods itself");
            }
            return r.classBytes;
        } catch (ContractWriter.Unsupported e) {
            Log.once("status:" + className, (failure != null ? failure + "; " : name + " stays uninstrumented: ")
                    + "the agent cannot write its contract (" + e.getMessage() + "); it loads unchanged");
        } catch (Throwable e) {
            Log.once("status:" + className, (failure != null ? failure + "; " : name + " stays uninstrumented: ")
                    + "the agent cannot write its contract (" + Log.describe(e) + "); it loads unchanged");
        }
        return null;
    }

    /**
     * Supertype questions of the contract writer (is it serializable, an enum?): a class already
     * loaded answers itself (the JDK's are loaded on demand, without initialisation); an
     * application class not loaded yet (usually the superclass: the JVM loads it after this hook)
     * is read as a resource from {@code loader}, as the worker's questions are, and its supertypes
     * asked in turn. Never loads application classes; null (unknown) when a class cannot be found.
     */
    static SerialUid.Supertypes supertypes(ClassLoader loader) {
        return (internalName, type) -> isSubtype(loader, internalName, type.getName().replace('.', '/'), type, 0);
    }

    private static Boolean isSubtype(ClassLoader loader, String name, String typeName, Class<?> type, int depth) {
        if (name.equals(typeName)) {
            return Boolean.TRUE;
        }
        Class<?> c = loaded(loader, name);
        if (c != null) {
            return type.isAssignableFrom(c);
        }
        if (depth > 64 || ContractWriter.inJdkPackage(name) || loader == null) {
            return null;
        }
        byte[] bytes;
        try (java.io.InputStream s = loader.getResourceAsStream(name + ".class")) {
            bytes = s == null ? null : s.readAllBytes();
        } catch (Throwable e) {
            bytes = null;
        }
        if (bytes == null) {
            return null;
        }
        ClassEditor cf;
        try {
            cf = ClassEditor.parse(bytes);
        } catch (RuntimeException e) {
            return null;
        }
        boolean unknown = false;
        java.util.List<String> supers = new java.util.ArrayList<>();
        if (cf.superClass != 0) {
            supers.add(cf.superName());
        }
        for (int i : cf.interfaces) {
            supers.add(cf.className(i));
        }
        for (String s : supers) {
            Boolean r = isSubtype(loader, s, typeName, type, depth + 1);
            if (r == null) {
                unknown = true;
            } else if (r) {
                return Boolean.TRUE;
            }
        }
        return unknown ? null : Boolean.FALSE;
    }

    private static Class<?> loaded(ClassLoader loader, String internalName) {
        String dotted = internalName.replace('/', '.');
        try {
            if (ContractWriter.inJdkPackage(internalName)) {
                // the JDK's classes: from the platform loader (which asks the bootstrap loader first)
                return Class.forName(dotted, false, PLATFORM);
            }
            return Injector.findLoaded(loader, dotted);
        } catch (Throwable e) {
            return null;
        }
    }
}
