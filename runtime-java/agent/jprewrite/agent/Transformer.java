package jprewrite.agent;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Arrays;

/**
 * Rewrites each class as it is loaded: from the cache when it can, else through the worker.
 *
 * <p>Left alone: the JDK (bootstrap and platform loaders), the agent and runtime themselves
 * ({@code jprewrite/*}), holder classes ({@code $$jpmids}), redefinitions and retransformations,
 * and classes the {@code includes}/{@code excludes} patterns reject (these never reach the
 * worker). A throwable never escapes: the class then loads unchanged.
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
            if (!options.accepts(className) || ClassBytes.isJdkProxy(className, bytes)) {
                return null;
            }
            return rewrite(loader, className, pd, bytes);
        } catch (Throwable e) {
            Log.once("transform", "cannot rewrite " + className.replace('/', '.') + " (" + Log.describe(e)
                    + "); it and possibly other classes stay uninstrumented");
            return null;
        }
    }

    private byte[] rewrite(ClassLoader loader, String className, ProtectionDomain pd, byte[] bytes) {
        String key = cache.enabled() ? ClassCache.key(bytes) : null;
        Result result = key == null ? null : cache.lookup(key);
        if (result == null) {
            if (worker.busyOnThisThread()) {
                // loaded while this thread answers a hierarchy query: the pipe is mid-conversation.
                // (HotSpot's java.lang.instrument does not call transformers re-entrantly on one
                // thread, so such classes normally load unchanged without reaching us; this guard
                // keeps the pipe safe should a JVM do so.)
                Log.once("nested:" + className, className.replace('/', '.')
                        + " loaded during a hierarchy query; left uninstrumented");
                return null;
            }
            result = worker.request(className, bytes, loader);
            if (result == null) {
                return null;
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
        if (result.status == Result.FAILED || (result.status == Result.REWRITTEN && !result.message.isEmpty())) {
            // FAILED: unchanged; REWRITTEN with a message: the contract-only form (bodies unchanged)
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
}
