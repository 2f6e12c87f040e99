"""The code around one call site of an instrumented body, by its :class:`~.plan.CallAction`.

Call sites are numbered in code order (dead ones included); the number indexes the caller
node's child cache. What each action emits is the contract's "Call sites" list
(``docs/runtime-contract.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ..classfile import opcodes as op
from ..classfile.constants import ConstantPool
from ..classfile.descriptors import parse_method_descriptor, type_size
from ..classfile.instructions import Instruction, InvokeDynamic, InvokeInterface
from ..editor import Label
from . import codegen as G
from .context import ClassContext
from .emit import FrameNeeds
from .method_ids import take_leaf_slot
from .options import leaf_bodies
from .plan import NODE_PASSING, CallAction, CallSite
from .runtime_api import (
    MEMBERS_FIELDS,
    MEMBERS_METHODS,
    TEXTS_SHOWN,
    TEXTS_SHOWN_ARGS,
    TRACES_CLEAN,
    TRACES_CLEAN_ALL,
    TRACES_DUMP_STACK,
    TRACES_ELEMENT,
    TRACES_MESSAGE,
    TRACES_METHOD_NAME,
    TRACES_PRINT,
    TRACES_PRINT_STREAM,
    TRACES_PRINT_WRITER,
    WALKS_CALLER_CLASS,
    WALKS_FOR_EACH,
    WALKS_WALK,
    RuntimeMember,
)
from .shape_trampoline import trampoline_call, wants_trampoline
from .support import (
    KIND_INSTRUMENTED,
    KIND_JDK,
    LEAF_NODE,
    UNKNOWN_SITE,
    dispatcher_descriptor,
    esi_descriptor,
    esi_name,
    slot_descriptor,
)

__all__ = ["SiteCode", "call_site_code", "init_publish", "pending_temps"]

_BOUNDARY: Final = CallAction.BOUNDARY.value


@dataclass
class SiteCode:
    """What replaces one invoke: code before, the call, code after, and for a pending call the
    code its catch-all handler runs before rethrowing (None otherwise); the frames its branches
    need, and the temporary locals it uses from the ``temps`` it was given."""

    pre: list
    call: Instruction
    post: list = field(default_factory=list)
    pending: list | None = None
    needs: FrameNeeds | None = None
    temps: int = 0

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(
        self,
        pre: list,
        call: Instruction,
        post: list | None = None,
        pending: list | None = None,
        needs: FrameNeeds | None = None,
        temps: int = 0,
    ) -> None:
        self.pre = pre
        self.call = call
        self.post = [] if post is None else post
        self.pending = pending
        self.needs = needs
        self.temps = temps


def call_site_code(
    ctx: ClassContext,
    insn: Instruction,
    node: int,
    site: int,
    temps: int,
    caller: str | None = None,
    leaves: dict[tuple[str, str, str, int], int] | None = None,
) -> SiteCode:
    """The code for invoke ``insn``, call site number ``site``, the node in local ``node``.

    ``temps``: the first local a pending call may use to hold its receiver and arguments;
    ``caller``: the original name of the method whose body this is when the body's own method has
    another (a twin's, an outlined part's): a logging call goes through a trampoline of that name;
    ``leaves``: the method's leaf slots so far (callee -> slot), when its leaf calls are counted in
    its node's slots (:class:`LeafNode`), not entered: a new callee takes the next slot.
    """
    pool, plan = ctx.pool, ctx.plan
    if insn.opcode == op.INVOKEDYNAMIC:
        const: Any = pool[insn.operand]  # (an InvokeDynamic)
        name, desc = pool.name_and_type(const.name_and_type_index)
        mid = ctx.mids.ref("invokedynamic", name, desc, KIND_JDK)
        ctx.report.call_sites[_BOUNDARY] += 1
        code = SiteCode(ctx.rt.boundary(node, site, mid), insn)
        if name in _CONCATS and _bootstrap_owner(ctx, const.bootstrap_index) == _CONCAT_FACTORY:
            return _concat_shown(ctx, const.bootstrap_index, name, desc, temps, code)
        return code
    key = (insn.operand << 8) | insn.opcode
    known = ctx.site_decisions.get(key)
    if known is None:
        owner, name, desc = pool.member_ref(insn.operand)
        interface = pool.tag(insn.operand) == 11
        decision = plan.call_site(insn.opcode, owner, name, desc, interface)
        ctx.site_decisions[key] = (owner, name, desc, interface, decision)
    else:
        owner, name, desc, interface, decision = known
    ctx.report.call_sites[decision.label] += 1
    if insn.opcode == op.INVOKESTATIC and decision.resolved and plan.needs_init_publish(decision.owner, ctx.name):
        pre, post = init_publish(ctx, node, decision.owner)
        code = _action_code(ctx, insn, node, site, temps, decision, owner, name, desc, interface, leaves)
        return SiteCode(pre + code.pre, code.call, code.post + post, code.pending)
    code = _action_code(ctx, insn, node, site, temps, decision, owner, name, desc, interface, leaves)
    if decision.resolved and decision.action not in NODE_PASSING:
        viewed = _ORIGINAL_VIEW.get(decision.name)
        view = None if viewed is None else viewed.get((decision.owner, decision.descriptor))
        if view is not None:
            return _as_the_original_sees_it(ctx, view, code)
        converted = _TEXT_OF.get((decision.owner, decision.name, decision.descriptor))
        if converted is not None:
            return SiteCode(code.pre + converted(ctx), code.call, code.post, code.pending)
        replaced = _REPLACED.get((decision.owner, decision.name, decision.descriptor))
        if replaced is not None:
            if insn.opcode == op.INVOKESTATIC:
                return SiteCode(code.pre, ctx.rt.invoke(replaced), code.post, code.pending)
            return _null_checked(ctx, insn, desc, temps, code, [], ctx.rt.invoke(replaced))
        if caller is not None and wants_trampoline(caller, decision.owner, decision.name, decision.descriptor):
            pre, call = trampoline_call(ctx, insn, owner, desc, caller)
            if insn.opcode in (op.INVOKESTATIC, op.INVOKESPECIAL):  # (a super call's receiver is this)
                return SiteCode(code.pre + pre, call, code.post, code.pending)
            return _null_checked(ctx, insn, desc, temps, code, pre, call)
    return code


def _null_checked(
    ctx: ClassContext, insn: Instruction, desc: str, temps: int, code: SiteCode, pushes: list, call: Instruction
) -> SiteCode:
    """``call`` (a runtime method or a trampoline taking the receiver first, then ``pushes``) in the
    place of ``insn``, except for a null receiver: then ``insn`` itself runs, and throws the
    ``NullPointerException`` the original throws. Its message is the JVM's own description of the
    call and of where the receiver came from (``because "log" is null``), which it works out from
    the bytecode of the method the exception is thrown in: thrown in a trampoline or the runtime,
    it named their parameter instead (``because "<parameter1>" is null``).

    The arguments go to temporaries while the receiver is tested, and come back for either call;
    the receiver is left where the original code put it, so the JVM still traces it to its source.
    """
    md = parse_method_descriptor(desc)
    stores, loads, end = _argument_temps(md.params, temps)
    original = InvokeInterface(-1, insn.operand, insn.count) if isinstance(insn, InvokeInterface) else None
    original_call = original if original is not None else Instruction(-1, insn.opcode, insn.operand)
    checked, not_null = Label("null_checked"), Label("not_null")
    pre = [*code.pre, *stores, Instruction(-1, op.DUP), Instruction(-1, op.IFNONNULL, not_null), checked]
    pre += [*loads, original_call]  # throws: the receiver is null
    returns = md.return_slots
    if returns:
        pre.append(Instruction(-1, op.POP2 if returns == 2 else op.POP))
    pre += [Instruction(-1, op.ACONST_NULL), Instruction(-1, op.ATHROW), not_null, *loads, *pushes]
    needs = FrameNeeds(flows=[(checked, not_null)])
    return SiteCode(pre, call, code.post, code.pending, needs=needs, temps=end - temps)


_THROWABLE: Final = "java/lang/Throwable"
_CLASS: Final = "java/lang/Class"
_FRAME: Final = "java/lang/StackWalker$StackFrame"
#: the JDK's methods that return what the rewriting changed (stack traces, messages, a class's
#: members), by name: ``(owner, descriptor)`` -> the runtime method that makes the result the
#: original program's (called on it after the call)
_ORIGINAL_VIEW: Final[dict[str, dict[tuple[str, str], RuntimeMember]]] = {
    "getStackTrace": {
        (_THROWABLE, "()[Ljava/lang/StackTraceElement;"): TRACES_CLEAN,
        ("java/lang/Thread", "()[Ljava/lang/StackTraceElement;"): TRACES_CLEAN,
        ("java/lang/management/ThreadInfo", "()[Ljava/lang/StackTraceElement;"): TRACES_CLEAN,
    },
    "getAllStackTraces": {("java/lang/Thread", "()Ljava/util/Map;"): TRACES_CLEAN_ALL},
    # a NullPointerException's message names the twins rewritten code calls (the JVM writes it from the
    # bytecode of the method that threw): read by the program, they are named as the methods
    "getMessage": {
        (_THROWABLE, "()Ljava/lang/String;"): TRACES_MESSAGE,
        ("java/lang/NullPointerException", "()Ljava/lang/String;"): TRACES_MESSAGE,
    },
    "getLocalizedMessage": {(_THROWABLE, "()Ljava/lang/String;"): TRACES_MESSAGE},
    # (and Object's: a throwable in an Object, an interface; ``message`` leaves other texts as they are)
    "toString": {
        (_THROWABLE, "()Ljava/lang/String;"): TRACES_MESSAGE,
        ("java/lang/Object", "()Ljava/lang/String;"): TRACES_MESSAGE,
    },
    "getMethodName": {(_FRAME, "()Ljava/lang/String;"): TRACES_METHOD_NAME},
    "toStackTraceElement": {(_FRAME, "()Ljava/lang/StackTraceElement;"): TRACES_ELEMENT},
    "getDeclaredMethods": {(_CLASS, "()[Ljava/lang/reflect/Method;"): MEMBERS_METHODS},
    "getMethods": {(_CLASS, "()[Ljava/lang/reflect/Method;"): MEMBERS_METHODS},
    "getDeclaredFields": {(_CLASS, "()[Ljava/lang/reflect/Field;"): MEMBERS_FIELDS},
    "getFields": {(_CLASS, "()[Ljava/lang/reflect/Field;"): MEMBERS_FIELDS},
}


#: ``StackWalker``'s walks and its caller's class, made by the runtime's ``Walks`` over the
#: program's frames (the walker the receiver, now the first argument), and ``Thread.dumpStack``
#: printing the program's trace
_REPLACED: Final[dict[tuple[str, str, str], RuntimeMember]] = {
    ("java/lang/StackWalker", "walk", "(Ljava/util/function/Function;)Ljava/lang/Object;"): WALKS_WALK,
    ("java/lang/StackWalker", "forEach", "(Ljava/util/function/Consumer;)V"): WALKS_FOR_EACH,
    ("java/lang/StackWalker", "getCallerClass", "()Ljava/lang/Class;"): WALKS_CALLER_CLASS,
    ("java/lang/Thread", "dumpStack", "()V"): TRACES_DUMP_STACK,
    # the trace cleaned, and printed by Traces itself where a message names twins (an NPE's)
    (_THROWABLE, "printStackTrace", "()V"): TRACES_PRINT,
    (_THROWABLE, "printStackTrace", "(Ljava/io/PrintStream;)V"): TRACES_PRINT_STREAM,
    (_THROWABLE, "printStackTrace", "(Ljava/io/PrintWriter;)V"): TRACES_PRINT_WRITER,
}


def _shown_last(ctx: ClassContext) -> list:
    """``Texts.shown`` on the value on top of the stack: the object a JDK method turns into text."""
    return [ctx.rt.invoke(TEXTS_SHOWN)]


def _shown_format_args(ctx: ClassContext) -> list:
    """``args = Texts.shownArgs(format, args)`` on a format and its arguments on top of the stack."""
    shown = ctx.rt.invoke(TEXTS_SHOWN_ARGS)
    return [Instruction(-1, op.DUP2), shown, Instruction(-1, op.SWAP), Instruction(-1, op.POP)]


_OBJECT: Final = "Ljava/lang/Object;"
_FORMAT: Final = "Ljava/lang/String;[Ljava/lang/Object;)"
_LOCALE_FORMAT: Final = "(Ljava/util/Locale;" + _FORMAT
#: JDK methods that turn an object into text with ``String.valueOf(Object)`` (its last argument),
#: or format arguments (a format and an ``Object[]``, the last two), and what rewritten code hands
#: them: where a throwable's text names twins (an NPE's message), that text as the original's
#: (``Texts``). Others (``Objects.toString(o, dflt)``, ``insert``, a collection's ``toString``)
#: get the throwable as it is.
_TEXT_OF: Final = {
    **{
        key: _shown_last
        for key in (
            ("java/lang/String", "valueOf", "(Ljava/lang/Object;)Ljava/lang/String;"),
            ("java/util/Objects", "toString", "(Ljava/lang/Object;)Ljava/lang/String;"),
            ("java/lang/StringBuilder", "append", "(Ljava/lang/Object;)Ljava/lang/StringBuilder;"),
            ("java/lang/StringBuffer", "append", "(Ljava/lang/Object;)Ljava/lang/StringBuffer;"),
            ("java/io/PrintStream", "print", "(Ljava/lang/Object;)V"),
            ("java/io/PrintStream", "println", "(Ljava/lang/Object;)V"),
            ("java/io/PrintWriter", "print", "(Ljava/lang/Object;)V"),
            ("java/io/PrintWriter", "println", "(Ljava/lang/Object;)V"),
        )
    },
    **{
        key: _shown_format_args
        for key in (
            ("java/lang/String", "format", "(" + _FORMAT + "Ljava/lang/String;"),
            ("java/lang/String", "format", _LOCALE_FORMAT + "Ljava/lang/String;"),
            # (the receiver is the format)
            ("java/lang/String", "formatted", "([Ljava/lang/Object;)Ljava/lang/String;"),
            ("java/io/PrintStream", "printf", "(" + _FORMAT + "Ljava/io/PrintStream;"),
            ("java/io/PrintStream", "printf", _LOCALE_FORMAT + "Ljava/io/PrintStream;"),
            ("java/io/PrintStream", "format", "(" + _FORMAT + "Ljava/io/PrintStream;"),
            ("java/io/PrintStream", "format", _LOCALE_FORMAT + "Ljava/io/PrintStream;"),
            ("java/io/PrintWriter", "printf", "(" + _FORMAT + "Ljava/io/PrintWriter;"),
            ("java/io/PrintWriter", "printf", _LOCALE_FORMAT + "Ljava/io/PrintWriter;"),
            ("java/io/PrintWriter", "format", "(" + _FORMAT + "Ljava/io/PrintWriter;"),
            ("java/io/PrintWriter", "format", _LOCALE_FORMAT + "Ljava/io/PrintWriter;"),
            ("java/util/Formatter", "format", "(" + _FORMAT + "Ljava/util/Formatter;"),
            ("java/util/Formatter", "format", _LOCALE_FORMAT + "Ljava/util/Formatter;"),
        )
    },
}

_CONCAT_FACTORY: Final = "java/lang/invoke/StringConcatFactory"
_CONCATS: Final = frozenset(("makeConcatWithConstants", "makeConcat"))


def _bootstrap_owner(ctx: ClassContext, index: int) -> str | None:
    """The class of bootstrap method ``index`` of the class's ``BootstrapMethods`` (None if unreadable)."""
    table: Any = ctx.cf.attribute("BootstrapMethods")
    try:
        handle: Any = ctx.pool[table.methods[index][0]]
        return ctx.pool.member_ref(handle.index)[0]
    except (AttributeError, IndexError, TypeError, ValueError, KeyError):
        return None


def _concat_shown(ctx: ClassContext, bootstrap: int, name: str, desc: str, temps: int, code: SiteCode) -> SiteCode:
    """A string concatenation (``StringConcatFactory``, which converts each reference with
    ``String.valueOf``) with each argument that may be a throwable through ``Texts.shown``, its
    type in the call's descriptor made ``Object``: the arguments go to temporaries and come back,
    after every one is evaluated, where the original converts them. Arguments of other types
    (strings, boxes, classes that are no throwables) go in as they are."""
    md = parse_method_descriptor(desc)
    shown = [i for i, p in enumerate(md.params) if p[0] == "L" and _may_be_throwable(ctx, p[1:-1])]
    if not shown:
        return code
    params = [_OBJECT if i in shown else p for i, p in enumerate(md.params)]
    call = InvokeDynamic(-1, ctx.pool.add_invoke_dynamic(bootstrap, name, "(" + "".join(params) + ")" + md.return_type))
    if shown == [len(params) - 1]:  # the only one is on top
        return SiteCode(code.pre + _shown_last(ctx), call)
    stores, loads, end = _argument_temps(md.params, temps)
    pre = code.pre + stores
    for i, load in enumerate(loads):
        pre += [load, ctx.rt.invoke(TEXTS_SHOWN)] if i in shown else [load]
    return SiteCode(pre, call, temps=end - temps)


def _may_be_throwable(ctx: ClassContext, name: str) -> bool:
    """May a reference of class or interface ``name`` be a throwable (unknown classes may)?"""
    if name == "java/lang/Object":
        return True
    if name == "java/lang/String":
        return False
    info = ctx.hierarchy.info(name)
    return info is None or info.is_interface or ctx.hierarchy.is_subtype(name, "java/lang/Throwable") is not False


def _as_the_original_sees_it(ctx: ClassContext, member: RuntimeMember, code: SiteCode) -> SiteCode:
    """``code`` with what the JDK method returns made the original program's by ``member``
    (``Traces``, ``Members``): the program reads its own frames, messages and members, not the
    twins, wrappers and synthetic members the rewriting added."""
    return SiteCode(code.pre, code.call, code.post + [ctx.rt.invoke(member)], code.pending)


def _action_code(
    ctx: ClassContext,
    insn: Instruction,
    node: int,
    site: int,
    temps: int,
    decision: CallSite,
    owner: str,
    name: str,
    desc: str,
    interface: bool,
    leaves: dict[tuple[str, str, str, int], int] | None = None,
) -> SiteCode:
    """The code of ``decision``'s action (``owner.name desc``: the reference the call site names)."""
    rt, action = ctx.rt, decision.action
    if action is CallAction.PLAIN:
        return SiteCode([], insn)
    if action is CallAction.PUBLISH:
        return SiteCode(rt.publish_call(node, site), insn)
    if action is CallAction.PASS_INTERFACE:
        return _pass_interface(ctx, [], node, site, owner if interface else decision.owner, decision.owner, name, desc)
    if action is CallAction.PASS:
        if decision.leaf and leaves is not None and not interface and leaf_bodies(ctx.options):
            callee = (decision.owner.replace("/", "."), decision.name, decision.descriptor, KIND_INSTRUMENTED)
            slot = take_leaf_slot(leaves, callee)
            if slot >= 0:  # its slot twin counts into the node's slots (shape_slot)
                ctx.report.call_sites["slot"] += 1
                return _pass_slot(ctx, insn, node, slot, owner, name, desc)
        return _pass(ctx, insn, [], node, site, owner, name, desc, decision.owner, interface)
    if action is CallAction.LEAF and leaves is not None:
        callee = (decision.owner.replace("/", "."), decision.name, decision.descriptor, decision.kind)
        slot = take_leaf_slot(leaves, callee)
        if slot >= 0:
            return SiteCode(rt.leaf_call(node, slot), insn)  # counted in the node's slot, not entered
    mid = ctx.mids.ref(decision.owner, decision.name, decision.descriptor, decision.kind)
    if action is CallAction.BOUNDARY:
        return SiteCode(rt.boundary(node, site, mid), insn)
    if action is CallAction.LEAF:  # entered like a boundary call, not published: it cannot call back
        # (a method without leaf slots: an outlined one, or past its class's limit)
        return SiteCode(rt.enter(node, site, mid) + [Instruction(-1, op.POP)], insn)
    assert action is CallAction.PENDING
    end_pending = rt.end_pending(node, site, mid)
    if insn.opcode == op.INVOKESTATIC:  # no receiver to hand over: the arguments stay where they are
        return SiteCode(rt.pending(node, site, mid, -1), insn, end_pending, end_pending)
    return SiteCode(_spill_for_pending(ctx, node, site, mid, desc, temps), insn, end_pending, end_pending)


def init_publish(ctx: ClassContext, node: int, target: str) -> tuple[list, list]:
    """The code before and after an instruction that may initialise ``target`` (``new``, static
    field accesses, ``invokestatic``): publish the node unless this class's ``$jp$init`` flag for
    ``target`` is set; set it once the instruction has completed. Then ``target``'s
    initialisation has begun (JVMS 5.5: an instruction that initialises a class completes only
    once the class is initialised, or is being initialised by the same thread), so no later
    touch in any thread runs its ``<clinit>`` again: the publish, a reference store into the
    thread's root on every execution, happens only until then. A flag set too late (a racing
    thread, an exception) only costs publishes that were not needed."""
    flag = ctx.mids.init_flag(target)
    return ctx.rt.publish_init(node, flag), [Instruction(-1, op.ICONST_1), Instruction(-1, op.PUTSTATIC, flag)]


def _pass_interface(
    ctx: ClassContext, pre: list, node: int, site: int, iface: str, declaring: str, name: str, desc: str
) -> SiteCode:
    """Through the dispatcher in the caller's own holder; ``iface`` is the interface the call
    site names (accessible to this class), else the declaring one."""
    ctx.caller_dispatchers.setdefault(
        (iface, name, desc), (declaring, ctx.plan.publishing_dispatcher(declaring, name, desc))
    )
    ref = ctx.pool.add_methodref(ctx.mids.holder, name, dispatcher_descriptor(iface, desc), interface=False)
    return SiteCode(
        pre + [Instruction(-1, op.ALOAD, node), G.push_int(ctx.pool, site)], Instruction(-1, op.INVOKESTATIC, ref)
    )


def _pass(
    ctx: ClassContext,
    insn: Instruction,
    pre: list,
    node: int,
    site: int,
    owner: str,
    name: str,
    desc: str,
    resolved_owner: str,
    interface: bool,
) -> SiteCode:
    """Call the ESI with the node and the site."""
    pool = ctx.pool
    site_push = G.push_int(pool, site)
    if insn.opcode == op.INVOKESPECIAL and name != "<init>" and resolved_owner != ctx.name:
        site_push = G.push_int(pool, UNKNOWN_SITE)  # a super call selected its method: no override check
    key = (insn.operand << 8) | insn.opcode
    ref = ctx.esi_refs.get(key, -1)
    if ref < 0:
        ref = ctx.esi_refs[key] = pool.add_methodref(owner, esi_name(name), esi_descriptor(desc), interface=interface)
    call: Instruction
    if isinstance(insn, InvokeInterface):
        call = InvokeInterface(-1, ref, insn.count + 2)
    else:
        call = Instruction(-1, insn.opcode, ref)
    return SiteCode(pre + [Instruction(-1, op.ALOAD, node), site_push], call)


def _pass_slot(
    ctx: ClassContext, insn: Instruction, node: int, slot: int, owner: str, name: str, desc: str
) -> SiteCode:
    """Call the callee's slot twin with the node (a ``LeafNode``) and the first of its two slots."""
    pool = ctx.pool
    ref = pool.add_methodref(owner, esi_name(name), slot_descriptor(desc), interface=False)
    pre = [
        Instruction(-1, op.ALOAD, node),
        Instruction(-1, op.CHECKCAST, pool.add_class(LEAF_NODE)),
        G.push_int(pool, slot),
    ]
    return SiteCode(pre, Instruction(-1, insn.opcode, ref))


def _spill_for_pending(ctx: ClassContext, node: int, site: int, mid: int, desc: str, base: int) -> list:
    """Store the arguments in temporaries, hand the receiver to ``ThreadRoot.pending``, reload."""
    stores, loads, _ = _argument_temps(parse_method_descriptor(desc).params, base + 1)
    return [
        *stores,
        Instruction(-1, op.DUP),
        Instruction(-1, op.ASTORE, base),
        *ctx.rt.pending(node, site, mid, base),
        *loads,
    ]


def _argument_temps(params: tuple[str, ...], first: int) -> tuple[list, list, int]:
    """A call's arguments (types ``params``) stored from the stack into locals from ``first`` on (the
    last argument first), and loaded back in order; and the first local past them."""
    slots = []
    slot = first
    for p in params:
        slots.append(slot)
        slot += type_size(p)
    stores = [Instruction(-1, G.store_opcode(p), s) for p, s in reversed(list(zip(params, slots)))]
    loads = [Instruction(-1, G.load_opcode(p), s) for p, s in zip(params, slots)]
    return stores, loads, slot


def pending_temps(insn: Instruction, pool: ConstantPool) -> int:
    """Local slots a pending call site needs: the receiver and every argument."""
    _, _, desc = pool.member_ref(insn.operand)
    return 1 + parse_method_descriptor(desc).param_slots
