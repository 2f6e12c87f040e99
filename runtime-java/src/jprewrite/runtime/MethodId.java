package jprewrite.runtime;

/**
 * The identity of one method in the calling context tree (JP's MID).
 *
 * <p>Children of a {@link Node} are keyed by MID identity, so every rewritten class creates its
 * MIDs once (in {@code <clinit>}) and keeps them in static fields. Profiles name nodes by
 * {@link #methodString()}, so two MIDs with the same class, name and descriptor (for example a
 * JDK method referenced from two classes) are merged in the output.
 */
public class MethodId {
    /** An instrumented method. */
    public static final int KIND_INSTRUMENTED = 0;
    /** A JDK method reached from instrumented code. */
    public static final int KIND_JDK = 1;
    /** Other uninstrumented code: excluded or missing classes, overrides in uninstrumented classes. */
    public static final int KIND_UNINSTRUMENTED = 2;
    /** A native method of an instrumented class. */
    public static final int KIND_NATIVE = 3;

    /** Binary class name with dots ({@code com.acme.Foo$Bar}); empty for the thread root. */
    public final String className;
    /** Method name ({@code <init>} for constructors). */
    public final String name;
    /** Method descriptor of the original (not rewritten) method. */
    public final String descriptor;
    /** One of the {@code KIND_*} constants. */
    public final int kind;
    /** Number of call sites of the method: the size of a node's child cache. */
    public final int sites;
    /** {@code name + descriptor}, interned: what virtual dispatch matches. */
    public final String selector;

    private final String methodString;

    /**
     * Number of slots of this method's contexts (see {@link LeafNode}): one per JDK leaf callee, two
     * per application leaf (calls, then bytecodes). Set once by {@link #leafCallees} in the holder's
     * initialiser, before rewritten code can reach this MID.
     */
    int leafCount;
    /** How many of the slots are application leaves' pairs (each a row of the profile writer's index). */
    int leafPairs;
    /** The leaf callees, packed as {@link #leafCallees} takes them. */
    private String leafNames;
    /** The leaf callees' MIDs by first slot (null at a pair's second), made on first ask ({@link #leafCallee}). */
    private volatile MethodId[] leafIds;
    /** {@link #leafPairSlots}, made on first ask. */
    private volatile int[] pairSlots;

    /** This MID's {@link #canonical()} number; 0 until first asked. */
    private int canonical;
    /** The numbers {@link #canonical()} gives, by method string. */
    private static final java.util.concurrent.ConcurrentHashMap<String, Integer> CANONICAL =
            new java.util.concurrent.ConcurrentHashMap<String, Integer>();

    /** For factories and subclasses; rewritten code calls {@link #get}. */
    public MethodId(String className, String name, String descriptor, int kind, int sites) {
        this.className = className == null ? "" : className;
        this.name = name == null ? "" : name;
        this.descriptor = descriptor == null ? "" : descriptor;
        this.kind = kind;
        this.sites = sites < 0 ? 0 : sites;
        this.selector = (this.name + this.descriptor).intern();
        this.methodString = this.className.isEmpty()
                ? this.name + this.descriptor
                : this.className + "." + this.name + this.descriptor;
    }

    /**
     * Whether rewritten code has created a MID in this JVM (the holders of rewritten classes call
     * {@link #get}): how {@link Measure} tells "nothing measured was instrumented" from "jprewrite
     * is not enabled at all". A plain field: it only ever changes from false to true.
     */
    static boolean seen;

    /** The MID of a method, made by the factory chosen with {@code -Djprewrite.midFactory}. */
    public static MethodId get(String className, String name, String descriptor, int kind, int sites) {
        seen = true;
        MethodIdFactory f = Factory.INSTANCE;
        if (f != null) {
            try {
                MethodId m = f.create(className, name, descriptor, kind, sites);
                if (m != null) {
                    return m;
                }
            } catch (Throwable e) {
                Log.once("midFactory.create", "the MethodId factory failed; using plain MethodIds", e);
            }
        }
        return new MethodId(className, name, descriptor, kind, sites);
    }

    /**
     * The MIDs of a holder's table, made in one call from one string constant (what a holder's
     * {@code <clinit>} does: one constant for many MIDs instead of three strings each). For each
     * of the {@code count} MIDs, {@code packed} holds its class name, name and descriptor, each
     * after one char giving its length plus one (an empty class name, {@link #SAME_CLASS}, stands
     * for the previous MID's), then its kind and its number of sites, each as one char holding the
     * value plus one (no char is ever 0, which a class file writes in two bytes).
     */
    public static MethodId[] table(String packed, int count) {
        MethodId[] out = new MethodId[count];
        String className = "";
        int p = 0;
        for (int k = 0; k < count; k++) {
            int n = packed.charAt(p++);
            if (n != SAME_CLASS) {
                className = packed.substring(p, p + n - 1);
                p += n - 1;
            }
            n = packed.charAt(p++) - 1;
            String name = packed.substring(p, p + n);
            p += n;
            n = packed.charAt(p++) - 1;
            String descriptor = packed.substring(p, p + n);
            p += n;
            int kind = packed.charAt(p++) - 1;
            int sites = packed.charAt(p++) - 1;
            out[k] = get(className, name, descriptor, kind, sites);
        }
        return out;
    }

    /**
     * What a holder's initialiser calls for a method with leaf call sites: the callees of its slots,
     * in slot order, each as its class name, name and descriptor after one char giving its length plus
     * one, then one char holding its kind plus one. A JDK callee ({@link #KIND_JDK}) takes one slot
     * (its calls), an application leaf ({@link #KIND_INSTRUMENTED}, a slot twin) two (its calls, then
     * its bytecodes). Set once: a second call (a factory's MID shared by two holders of one class)
     * keeps the first list unless it has more slots.
     */
    public final void leafCallees(String packed) {
        int n = 0;
        int pairs = 0;
        int p = 0;
        while (p < packed.length()) {
            for (int part = 0; part < 3; part++) {
                p += packed.charAt(p);
            }
            boolean pair = packed.charAt(p++) - 1 == KIND_INSTRUMENTED;
            n += pair ? 2 : 1;
            pairs += pair ? 1 : 0;
        }
        if (n > leafCount) {
            leafNames = packed;
            leafIds = null;
            pairSlots = null;
            leafPairs = pairs;
            leafCount = n;
        }
    }

    /**
     * The MID of the callee whose calls slot {@code k} counts (one MID per callee, made on first ask),
     * or null for the second slot of an application leaf's pair (its bytecodes). {@code k} is below
     * {@link #leafCount}, which counts the slots of the packed list (a node's slots are never more).
     */
    final MethodId leafCallee(int k) {
        MethodId[] ids = leafIds;
        if (ids == null) {
            String packed = leafNames;
            ids = new MethodId[leafCount];
            int p = 0;
            for (int i = 0; i < ids.length; i++) {
                String[] parts = new String[3];
                for (int part = 0; part < 3; part++) {
                    int len = packed.charAt(p++) - 1;
                    parts[part] = packed.substring(p, p + len);
                    p += len;
                }
                int kind = packed.charAt(p++) - 1;
                ids[i] = new MethodId(parts[0], parts[1], parts[2], kind, 0);
                if (kind == KIND_INSTRUMENTED) {
                    i++;   // its bytecodes' slot
                }
            }
            leafIds = ids;
        }
        return ids[k];
    }

    /** The first slots of this method's application-leaf pairs, ascending (made on first ask). */
    final int[] leafPairSlots() {
        int[] p = pairSlots;
        if (p == null) {
            p = new int[leafPairs];
            int j = 0;
            for (int k = 0; k < leafCount && j < p.length; k++) {
                MethodId callee = leafCallee(k);
                if (callee != null && callee.kind == KIND_INSTRUMENTED) {
                    p[j++] = k;
                }
            }
            pairSlots = p;
        }
        return p;
    }

    /** In a {@link #table} string, the length char of an empty class name: the previous MID's class. */
    public static final char SAME_CLASS = 1;

    /** {@code className + "." + name + descriptor} ({@code <root>} for the thread root). */
    public final String methodString() {
        return methodString;
    }

    /**
     * A number for this MID's {@link #methodString()}, from 1, the same for every MID of that string in
     * this JVM: what the profile writer merges sibling contexts by. A JDK method referenced from two
     * classes has a MID in each class's holder, and both are one method in a profile. With the number,
     * grouping a context's children is an array lookup each, not a comparison of strings (scalac's
     * profile has 18.5 M contexts). Numbered once per MID: the race of two writers numbering one MID
     * stores the same number twice.
     */
    final int canonical() {
        int c = canonical;
        if (c == 0) {
            Integer k = CANONICAL.get(methodString);
            if (k == null) {
                synchronized (CANONICAL) {
                    k = CANONICAL.get(methodString);
                    if (k == null) {
                        k = CANONICAL.size() + 1;
                        CANONICAL.put(methodString, k);
                    }
                }
            }
            c = k;
            canonical = c;
        }
        return c;
    }

    /** Whether {@code other} has the same name and descriptor (what dispatch compares). */
    public final boolean sameSelector(MethodId other) {
        String a = selector, b = other.selector;
        return a == b || a.equals(b);
    }

    @Override
    public String toString() {
        return methodString;
    }

    /** The default factory: plain MIDs. */
    static final class Plain implements MethodIdFactory {
        @Override
        public MethodId create(String className, String name, String descriptor, int kind, int sites) {
            return new MethodId(className, name, descriptor, kind, sites);
        }
    }

    /** Holder so that the factory is loaded on first use, not when the runtime is. */
    static final class Factory {
        static final MethodIdFactory INSTANCE = load();

        private static MethodIdFactory load() {
            String name = Config.property("jprewrite.midFactory");
            if (name == null || name.isEmpty()) {
                return new Plain();
            }
            Object f = Config.instantiate(name, "jprewrite.midFactory");
            if (f instanceof MethodIdFactory) {
                return (MethodIdFactory) f;
            }
            if (f != null) {
                Log.warn("-Djprewrite.midFactory=" + name + " does not implement "
                        + MethodIdFactory.class.getName() + "; using plain MethodIds");
            }
            return new Plain();
        }

        private Factory() {
        }
    }
}
