/*
 * CctOracle: an independent reference for jprewrite's profiles, built on the JVM debugger
 * interface (JDI). It shares no code with the rewriter: it runs the ORIGINAL program under a
 * debugger and rebuilds the calling context tree (CCT) from debugger events.
 *
 * Usage (tests/support/oracle.py compiles and drives it):
 *   java --add-modules jdk.jdi -cp <dir> CctOracle --out P.json --stdout O --stderr E
 *        [--app PATTERN]... [--no-bytecodes] [--granularity block|instruction]
 *        [--breakpoint-budget N] [--java BIN] [--jvm-arg ARG]... [--trace]
 *        --cp CLASSPATH MAIN [ARGS...]
 * PATTERN: "com.acme." or "com.acme.*" (prefix), or an exact binary class name ("Foo").
 * Exit code 0 when the profile was written (the program's own exit code is in the JSON,
 * "oracle"."exitCode"), 2 on usage errors, 3 when the debugger failed.
 *
 * =============================================================================================
 * SEMANTICS (the tree the profiler must reproduce)
 *
 * Application methods: methods of classes whose binary name matches a pattern, except hidden
 * classes (lambda proxies: names with '/'). Everything else is "not instrumented".
 *
 * 1. Paths. Per thread, the stack maps to a path: the application frames, bottom to top, each a
 *    node "<binary class name>.<name><descriptor>". A non-application frame whose caller is an
 *    application frame is a BOUNDARY node named by the method the caller's invoke instruction
 *    statically resolves to: JVMS 5.4.3.3/5.4.3.4 lookup of the constant pool's Methodref /
 *    InterfaceMethodref (referenced class, superclasses, Object for interface references, then
 *    the maximally specific superinterface methods; array classes resolve in Object; the one
 *    signature-polymorphic method of MethodHandle/VarHandle keeps its declared descriptor);
 *    invokedynamic sites are "invokedynamic.<name><descriptor>". Boundary nodes carry "kind":
 *    "jdk" when the declaring class comes from the boot or platform loader (and for
 *    invokedynamic), "uninstrumented" otherwise. Non-application frames above a boundary frame
 *    do not appear; an application frame above them (a callback) hangs beneath the boundary
 *    node. Non-application frames below a thread's first application frame are ignored.
 * 2. calls. Each entry of an application method adds 1 to its node. Each execution of an invoke
 *    instruction of an application frame whose callee is not an application method entered
 *    directly (as the very next frame) adds 1 to that call site's boundary node, once, however
 *    many callbacks it makes; it counts when it returns or throws, at its first callback, or
 *    when the VM dies during it (System.exit). An invoke that resolves to an application method
 *    and throws before anything runs (null receiver, failed class initialisation) counts
 *    nothing. An application <clinit> run by new/getstatic/putstatic, or by an invokestatic of
 *    a method an application class declares, is a direct child of the frame's node, and the
 *    invoke, if any, stays pending until it completes.
 * 3. bytecodes (exclusive): each executed bytecode of an application method adds 1 to the node
 *    of its frame, the instruction that throws included. With --no-bytecodes all are 0.
 * Output: {"root": all threads merged by path, "threads": [{"name", "root"}], "oracle": {exit
 * code, statistics, warnings}}; node = {"method", "calls", "bytecodes", "children"} (+ "kind" on
 * boundary nodes); roots are "<root>". Threads that never ran application code are left out.
 * Warnings mean the oracle could not follow the program exactly (the Python wrapper fails).
 *
 * =============================================================================================
 * WHAT WE LEARNT ABOUT JDI/JDWP ON HOTSPOT 17, AND THE RESULTING DESIGN
 *
 * (a) Single stepping counts exactly but cannot be used. A StepRequest(STEP_MIN, STEP_INTO)
 *     with a class filter reports each executed bytecode once: checked against javap on loops,
 *     tableswitch/lookupswitch, athrow caught in the same method, an exception from a callee, a
 *     JDK method throwing, idiv by zero: the throwing instruction is reported (events precede
 *     execution), the handler's first instruction once, and after a call the next event is the
 *     instruction after the invoke (never the invoke again). But:
 *     - HotSpot HIDES single steps while the interpreter resolves getstatic, putstatic,
 *       invokestatic and invokedynamic (JvmtiHideSingleStepping), and resolution runs class
 *       initialisation: a <clinit> started by getstatic/putstatic/invokestatic, and everything
 *       it calls, produce no step events at all (one started by `new` does). Method entry/exit
 *       and breakpoint events still arrive.
 *     - JDWP calls GetFrameCount (a walk of the whole stack) on every single step, JDK code
 *       included, so stepping costs about 0.5 us per frame per bytecode: a 3,000-deep
 *       recursion took 20 s, 10,000 deep would take minutes.
 *     - A suspending event costs ~0.2 ms (suspend, resume round trip, thread switches): 5,000
 *       suspending step events/s against ~80,000/s with SUSPEND_NONE.
 * (b) So bytecodes are counted with breakpoints, which fire in hidden resolution too and cost
 *     nothing per frame: a non-suspending breakpoint at the first instruction of each basic
 *     block counts the whole block when it fires. Blocks end after branches, switches,
 *     returns, athrow, ret, every invoke, new, getstatic and putstatic (the only instructions
 *     that can start application code), and before branch targets and exception handlers
 *     (exception tables are read from the class files on the class path; without a class file
 *     every instruction is a block). Instructions an exception skips are taken back at the
 *     ExceptionEvent, from the frames' locations. --granularity instruction puts a breakpoint
 *     on every instruction instead (one event per bytecode): the tests check both agree. On
 *     the programs of sample-classes/ the per-method counts equal those of a plain single-step
 *     counter, except in <clinit> code run during resolution (which single steps miss).
 * (c) JDWP checks every breakpoint request on every breakpoint event (threadControl_isDebugThread
 *     plus the location filter, ~0.1 us each): 650 live breakpoints cut the event rate to a third. So
 *     methods are instrumented lazily: ClassPrepare (suspending) puts one suspending probe at
 *     bytecode 0 of each method, whose first hit puts the block breakpoints and removes the
 *     probe (a breakpoint created while a thread is suspended at a breakpoint does not fire for
 *     that same execution: the probe's event counts block 0). Over --breakpoint-budget (400)
 *     live block breakpoints, the whole VM is suspended and the least recently entered methods
 *     on no thread's stack get their probe back and lose their breakpoints.
 * (d) Entry, exit and block events do not suspend (JDWP sends one thread's events in order,
 *     whatever their policy); the oracle replays them per thread on a shadow stack of
 *     application frames, O(1) per event. A VMDeathRequest(SUSPEND_ALL) keeps the VM alive
 *     until the queue is drained (otherwise the first query after the program ends throws
 *     VMDisconnectedException and the rest of the queue is lost).
 * (e) JDWP co-locates events: a MethodEntry is held back while a breakpoint (or a step) is set
 *     at bytecode 0 and arrives in one event set with it, entry first; one execution of one
 *     bytecode with several breakpoints arrives as one set (counted once here); a breakpoint
 *     co-located with a non-deferred entry or step is skipped. Every application method always
 *     has a breakpoint at bytecode 0, so entries always come with their first block.
 * (f) MethodExit is NOT generated when a method completes abruptly. Exceptions are followed
 *     with an ExceptionRequest per thread (suspending): frames() and catchLocation() tell which
 *     frames unwind; when several frames run the catching method (recursion), a one-shot
 *     breakpoint at the handler plus frameCount() tells which one caught it. The catch location
 *     ignores class initialisation: an exception leaving a <clinit> stops there and the VM
 *     throws ExceptionInInitializerError anew (a second event) at the instruction that started
 *     the initialisation, while catchLocation() names a frame further down (or none). It also
 *     looks through native frames (JDI warns about that): Method.invoke's native invoke0 turns
 *     the exception into an InvocationTargetException, a second event, while an application
 *     native method that lets it pass gives no second event. So unwinding is taken to stop at
 *     the first <clinit> (included) or native frame (excluded); the frames from that native
 *     frame down to JVMTI's catch frame are marked, and dropped by the next event that comes
 *     from a frame below them (events from a marked frame, or an exception, clear the mark).
 * (g) Entries cannot tell direct calls from callbacks (non-application frames send no events).
 *     The pending invoke decides most statically: another name/descriptor, invokedynamic,
 *     invokestatic/invokespecial of another method, a class that cannot be a subtype of the
 *     resolved class: callback; the resolved method itself: direct. An entry of a method that
 *     overrides the resolved one (toString() through Object.toString, compare() through
 *     Comparator.compare, run() through Thread.run) is ambiguous, and so is one of the resolved
 *     method itself when a class outside the patterns and the JDK overrides it (a plugin's
 *     override calling super.m(); such classes are examined at their ClassPrepare): these
 *     methods keep a suspending breakpoint at bytecode 0 and frame(1) tells whether the caller
 *     is application code.
 * (h) JDI only sees prepared classes (JDWP filters the rest): a class that resolution loaded but
 *     did not link (Sub in Sub.staticOfBase()) is read from its class file for method lookup.
 *     Constant pools come from ReferenceType.constantPool() (JVMTI reconstitutes them with the
 *     class file's indices), code from Method.bytecodes(); both are parsed here.
 * Speed on a 2-core machine: ~40,000 block events/s, ~170,000-200,000 application bytecodes/s
 * (~55,000/s with --granularity instruction); a 10,000-deep recursion runs in about 2 s.
 * Limits: application code run by custom class loaders during resolution (loadClass of an
 * application ClassLoader) or by application bootstrap methods is attributed as if called by
 * the block's final instruction; a thread killed mid-block by another thread's System.exit
 * counts its block in full.
 */

import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;

import java.io.*;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

public final class CctOracle {

    // ------------------------------------------------------------------------------ options
    private final List<String> prefixes = new ArrayList<>();   // "com.acme."
    private final Set<String> exact = new HashSet<>();          // "Foo"
    private boolean countBytecodes = true;
    private boolean perInstruction = false;                     // --granularity instruction
    private int budget = 400;                                   // --breakpoint-budget: live block breakpoints
    private boolean trace = false;
    private String javaBin;
    private final List<String> jvmArgs = new ArrayList<>();
    private String classpath;
    private String mainClass;
    private final List<String> programArgs = new ArrayList<>();
    private Path out, stdoutFile, stderrFile;

    // ------------------------------------------------------------------------------ state
    private VirtualMachine vm;
    private EventRequestManager erm;
    private final Map<ThreadReference, TState> threads = new HashMap<>();
    private final List<TState> threadOrder = new ArrayList<>();
    private final Map<Method, MInfo> methods = new HashMap<>();
    private final Map<ReferenceType, TInfo> types = new HashMap<>();
    private final Map<String, ClassInfo> classInfos = new HashMap<>();
    private final List<String> warnings = new ArrayList<>();
    private long blockEvents, entries, exits, exceptions, suspendedSets, frameQueries, catchBreakpoints,
            instrumentedMethods, breakpoints;
    private int threadSeq;
    private boolean vmDead;

    // request kinds (request property "k")
    private static final Integer K_GLOBAL = 0, K_COUNT = 1, K_PROBE = 2, K_ENTRY = 3, K_CATCH = 4;
    private final Map<Method, List<BreakpointRequest>> instrumented = new HashMap<>();
    private final Map<Method, BreakpointRequest> probes = new HashMap<>();
    private final Set<Method> overriding = new HashSet<>();
    private final Set<ReferenceType> prepared = new HashSet<>();
    private int liveBlockBreakpoints;
    private long useSeq, evictions, evictedMethods;

    public static void main(String[] argv) {
        CctOracle o = new CctOracle();
        try {
            o.parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("CctOracle: " + e.getMessage());
            System.exit(2);
        }
        // trees as deep as the program's stacks are merged and written recursively: a big stack
        int[] status = {3};
        Thread worker = new Thread(null, () -> {
            try {
                o.run();
                status[0] = 0;
            } catch (Exception | StackOverflowError e) {
                System.err.println("CctOracle: debugger failed: " + e);
                e.printStackTrace();
            }
        }, "oracle", 1L << 30);
        worker.start();
        try {
            worker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.exit(status[0]);
    }

    private void parse(String[] a) {
        int i = 0;
        while (i < a.length && classpath == null) {
            String k = a[i++];
            switch (k) {
                case "--out": out = Paths.get(need(a, i++, k)); break;
                case "--stdout": stdoutFile = Paths.get(need(a, i++, k)); break;
                case "--stderr": stderrFile = Paths.get(need(a, i++, k)); break;
                case "--app": addPattern(need(a, i++, k)); break;
                case "--no-bytecodes": countBytecodes = false; break;
                case "--granularity": {
                    String g = need(a, i++, k);
                    if (!g.equals("block") && !g.equals("instruction")) throw new IllegalArgumentException("--granularity block|instruction");
                    perInstruction = g.equals("instruction");
                    break;
                }
                case "--trace": trace = true; break;
                case "--breakpoint-budget": budget = Integer.parseInt(need(a, i++, k)); break;
                case "--java": javaBin = need(a, i++, k); break;
                case "--jvm-arg": jvmArgs.add(need(a, i++, k)); break;
                case "--cp": classpath = need(a, i++, k); break;
                default: throw new IllegalArgumentException("unknown option " + k);
            }
        }
        if (classpath == null || i >= a.length) throw new IllegalArgumentException("need --cp CLASSPATH MAIN [ARGS...]");
        mainClass = a[i++];
        while (i < a.length) programArgs.add(a[i++]);
        if (out == null || stdoutFile == null || stderrFile == null) throw new IllegalArgumentException("need --out, --stdout, --stderr");
        if (prefixes.isEmpty() && exact.isEmpty()) throw new IllegalArgumentException("need at least one --app pattern");
        if (javaBin == null) javaBin = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        // drop patterns covered by others: overlapping request filters would duplicate events
        prefixes.sort(Comparator.comparingInt(String::length));
        List<String> kept = new ArrayList<>();
        for (String p : prefixes) if (kept.stream().noneMatch(p::startsWith)) kept.add(p);
        prefixes.clear();
        prefixes.addAll(kept);
        exact.removeIf(n -> prefixes.stream().anyMatch(n::startsWith));
    }

    private static String need(String[] a, int i, String k) {
        if (i >= a.length) throw new IllegalArgumentException(k + " needs a value");
        return a[i];
    }

    private void addPattern(String p) {
        if (p.endsWith("*")) prefixes.add(p.substring(0, p.length() - 1));
        else if (p.endsWith(".") || p.endsWith("$")) prefixes.add(p);
        else exact.add(p);
    }

    boolean isAppName(String name) {
        if (name.indexOf('/') >= 0 || name.contains("$$Lambda")) return false;   // hidden classes
        if (exact.contains(name)) return true;
        for (String p : prefixes) if (name.startsWith(p)) return true;
        return false;
    }

    /** JDI class filters, one per request (the filters of one request are ANDed). */
    private List<String> jdiFilters() {
        List<String> f = new ArrayList<>();
        for (String p : prefixes) f.add(p + "*");
        f.addAll(exact);
        return f;
    }

    // ------------------------------------------------------------------------------ CCT nodes
    static final class Node {
        final String method, kind;      // kind: null, "jdk", "uninstrumented"
        long calls, bytecodes;
        final LinkedHashMap<String, Node> children = new LinkedHashMap<>(4);

        Node(String method, String kind) { this.method = method; this.kind = kind; }

        Node child(String m, String k) {
            String key = k == null ? m : m + "\u0000" + k;
            Node c = children.get(key);
            if (c == null) children.put(key, c = new Node(m, k));
            return c;
        }

        void mergeInto(Node target) {
            target.calls += calls;
            target.bytecodes += bytecodes;
            for (Node c : children.values()) c.mergeInto(target.child(c.method, c.kind));
        }
    }

    /** Per-method facts, computed once. */
    final class MInfo {
        final Method method;
        final TInfo type;
        final boolean app;
        final String name, desc, nodeName;
        final boolean clinit;
        byte[] code;                      // lazily
        Blocks blocks;                    // lazily
        long lastUse;                     // for eviction: order of the last entry
        Map<Integer, Ref> refs;           // resolved invoke sites, by code index

        MInfo(Method m) {
            method = m;
            type = tinfo(m.declaringType());
            app = type.app;
            name = m.name();
            desc = m.signature();
            nodeName = type.name + "." + name + desc;
            clinit = name.equals("<clinit>");
        }

        byte[] code() {
            if (code == null) code = method.bytecodes();
            return code;
        }

        Blocks blocks() {
            if (blocks == null) blocks = new Blocks(code(), perInstruction ? null : handlers(this));
            return blocks;
        }
    }

    /**
     * The method's code cut into blocks that one breakpoint (at the leader) counts: a block ends
     * after a branch, switch, return, athrow, ret, invoke, new, getstatic or putstatic (the only
     * instructions that can start application code: calls and class initialisation), and before
     * branch targets and exception handlers. With handlers == null every instruction is a block.
     */
    static final class Blocks {
        final int[] blockAt;              // code index -> block number (-1 inside an instruction)
        final int[] upTo;                 // code index -> instructions of its block up to and including it
        final int[] leader, count, last;  // per block

        Blocks(byte[] code, int[] handlers) {
            int n = code.length;
            boolean[] lead = new boolean[n + 1];
            boolean[] insn = new boolean[n];
            lead[0] = true;
            for (int i = 0; i < n; i += insnLength(code, i)) {
                insn[i] = true;
                int op = code[i] & 0xff, len = insnLength(code, i);
                if (handlers == null) lead[i] = true;
                if ((op >= 0x99 && op <= 0xa8) || op == 0xc6 || op == 0xc7) {
                    lead[i + (short) u2(code, i + 1)] = true;
                    lead[i + len] = true;
                } else if (op == 0xc8 || op == 0xc9) {
                    lead[i + s4(code, i + 1)] = true;
                    lead[i + len] = true;
                } else if (op == 0xaa || op == 0xab) {
                    int p = (i + 4) & ~3;
                    lead[i + s4(code, p)] = true;
                    if (op == 0xaa) {
                        int lo = s4(code, p + 4), hi = s4(code, p + 8);
                        for (int k = 0; k <= hi - lo; k++) lead[i + s4(code, p + 12 + 4 * k)] = true;
                    } else {
                        int pairs = s4(code, p + 4);
                        for (int k = 0; k < pairs; k++) lead[i + s4(code, p + 12 + 8 * k)] = true;
                    }
                    lead[i + len] = true;
                } else if ((op >= 0xac && op <= 0xb1) || op == 0xbf || op == 0xa9 || (op == 0xc4 && (code[i + 1] & 0xff) == 0xa9)
                        || (op >= 0xb6 && op <= 0xba) || op == 0xbb || op == 0xb2 || op == 0xb3) {
                    lead[i + len] = true;
                }
            }
            if (handlers != null) for (int h : handlers) lead[h] = true;
            blockAt = new int[n];
            upTo = new int[n];
            Arrays.fill(blockAt, -1);
            int blocks = 0;
            for (int i = 0; i < n; i++) if (insn[i] && lead[i]) blocks++;
            leader = new int[blocks];
            count = new int[blocks];
            last = new int[blocks];
            int bno = -1;
            for (int i = 0; i < n; i++) {
                if (!insn[i]) continue;
                if (lead[i]) leader[++bno] = i;
                blockAt[i] = bno;
                upTo[i] = ++count[bno];
                last[bno] = i;
            }
        }
    }

    /**
     * Handler pcs of every exception table entry of the method, from its class file; null when
     * unknown (no class file on the class path, or one whose code is not the loaded code).
     */
    private int[] handlers(MInfo mi) {
        if (!handlerTables.containsKey(mi.type.name)) handlerTables.put(mi.type.name, readHandlerTables(mi.type.name));
        Map<String, int[]> all = handlerTables.get(mi.type.name);
        int[] h = all == null ? null : all.get(mi.name + mi.desc);
        if (h == null || h[0] != mi.code().length) return null;
        return Arrays.copyOfRange(h, 1, h.length);            // h[0]: the class file's code length
    }

    private Map<String, int[]> readHandlerTables(String className) {
        byte[] bytes = classBytes(className, null);
        if (bytes == null) return null;
        int[] end = new int[1];
        Object[] cp = parseConstantPool(bytes, 10, u2(bytes, 8), end);
        int p = end[0] + 6;
        p += 2 + 2 * u2(bytes, p);                              // interfaces
        int nf = u2(bytes, p);
        p += 2;
        for (int i = 0; i < nf; i++) p = skipMember(bytes, p);
        int nm = u2(bytes, p);
        p += 2;
        Map<String, int[]> out = new HashMap<>();
        for (int i = 0; i < nm; i++) {
            String key = (String) cp[u2(bytes, p + 2)] + cp[u2(bytes, p + 4)];
            int na = u2(bytes, p + 6);
            int q = p + 8;
            int[] h = {0};
            for (int a = 0; a < na; a++) {
                int len = s4(bytes, q + 2);
                if ("Code".equals(cp[u2(bytes, q)])) {
                    int codeLen = s4(bytes, q + 10);
                    int t = q + 14 + codeLen;
                    int ne = u2(bytes, t);
                    h = new int[ne + 1];
                    h[0] = codeLen;
                    for (int e = 0; e < ne; e++) h[e + 1] = u2(bytes, t + 2 + 8 * e + 4);
                }
                q += 6 + len;
            }
            out.put(key, h);
            p = q;
        }
        return out;
    }

    private final Map<String, Map<String, int[]>> handlerTables = new HashMap<>();

    /** Per-type facts of types the program runs (JDI mirrors). */
    final class TInfo {
        final ReferenceType type;
        final String name;
        final boolean app;
        Object[] cp;                      // parsed constant pool, lazily
        Set<String> supertypes;           // names of all supertypes and itself, lazily

        TInfo(ReferenceType t) {
            type = t;
            name = t.name();
            app = isAppName(name);
        }

        Set<String> supertypes() {
            if (supertypes == null) supertypes = classInfo(name, type.classLoader()).supertypes();
            return supertypes;
        }
    }

    /** A class as method resolution sees it: from JDI when prepared, else from its class file. */
    final class ClassInfo {
        String name, superName;
        String[] interfaces = new String[0];
        boolean isInterface, jdk;
        final List<String[]> methods = new ArrayList<>();   // {name, desc, flags as decimal}
        ClassLoaderReference loader;
        Set<String> supertypes;

        int flags(String n, String d) {
            for (String[] m : methods) if (m[0].equals(n) && m[1].equals(d)) return Integer.parseInt(m[2]);
            return -1;
        }

        Set<String> supertypes() {
            if (supertypes == null) {
                Set<String> s = new LinkedHashSet<>();
                s.add(name);
                if (superName != null) s.addAll(classInfo(superName, loader).supertypes());
                for (String i : interfaces) s.addAll(classInfo(i, loader).supertypes());
                if (isInterface) s.add("java.lang.Object");
                supertypes = s;
            }
            return supertypes;
        }
    }

    /** A resolved invoke site: the boundary node's name and kind. */
    static final class Ref {
        int op;
        String name, desc;
        String nodeName, kind;
        String declClass;                 // binary name of the resolved method's class; null for indy
        boolean declIsApp;
    }

    /** An application frame of the shadow stack. */
    static final class Frame {
        MInfo m;
        Node node;
        int invokeAt = -1;               // code index of the invoke in progress, -1 when none
        int block = -1;                  // block in progress (counted in full at its start)
        boolean abrupt;                  // an exception went into a native frame here: may be gone
        Node boundary;                   // boundary node already counted for that invoke
    }

    final class TState {
        final ThreadReference thread;
        final String name;
        final Node root = new Node("<root>", null);
        Frame[] stack = new Frame[64];
        int sp;
        int order = -1;
        ExceptionRequest exc;
        BreakpointRequest catchBp;       // pending disambiguation of a catch
        int[] catchDepths;               // absolute depth of each shadow frame at the throw

        TState(ThreadReference t, String name) {
            thread = t;
            this.name = name;
        }

        Frame top() { return sp == 0 ? null : stack[sp - 1]; }

        Frame push(MInfo m, Node n) {
            if (sp == stack.length) stack = Arrays.copyOf(stack, sp * 2);
            Frame f = stack[sp];
            if (f == null) stack[sp] = f = new Frame();
            f.m = m;
            f.node = n;
            f.invokeAt = -1;
            f.boundary = null;
            f.block = -1;
            f.abrupt = false;
            sp++;
            if (order < 0) order = threadSeq++;
            return f;
        }
    }

    MInfo minfo(Method m) {
        MInfo i = methods.get(m);
        if (i == null) methods.put(m, i = new MInfo(m));
        return i;
    }

    TInfo tinfo(ReferenceType t) {
        TInfo i = types.get(t);
        if (i == null) types.put(t, i = new TInfo(t));
        return i;
    }

    void warn(String w) {
        if (warnings.size() < 200) warnings.add(w);
        if (trace) System.err.println("WARNING " + w);
    }

    private static Object kind(EventRequest r) {
        Object k = r == null ? null : r.getProperty("k");
        return k == null ? K_GLOBAL : k;
    }

    // ------------------------------------------------------------------------------ launch
    private void run() throws Exception {
        ListeningConnector lc = null;
        for (ListeningConnector c : Bootstrap.virtualMachineManager().listeningConnectors())
            if (c.name().equals("com.sun.jdi.SocketListen")) lc = c;
        if (lc == null) throw new IllegalStateException("no com.sun.jdi.SocketListen connector");
        Map<String, Connector.Argument> ca = lc.defaultArguments();
        ca.get("port").setValue("0");
        if (ca.containsKey("localAddress")) ca.get("localAddress").setValue("127.0.0.1");
        if (ca.containsKey("timeout")) ca.get("timeout").setValue("60000");
        String address = lc.startListening(ca);
        String port = address.substring(address.lastIndexOf(':') + 1);

        List<String> cmd = new ArrayList<>();
        cmd.add(javaBin);
        cmd.add("-agentlib:jdwp=transport=dt_socket,server=n,suspend=y,address=127.0.0.1:" + port);
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(programArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectOutput(stdoutFile.toFile());
        pb.redirectError(stderrFile.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process proc = pb.start();
        long t0 = System.nanoTime();
        try {
            vm = lc.accept(ca);
        } catch (Exception e) {
            proc.destroyForcibly();
            throw e;
        } finally {
            try { lc.stopListening(ca); } catch (Exception ignored) { }
        }
        erm = vm.eventRequestManager();
        eventLoop();
        int exit = proc.waitFor();
        double secs = (System.nanoTime() - t0) / 1e9;
        writeProfile(exit, secs);
    }

    // ------------------------------------------------------------------------------ requests
    private void setUp() {
        for (String f : jdiFilters()) {
            MethodEntryRequest me = erm.createMethodEntryRequest();
            me.addClassFilter(f);
            me.setSuspendPolicy(EventRequest.SUSPEND_NONE);
            me.enable();
            MethodExitRequest mx = erm.createMethodExitRequest();
            mx.addClassFilter(f);
            mx.setSuspendPolicy(EventRequest.SUSPEND_NONE);
            mx.enable();
            ClassPrepareRequest cp = erm.createClassPrepareRequest();
            cp.addClassFilter(f);
            cp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
            cp.enable();
        }
        // classes outside the patterns and the JDK (plugins, lambda proxies) may override
        // application methods: see foreignPrepared
        ClassPrepareRequest foreign = erm.createClassPrepareRequest();
        for (String x : new String[] {"java.*", "javax.*", "jdk.*", "sun.*", "com.sun.*"}) foreign.addClassExclusionFilter(x);
        foreign.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        foreign.enable();
        ThreadStartRequest ts = erm.createThreadStartRequest();
        ts.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        ts.enable();
        ThreadDeathRequest td = erm.createThreadDeathRequest();
        td.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        td.enable();
        VMDeathRequest vd = erm.createVMDeathRequest();
        vd.setSuspendPolicy(EventRequest.SUSPEND_ALL);     // keep the VM alive until the queue is drained
        vd.enable();
        for (ThreadReference t : vm.allThreads()) startThread(t);
    }

    private TState startThread(ThreadReference t) {
        TState s = threads.get(t);
        if (s != null) return s;
        String name;
        try { name = t.name(); } catch (ObjectCollectedException e) { name = "?"; }
        s = new TState(t, name);
        threads.put(t, s);
        threadOrder.add(s);
        try {
            ExceptionRequest xr = erm.createExceptionRequest(null, true, true);
            xr.addThreadFilter(t);
            xr.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            xr.enable();
            s.exc = xr;
        } catch (IllegalThreadStateException | ObjectCollectedException e) {
            // a thread that already ended: nothing to follow
        }
        return s;
    }

    private TState state(ThreadReference t) {
        TState s = threads.get(t);
        if (s == null) {
            warn("event of a thread without ThreadStart: " + t);
            s = startThread(t);
        }
        return s;
    }

    /**
     * A probe (suspending breakpoint at bytecode 0) on every method of an application class: the
     * first entry puts breakpoints on all its instructions. Methods that override another keep a
     * suspending breakpoint at bytecode 0: their entries need a look at the caller frame.
     */
    private void classPrepared(ReferenceType t) {
        if (!prepared.add(t)) return;                           // matched by two requests
        if (!isAppName(t.name())) {
            foreignPrepared(t);
            return;
        }
        Set<String> inherited = new HashSet<>();
        ClassInfo ci = classInfo(t.name(), t.classLoader());
        for (String s : ci.supertypes()) {
            if (s.equals(ci.name)) continue;
            for (String[] m : classInfo(s, t.classLoader()).methods) {
                int fl = Integer.parseInt(m[2]);
                if ((fl & 0x000A) == 0 && !m[0].startsWith("<")) inherited.add(m[0] + m[1]);   // not private/static
            }
        }
        for (Method m : t.methods()) {
            if (m.isAbstract() || m.isNative()) continue;
            Location l = m.locationOfCodeIndex(0);
            if (l == null) continue;
            boolean overrides = !m.isStatic() && !m.isPrivate() && !m.isConstructor() && inherited.contains(m.name() + m.signature());
            BreakpointRequest bp = erm.createBreakpointRequest(l);
            bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            bp.putProperty("k", overrides ? K_ENTRY : K_PROBE);
            bp.enable();
            breakpoints++;
            if (overrides) overriding.add(m);
            else probes.put(m, bp);
        }
    }

    /**
     * A class that is neither application nor JDK code (a plugin, a library, a lambda proxy):
     * an application method it overrides may be entered through it (Fancy.describe() calling
     * super.describe() when main called base.describe()), so the entries of that method need a
     * look at the caller as well: it gets the suspending entry breakpoint.
     */
    private void foreignPrepared(ReferenceType t) {
        if (!(t instanceof ClassType)) return;
        List<ReferenceType> appSupers = new ArrayList<>();
        for (ClassType s = ((ClassType) t).superclass(); s != null; s = s.superclass()) if (isAppName(s.name())) appSupers.add(s);
        for (InterfaceType i : ((ClassType) t).allInterfaces()) if (isAppName(i.name())) appSupers.add(i);
        if (appSupers.isEmpty()) return;
        for (Method m : t.methods()) {
            if (m.isStatic() || m.isPrivate() || m.isConstructor() || m.isStaticInitializer()) continue;
            for (ReferenceType s : appSupers) {
                for (Method sm : s.methods()) {
                    if (sm.isStatic() || sm.isPrivate() || sm.isAbstract() || sm.isNative() || overriding.contains(sm)) continue;
                    if (!sm.name().equals(m.name()) || !sm.signature().equals(m.signature())) continue;
                    BreakpointRequest bp = erm.createBreakpointRequest(sm.locationOfCodeIndex(0));
                    bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    bp.putProperty("k", K_ENTRY);
                    bp.enable();
                    breakpoints++;
                    overriding.add(sm);
                    BreakpointRequest probe = probes.remove(sm);
                    if (probe != null) deleteQuietly(probe);         // the entry breakpoint probes now
                }
            }
        }
    }

    /**
     * Breakpoints (not suspending) at every block leader of m. Called while the thread is
     * suspended at the probe for bytecode 0, which counts that execution of block 0: a breakpoint
     * created during a breakpoint callback does not fire for that same execution.
     */
    private void instrument(Method m) {
        if (instrumented.containsKey(m)) return;
        Blocks bl = minfo(m).blocks();
        if (budget > 0 && liveBlockBreakpoints + bl.leader.length > budget) evict(m, budget / 2);
        instrumentedMethods++;
        BreakpointRequest probe = probes.remove(m);
        List<BreakpointRequest> list = new ArrayList<>(bl.leader.length);
        for (int i : bl.leader) {
            if (i == 0 && probe == null) continue;             // the suspending entry breakpoint stays
            BreakpointRequest bp = erm.createBreakpointRequest(m.locationOfCodeIndex(i));
            bp.setSuspendPolicy(EventRequest.SUSPEND_NONE);
            bp.putProperty("k", K_COUNT);
            bp.enable();
            list.add(bp);
            breakpoints++;
        }
        instrumented.put(m, list);
        liveBlockBreakpoints += list.size();
        if (probe != null) deleteQuietly(probe);
    }

    /*
     * JDWP checks every breakpoint request on every breakpoint event (about 0.1 us each), so
     * many live breakpoints slow every event down. Over the budget, the whole VM stops, and
     * the least recently entered methods that are on no thread's stack lose their breakpoints
     * and get their probe back (a later entry instruments them again).
     */
    private void evict(Method keep, int target) {
        evictions++;
        vm.suspend();
        try {
            Set<Method> onStack = new HashSet<>();
            onStack.add(keep);
            for (ThreadReference t : vm.allThreads()) {
                try {
                    for (StackFrame f : t.frames()) onStack.add(f.location().method());
                } catch (IncompatibleThreadStateException | ObjectCollectedException | InvalidStackFrameException e) {
                    // a thread that is not running Java code
                }
            }
            List<Method> victims = new ArrayList<>();
            for (Method m : instrumented.keySet()) if (!onStack.contains(m)) victims.add(m);
            victims.sort(Comparator.comparingLong(m -> minfo(m).lastUse));
            for (Method v : victims) {
                if (liveBlockBreakpoints <= target) break;
                List<BreakpointRequest> list = instrumented.remove(v);
                if (!overriding.contains(v)) {
                    BreakpointRequest probe = erm.createBreakpointRequest(v.locationOfCodeIndex(0));
                    probe.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    probe.putProperty("k", K_PROBE);
                    probe.enable();
                    probes.put(v, probe);
                }
                for (BreakpointRequest bp : list) deleteQuietly(bp);
                liveBlockBreakpoints -= list.size();
                evictedMethods++;
            }
        } finally {
            vm.resume();
        }
    }

    // ------------------------------------------------------------------------------ event loop
    private void eventLoop() throws InterruptedException {
        EventQueue q = vm.eventQueue();
        boolean connected = true;
        Event[] buf = new Event[8];
        boolean[] done = new boolean[8];
        while (connected) {
            EventSet set;
            try {
                set = q.remove();
            } catch (VMDisconnectedException e) {
                break;
            }
            boolean suspended = set.suspendPolicy() != EventRequest.SUSPEND_NONE;
            if (suspended) suspendedSets++;
            int n = 0;
            for (Event e : set) {
                if (n == buf.length) {
                    buf = Arrays.copyOf(buf, n * 2);
                    done = new boolean[n * 2];
                }
                buf[n++] = e;
            }
            Arrays.fill(done, 0, n, false);
            try {
                for (int i = 0; i < n; i++) {
                    if (done[i]) continue;
                    done[i] = true;
                    Event e = buf[i];
                    if (trace) traceEvent(e, suspended);
                    if (e instanceof BreakpointEvent) {
                        BreakpointEvent be = (BreakpointEvent) e;
                        Object k = kind(e.request());
                        ThreadReference t = be.thread();
                        if (k == K_CATCH) {
                            onCatchBreakpoint(state(t), be);
                            continue;
                        }
                        Location l = be.location();
                        boolean probe = k == K_PROBE || k == K_ENTRY;
                        if (n > 1) {
                            // one execution of one bytecode may come as several co-located breakpoints
                            for (int j = i + 1; j < n; j++) {
                                if (done[j] || !(buf[j] instanceof BreakpointEvent)) continue;
                                BreakpointEvent o = (BreakpointEvent) buf[j];
                                if (!o.thread().equals(t) || !o.location().equals(l)) continue;
                                done[j] = true;
                                Object ok = kind(o.request());
                                if (trace) traceEvent(o, suspended);
                                if (ok == K_CATCH) onCatchBreakpoint(state(t), o);   // unwind before counting
                                probe |= ok == K_PROBE || ok == K_ENTRY;
                            }
                        }
                        onBlock(state(t), l);
                        if (probe && suspended) instrument(l.method());
                    } else if (e instanceof MethodEntryEvent) {
                        MethodEntryEvent s = (MethodEntryEvent) e;
                        onEntry(state(s.thread()), s.method(), suspended);
                    } else if (e instanceof MethodExitEvent) {
                        MethodExitEvent s = (MethodExitEvent) e;
                        onExit(state(s.thread()), s.method());
                    } else if (e instanceof ExceptionEvent) {
                        onException(state(((ExceptionEvent) e).thread()), (ExceptionEvent) e);
                    } else if (e instanceof ClassPrepareEvent) {
                        classPrepared(((ClassPrepareEvent) e).referenceType());
                    } else if (e instanceof ThreadStartEvent) {
                        startThread(((ThreadStartEvent) e).thread());
                    } else if (e instanceof ThreadDeathEvent) {
                        onThreadDeath(((ThreadDeathEvent) e).thread());
                    } else if (e instanceof VMStartEvent) {
                        setUp();
                    } else if (e instanceof VMDeathEvent) {
                        onVmDeath();
                    } else if (e instanceof VMDisconnectEvent) {
                        onVmDeath();
                        connected = false;
                    }
                }
            } catch (VMDisconnectedException e) {
                onVmDeath();
                break;
            }
            if (suspended && connected) {
                try { set.resume(); } catch (VMDisconnectedException e) { onVmDeath(); break; }
            }
        }
    }

    private void traceEvent(Event e, boolean suspended) {
        String k = e.getClass().getSimpleName().replace("EventImpl", "");
        if (e instanceof LocatableEvent) {
            Location l = ((LocatableEvent) e).location();
            System.err.println((suspended ? "S " : "  ") + k + "/" + kind(e.request()) + " " + ((LocatableEvent) e).thread().uniqueID()
                    + " " + l.declaringType().name() + "." + l.method().name() + "@" + l.codeIndex());
        } else {
            System.err.println((suspended ? "S " : "  ") + k);
        }
    }

    // ------------------------------------------------------------------------------ handlers
    /** A block starts executing: all its instructions count now (see onException for the rest). */
    private void onBlock(TState s, Location loc) {
        MInfo mi = minfo(loc.method());
        if (!mi.app) return;
        Blocks bl = mi.blocks();
        int b = bl.blockAt[(int) loc.codeIndex()];
        if (b < 0 || bl.leader[b] != loc.codeIndex()) {
            warn("breakpoint inside a block at " + mi.nodeName + "@" + loc.codeIndex());
            return;
        }
        blockEvents++;
        Frame f = s.top();
        if (f == null || f.m != mi) f = resync(s, mi, "block");
        if (f.invokeAt >= 0) finishInvoke(f);                   // returned or threw without a direct entry
        f.node.bytecodes += bl.count[b];
        f.block = b;
        int lastAt = bl.last[b];
        int op = mi.code()[lastAt] & 0xff;
        if (op >= 0xb6 && op <= 0xba) {                         // invokevirtual .. invokedynamic
            f.invokeAt = lastAt;                                // nothing else in the block runs other code
            f.boundary = null;
        }
    }

    /** The shadow stack disagrees with an event: repair it as well as possible and report it. */
    private Frame resync(TState s, MInfo mi, String what) {
        // frames an exception may have left through a native frame, without an event (see onException)
        while (s.sp > 0 && s.top().abrupt && s.top().m != mi) popFrame(s);
        if (s.sp > 0 && s.top().m == mi) {
            s.top().abrupt = false;
            return s.top();
        }
        warn(what + " in " + mi.nodeName + " but the shadow stack of thread '" + s.name + "' has "
                + (s.sp == 0 ? "no frame" : s.top().m.nodeName) + " on top");
        for (int i = s.sp - 1; i >= 0; i--) {
            if (s.stack[i].m == mi) {
                while (s.sp > i + 1) popFrame(s);
                return s.top();
            }
        }
        Frame t = s.top();
        return s.push(mi, (t == null ? s.root : t.node).child(mi.nodeName, null));
    }

    private void onEntry(TState s, Method m, boolean suspended) {
        MInfo mi = minfo(m);
        if (!mi.app) return;
        entries++;
        mi.lastUse = ++useSeq;
        Frame f = s.top();
        Node parent;
        if (f == null) {
            parent = s.root;
        } else if (f.invokeAt < 0) {
            parent = f.node;                                    // new/getstatic/putstatic -> <clinit>
        } else {
            Ref r = ref(f);
            if (isDirect(s, f, r, mi, suspended)) {
                parent = f.node;
                if (!mi.clinit) {
                    f.invokeAt = -1;
                    f.boundary = null;
                }
            } else {
                parent = boundary(f, r);
            }
        }
        Node n = parent.child(mi.nodeName, null);
        n.calls++;
        s.push(mi, n);
    }

    private boolean isDirect(TState s, Frame f, Ref r, MInfo mi, boolean suspended) {
        if (mi.clinit) return r.op == 0xb8 && r.declIsApp;   // invokestatic initialises the declaring class
        if (r.op == 0xba) return false;                        // invokedynamic: bootstrap, proxies
        if (!r.name.equals(mi.name) || !r.desc.equals(mi.desc)) return false;
        if (r.op == 0xb8 || r.op == 0xb7) return mi.type.name.equals(r.declClass);
        // the resolved method itself: direct, unless a foreign override may call it (super.m())
        if (mi.type.name.equals(r.declClass) && !overriding.contains(mi.method)) return true;
        if (!mi.type.supertypes().contains(r.declClass)) return false;
        // mi overrides the resolved method: was it called directly or by a JDK method / proxy?
        if (!suspended) {
            warn("cannot classify the entry of " + mi.nodeName + " (event set not suspended); assuming a direct call");
            return true;
        }
        frameQueries++;
        try {
            StackFrame caller = s.thread.frame(1);
            MInfo c = minfo(caller.location().method());
            if (c.app && c != f.m) warn("caller of " + mi.nodeName + " is " + c.nodeName + ", shadow stack says " + f.m.nodeName);
            return c.app;
        } catch (IncompatibleThreadStateException | IndexOutOfBoundsException e) {
            warn("frame(1) failed at entry of " + mi.nodeName + ": " + e);
            return true;
        }
    }

    private Node boundary(Frame f, Ref r) {
        if (f.boundary == null) {
            f.boundary = f.node.child(r.nodeName, r.kind);
            f.boundary.calls++;
        }
        return f.boundary;
    }

    private void finishInvoke(Frame f) {
        if (f.boundary == null) boundary(f, ref(f));
        f.invokeAt = -1;
        f.boundary = null;
    }

    private void onExit(TState s, Method m) {
        MInfo mi = minfo(m);
        if (!mi.app) return;
        exits++;
        Frame f = s.top();
        if (f == null || f.m != mi) {
            resync(s, mi, "exit");
        }
        popFrame(s);
    }

    private void popFrame(TState s) {
        Frame f = s.stack[--s.sp];
        if (f.invokeAt >= 0) finishInvoke(f);
        f.m = null;
        f.node = null;
    }

    private void onThreadDeath(ThreadReference t) {
        TState s = threads.get(t);
        if (s == null) return;
        // Frames left only when the VM exits under them (System.exit, Runtime.halt): every abrupt
        // completion was followed through its ExceptionEvent. Calls in progress count.
        while (s.sp > 0) popFrame(s);
        deleteQuietly(s.exc);
        deleteQuietly(s.catchBp);
        s.exc = null;
        s.catchBp = null;
    }

    private void deleteQuietly(EventRequest r) {
        if (r == null) return;
        try {
            erm.deleteEventRequest(r);
        } catch (Exception ignored) {
            // the thread or the VM is gone
        }
    }

    /** The VM dies (System.exit, end of main with daemon threads): calls in progress count. */
    private void onVmDeath() {
        if (vmDead) return;
        vmDead = true;
        for (TState s : threadOrder)
            for (int i = 0; i < s.sp; i++)
                if (s.stack[i].invokeAt >= 0) finishInvoke(s.stack[i]);
    }

    // ------------------------------------------------------------------------------ instructions
    static int insnLength(byte[] c, int i) {
        int op = c[i] & 0xff;
        if (op == 0xaa) {                                       // tableswitch
            int p = (i + 4) & ~3;
            int lo = s4(c, p + 4), hi = s4(c, p + 8);
            return p + 12 + 4 * (hi - lo + 1) - i;
        }
        if (op == 0xab) {                                       // lookupswitch
            int p = (i + 4) & ~3;
            return p + 8 + 8 * s4(c, p + 4) - i;
        }
        if (op == 0xc4) return (c[i + 1] & 0xff) == 0x84 ? 6 : 4;   // wide
        return LENGTH[op];
    }

    private static final int[] LENGTH = new int[256];

    static {
        Arrays.fill(LENGTH, 1);
        for (int o : new int[] {0x10, 0x12, 0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3a, 0xa9, 0xbc}) LENGTH[o] = 2;
        for (int o : new int[] {0x11, 0x13, 0x14, 0x84, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xbb, 0xbd, 0xc0, 0xc1, 0xc6, 0xc7}) LENGTH[o] = 3;
        for (int o = 0x99; o <= 0xa8; o++) LENGTH[o] = 3;
        LENGTH[0xc5] = 4;
        LENGTH[0xb9] = 5;
        LENGTH[0xba] = 5;
        LENGTH[0xc8] = 5;
        LENGTH[0xc9] = 5;
    }

    private static int s4(byte[] b, int p) {
        return ((b[p] & 0xff) << 24) | ((b[p + 1] & 0xff) << 16) | ((b[p + 2] & 0xff) << 8) | (b[p + 3] & 0xff);
    }

    // ------------------------------------------------------------------------------ exceptions
    private void onException(TState s, ExceptionEvent ev) {
        exceptions++;
        if (s.sp == 0 && s.order < 0) return;                  // no application code ran in this thread yet
        ThreadReference t = s.thread;
        List<StackFrame> frames;
        try {
            frames = t.frames();
        } catch (IncompatibleThreadStateException e) {
            warn("frames() failed at an exception: " + e);
            return;
        }
        int n = frames.size();
        MInfo[] fm = new MInfo[n];
        int[] at = new int[n];
        for (int i = 0; i < n; i++) {
            Location l = frames.get(i).location();
            fm[i] = minfo(l.method());
            at[i] = (int) l.codeIndex();
        }
        int[] idx = mapShadow(s, fm, at, n);
        if (s.sp == 0) return;
        for (int j = 0; j < s.sp; j++) s.stack[j].abrupt = false;   // all seen alive

        // A frame's block was counted in full when it started: take back the instructions the
        // exception skips. (Frames below the top application frame stand at an invoke, which
        // ends its block: nothing to take back.)
        for (int j = 0; j < s.sp; j++) {
            Frame f = s.stack[j];
            if (f.block < 0) continue;
            Blocks bl = f.m.blocks();
            int here = at[idx[j]];
            if (bl.blockAt[here] != f.block) {
                warn("exception in thread '" + s.name + "': " + f.m.nodeName + " at " + here + ", outside the block in progress");
                continue;
            }
            int tail = bl.count[f.block] - bl.upTo[here];
            if (tail > 0) {
                f.node.bytecodes -= tail;
                f.block = -1;
            }
        }
        Frame top = s.top();
        int topAt = at[idx[s.sp - 1]];
        if (top.invokeAt >= 0 && top.boundary == null) {
            if (topAt != top.invokeAt) {
                top.invokeAt = -1;                              // thrown before the block's invoke
            } else if (idx[s.sp - 1] == 0 && ref(top).declIsApp) {
                // The invoke itself threw (null receiver, failed class initialisation): an invoke
                // that resolves to an application method then called nothing and counts nothing.
                top.invokeAt = -1;
            }
        }

        // JVMTI's catch location looks through two kinds of frame that stop an exception: a
        // <clinit> (the VM throws ExceptionInInitializerError, or the Error, anew at the
        // instruction that started the initialisation) and a native method (reflection's
        // invoke0 wraps it in InvocationTargetException). The unwinding stops there; what is
        // thrown next comes with its own event. limit: frames with index < limit may unwind.
        int limit = n;
        boolean nativeLimit = false;
        for (int i = 0; i < n; i++) {
            Method fmth = frames.get(i).location().method();
            if (fmth.isStaticInitializer()) {
                limit = i + 1;
                break;
            }
            if (fmth.isNative()) {
                limit = i;
                nativeLimit = true;
                break;
            }
        }
        Location cl = ev.catchLocation();
        if (nativeLimit) {
            // The native code may clear the exception, wrap it (a new event) or let it go on:
            // HotSpot then posts no new event and frames down to JVMTI's catch frame unwind
            // silently. Mark them; the next event in a frame below drops them (resync).
            int predicted = n;
            if (cl != null) {
                for (int i = limit; i < n; i++) {
                    if (frames.get(i).location().method().equals(cl.method())) {
                        predicted = i;
                        break;
                    }
                }
            }
            for (int j = 0; j < s.sp; j++) if (idx[j] >= limit && idx[j] < predicted) s.stack[j].abrupt = true;
        }
        int c;                                                  // frames with index < c unwind
        List<Integer> cands = new ArrayList<>();
        if (cl != null) {
            Method cm = cl.method();
            for (int i = 0; i < limit; i++) if (frames.get(i).location().method().equals(cm)) cands.add(i);
        }
        if (cands.isEmpty()) {
            c = limit;                                          // not caught before the limit
            if (cl != null && limit == n) {
                warn("catch location " + cl + " is in no frame");
                return;
            }
        } else {
            int first = unwound(idx, s.sp, cands.get(0));
            boolean same = true;
            for (int cand : cands) same &= unwound(idx, s.sp, cand) == first;
            if (!same) {
                // several frames run the catching method: stop at the handler and count frames
                int[] depths = new int[s.sp];
                for (int j = 0; j < s.sp; j++) depths[j] = n - idx[j];
                BreakpointRequest bp = erm.createBreakpointRequest(cl);
                bp.addThreadFilter(t);
                bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                bp.putProperty("k", K_CATCH);
                bp.enable();
                deleteQuietly(s.catchBp);
                s.catchBp = bp;
                s.catchDepths = depths;
                catchBreakpoints++;
                return;
            }
            c = cands.get(0);
        }
        while (s.sp > 0 && idx[s.sp - 1] < c) popFrame(s);
    }

    /**
     * Index in frames (0 = top) of each shadow frame. Shadow frames no longer on the stack are
     * dropped; application frames missing from the shadow stack are rebuilt (rule 1).
     */
    private int[] mapShadow(TState s, MInfo[] fm, int[] at, int n) {
        int[] idx = new int[Math.max(s.sp, 4)];
        int k = 0;
        int i = n - 1;
        for (; i >= 0; i--) {
            if (!fm[i].app) continue;
            if (k < s.sp && s.stack[k].m == fm[i]) {
                idx[k++] = i;
            } else {
                break;
            }
        }
        if (k < s.sp) {
            if (i >= 0 || k < s.sp - 1 || !s.stack[k].m.method.isNative())   // a native method that threw: expected
                warn("shadow stack of thread '" + s.name + "' lost " + (s.sp - k) + " frame(s) from " + s.stack[k].m.nodeName);
            while (s.sp > k) popFrame(s);
        }
        for (; i >= 0; i--) {
            if (!fm[i].app) continue;
            warn("shadow stack of thread '" + s.name + "' misses " + fm[i].nodeName + "; rebuilt from frames()");
            Frame below = s.top();
            Node parent;
            if (below == null) parent = s.root;
            else if (i + 1 < n && fm[i + 1] == below.m && idx[s.sp - 1] == i + 1) parent = below.node;
            else {
                int j = idx[s.sp - 1];
                if (below.invokeAt != at[j]) {
                    below.invokeAt = at[j];
                    below.boundary = null;
                }
                parent = boundary(below, ref(below));
            }
            s.push(fm[i], parent.child(fm[i].nodeName, null));
            if (s.sp > idx.length) idx = Arrays.copyOf(idx, s.sp * 2);
            idx[s.sp - 1] = i;
        }
        return idx;
    }

    private static int unwound(int[] idx, int sp, int c) {
        int u = 0;
        for (int j = sp - 1; j >= 0 && idx[j] < c; j--) u++;
        return u;
    }

    private void onCatchBreakpoint(TState s, BreakpointEvent b) {
        if (b.request() != s.catchBp) return;
        deleteQuietly(s.catchBp);
        s.catchBp = null;
        int depth;
        try {
            depth = s.thread.frameCount();
        } catch (IncompatibleThreadStateException e) {
            warn("frameCount() failed at a catch: " + e);
            return;
        }
        frameQueries++;
        int[] d = s.catchDepths;
        while (s.sp > 0 && s.sp <= d.length && d[s.sp - 1] > depth) popFrame(s);
    }

    // ------------------------------------------------------------------------------ resolution
    private Ref ref(Frame f) {
        MInfo mi = f.m;
        if (mi.refs == null) mi.refs = new HashMap<>();
        Ref r = mi.refs.get(f.invokeAt);
        if (r == null) {
            r = resolveSite(mi, f.invokeAt);
            mi.refs.put(f.invokeAt, r);
        }
        return r;
    }

    private Ref resolveSite(MInfo mi, int at) {
        byte[] code = mi.code();
        int op = code[at] & 0xff;
        int index = ((code[at + 1] & 0xff) << 8) | (code[at + 2] & 0xff);
        Object[] cp = constantPool(mi.type);
        Ref r = new Ref();
        r.op = op;
        int[] e = (int[]) cp[index];
        if (op == 0xba) {                                       // InvokeDynamic: {18, bsm, nat}
            int[] nat = (int[]) cp[e[2]];
            r.name = (String) cp[nat[1]];
            r.desc = (String) cp[nat[2]];
            r.nodeName = "invokedynamic." + r.name + r.desc;
            r.kind = "jdk";
            return r;
        }
        // Methodref / InterfaceMethodref: {tag, class, nat}
        boolean itf = e[0] == 11;
        String owner = (String) cp[((int[]) cp[e[1]])[1]];
        int[] nat = (int[]) cp[e[2]];
        r.name = (String) cp[nat[1]];
        r.desc = (String) cp[nat[2]];
        String ownerName = owner.startsWith("[") ? "java.lang.Object" : owner.replace('/', '.');
        ClassLoaderReference loader = mi.type.type.classLoader();
        ClassInfo decl = lookup(classInfo(ownerName, loader), r.name, r.desc, itf, loader);
        if (decl == null) {
            warn("cannot resolve " + ownerName + "." + r.name + r.desc + " from " + mi.nodeName + "@" + at);
            decl = classInfo(ownerName, loader);
        }
        r.declClass = decl.name;
        r.declIsApp = isAppName(decl.name);
        String[] poly = decl.flags(r.name, r.desc) < 0 ? signaturePolymorphic(decl, r.name) : null;
        r.nodeName = decl.name + "." + r.name + (poly != null ? poly[1] : r.desc);
        r.kind = decl.jdk ? "jdk" : "uninstrumented";
        return r;
    }

    /** JVMS 5.4.3.3 (itf false) and 5.4.3.4 (itf true) method lookup: the declaring class. */
    private ClassInfo lookup(ClassInfo c, String name, String desc, boolean itf, ClassLoaderReference loader) {
        if (c == null) return null;
        if (!itf) {
            for (ClassInfo k = c; k != null; k = k.superName == null ? null : classInfo(k.superName, loader)) {
                if (k.flags(name, desc) >= 0) return k;
                if (signaturePolymorphic(k, name) != null) return k;
            }
        } else {
            if (c.flags(name, desc) >= 0) return c;
            ClassInfo obj = classInfo("java.lang.Object", null);
            int fl = obj == null ? -1 : obj.flags(name, desc);
            if (fl >= 0 && (fl & 0x0001) != 0 && (fl & 0x0008) == 0) return obj;
        }
        // maximally specific superinterface methods
        List<ClassInfo> cands = new ArrayList<>();
        for (String s : c.supertypes()) {
            ClassInfo i = classInfo(s, loader);
            if (i == null || !i.isInterface || i == c) continue;
            int fl = i.flags(name, desc);
            if (fl >= 0 && (fl & 0x000A) == 0) cands.add(i);
        }
        if (cands.isEmpty()) return null;
        List<ClassInfo> maximal = new ArrayList<>();
        for (ClassInfo m : cands) {
            boolean more = false;
            for (ClassInfo o : cands) if (o != m && o.supertypes().contains(m.name)) more = true;
            if (!more) maximal.add(m);
        }
        ClassInfo concrete = null;
        int nConcrete = 0;
        for (ClassInfo m : maximal) if ((m.flags(name, desc) & 0x0400) == 0) { concrete = m; nConcrete++; }
        if (nConcrete == 1) return concrete;
        return maximal.isEmpty() ? cands.get(0) : maximal.get(0);
    }

    /** JVMS 2.9.3: the one native varargs method of that name in MethodHandle / VarHandle. */
    private static String[] signaturePolymorphic(ClassInfo k, String name) {
        if (!k.name.equals("java.lang.invoke.MethodHandle") && !k.name.equals("java.lang.invoke.VarHandle")) return null;
        String[] found = null;
        for (String[] m : k.methods) {
            if (!m[0].equals(name)) continue;
            if (found != null) return null;
            found = m;
        }
        return found != null && (Integer.parseInt(found[2]) & 0x0180) == 0x0180 ? found : null;
    }

    // ------------------------------------------------------------------------------ class facts
    ClassInfo classInfo(String name, ClassLoaderReference from) {
        ClassInfo ci = classInfos.get(name);
        if (ci != null) return ci;
        ReferenceType t = findType(name, from);
        if (t != null) {
            ci = new ClassInfo();
            ci.name = name;
            ci.loader = t.classLoader();
            ClassLoaderReference l = ci.loader;
            ci.jdk = l == null || l.referenceType().name().equals("jdk.internal.loader.ClassLoaders$PlatformClassLoader");
            if (t instanceof ClassType) {
                ClassType sc = ((ClassType) t).superclass();
                ci.superName = sc == null ? null : sc.name();
                ci.interfaces = ((ClassType) t).interfaces().stream().map(ReferenceType::name).toArray(String[]::new);
            } else if (t instanceof InterfaceType) {
                ci.isInterface = true;
                ci.interfaces = ((InterfaceType) t).superinterfaces().stream().map(ReferenceType::name).toArray(String[]::new);
            }
            // JDI marks synthetic methods with bit 0xf0000000 (negative): keep the class file's bits
            for (Method m : t.methods()) ci.methods.add(new String[] {m.name(), m.signature(), Integer.toString(m.modifiers() & 0xffff)});
        } else {
            ci = fromClassFile(name);
            if (ci == null) {
                warn("class " + name + " is neither loaded nor found on the class path");
                ci = new ClassInfo();
                ci.name = name;
                ci.superName = name.equals("java.lang.Object") ? null : "java.lang.Object";
                ci.jdk = name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")
                        || name.startsWith("sun.") || name.startsWith("com.sun.");
            }
            ci.loader = from;
        }
        classInfos.put(name, ci);
        return ci;
    }

    private ReferenceType findType(String name, ClassLoaderReference from) {
        List<ReferenceType> all = vm.classesByName(name);
        if (all.isEmpty()) return null;
        if (all.size() == 1) return all.get(0);
        for (ReferenceType t : all) if (Objects.equals(t.classLoader(), from)) return t;
        for (ReferenceType t : all) if (t.classLoader() == null) return t;
        return all.get(0);
    }

    private FileSystem jrt;

    /** Loaded but not prepared classes are invisible to JDI: read their class file. */
    private ClassInfo fromClassFile(String name) {
        boolean[] jdk = new boolean[1];
        byte[] bytes = classBytes(name, jdk);
        if (bytes == null) return null;
        ClassInfo ci = new ClassInfo();
        ci.name = name;
        ci.jdk = jdk[0];
        int[] end = new int[1];
        Object[] cp = parseConstantPool(bytes, 10, u2(bytes, 8), end);
        int p = end[0];
        int access = u2(bytes, p);
        ci.isInterface = (access & 0x0200) != 0;
        int sup = u2(bytes, p + 4);
        ci.superName = sup == 0 ? null : ((String) cp[((int[]) cp[sup])[1]]).replace('/', '.');
        int ni = u2(bytes, p + 6);
        p += 8;
        ci.interfaces = new String[ni];
        for (int i = 0; i < ni; i++, p += 2) ci.interfaces[i] = ((String) cp[((int[]) cp[u2(bytes, p)])[1]]).replace('/', '.');
        int nf = u2(bytes, p);
        p += 2;
        for (int i = 0; i < nf; i++) p = skipMember(bytes, p);
        int nm = u2(bytes, p);
        p += 2;
        for (int i = 0; i < nm; i++) {
            ci.methods.add(new String[] {(String) cp[u2(bytes, p + 2)], (String) cp[u2(bytes, p + 4)], Integer.toString(u2(bytes, p))});
            p = skipMember(bytes, p);
        }
        return ci;
    }

    /** The class file of a class: from the program's class path, else from the JDK image (jdk[0] = true). */
    private byte[] classBytes(String name, boolean[] jdk) {
        String rel = name.replace('.', '/') + ".class";
        for (String entry : classpath.split(File.pathSeparator)) {
            if (entry.isEmpty()) continue;
            try {
                Path p = Paths.get(entry);
                if (Files.isDirectory(p)) {
                    Path f = p.resolve(rel);
                    if (Files.isRegularFile(f)) return Files.readAllBytes(f);
                } else if (Files.isRegularFile(p)) {
                    try (ZipFile z = new ZipFile(p.toFile())) {
                        ZipEntry ze = z.getEntry(rel);
                        if (ze != null) try (InputStream in = z.getInputStream(ze)) { return in.readAllBytes(); }
                    }
                }
            } catch (IOException | InvalidPathException e) {
                // unreadable entry: try the next
            }
        }
        if (jdk == null) return null;
        try {
            if (jrt == null) jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
            int dot = name.lastIndexOf('.');
            Path pkg = jrt.getPath("/packages", dot < 0 ? "" : name.substring(0, dot));
            if (Files.isDirectory(pkg)) {
                try (DirectoryStream<Path> mods = Files.newDirectoryStream(pkg)) {
                    for (Path mod : mods) {
                        Path f = jrt.getPath("/modules", mod.getFileName().toString(), rel);
                        if (Files.isRegularFile(f)) {
                            jdk[0] = true;
                            return Files.readAllBytes(f);
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // no jrt file system
        }
        return null;
    }

    private static int skipMember(byte[] b, int p) {
        int na = u2(b, p + 6);
        p += 8;
        for (int i = 0; i < na; i++) p += 6 + s4(b, p + 2);
        return p;
    }

    private Object[] constantPool(TInfo t) {
        if (t.cp == null) t.cp = parseConstantPool(t.type.constantPool(), 0, t.type.constantPoolCount(), null);
        return t.cp;
    }

    /** Constant pool entries: String for Utf8, int[]{tag, a, b} for references, null otherwise. */
    private static Object[] parseConstantPool(byte[] b, int p, int count, int[] end) {
        Object[] cp = new Object[count];
        for (int i = 1; i < count; i++) {
            int tag = b[p++] & 0xff;
            switch (tag) {
                case 1: {
                    int len = u2(b, p);
                    cp[i] = utf8(b, p, len);
                    p += 2 + len;
                    break;
                }
                case 3: case 4: p += 4; break;
                case 5: case 6: p += 8; i++; break;
                case 7: case 8: case 16: case 19: case 20:
                    cp[i] = new int[] {tag, u2(b, p)};
                    p += 2;
                    break;
                case 9: case 10: case 11: case 12: case 17: case 18:
                    cp[i] = new int[] {tag, u2(b, p), u2(b, p + 2)};
                    p += 4;
                    break;
                case 15:
                    cp[i] = new int[] {tag, b[p] & 0xff, u2(b, p + 1)};
                    p += 3;
                    break;
                default:
                    throw new IllegalStateException("constant pool tag " + tag + " at entry " + i);
            }
        }
        if (end != null) end[0] = p;
        return cp;
    }

    private static int u2(byte[] b, int p) {
        return ((b[p] & 0xff) << 8) | (b[p + 1] & 0xff);
    }

    private static String utf8(byte[] b, int p, int len) {
        try {
            return new DataInputStream(new ByteArrayInputStream(b, p, 2 + len)).readUTF();   // modified UTF-8
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------------------ output
    private long totalBytecodes() {
        long n = 0;
        for (TState s : threadOrder) {
            ArrayDeque<Node> todo = new ArrayDeque<>();
            todo.add(s.root);
            while (!todo.isEmpty()) {
                Node x = todo.poll();
                n += x.bytecodes;
                todo.addAll(x.children.values());
            }
        }
        return n;
    }

    private void writeProfile(int exitCode, double secs) throws IOException {
        List<TState> used = new ArrayList<>();
        for (TState s : threadOrder) if (!s.root.children.isEmpty()) used.add(s);
        used.sort(Comparator.comparingInt(s -> s.order));
        Node merged = new Node("<root>", null);
        for (TState s : used) for (Node c : s.root.children.values()) c.mergeInto(merged.child(c.method, c.kind));
        StringBuilder sb = new StringBuilder(1 << 16);
        sb.append("{\"root\": ");
        node(sb, merged);
        sb.append(",\n\"threads\": [");
        for (int i = 0; i < used.size(); i++) {
            if (i > 0) sb.append(",\n");
            sb.append("{\"name\": ");
            str(sb, used.get(i).name);
            sb.append(", \"root\": ");
            node(sb, used.get(i).root);
            sb.append('}');
        }
        sb.append("],\n\"oracle\": {\"exitCode\": ").append(exitCode)
          .append(", \"seconds\": ").append(String.format(Locale.ROOT, "%.3f", secs))
          .append(", \"blockEvents\": ").append(blockEvents)
          .append(", \"bytecodes\": ").append(totalBytecodes())
          .append(", \"granularity\": \"").append(perInstruction ? "instruction" : "block").append('"')
          .append(", \"entries\": ").append(entries)
          .append(", \"exits\": ").append(exits)
          .append(", \"exceptions\": ").append(exceptions)
          .append(", \"suspendedSets\": ").append(suspendedSets)
          .append(", \"frameQueries\": ").append(frameQueries)
          .append(", \"catchBreakpoints\": ").append(catchBreakpoints)
          .append(", \"instrumentedMethods\": ").append(instrumentedMethods)
          .append(", \"evictions\": ").append(evictions)
          .append(", \"evictedMethods\": ").append(evictedMethods)
          .append(", \"breakpoints\": ").append(breakpoints)
          .append(", \"countBytecodes\": ").append(countBytecodes)
          .append(", \"warnings\": [");
        for (int i = 0; i < warnings.size(); i++) {
            if (i > 0) sb.append(", ");
            str(sb, warnings.get(i));
        }
        sb.append("]}}\n");
        Files.write(out, sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    private void node(StringBuilder sb, Node n) {
        sb.append("{\"method\": ");
        str(sb, n.method);
        if (n.kind != null) {
            sb.append(", \"kind\": ");
            str(sb, n.kind);
        }
        sb.append(", \"calls\": ").append(n.calls).append(", \"bytecodes\": ").append(countBytecodes ? n.bytecodes : 0)
          .append(", \"children\": [");
        boolean first = true;
        for (Node c : n.children.values()) {
            if (!first) sb.append(", ");
            first = false;
            node(sb, c);
        }
        sb.append("]}");
    }

    private static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (ch < 0x20) sb.append(String.format("\\u%04x", (int) ch));
                    else sb.append(ch);
            }
        }
        sb.append('"');
    }
}
