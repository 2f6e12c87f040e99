package jprewrite.runtime;

/**
 * Hybrid mode's samples of other threads (the {@code safepoint} sampler, and waiting threads with
 * {@code sample-waiting}): a stack trace mapped onto the thread's exact calling context tree. A
 * thread sampling itself at a yieldpoint needs none of this (its current node is the sample); the
 * sampler thread only sees frames, so it follows them down the tree by class and method name.
 *
 * <p>Frames of rewritten code are folded as the tree folds them: an ESI ({@code m$jp}) is its
 * method's context, an N2B wrapper directly beneath its own ESI is the same context, outlined parts
 * ({@code m$jp$N}), holder dispatchers ({@code C$$jpmids}) and the runtime's own frames add none. A
 * frame with no child of its class and name may match a boundary node by name alone (a call site
 * names the method its reference resolves to, {@code List.forEach}, where the frame shows the
 * implementation, {@code ArrayList.forEach}); any other frame (the JDK's internals beneath a boundary
 * node) adds nothing, so the sample lands on the innermost context the tree has. Overloads (a trace
 * has no descriptors) go to the child created first. Best effort by design: exact attribution is what
 * self-sampling at yieldpoints gives.
 */
final class ContextMapper {
    /** The innermost context of {@code trace} (top frame first) in {@code root}'s tree. */
    static Node map(ThreadRoot root, StackTraceElement[] trace) {
        Node node = root;
        String wrapperClass = null;
        String wrapperName = null;
        String esiClass = null;   // the ESI of the frame just before (outer), for its logging trampoline
        String esiName = null;
        for (int i = trace.length - 1; i >= 0; i--) {
            StackTraceElement e = trace[i];
            String cls = e.getClassName();
            if (cls.startsWith("jprewrite.runtime.") || cls.endsWith("$$jpmids")) {
                continue;
            }
            String name = e.getMethodName();
            String original = Traces.methodName(name);
            if (Traces.isPart(name)) {
                esiClass = cls;
                esiName = original;
                continue;
            }
            boolean esi = !original.equals(name);
            if (!esi && e.getLineNumber() == -1 && cls.equals(esiClass) && name.equals(esiName)) {
                esiClass = null;   // a logging trampoline: its ESI's context
                continue;
            }
            esiClass = null;
            if (esi) {
                name = original;
                esiClass = cls;
                esiName = name;
                if (cls.equals(wrapperClass) && name.equals(wrapperName)) {
                    wrapperClass = null;   // the N2B wrapper's own ESI: the context it entered
                    continue;
                }
            }
            Node c = child(node, cls, name);
            if (c != null) {
                node = c;
                wrapperClass = esi ? null : cls;
                wrapperName = esi ? null : name;
            } else {
                wrapperClass = null;
            }
        }
        return node;
    }

    /** The oldest child of {@code node} for class and name; else a boundary child of that name; else null. */
    private static Node child(Node node, String cls, String name) {
        Node exact = null;
        Node byName = null;
        for (Node c = node.firstChild(); c != null; c = c.nextSibling()) {
            MethodId m = c.method;
            if (!m.name.equals(name)) {
                continue;
            }
            if (m.className.equals(cls)) {
                exact = c;   // keep going: the oldest (first created) wins
            } else if (m.kind != MethodId.KIND_INSTRUMENTED) {
                byName = c;
            }
        }
        return exact != null ? exact : byName;
    }

    private ContextMapper() {
    }
}
