package jprewrite.runtime;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Every thread root, and the trees of the threads that have ended, one per thread name (JP's simple
 * profiling agent, section 5.4).
 *
 * <p>Each root is registered with a weak reference to its thread. Once the thread has ended and
 * been collected, a daemon thread folds the root's tree into the tree of its thread name: the first
 * ended thread of a name gives its own tree (child caches dropped), later ones are added into it
 * node by node, so the memory of ended threads is released and no second copy is made. A shutdown
 * hook, registered with the first root, writes the profile straight from these trees and the live
 * ones ({@link ProfileWriter}).
 */
final class Registry {
    /** Threads of the same name are reported together; beyond this many names they share one entry. */
    static final int MAX_THREAD_NAMES = 1000;
    static final String OTHER_THREADS = "<other threads>";

    private static final Object LOCK = new Object();
    /**
     * Held while ended trees change (a fold) or are read (a write of the profile): a write does not
     * keep new threads from registering, only the folding of ended ones. Taken before {@link #LOCK}.
     */
    private static final Object FOLD = new Object();
    private static final ReferenceQueue<Thread> QUEUE = new ReferenceQueue<Thread>();
    /** Registered roots not folded yet, in registration order. Guarded by LOCK. */
    private static final LinkedHashSet<Entry> LIVE = new LinkedHashSet<Entry>();
    /** The trees of folded (ended) threads, by thread name. Guarded by FOLD. */
    private static final LinkedHashMap<String, Node> ENDED_BY_NAME = new LinkedHashMap<String, Node>();
    private static boolean started;

    /** The registration record of one root: a weak reference to its thread. */
    static final class Entry extends WeakReference<Thread> {
        final ThreadRoot root;
        volatile String name;

        Entry(Thread thread, ThreadRoot root) {
            super(thread, QUEUE);
            this.root = root;
            String n;
            try {
                n = thread.getName();
            } catch (Throwable e) {
                n = "?";
            }
            this.name = n;
        }

        /** The thread's current name, or the last one seen once it has been collected. */
        String currentName() {
            Thread t = get();
            if (t != null) {
                try {
                    name = t.getName();
                } catch (Throwable ignored) {
                    // keep the old name
                }
            }
            return name;
        }
    }

    /**
     * A thread asks for its root for the first time: register it ({@code added}: it is new; otherwise
     * the sampler thread registered it already, see {@link #registerOther}) and tell the profiling agent.
     */
    static void register(Thread thread, ThreadRoot root, boolean added) {
        if (added) {
            add(root);
        }
        try {
            root.activation = profiler().register(thread, root);
        } catch (Throwable e) {
            Log.once("profiler.register", "the profiling agent failed in register()", e);
            root.activation = Integer.MAX_VALUE;
        }
    }

    /** Register the root the sampler thread made for another thread (no profiling agent call: wrong thread). */
    static void registerOther(ThreadRoot root) {
        add(root);
    }

    private static void add(ThreadRoot root) {
        boolean start;
        synchronized (LOCK) {
            LIVE.add(root.owner);
            start = !started;
            started = true;
            if (ThreadRoot.first == null) {
                ThreadRoot.first = root;
            }
        }
        if (start) {
            startDaemons();
        }
    }

    /**
     * Start the reaper and register the shutdown hook now, if no root has done so yet: the sampler
     * starts before any thread has a root (sample mode with the safepoint sampler may never make one
     * before exit), and its profile must still be written.
     */
    static void start() {
        boolean start;
        synchronized (LOCK) {
            start = !started;
            started = true;
        }
        if (start) {
            startDaemons();
        }
    }

    private static void startDaemons() {
        try {
            Thread reaper = new Thread(new Reaper(), "jprewrite-reaper");
            reaper.setDaemon(true);
            reaper.setPriority(Thread.MAX_PRIORITY);
            reaper.setContextClassLoader(null);
            reaper.start();
        } catch (Throwable e) {
            Log.once("reaper", "cannot start the thread that collects ended threads", e);
        }
        try {
            Thread hook = new Thread(new Writer(), "jprewrite-shutdown");
            hook.setContextClassLoader(null);
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down: nothing will be written for threads that start now
        } catch (Throwable e) {
            Log.once("hook", "cannot register the shutdown hook that writes the profile", e);
        }
    }

    /** Fold the tree of an ended thread into the tree of its name and forget its root. */
    private static void fold(Entry e) {
        synchronized (FOLD) {
            synchronized (LOCK) {
                if (!LIVE.remove(e)) {
                    return;
                }
                if (ThreadRoot.first == e.root) {
                    ThreadRoot.first = null;
                }
                ThreadRoot.forget(e.root);
            }
            String name = e.name;
            if (!ENDED_BY_NAME.containsKey(name) && ENDED_BY_NAME.size() >= MAX_THREAD_NAMES) {
                name = OTHER_THREADS;
            }
            Node dst = ENDED_BY_NAME.get(name);
            if (dst == null) {
                Nodes.dropCaches(e.root);
                ENDED_BY_NAME.put(name, e.root);
            } else {
                Nodes.add(dst, e.root);
            }
        }
    }

    /** Fold the threads that have ended and been collected; the caller holds FOLD. */
    private static void drainQueue() {
        Reference<? extends Thread> r;
        while ((r = QUEUE.poll()) != null) {
            if (r instanceof Entry) {
                fold((Entry) r);
            }
        }
    }

    /** What {@link #withSources} hands over: the trees of the profile, not to be kept. */
    interface SourcesUser<T> {
        T use(ProfileWriter.Sources sources) throws java.io.IOException;
    }

    /**
     * Run {@code user} on the trees of every thread, ended or running, by thread name; ended threads
     * are not folded meanwhile (their trees are read in place), new threads may still start.
     */
    static <T> T withSources(SourcesUser<T> user) throws java.io.IOException {
        synchronized (FOLD) {
            drainQueue();
            ProfileWriter.Sources s = new ProfileWriter.Sources();
            for (Map.Entry<String, Node> t : ENDED_BY_NAME.entrySet()) {
                s.add(t.getKey(), t.getValue());
            }
            ArrayList<Entry> live;
            synchronized (LOCK) {
                live = new ArrayList<Entry>(LIVE);
            }
            for (Entry e : live) {
                s.add(e.currentName(), e.root);
            }
            s.sampling = Sampler.report();
            return user.use(s);
        }
    }

    /** Registered roots not folded yet (for tests). */
    static int liveCount() {
        synchronized (FOLD) {
            drainQueue();
            synchronized (LOCK) {
                return LIVE.size();
            }
        }
    }

    static Profiler profiler() {
        return ProfilerHolder.INSTANCE;
    }

    /** The default agent: the registry already keeps everything, so it only sets the granularity. */
    static final class DefaultProfiler implements Profiler {
        @Override
        public int register(Thread thread, ThreadRoot root) {
            return Integer.MAX_VALUE;
        }

        @Override
        public int report(ThreadRoot root, Node current) {
            return Integer.MAX_VALUE;
        }
    }

    /** Loads {@code -Djprewrite.profiler} on first use (after the JVM has booted). */
    private static final class ProfilerHolder {
        static final Profiler INSTANCE = load();

        private static Profiler load() {
            String name = Config.property("jprewrite.profiler");
            if (name == null || name.isEmpty()) {
                return new DefaultProfiler();
            }
            Object p = Config.instantiate(name, "jprewrite.profiler");
            if (p instanceof Profiler) {
                return (Profiler) p;
            }
            if (p != null) {
                Log.warn("-Djprewrite.profiler=" + name + " does not implement " + Profiler.class.getName()
                        + "; using the default");
            }
            return new DefaultProfiler();
        }
    }

    /** The daemon that folds ended threads. */
    private static final class Reaper implements Runnable {
        @Override
        public void run() {
            for (;;) {
                try {
                    Reference<? extends Thread> r = QUEUE.remove();
                    if (r instanceof Entry) {
                        fold((Entry) r);
                    }
                } catch (InterruptedException e) {
                    // keep serving: the JVM ends daemon threads at exit
                } catch (Throwable e) {
                    Log.once("reaper.fold", "cannot fold the profile of an ended thread", e);
                }
            }
        }
    }

    /** The shutdown hook: write the profile where the system properties say. */
    private static final class Writer implements Runnable {
        @Override
        public void run() {
            Profiles.writeAtExit();
        }
    }

    private Registry() {
    }
}
