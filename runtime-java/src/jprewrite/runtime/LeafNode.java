package jprewrite.runtime;

/**
 * A context of a method with leaf call sites: calls of JDK methods that cannot run application code
 * ({@code Math.sqrt}, {@code Float.intBitsToFloat}, {@code String.charAt}; the rewriter's
 * {@code leaf_calls}), counted in {@link #leafCalls} by the caller's own code, one slot per callee;
 * and calls of application leaves (short methods that call nothing; the rewriter's
 * {@code analysis.leaves}), counted by their slot twins in a pair of slots: calls, then bytecodes.
 *
 * <p>Why: such a call needed a child context only to count it, and finding that child
 * ({@link Node#enter}) is a call into the runtime before each of them. A call left in compiled code,
 * even on a path taken rarely, keeps the JIT compilers from optimising the loop around it as the
 * original's; an array increment does not. Readers see each slot with calls as a child of this
 * context ({@link #leafChildren()}): the profile is the one {@code enter} built.
 *
 * <p>Every context of such a method is a {@code LeafNode} ({@link Node#make}), since rewritten code
 * casts its node to this class at each leaf call site.
 */
public class LeafNode extends Node {
    /** Calls of each leaf callee of {@link #method} ({@link MethodId#leafCallee}) in this context, and an application leaf's bytecodes after its calls. */
    public final long[] leafCalls;

    private static final long[] NONE = new long[0];

    LeafNode(MethodId method, Node parent, ThreadRoot root, Node next) {
        super(method, parent, root, next);
        int n = method.leafCount;
        leafCalls = n == 0 ? NONE : new long[n];
    }

    /**
     * The slots with calls as detached children of this context (calls only, no parent link into the
     * tree), the first slot first; what the profile's readers add to the children they find linked.
     */
    @Override
    final Node leafChildren() {
        long[] s = leafCalls;
        Node chain = null;
        for (int k = s.length - 1; k >= 0; k--) {
            MethodId callee = method.leafCallee(k);
            if (callee == null) {
                continue;   // the bytecodes of the pair before
            }
            long c = s[k];
            if (c != 0) {
                Node x = new Node(callee, this, root, chain);
                x.calls = c;
                if (callee.kind == MethodId.KIND_INSTRUMENTED) {
                    x.bytecodes = s[k + 1];
                }
                chain = x;
            }
        }
        return chain;
    }

    /**
     * Calls (slot {@code k}) and bytecodes (slot {@code k + 1}) of the application leaf whose pair
     * starts at slot {@code k}, as a detached child (the profile writer's second pass, which takes the
     * bytecodes its first pass read instead: the node's own may have grown since).
     */
    final Node pairChild(int k, long bytecodes) {
        Node x = new Node(method.leafCallee(k), this, root, null);
        x.calls = leafCalls[k];
        x.bytecodes = bytecodes;
        return x;
    }
}
