"""The Java runtime's entry points as one table, and typed emitters for calling them.

Rewritten code calls ~20 members of ``jprewrite.runtime`` (``runtime-java/src``). They are
listed once here (:data:`RUNTIME_API`): owner, name, descriptor, static or not, method or
field. Builders never spell a descriptor; they call :class:`RuntimeCalls`' emitters
(``rt.enter(node, site, mid)``, ASM ``GeneratorAdapter``-style), which look the member up in
the table. ``tests/test_runtime_api.py`` reads the compiled runtime classes and fails when a
member is missing or its descriptor or ``static`` flag differs, and checks that
``docs/runtime-contract.md``'s table of entry points is the one :func:`contract_table` prints.

Each emitter returns a list of instructions whose constant-pool entries are added in the
order the instructions run (the order the pool grows in is part of the output's bytes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ..classfile import opcodes as op
from ..classfile.constants import ConstantPool
from ..classfile.instructions import Fragment, Iinc, Instruction
from .codegen import StraightCode, push_int
from .support import LEAF_NODE, MEMBERS, MID, MID_DESC, NODE, NODE_DESC, ROOT, ROOT_DESC, SAMPLING, TEXTS, TRACES, WALKS

if TYPE_CHECKING:  # (method_ids uses this module's members)
    from .method_ids import MidTable

__all__ = ["RuntimeMember", "RUNTIME_API", "LocalSite", "RuntimeCalls", "contract_table"]

_OBJ: Final = "Ljava/lang/Object;"
_STR: Final = "Ljava/lang/String;"
_TRACE: Final = "[Ljava/lang/StackTraceElement;"
_METHODS: Final = "[Ljava/lang/reflect/Method;"
_FIELDS: Final = "[Ljava/lang/reflect/Field;"


@dataclass(frozen=True, slots=True)
class RuntimeMember:
    """One member of the runtime that rewritten code uses."""

    owner: str  #: internal name
    name: str
    descriptor: str
    static: bool
    field: bool = False
    role: str = ""  #: one line for the contract document


def _m(owner: str, name: str, desc: str, static: bool, role: str) -> RuntimeMember:
    return RuntimeMember(owner, name, desc, static, False, role)


def _f(owner: str, name: str, desc: str, role: str, static: bool = False) -> RuntimeMember:
    return RuntimeMember(owner, name, desc, static, True, role)


# One member per entry, each with its role: kept as a table by hand (a formatter would split the
# entries into look-alike blocks of five lines).
# fmt: off
NODE_ENTER: Final = _m(NODE, "enter", "(I" + MID_DESC + ")" + NODE_DESC, False,
                "find-or-create the child for (site, callee), calls++, return it")
NODE_ENTER_SAMPLED: Final = _m(NODE, "enterSampled", "(I" + MID_DESC + ")" + NODE_DESC, False,
                        "hybrid mode: `enter`, then the entry yieldpoint, whose sample is this (the caller's) node")
NODE_BOUNDARY: Final = _m(NODE, "boundary", "(I" + MID_DESC + ")V", False,
                   "enter the callee's node and publish it (uninstrumented callee)")
NODE_PUBLISH: Final = _m(NODE, "publish", "()V", False, "`root.published = this` (a `<clinit>` may run next)")
NODE_PUBLISH_INIT: Final = _m(NODE, "publishInit", "(Z)V", False,
                       "`publish()` unless the argument (the caller's `$jp$init` flag) is true")
NODE_PUBLISH_CALL: Final = _m(NODE, "publishCall", "(I)V", False,
                       "publish this node and a call site (the callee enters beneath them)")
NODE_ALLOCATE: Final = _m(NODE, "allocate", "(" + _STR + ")V", False, "count an allocation of a type (--allocations)")
NODE_ADD_WEIGHTED: Final = _m(NODE, "addWeighted", "(J)V", False, "add weighted bytecodes (--weights)")
NODE_BYTECODES: Final = _f(NODE, "bytecodes", "J", "bytecodes executed in this context")
LEAF_CALLS: Final = _f(LEAF_NODE, "leafCalls", "[J",
                "calls of each leaf callee in this context (a method with leaf call sites: its nodes are `LeafNode`s)")
NODE_ROOT: Final = _f(NODE, "root", ROOT_DESC, "the thread's root")
ROOT_PUBLISHED: Final = _f(ROOT, "published", NODE_DESC, "where callbacks from uninstrumented code attach")
ROOT_ACTIVATION: Final = _f(ROOT, "activation", "I", "JP's activation counter (--activation)")
ROOT_N2B_ENTER: Final = _m(ROOT, "n2bEnter", "(" + _OBJ + MID_DESC + ")" + NODE_DESC, True,
                    "an N2B wrapper's entry: the callee's own node")
ROOT_N2B_ENTER_LOADER: Final = _m(ROOT, "n2bEnterLoader", "(" + _OBJ + MID_DESC + _STR + ")" + NODE_DESC, True,
                           "a class loader's N2B entry (`loadClass`, `findClass`): quiet for jprewrite's classes")
ROOT_N2B_LEAVE: Final = _m(ROOT, "n2bLeave", "(" + NODE_DESC + NODE_DESC + ")V", True,
                    "its exit: the slot, and after a quiet entry the pending call, restored")
ROOT_N2B_RETHROW: Final = _m(ROOT, "n2bRethrow", "(Ljava/lang/Throwable;" + NODE_DESC + NODE_DESC + ")V", True,
                      "an N2B wrapper's exit by exception: the slot restored, the trace cleaned at a top-level context")
ROOT_N2B_PARENT: Final = _m(ROOT, "n2bParent", "(" + _OBJ + MID_DESC + ")" + NODE_DESC, True,
                     "the parent of an OSI `<clinit>`'s node")
ROOT_CTOR_ENTER: Final = _m(ROOT, "ctorEnter", "(" + MID_DESC + ")" + NODE_DESC, True,
                     "an OSI constructor's node, beneath the published node and site")
ROOT_CTOR_ENTER_SAMPLED: Final = _m(ROOT, "ctorEnterSampled", "(" + MID_DESC + ")" + NODE_DESC, True,
                             "hybrid mode: `ctorEnter`, then the entry yieldpoint, whose sample is the caller's node")
ROOT_ESI_CAPABLE: Final = _m(ROOT, "esiCapable", "(" + _OBJ + ")Z", True,
                      "may an interface dispatcher pass the node to this receiver?")
ROOT_PENDING: Final = _m(ROOT, "pending", "(" + NODE_DESC + "I" + MID_DESC + _OBJ + ")V", True,
                  "open a pending call (dispatch may select an instrumented override)")
ROOT_END_PENDING: Final = _m(ROOT, "endPending", "(" + NODE_DESC + "I" + MID_DESC + ")V", True, "close a pending call")
ROOT_REDIRECT: Final = _m(ROOT, "redirect", "(" + _OBJ + NODE_DESC + "I" + MID_DESC + ")" + NODE_DESC, True,
                   "the override check: a boundary node when an uninstrumented override must run")
ROOT_TRIGGER_REPORT: Final = _m(ROOT, "triggerReport", "(" + NODE_DESC + ")V", False,
                         "JP's periodic activation of the profiling agent")
MID_GET: Final = _m(MID, "get", "(" + _STR * 3 + "II)" + MID_DESC, True,
             "the MethodId of (class, name, descriptor, kind, sites)")
MID_TABLE: Final = _m(MID, "table", "(" + _STR + "I)[" + MID_DESC, True,
               "`count` MethodIds from one packed string (a holder's fields: see MethodIds below)")
MID_LEAF_CALLEES: Final = _m(MID, "leafCallees", "(" + _STR + ")V", False,
                      "the leaf callees of a method's slots, packed (see MethodIds below)")
SAMPLING_REQUESTED: Final = _f(SAMPLING, "requested", "I", "non-zero while a sampling round has tickets out (volatile)",
                        static=True)
SAMPLING_YIELDPOINT_NODE: Final = _m(SAMPLING, "yieldpoint", "(" + NODE_DESC + ")V", True,
                              "hybrid mode: take a sample on the current CCT node")
SAMPLING_YIELDPOINT: Final = _m(SAMPLING, "yieldpoint", "()V", True, "sample mode: the thread samples its own stack")
SAMPLING_ENTRY: Final = _m(SAMPLING, "entry", "()V", True,
                    "sample mode, at a method's entry: the thread samples its stack without this frame")
TRACES_CLEAN: Final = _m(TRACES, "clean", "(" + _TRACE + ")" + _TRACE, True,
                  "a stack trace as the original program's (twins named as their methods, no wrapper frames)")
TRACES_CLEAN_THROWABLE: Final = _m(TRACES, "cleanThrowable", "(Ljava/lang/Throwable;)V", True,
                            "`clean` on a throwable's trace, its causes' and suppressed ones', in place")
TRACES_METHOD_NAME: Final = _m(TRACES, "methodName", "(" + _STR + ")" + _STR, True,
                        "a `StackWalker` frame's method name as the program's (`m$jp`, `m$jp$N`: `m`)")
TRACES_ELEMENT: Final = _m(TRACES, "element", "(Ljava/lang/StackTraceElement;)Ljava/lang/StackTraceElement;", True,
                    "a `StackWalker` frame's element, named by `methodName`")
TRACES_CLEAN_RECORD: Final = _m(TRACES, "cleanRecord", "(" + _OBJ + ")V", True,
                         "`cleanThrowable` on a JUL `LogRecord`'s throwable (a logging trampoline's)")
TRACES_CLEAN_ALL: Final = _m(TRACES, "cleanAll", "(Ljava/util/Map;)Ljava/util/Map;", True,
                      "`Thread.getAllStackTraces()`'s map with each trace cleaned (a new map)")
TRACES_PRINT: Final = _m(TRACES, "printStackTrace", "(Ljava/lang/Throwable;)V", True,
                  "`Throwable.printStackTrace()` as the original's (cleaned; a message naming twins by `message`)")
TRACES_PRINT_STREAM: Final = _m(TRACES, "printStackTrace", "(Ljava/lang/Throwable;Ljava/io/PrintStream;)V", True,
                         "`Throwable.printStackTrace(PrintStream)` as the original's")
TRACES_PRINT_WRITER: Final = _m(TRACES, "printStackTrace", "(Ljava/lang/Throwable;Ljava/io/PrintWriter;)V", True,
                         "`Throwable.printStackTrace(PrintWriter)` as the original's")
TRACES_MESSAGE: Final = _m(TRACES, "message", "(" + _STR + ")" + _STR, True,
                    "a throwable's message or text as the original's (an NPE's names twins: named as their methods)")
TRACES_DUMP_STACK: Final = _m(TRACES, "dumpStack", "()V", True,
                       "`Thread.dumpStack()` printing the original program's trace")
TEXTS_SHOWN: Final = _m(TEXTS, "shown", "(" + _OBJ + ")" + _OBJ, True,
                 "an object a JDK string conversion gets (`valueOf`, `append`, `println`, concatenation): "
                 "a throwable whose text names twins as its text by `message`")
TEXTS_SHOWN_ARGS: Final = _m(TEXTS, "shownArgs", "(" + _STR + "[" + _OBJ + ")[" + _OBJ, True,
                      "a format's arguments (`String.format`, `printf`...), each throwable only `%s` uses by `shown`")
TEXTS_LEAVING: Final = _m(TEXTS, "leaving", "(Ljava/lang/Throwable;)V", True,
                   "an exception leaving `main`/`run()` for the JVM: `cleanThrowable`, and printed with the "
                   "original's texts where the JDK would print twins")
WALKS_WALK: Final = _m(WALKS, "walk", "(" + _OBJ + "Ljava/util/function/Function;)" + _OBJ, True,
                "`StackWalker.walk(function)` over the program's frames (no wrapper, holder, trampoline frames)")
WALKS_FOR_EACH: Final = _m(WALKS, "forEach", "(" + _OBJ + "Ljava/util/function/Consumer;)V", True,
                    "`StackWalker.forEach(action)` over the program's frames")
WALKS_CALLER_CLASS: Final = _m(WALKS, "callerClass", "(" + _OBJ + ")Ljava/lang/Class;", True,
                        "`StackWalker.getCallerClass()` past the asking method's N2B wrapper")
MEMBERS_METHODS: Final = _m(MEMBERS, "methods", "(" + _METHODS + ")" + _METHODS, True,
                     "reflected methods without the rewriting's (`m$jp`, parts, trampolines, `$jprewrite$class`)")
MEMBERS_FIELDS: Final = _m(MEMBERS, "fields", "(" + _FIELDS + ")" + _FIELDS, True,
                    "reflected fields without the rewriting's marker field")
# fmt: on

RUNTIME_API: Final[tuple[RuntimeMember, ...]] = (
    NODE_ENTER,
    NODE_ENTER_SAMPLED,
    NODE_BOUNDARY,
    NODE_PUBLISH,
    NODE_PUBLISH_INIT,
    NODE_PUBLISH_CALL,
    NODE_ALLOCATE,
    NODE_ADD_WEIGHTED,
    NODE_BYTECODES,
    LEAF_CALLS,
    NODE_ROOT,
    ROOT_PUBLISHED,
    ROOT_ACTIVATION,
    ROOT_N2B_ENTER,
    ROOT_N2B_ENTER_LOADER,
    ROOT_N2B_LEAVE,
    ROOT_N2B_RETHROW,
    ROOT_N2B_PARENT,
    ROOT_CTOR_ENTER,
    ROOT_CTOR_ENTER_SAMPLED,
    ROOT_ESI_CAPABLE,
    ROOT_PENDING,
    ROOT_END_PENDING,
    ROOT_REDIRECT,
    ROOT_TRIGGER_REPORT,
    MID_GET,
    MID_TABLE,
    MID_LEAF_CALLEES,
    SAMPLING_REQUESTED,
    SAMPLING_YIELDPOINT_NODE,
    SAMPLING_YIELDPOINT,
    SAMPLING_ENTRY,
    TRACES_CLEAN,
    TRACES_CLEAN_THROWABLE,
    TRACES_METHOD_NAME,
    TRACES_ELEMENT,
    TRACES_CLEAN_RECORD,
    TRACES_CLEAN_ALL,
    TRACES_DUMP_STACK,
    TRACES_MESSAGE,
    TRACES_PRINT,
    TRACES_PRINT_STREAM,
    TRACES_PRINT_WRITER,
    TEXTS_SHOWN,
    TEXTS_SHOWN_ARGS,
    TEXTS_LEAVING,
    WALKS_WALK,
    WALKS_FOR_EACH,
    WALKS_CALLER_CLASS,
    MEMBERS_METHODS,
    MEMBERS_FIELDS,
)


@dataclass(frozen=True, slots=True)
class LocalSite:
    """A call-site number held in a local (an ESI's ``site`` parameter), not a constant."""

    slot: int


class RuntimeCalls:
    """Typed emitters for the runtime's entry points, bound to a class's pool and MethodId loader.

    ``node``/``saved``/``receiver`` arguments are local slots; ``site`` is a constant or a
    :class:`LocalSite`; ``mid`` an index into the class's MethodId table (``load_mid``).
    """

    def __init__(self, pool: ConstantPool, mids: MidTable) -> None:
        self.pool = pool
        self.mids = mids
        # fragments encoded once per class: (node, counter field, amount) -> a counter update,
        # (node, saved, -1) -> a slot restore
        self._fragments: dict[tuple[int, int, int], Fragment] = {}

    # ----------------------------------------------------------------- members
    def load_mid(self, mid: int) -> list:
        """The code that puts MethodId ``mid`` of the class's table on the stack, in this pool."""
        return self.mids.load(mid, self.pool)

    def invoke(self, member: RuntimeMember) -> Instruction:
        opcode = op.INVOKESTATIC if member.static else op.INVOKEVIRTUAL
        return Instruction(-1, opcode, self.method_ref(member))

    def method_ref(self, member: RuntimeMember) -> int:
        return self.pool.add_methodref(member.owner, member.name, member.descriptor)

    def field_ref(self, member: RuntimeMember) -> int:
        return self.pool.add_fieldref(member.owner, member.name, member.descriptor)

    def site(self, site: int | LocalSite) -> Instruction:
        if isinstance(site, LocalSite):
            return Instruction(-1, op.ILOAD, site.slot)
        return push_int(self.pool, site)

    # ----------------------------------------------------------------- Node
    def enter(self, node: int, site: int | LocalSite, mid: int) -> list:
        """``node.enter(site, mid)``: the callee's node on the stack."""
        return [Instruction(-1, op.ALOAD, node), self.site(site), *self.load_mid(mid), self.invoke(NODE_ENTER)]

    def leaf_call(self, node: int, slot: int) -> list:
        """``((LeafNode) node).leafCalls[slot]++``: a leaf call counted in the caller's context."""
        pool = self.pool
        return [
            Instruction(-1, op.ALOAD, node),
            Instruction(-1, op.CHECKCAST, pool.add_class(LEAF_NODE)),
            Instruction(-1, op.GETFIELD, self.field_ref(LEAF_CALLS)),
            push_int(pool, slot),
            Instruction(-1, op.DUP2),
            Instruction(-1, op.LALOAD),
            Instruction(-1, op.LCONST_1),
            Instruction(-1, op.LADD),
            Instruction(-1, op.LASTORE),
        ]

    def slot_entry(self, node: int) -> list:
        """A slot twin's entry (:mod:`.shape_slot`): ``node.leafCalls[slot]++`` (the call), then
        ``slot++``: the parameter after the node then indexes the bytecodes' slot."""
        return [*self._to_slot(node, Instruction(-1, op.LCONST_1)), Iinc(-1, node + 1, 1, wide=node + 1 > 0xFF)]

    def add_to_slot(self, node: int, amount: int) -> list:
        """``node.leafCalls[slot] += amount``: a slot twin's block counter (the node a ``LeafNode``
        parameter, ``slot`` the int parameter after it)."""
        return self._to_slot(node, Instruction(-1, op.LDC2_W, self.pool.add_long(amount)))

    def _to_slot(self, node: int, amount: Instruction) -> list:
        """``node.leafCalls[slot] += amount`` (``amount`` pushes the long)."""
        return [
            Instruction(-1, op.ALOAD, node),
            Instruction(-1, op.GETFIELD, self.field_ref(LEAF_CALLS)),
            Instruction(-1, op.ILOAD, node + 1),
            Instruction(-1, op.DUP2),
            Instruction(-1, op.LALOAD),
            amount,
            Instruction(-1, op.LADD),
            Instruction(-1, op.LASTORE),
        ]

    def boundary(self, node: int, site: int | LocalSite, mid: int) -> list:
        return [Instruction(-1, op.ALOAD, node), self.site(site), *self.load_mid(mid), self.invoke(NODE_BOUNDARY)]

    def publish(self, node: int) -> list:
        return [Instruction(-1, op.ALOAD, node), self.invoke(NODE_PUBLISH)]

    def publish_init(self, node: int, flag_ref: int) -> list:
        """``node.publishInit(flag)``: the init publish unless the static ``flag`` is set."""
        flag = Instruction(-1, op.GETSTATIC, flag_ref)
        return [Instruction(-1, op.ALOAD, node), flag, self.invoke(NODE_PUBLISH_INIT)]

    def publish_call(self, node: int, site: int | LocalSite) -> list:
        return [Instruction(-1, op.ALOAD, node), self.site(site), self.invoke(NODE_PUBLISH_CALL)]

    def allocate(self, node: int, type_name: str) -> list:
        return [
            Instruction(-1, op.ALOAD, node),
            Instruction(-1, op.LDC_W, self.pool.add_string(type_name)),
            self.invoke(NODE_ALLOCATE),
        ]

    def add_weighted(self, node: int, amount: int) -> list:
        """``node.addWeighted(amount)``: a call, since the counter lives in the node's rare part."""
        return [
            Instruction(-1, op.ALOAD, node),
            Instruction(-1, op.LDC2_W, self.pool.add_long(amount)),
            self.invoke(NODE_ADD_WEIGHTED),
        ]

    def add_to_counter(self, node: int, ref: int, amount: int) -> list:
        """``node.<counter> += amount`` for a ``long`` counter field already in the pool (``ref``).

        One :class:`~jprewrite.classfile.instructions.Fragment` (a counter goes in at every basic
        block: six instructions to lay out, encode and flow each time, when written out), written
        as bytes; a class uses the same few node slots and amounts, so each is written once."""
        key = (node, ref, amount)
        made = self._fragments.get(key)
        if made is None:
            # aload node; dup; getfield ref; ldc2_w amount; ladd; putfield ref (the assembler's
            # encoding: tested), rising 5 slots (the node twice, then the long and the amount)
            amount_index = self.pool.add_long(amount)
            if node <= 3:
                load = bytes((op.ALOAD_0 + node,))
            elif node <= 0xFF:
                load = bytes((op.ALOAD, node))
            else:
                load = bytes((op.WIDE, op.ALOAD, node >> 8, node & 0xFF))
            update = bytes(
                (
                    op.DUP,
                    op.GETFIELD,
                    ref >> 8,
                    ref & 0xFF,
                    op.LDC2_W,
                    amount_index >> 8,
                    amount_index & 0xFF,
                    op.LADD,
                    op.PUTFIELD,
                    ref >> 8,
                    ref & 0xFF,
                )
            )
            made = self._fragments[key] = Fragment(load + update, 5, node + 1)
        return [Fragment(made.code, made.peak, made.max_locals)]

    def save_slot(self, node: int, saved: int) -> list:
        """``saved = node.root.published`` (wrappers and OSI leave the callback slot as they found it)."""
        return [
            Instruction(-1, op.ALOAD, node),
            Instruction(-1, op.GETFIELD, self.field_ref(NODE_ROOT)),
            Instruction(-1, op.GETFIELD, self.field_ref(ROOT_PUBLISHED)),
            Instruction(-1, op.ASTORE, saved),
        ]

    def restore_slot(self, node: int, saved: int) -> list:
        """``node.root.published = saved``: a fragment (every wrapper has two, and a constructor
        one before each return), encoded once per class and slots."""
        made = self.restore_slot_fragment(node, saved)
        return [Fragment(made.code, made.peak, made.max_locals)]

    def restore_slot_fragment(self, node: int, saved: int) -> Fragment:
        """:meth:`restore_slot`'s fragment itself, for code written as bytes (not to be placed
        in a body: a placed item gets its offset set)."""
        key = (node, saved, -1)
        made = self._fragments.get(key)
        if made is None:
            c = StraightCode()
            c.local(op.ALOAD, node)
            c.with_index(op.GETFIELD, self.field_ref(NODE_ROOT), 1, 1)
            c.local(op.ALOAD, saved)
            c.with_index(op.PUTFIELD, self.field_ref(ROOT_PUBLISHED), 2, 0)
            made = self._fragments[key] = Fragment(c.bytes(), c.max_stack, max(node, saved) + 1)
        return made

    def leave_fragment(self, node: int, saved: int) -> Fragment:
        """``ThreadRoot.n2bLeave(node, saved)``: :meth:`restore_slot_fragment` for the N2B wrappers of
        class loaders (entered by ``n2bEnterLoader``), as bytes."""
        key = (node, saved, -2)
        made = self._fragments.get(key)
        if made is None:
            c = StraightCode()
            c.local(op.ALOAD, node)
            c.local(op.ALOAD, saved)
            c.with_index(op.INVOKESTATIC, self.method_ref(ROOT_N2B_LEAVE), 2, 0)
            made = self._fragments[key] = Fragment(c.bytes(), c.max_stack, max(node, saved) + 1)
        return made

    # ----------------------------------------------------------------- ThreadRoot
    def clinit_enter(self, mid: int) -> list:
        """``ThreadRoot.n2bParent(null, mid).enter(-1, mid)``: an OSI ``<clinit>``'s node on the stack."""
        return [
            Instruction(-1, op.ACONST_NULL),
            *self.load_mid(mid),
            self.invoke(ROOT_N2B_PARENT),
            Instruction(-1, op.ICONST_M1),
            *self.load_mid(mid),
            self.invoke(NODE_ENTER),
        ]

    def ctor_enter(self, mid: int, *, sampled: bool = False) -> list:
        """``ThreadRoot.ctorEnter(mid)`` (``ctorEnterSampled`` when ``sampled``: hybrid's entry yieldpoint)."""
        return [*self.load_mid(mid), self.invoke(ROOT_CTOR_ENTER_SAMPLED if sampled else ROOT_CTOR_ENTER)]

    def esi_capable(self, receiver: int) -> list:
        return [Instruction(-1, op.ALOAD, receiver), self.invoke(ROOT_ESI_CAPABLE)]

    def pending(self, node: int, site: int, mid: int, receiver: int) -> list:
        """``ThreadRoot.pending(node, site, mid, receiver)``; ``receiver`` -1: null (a static call)."""
        return [
            Instruction(-1, op.ALOAD, node),
            push_int(self.pool, site),
            *self.load_mid(mid),
            Instruction(-1, op.ALOAD, receiver) if receiver >= 0 else Instruction(-1, op.ACONST_NULL),
            self.invoke(ROOT_PENDING),
        ]

    def end_pending(self, node: int, site: int, mid: int) -> list:
        return [
            Instruction(-1, op.ALOAD, node),
            push_int(self.pool, site),
            *self.load_mid(mid),
            self.invoke(ROOT_END_PENDING),
        ]

    def activation_decrement(self, node: int, amount: int) -> list:
        """``node.root.activation -= amount``."""
        root, counter = self.field_ref(NODE_ROOT), self.field_ref(ROOT_ACTIVATION)
        return [
            Instruction(-1, op.ALOAD, node),
            Instruction(-1, op.GETFIELD, root),
            Instruction(-1, op.DUP),
            Instruction(-1, op.GETFIELD, counter),
            push_int(self.pool, amount),
            Instruction(-1, op.ISUB),
            Instruction(-1, op.PUTFIELD, counter),
        ]

    def activation_check(self, node: int, skip) -> list:
        """``if (node.root.activation <= 0) node.root.triggerReport(node)``; ``skip`` labels the code after."""
        root, counter = self.field_ref(NODE_ROOT), self.field_ref(ROOT_ACTIVATION)
        return [
            Instruction(-1, op.ALOAD, node),
            Instruction(-1, op.GETFIELD, root),
            Instruction(-1, op.GETFIELD, counter),
            Instruction(-1, op.IFGT, skip),
            Instruction(-1, op.ALOAD, node),
            Instruction(-1, op.GETFIELD, root),
            Instruction(-1, op.ALOAD, node),
            self.invoke(ROOT_TRIGGER_REPORT),
            skip,
        ]

    # ----------------------------------------------------------------- Sampling
    def yieldpoint(self, node: int | None, skip, *, pinned: bool = False, entry: bool = False) -> list:
        """``if (Sampling.requested != 0) Sampling.yieldpoint([node])``; ``skip`` labels the code after.

        ``entry`` (sample mode, at a method's entry): ``Sampling.entry()``, whose sample is the caller's.

        ``pinned``: read the field twice, ``(requested | requested) != 0``. C2 may schedule a volatile
        load early (its field is in a memory slice nothing else writes), so a single read can run at
        the start of its compiled block, before the code it should follow; the second read depends on
        the first one's acquire barrier, which follows every store before it (docs/sampling.md).
        """
        if node is not None:
            call = [Instruction(-1, op.ALOAD, node), self.invoke(SAMPLING_YIELDPOINT_NODE)]
        else:
            call = [self.invoke(SAMPLING_ENTRY if entry else SAMPLING_YIELDPOINT)]
        field = self.field_ref(SAMPLING_REQUESTED)
        read = [Instruction(-1, op.GETSTATIC, field)]
        if pinned:
            read += [Instruction(-1, op.GETSTATIC, field), Instruction(-1, op.IOR)]
        return [*read, Instruction(-1, op.IFEQ, skip), *call, skip]

    # ----------------------------------------------------------------- MethodId
    def mid_get(self) -> Instruction:
        return self.invoke(MID_GET)


def contract_table() -> str:
    """The Markdown table of :data:`RUNTIME_API` that ``docs/runtime-contract.md`` carries."""
    rows = ["| member | descriptor | kind | role |", "| --- | --- | --- | --- |"]
    for m in RUNTIME_API:
        kind = ("static " if m.static else "") + ("field" if m.field else "method")
        rows.append(f"| `{m.owner.rsplit('/', 1)[1]}.{m.name}` | `{m.descriptor}` | {kind} | {m.role} |")
    return "\n".join(rows) + "\n"
