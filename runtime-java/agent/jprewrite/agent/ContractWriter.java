package jprewrite.agent;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The contract-only form of a class, written by the agent itself when Python cannot: the worker is
 * gone for good, or it failed both the full and the contract-only rewrite of the class. Classes
 * rewritten earlier pass CCT nodes to this one (they call {@code m$jp(args…, Node, int)}, the
 * interface dispatchers of {@code I$$jpmids}, {@code $jprewrite$class()}); this gives the class
 * exactly those members, with its own bodies unchanged, the way {@code instrument_class(...,
 * contract_only=True)} in {@code rewriter/instrument/instrumenter.py} does:
 *
 * <ul>
 * <li>a <b>delegating ESI</b> {@code m$jp(args…, Node caller, int site)} ({@code ACC_SYNTHETIC})
 * for every method the plan gives an ESI method: {@code caller.boundary(site, mid(kind
 * 2))}, then the original ({@code invokestatic}; {@code invokespecial} for the class's own body;
 * {@code invokeinterface}/{@code invokevirtual} for abstract methods). Delegators of a non-final
 * class's own overridable bodies start with the override check (an uninstrumented subclass's
 * override runs instead; a super call passes site -1 and skips it);</li>
 * <li>{@code public Class $jprewrite$class()} (classes of version 49+): the class literal when the
 * superclass is a JDK class, else null (the agent cannot see whether the application superclasses
 * are instrumented; null makes every override check ask the runtime, which is always right);</li>
 * <li>the holder {@code C$$jpmids} (version 49, no frames needed): {@code $jp$mids} filled by
 * {@code MethodId.get}, and for interfaces the static dispatchers instrumented callers use:
 * ESI-capable receiver ({@code ThreadRoot.esiCapable}, behind a two-class inline cache
 * {@code $jp$seen}) → the ESI method (publishing interfaces:
 * {@code caller.publishCall(site)} and the original method), else {@code caller.boundary(site,
 * mid(kind 2))} and the original method;</li>
 * <li>a pinned {@code serialVersionUID} for serializable classes (the default UID would change).</li>
 * </ul>
 *
 * <p>Which methods get an ESI follows {@code CctPlan.has_esi}, which depends only on the class file
 * itself once the class is known to be instrumented: every method with code, every abstract and
 * native method, except constructors and static initialisers, methods whose parameters plus the
 * two extra ones would pass 255 slots; in interfaces static methods from version 52 on, instance
 * methods only where the interface may take default methods (version 52+, and not an interface
 * with a static initialiser and no non-abstract instance method), which otherwise get publishing
 * dispatchers and no ESI methods. Whether the class is instrumented at all follows
 * {@code CctPlan.is_instrumented} as far as the class file shows it: not a module, annotation
 * interface, {@code java.lang.reflect.Proxy} subclass, class in a package of the JDK's system
 * modules, {@code jprewrite/*} class or holder, nor a class already rewritten (it declares
 * {@code $jprewrite$class}); the include/exclude patterns are the transformer's.
 */
final class ContractWriter {
    static final String NODE = "jprewrite/runtime/Node";
    static final String ROOT = "jprewrite/runtime/ThreadRoot";
    static final String MID = "jprewrite/runtime/MethodId";
    static final String MID_DESC = "L" + MID + ";";
    static final String MIDS_ARRAY = "[" + MID_DESC;
    static final String NODE_DESC = "L" + NODE + ";";
    static final String LEAF_NODE_DESC = "Ljprewrite/runtime/LeafNode;";
    static final String HOLDER_SUFFIX = "$$jpmids";
    static final String MIDS_FIELD = "$jp$mids";
    static final String SEEN_FIELD = "$jp$seen";
    static final String CLASS_METHOD = "$jprewrite$class";
    static final String MARKER_FIELD = "$jprewrite$instrumented";
    static final String ESI_NAME_SUFFIX = "$jp";
    static final String PROXY = "java/lang/reflect/Proxy";
    static final int KIND_UNINSTRUMENTED = 2;
    static final int ESI_FLAGS = ClassEditor.ACC_SYNTHETIC;
    private static final int MIDS_PER_CHUNK = 600;

    /** The class cannot be given its contract; the message says why (one line). */
    static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message, null, false, false);
        }
    }

    private final ClassEditor cf;
    private final String name;
    private final String holder;
    private final boolean isInterface;
    private final boolean publishing;
    private final boolean checkOverrides;
    private final List<Object[]> mids = new ArrayList<>();   // {className, name, descriptor, kind}
    private final Map<String, Integer> midIndex = new HashMap<>();
    private final List<ClassEditor.Member> dispatchers = new ArrayList<>();
    int delegators;

    private ContractWriter(ClassEditor cf) {
        this.cf = cf;
        this.name = cf.name();
        this.holder = name + HOLDER_SUFFIX;
        this.isInterface = cf.isInterface();
        this.publishing = isInterface && !takesDefaults(cf);
        this.checkOverrides = !isInterface && cf.major >= 49 && (cf.access & ClassEditor.ACC_FINAL) == 0;
    }

    /**
     * The contract-only form of {@code bytes}: a REWRITTEN result (the class and its holder), or an
     * UNCHANGED one with the reason when the plan leaves such classes alone.
     *
     * @throws Unsupported when the class needs a contract that this writer cannot give it
     */
    static Result write(byte[] bytes, SerialUid.Supertypes supertypes) throws Unsupported {
        ClassEditor cf;
        try {
            cf = ClassEditor.parse(bytes);
        } catch (RuntimeException e) {
            throw new Unsupported("cannot read the class file: " + Log.describe(e));
        }
        try {
            String skip = skipReason(cf);
            if (skip != null) {
                return new Result(Result.UNCHANGED, null, null, null, skip);
            }
            if (cf.major == 45 && cf.minor < 3) {
                throw new Unsupported("class file version 45." + cf.minor + " is too old");
            }
            return new ContractWriter(cf).run(supertypes);
        } catch (Unsupported e) {
            throw e;
        } catch (RuntimeException e) {
            throw new Unsupported(Log.describe(e));
        }
    }

    /** Why the plan leaves this class alone (null: it is instrumented). */
    private static String skipReason(ClassEditor cf) {
        String n = cf.name();
        if ((cf.access & ClassEditor.ACC_MODULE) != 0) {
            return "a module descriptor";
        }
        if (n.startsWith("jprewrite/") || n.endsWith(HOLDER_SUFFIX)) {
            return "part of jprewrite";
        }
        if ((cf.access & ClassEditor.ACC_ANNOTATION) != 0) {
            return "an annotation interface";
        }
        if (PROXY.equals(cf.superName())) {
            return "a java.lang.reflect.Proxy class";
        }
        if (inJdkPackage(n)) {
            return "in a package of the JDK";
        }
        for (ClassEditor.Member m : cf.methods) {
            if (CLASS_METHOD.equals(cf.name(m))) {
                return "already rewritten by jprewrite";
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ the plan's rules

    /** The method flags of an interface below version 52 that {@code takesDefaults} looks at. */
    private static final int OLD_INTERFACE_FLAGS = ClassEditor.ACC_ABSTRACT | ClassEditor.ACC_PUBLIC
            | ClassEditor.ACC_PRIVATE | ClassEditor.ACC_PROTECTED | ClassEditor.ACC_STATIC | ClassEditor.ACC_FINAL
            | ClassEditor.ACC_SYNCHRONIZED | ClassEditor.ACC_NATIVE | ClassEditor.ACC_STRICT;

    /** {@code CctPlan.interface_takes_defaults}, from the interface's own class file. */
    static boolean takesDefaults(ClassEditor cf) {
        if (declaresOneAbstractMethod(cf)) {
            return false;
        }
        boolean clinit = cf.findMethod("<clinit>", "()V") != null;
        if (cf.major < 52) {   // CctPlan._may_raise_to_52: raised to version 52 (see run)
            if (clinit || (cf.access & ClassEditor.ACC_ENUM) != 0) {
                return false;
            }
            for (ClassEditor.Member f : cf.fields) {
                if ((f.access & ClassEditor.ACC_ENUM) != 0) {
                    return false;
                }
            }
            for (ClassEditor.Member m : cf.methods) {
                if ((m.access & OLD_INTERFACE_FLAGS) != (ClassEditor.ACC_ABSTRACT | ClassEditor.ACC_PUBLIC)
                        || "<clinit>".equals(cf.name(m))) {
                    return false;
                }
            }
            return true;
        }
        if (!clinit) {
            return true;
        }
        for (ClassEditor.Member m : cf.methods) {
            if ((m.access & (ClassEditor.ACC_STATIC | ClassEditor.ACC_ABSTRACT)) == 0 && !"<clinit>".equals(cf.name(m))) {
                return true;
            }
        }
        return false;
    }

    /** {@code CctPlan._declares_one_abstract_method}: found by reflection as the interface with one method. */
    static boolean declaresOneAbstractMethod(ClassEditor cf) {
        ClassEditor.Member only = null;
        for (ClassEditor.Member m : cf.methods) {
            if (!"<clinit>".equals(cf.name(m))) {
                if (only != null) {
                    return false;
                }
                only = m;
            }
        }
        return only != null && (only.access & ClassEditor.ACC_ABSTRACT) != 0;
    }

    /** {@code CctPlan.has_esi} for a method of this (instrumented) class. */
    private boolean hasEsi(ClassEditor.Member m, String mname, String desc) {
        if (mname.equals("<init>") || mname.equals("<clinit>")) {
            return false;
        }
        boolean isStatic = (m.access & ClassEditor.ACC_STATIC) != 0;
        if (CodeBuilder.parameterSlots(desc) + (isStatic ? 0 : 1) + 2 > 255) {
            return false;
        }
        if (isInterface) {
            return isStatic ? cf.major >= 52 : !publishing;
        }
        return true;
    }

    /** {@code CctPlan.publishing_dispatcher}. */
    private boolean publishingDispatcher(ClassEditor.Member m, String mname, String desc) {
        if (!publishing || (m.access & (ClassEditor.ACC_STATIC | ClassEditor.ACC_PRIVATE)) != 0 || mname.startsWith("<")) {
            return false;
        }
        return 1 + CodeBuilder.parameterSlots(desc) + 2 <= 255;
    }

    // ------------------------------------------------------------------ the class

    private Result run(SerialUid.Supertypes supertypes) throws Unsupported {
        if (SerialUid.needsPinning(cf, supertypes)) {
            SerialUid.pin(cf, SerialUid.hash(cf));
        }
        if (isInterface && !publishing && cf.major < 52) {   // CctPlan.raises_interface_version
            cf.major = 52;
            cf.minor = 0;
            cf.access = (cf.access | ClassEditor.ACC_ABSTRACT) & ~ClassEditor.ACC_SUPER;   // raise_interface_flags
        }
        Set<String> existing = new HashSet<>();
        for (ClassEditor.Member m : cf.methods) {
            existing.add(cf.name(m) + cf.descriptor(m));
        }
        for (ClassEditor.Member m : new ArrayList<>(cf.methods)) {
            String mname = cf.name(m);
            String desc = cf.descriptor(m);
            if (mname.equals("<init>")) {
                continue;
            }
            if (publishingDispatcher(m, mname, desc)) {
                dispatchers.add(m);   // no ESI declaration: see dispatcher()
                continue;
            }
            if (!hasEsi(m, mname, desc)) {
                continue;
            }
            if (existing.contains(mname + ESI_NAME_SUFFIX + esiDescriptor(desc))) {
                throw new Unsupported("it already declares " + mname + ESI_NAME_SUFFIX + esiDescriptor(desc));
            }
            boolean isAbstract = (m.access & ClassEditor.ACC_ABSTRACT) != 0;
            if (isAbstract || (m.access & ClassEditor.ACC_NATIVE) != 0 || cf.attribute(m, "Code") != null) {
                addDelegator(m, mname, desc, isAbstract);
            }
            if (staticallyBound(m, mname) && cf.attribute(m, "Code") != null) {
                if (existing.contains(mname + ESI_NAME_SUFFIX + slotDescriptor(desc))) {
                    throw new Unsupported("it already declares " + mname + ESI_NAME_SUFFIX + slotDescriptor(desc));
                }
                addSlotDelegator(m, mname, desc);
            }
            if (isInterface && (m.access & (ClassEditor.ACC_STATIC | ClassEditor.ACC_PRIVATE)) == 0) {
                dispatchers.add(m);
            }
        }
        String[] extraNames = new String[0];
        byte[][] extras = new byte[0][];
        if (!mids.isEmpty() || !dispatchers.isEmpty()) {
            // the holder's MIDs for the dispatchers are numbered before it is built
            byte[] holderBytes = buildHolder();
            extraNames = new String[] {holder};
            extras = new byte[][] {holderBytes};
        }
        if (!isInterface && cf.major >= 49) {
            addClassMethod();
        }
        return new Result(Result.REWRITTEN, cf.toBytes(), extraNames, extras, "");
    }

    /**
     * {@code analysis.leaves.statically_bound} (a method of an instrumented class with an ESI): such a
     * method also gets a slot twin ({@code CctPlan.has_slot_twin}), which callers that take it for an
     * application leaf call with their own node and a slot pair.
     */
    private boolean staticallyBound(ClassEditor.Member m, String mname) {
        if (isInterface || mname.startsWith("<")) {
            return false;
        }
        if ((m.access & (ClassEditor.ACC_ABSTRACT | ClassEditor.ACC_NATIVE | ClassEditor.ACC_SYNCHRONIZED)) != 0) {
            return false;
        }
        return (m.access & (ClassEditor.ACC_STATIC | ClassEditor.ACC_PRIVATE | ClassEditor.ACC_FINAL)) != 0
                || (cf.access & ClassEditor.ACC_FINAL) != 0;
    }

    static String slotDescriptor(String desc) {
        int close = desc.lastIndexOf(')');
        return desc.substring(0, close) + LEAF_NODE_DESC + "I" + desc.substring(close);
    }

    /**
     * {@code add_slot_twin} of {@code shape_slot.py} without a leaf body: {@code m$jp(args…, LeafNode
     * caller, int slot)} calls the delegating ESI with an unknown site, {@code m$jp(args…, caller, -1)}.
     */
    private void addSlotDelegator(ClassEditor.Member m, String mname, String desc) {
        boolean isStatic = (m.access & ClassEditor.ACC_STATIC) != 0;
        int access = m.access & ~(ClassEditor.ACC_ABSTRACT | ClassEditor.ACC_VARARGS | ClassEditor.ACC_NATIVE) | ESI_FLAGS;
        int slot = (isStatic ? 0 : 1) + CodeBuilder.parameterSlots(desc);
        CodeBuilder c = new CodeBuilder(cf, slot + 2);
        if (!isStatic) {
            c.aload(0);
        }
        c.loadParameters(desc, isStatic ? 0 : 1);
        c.aload(slot).pushInt(-1);
        c.invoke(isStatic ? CodeBuilder.INVOKESTATIC : CodeBuilder.INVOKESPECIAL, name, esiName(mname), esiDescriptor(desc),
                false);
        c.returnValue(CodeBuilder.returnType(desc));
        cf.addMethod(access, esiName(mname), slotDescriptor(desc), c.toCodeAttribute());
    }

    static String esiName(String n) {
        return n + ESI_NAME_SUFFIX;
    }

    static String esiDescriptor(String desc) {
        int close = desc.lastIndexOf(')');
        return desc.substring(0, close) + NODE_DESC + "I" + desc.substring(close);
    }

    private int mid(String owner, String mname, String desc, int kind) {
        String key = owner + " " + mname + desc + " " + kind;
        Integer i = midIndex.get(key);
        if (i == null) {
            i = mids.size();
            mids.add(new Object[] {owner.replace('/', '.'), mname, desc, kind});
            midIndex.put(key, i);
        }
        return i;
    }

    private void loadMid(CodeBuilder c, int k) {
        c.field(CodeBuilder.GETSTATIC, holder, MIDS_FIELD, MIDS_ARRAY).pushInt(k).op(CodeBuilder.AALOAD, -1);
    }

    /** {@code node.boundary(site, mid)} with the node and the site in locals. */
    private void boundary(CodeBuilder c, int node, int site, int k) {
        c.aload(node).iload(site);
        loadMid(c, k);
        c.invoke(CodeBuilder.INVOKEVIRTUAL, NODE, "boundary", "(I" + MID_DESC + ")V", false);
    }

    /** {@code _add_delegator} + {@code _delegating_esi} of cct.py. */
    private void addDelegator(ClassEditor.Member m, String mname, String desc, boolean isAbstract) {
        boolean isStatic = (m.access & ClassEditor.ACC_STATIC) != 0;
        int opcode;
        if (isStatic) {
            opcode = CodeBuilder.INVOKESTATIC;
        } else if (isAbstract) {
            opcode = isInterface ? CodeBuilder.INVOKEINTERFACE : CodeBuilder.INVOKEVIRTUAL;
        } else {
            opcode = CodeBuilder.INVOKESPECIAL;   // this class's own (uninstrumented) body
        }
        int access = m.access & ~(ClassEditor.ACC_ABSTRACT | ClassEditor.ACC_VARARGS | ClassEditor.ACC_NATIVE) | ESI_FLAGS;
        if (isInterface && !isStatic && (m.access & ClassEditor.ACC_PRIVATE) == 0) {
            access |= ClassEditor.ACC_PUBLIC;
        }
        String esiDesc = esiDescriptor(desc);
        int slot = (isStatic ? 0 : 1) + CodeBuilder.parameterSlots(desc);
        int node = slot;
        int site = slot + 1;
        int k = mid(name, mname, desc, KIND_UNINSTRUMENTED);
        CodeBuilder c = new CodeBuilder(cf, slot + 2);
        String ret = CodeBuilder.returnType(desc);
        if (opcode == CodeBuilder.INVOKESPECIAL && checkOverrides
                && (access & (ClassEditor.ACC_PRIVATE | ClassEditor.ACC_FINAL | ClassEditor.ACC_STATIC)) == 0) {
            overrideCheck(c, mname, desc, node, site, k);
        }
        boundary(c, node, site, k);
        if (!isStatic) {
            c.aload(0);
        }
        c.loadParameters(desc, isStatic ? 0 : 1);
        c.invoke(opcode, name, mname, desc, isInterface);
        c.returnValue(ret);
        cf.addMethod(access, esiName(mname), esiDesc, c.toCodeAttribute());
        delegators++;
    }

    /**
     * {@code _override_check_for} of cct.py (classes only): {@code if (site >= 0 && getClass() !=
     * C.class && $jprewrite$class() != getClass() && ThreadRoot.redirect(this, caller, site, mid) !=
     * null) return this.m(args…);} — an uninstrumented subclass's override runs instead.
     */
    private void overrideCheck(CodeBuilder c, String mname, String desc, int node, int site, int k) {
        int go = c.newLabel();
        c.iload(site).branch(CodeBuilder.IFLT, go);
        c.aload(0).invoke(CodeBuilder.INVOKEVIRTUAL, "java/lang/Object", "getClass", "()Ljava/lang/Class;", false);
        c.ldc(cf.addClass(name)).branch(CodeBuilder.IF_ACMPEQ, go);
        c.aload(0).invoke(CodeBuilder.INVOKEVIRTUAL, name, CLASS_METHOD, "()Ljava/lang/Class;", false);
        c.aload(0).invoke(CodeBuilder.INVOKEVIRTUAL, "java/lang/Object", "getClass", "()Ljava/lang/Class;", false);
        c.branch(CodeBuilder.IF_ACMPEQ, go);
        c.aload(0).aload(node).iload(site);
        loadMid(c, k);
        c.invoke(CodeBuilder.INVOKESTATIC, ROOT, "redirect",
                "(Ljava/lang/Object;" + NODE_DESC + "I" + MID_DESC + ")" + NODE_DESC, false);
        c.branch(CodeBuilder.IFNULL, go);
        c.aload(0);
        c.loadParameters(desc, 1);
        c.invoke(CodeBuilder.INVOKEVIRTUAL, name, mname, desc, false);
        c.returnValue(CodeBuilder.returnType(desc));
        List<byte[]> locals = null;
        if (cf.major >= 50) {
            locals = new ArrayList<>();
            locals.add(c.object(name));
            for (String p : CodeBuilder.parameters(desc)) {
                locals.add(c.type(p));
            }
            locals.add(c.object(NODE));
            locals.add(new byte[] {CodeBuilder.ITEM_INTEGER});
        }
        c.mark(go, 0, locals);
    }

    /** {@code $jprewrite$class()}: see the class comment for when it is the class literal. */
    private void addClassMethod() {
        CodeBuilder c = new CodeBuilder(cf, 1);
        String sup = cf.superName();
        if (sup == null || inJdkPackage(sup)) {
            c.ldc(cf.addClass(name));
        } else {
            c.op(CodeBuilder.ACONST_NULL, 1);
        }
        c.op(CodeBuilder.ARETURN, -1);
        cf.addMethod(ClassEditor.ACC_PUBLIC | ESI_FLAGS, CLASS_METHOD, "()Ljava/lang/Class;", c.toCodeAttribute());
        // the runtime's mark of an instrumented class (jprewrite.runtime.Dispatch): a field
        cf.addField(ClassEditor.ACC_PRIVATE | ClassEditor.ACC_STATIC | ClassEditor.ACC_SYNTHETIC, MARKER_FIELD, "Z",
                new java.util.ArrayList<>());
    }

    // ------------------------------------------------------------------ the holder

    private byte[] buildHolder() {
        ClassEditor h = new ClassEditor(49, 0);   // no StackMapTable needed (inference verifier)
        h.access = ClassEditor.ACC_FINAL | ClassEditor.ACC_SUPER | ClassEditor.ACC_SYNTHETIC
                | (dispatchers.isEmpty() ? 0 : ClassEditor.ACC_PUBLIC);
        h.thisClass = h.addClass(holder);
        h.superClass = h.addClass("java/lang/Object");
        for (int k = 0; k < dispatchers.size(); k++) {
            ClassEditor.Member m = dispatchers.get(k);
            String mname = cf.name(m);
            String desc = cf.descriptor(m);
            String dispatcherDesc = "(L" + name + ";" + esiDescriptor(desc).substring(1);
            h.addMethod(ClassEditor.ACC_PUBLIC | ClassEditor.ACC_STATIC | ClassEditor.ACC_SYNTHETIC, mname,
                    dispatcherDesc, dispatcher(h, mname, desc, k));
        }
        h.addField(ClassEditor.ACC_STATIC | ClassEditor.ACC_FINAL | ClassEditor.ACC_SYNTHETIC, MIDS_FIELD, MIDS_ARRAY,
                new ArrayList<>());
        CodeBuilder clinit = new CodeBuilder(h, 0);
        if (!dispatchers.isEmpty()) {
            h.addField(ClassEditor.ACC_STATIC | ClassEditor.ACC_FINAL | ClassEditor.ACC_SYNTHETIC, SEEN_FIELD,
                    "[Ljava/lang/Class;", new ArrayList<>());
            clinit.pushInt(2 * dispatchers.size()).typeOp(CodeBuilder.ANEWARRAY, "java/lang/Class", 0);
            clinit.field(CodeBuilder.PUTSTATIC, holder, SEEN_FIELD, "[Ljava/lang/Class;");
        }
        clinit.pushInt(mids.size()).typeOp(CodeBuilder.ANEWARRAY, MID, 0);
        String fillDesc = "(" + MIDS_ARRAY + ")" + MIDS_ARRAY;
        for (int chunk = 0, start = 0; start < mids.size(); chunk++, start += MIDS_PER_CHUNK) {
            int end = Math.min(mids.size(), start + MIDS_PER_CHUNK);
            CodeBuilder fill = new CodeBuilder(h, 1);
            fill.aload(0);
            for (int i = start; i < end; i++) {
                Object[] e = mids.get(i);
                fill.op(CodeBuilder.DUP, 1).pushInt(i);
                fill.ldc(h.addString((String) e[0])).ldc(h.addString((String) e[1])).ldc(h.addString((String) e[2]));
                fill.pushInt((Integer) e[3]).pushInt(0);
                fill.invoke(CodeBuilder.INVOKESTATIC, MID, "get",
                        "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;II)" + MID_DESC, false);
                fill.op(CodeBuilder.AASTORE, -3);
            }
            fill.op(CodeBuilder.ARETURN, -1);
            h.addMethod(ClassEditor.ACC_PRIVATE | ClassEditor.ACC_STATIC, "fill" + chunk, fillDesc, fill.toCodeAttribute());
            clinit.invoke(CodeBuilder.INVOKESTATIC, holder, "fill" + chunk, fillDesc, false);
        }
        clinit.field(CodeBuilder.PUTSTATIC, holder, MIDS_FIELD, MIDS_ARRAY).op(CodeBuilder.RETURN, 0);
        h.addMethod(ClassEditor.ACC_STATIC, "<clinit>", "()V", clinit.toCodeAttribute());
        return h.toBytes();
    }

    /**
     * {@code static R m(I self, args…, Node caller, int site)}: an ESI-capable receiver gets the ESI
     * method (a publishing interface: the caller's node and site published, then the original
     * method, whose N2B wrapper enters beneath them); any other receiver a boundary node and the
     * original method. The last two receiver classes found capable are remembered in slots
     * {@code 2 seen} and {@code 2 seen + 1} of {@code $jp$seen} (an inline cache in front of the
     * runtime's ClassValue), as in shape_holder.py.
     */
    private byte[] dispatcher(ClassEditor h, String mname, String desc, int seen) {
        int slots = CodeBuilder.parameterSlots(desc);
        int node = 1 + slots;
        int site = node + 1;
        int k = mid(name, mname, desc, KIND_UNINSTRUMENTED);
        String ret = CodeBuilder.returnType(desc);
        int cls = site + 1;
        CodeBuilder c = new CodeBuilder(h, cls + 1);
        int other = c.newLabel();
        int esi = c.newLabel();
        String seenType = "[Ljava/lang/Class;";
        c.aload(0).invoke(CodeBuilder.INVOKEVIRTUAL, "java/lang/Object", "getClass", "()Ljava/lang/Class;", false);
        c.astore(cls);
        c.field(CodeBuilder.GETSTATIC, holder, SEEN_FIELD, seenType).pushInt(2 * seen).op(CodeBuilder.AALOAD, -1);
        c.aload(cls).branch(CodeBuilder.IF_ACMPEQ, esi);
        c.field(CodeBuilder.GETSTATIC, holder, SEEN_FIELD, seenType).pushInt(2 * seen + 1).op(CodeBuilder.AALOAD, -1);
        c.aload(cls).branch(CodeBuilder.IF_ACMPEQ, esi);
        c.aload(0).invoke(CodeBuilder.INVOKESTATIC, ROOT, "esiCapable", "(Ljava/lang/Object;)Z", false);
        c.branch(CodeBuilder.IFEQ, other);
        c.field(CodeBuilder.GETSTATIC, holder, SEEN_FIELD, seenType).pushInt(2 * seen + 1);   // newest first
        c.field(CodeBuilder.GETSTATIC, holder, SEEN_FIELD, seenType).pushInt(2 * seen).op(CodeBuilder.AALOAD, -1);
        c.op(CodeBuilder.AASTORE, -3);
        c.field(CodeBuilder.GETSTATIC, holder, SEEN_FIELD, seenType).pushInt(2 * seen).aload(cls);
        c.op(CodeBuilder.AASTORE, -3);
        c.mark(esi, 0, null);
        if (publishing) {
            c.aload(node).iload(site).invoke(CodeBuilder.INVOKEVIRTUAL, NODE, "publishCall", "(I)V", false);
            c.aload(0);
            c.loadParameters(desc, 1);
            c.invoke(CodeBuilder.INVOKEINTERFACE, name, mname, desc, true);
        } else {
            c.aload(0);
            c.loadParameters(desc, 1);
            c.aload(node).iload(site);
            c.invoke(CodeBuilder.INVOKEINTERFACE, name, esiName(mname), esiDescriptor(desc), true);
        }
        c.returnValue(ret);
        c.mark(other, 0, null);
        c.aload(node).iload(site);
        c.field(CodeBuilder.GETSTATIC, holder, MIDS_FIELD, MIDS_ARRAY).pushInt(k).op(CodeBuilder.AALOAD, -1);
        c.invoke(CodeBuilder.INVOKEVIRTUAL, NODE, "boundary", "(I" + MID_DESC + ")V", false);
        c.aload(0);
        c.loadParameters(desc, 1);
        c.invoke(CodeBuilder.INVOKEINTERFACE, name, mname, desc, true);
        c.returnValue(ret);
        return c.toCodeAttribute();
    }

    // ------------------------------------------------------------------ the JDK's packages

    private static volatile Set<String> jdkPackages;

    /** Is {@code internalName} in a package of a module of the JDK's run-time image (as the worker's jimage lookup)? */
    static boolean inJdkPackage(String internalName) {
        int slash = internalName.lastIndexOf('/');
        if (slash < 0) {
            return false;
        }
        return jdkPackages().contains(internalName.substring(0, slash).replace('/', '.'));
    }

    private static Set<String> jdkPackages() {
        Set<String> s = jdkPackages;
        if (s == null) {
            s = new HashSet<>();
            try {
                for (ModuleReference r : ModuleFinder.ofSystem().findAll()) {
                    ModuleDescriptor d = r.descriptor();
                    s.addAll(d.packages());
                }
            } catch (Throwable e) {
                try {
                    for (Module m : ModuleLayer.boot().modules()) {
                        s.addAll(m.getPackages());
                    }
                } catch (Throwable ignored) {
                    // no modules to ask: nothing counts as the JDK's
                }
            }
            s = Collections.unmodifiableSet(s);
            jdkPackages = s;
        }
        return s;
    }
}
