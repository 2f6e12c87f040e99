"""Logging trampolines: the JDK's loggers name the program's method, not its twin.

``java.util.logging`` and ``System.Logger`` name the method that logged (``%2$s`` of JUL's
``SimpleFormatter``, ``LogRecord.getSourceMethodName``) after the first frame below the logger's
own: in a rewritten program, the ESI twin ``m$jp`` that holds ``m``'s body. That code is the JDK's,
which the rewriting does not touch, so no cleaning of what it reads is possible there (as
``Traces`` does for what rewritten code reads). Instead, a twin (or an outlined part) that calls a
logging method calls it through a *trampoline*: a small method of the same class named as the
original method, whose frame the logger then finds, with the class and method name the original
program's frame had. It takes the call's receiver and arguments and a last ``Traces`` parameter
(always null) that keeps its descriptor apart from every method the program can declare, and it
cleans the throwables it is handed (``Traces.cleanThrowable``, ``cleanRecord``) before the logger
prints them.

One trampoline per method and logging signature; a ``super`` call (a ``Logger`` subclass calling
``super.info``) gets an instance trampoline that makes the same ``invokespecial`` on ``this``. What
it does not keep: a null logger's ``NullPointerException`` is thrown in the trampoline, so its
message names the trampoline's parameter, not the expression of the original call site.
"""

from __future__ import annotations

from typing import Final

from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor, type_size
from ..classfile.instructions import Instruction
from ..classfile.model import ACC_PRIVATE, ACC_STATIC, Method
from . import codegen as G
from .context import ClassContext
from .runtime_api import TRACES_CLEAN_RECORD, TRACES_CLEAN_THROWABLE
from .support import TRACES, TRAMPOLINE_FLAGS, trampoline_descriptor

__all__ = ["wants_trampoline", "trampoline_call", "add_trampolines"]

_JUL: Final = "java/util/logging/Logger"
_SYSTEM_LOGGER: Final = "java/lang/System$Logger"
_BY_LEVEL: Final = frozenset(("severe", "warning", "info", "config", "fine", "finer", "finest"))
_THROWABLE: Final = "Ljava/lang/Throwable;"
_RECORD: Final = "Ljava/util/logging/LogRecord;"
_MARKER: Final = "L" + TRACES + ";"

#: No trampoline is named ``doCall``: Groovy's runtime takes a closure's arity from the most
#: parameters among its methods of that name (``CachedClosureClass``, reflection that skips bridges
#: but not synthetic methods), so where the runtime is not rewritten (``Members`` not in its way) a
#: trampoline would change how the closure is called. A closure's JUL records keep ``doCall$jp``.
_GROOVY_CLOSURE_BODY: Final = "doCall"


def wants_trampoline(caller: str, owner: str, name: str, descriptor: str) -> bool:
    """Does a call of the JDK's method ``owner.name descriptor`` from a body of method ``caller``
    go through a trampoline: does that method name its caller after the caller's frame, or print
    a throwable it is given (and the caller is not a ``doCall``)? JUL's ``Logger``: the methods by
    level, every ``log`` (a ``LogRecord`` of the program's own is named when a handler first
    asks), the ``logrb`` that take no source names; ``logp``, ``logrb`` and ``throwing`` with a
    throwable (the program names the source itself, the trace is printed). ``System.Logger``:
    every ``log``."""
    if caller == _GROOVY_CLOSURE_BODY:
        return False
    if owner == _SYSTEM_LOGGER:
        return name == "log"
    if owner != _JUL:
        return False
    if name in _BY_LEVEL or name == "log":
        return True
    if name == "logrb" and descriptor.startswith("(Ljava/util/logging/Level;Ljava/util/ResourceBundle;"):
        return True
    return name in ("logp", "logrb", "throwing") and _THROWABLE in descriptor


def trampoline_call(
    ctx: ClassContext, insn: Instruction, owner: str, descriptor: str, caller: str
) -> tuple[list, Instruction]:
    """What replaces call ``insn`` (of ``owner``'s method ``descriptor``, the reference it names)
    in a body of method ``caller``: the marker arguments, then the call of the trampoline, which
    makes ``insn``'s call (the trampoline is added with the class's others, :func:`add_trampolines`).

    Two logging methods of the same descriptor (``info`` and ``fine``) called from one method
    need two trampolines of the same name: the second gets two markers, the third three."""
    special = insn.opcode == op.INVOKESPECIAL
    key = (caller, insn.opcode, insn.operand)
    known = ctx.trampolines.get(key)
    if known is None:
        base = trampoline_descriptor(None if special else owner, descriptor)
        markers = 1 + sum(1 for (c, _, _), (d, _, _) in ctx.trampolines.items() if c == caller and d == base)
        known = ctx.trampolines[key] = (base, markers, descriptor)
    base, markers, _ = known
    ref = ctx.pool.add_methodref(ctx.name, caller, _with_markers(base, markers), interface=ctx.strategy.is_interface)
    pushes = [Instruction(-1, op.ACONST_NULL) for _ in range(markers)]
    return pushes, Instruction(-1, op.INVOKESPECIAL if special else op.INVOKESTATIC, ref)


def _with_markers(base: str, markers: int) -> str:
    """``base`` (one marker parameter last) with ``markers`` of them."""
    return base.replace(")", _MARKER * (markers - 1) + ")", 1) if markers > 1 else base


def add_trampolines(ctx: ClassContext) -> None:
    """The trampolines the class's call sites asked for (straight code: no frames needed)."""
    pool = ctx.pool
    clean = ctx.rt.method_ref(TRACES_CLEAN_THROWABLE)
    clean_record = ctx.rt.method_ref(TRACES_CLEAN_RECORD)
    for (name, opcode, ref), (base, markers, descriptor) in ctx.trampolines.items():
        tdesc = _with_markers(base, markers)
        special = opcode == op.INVOKESPECIAL
        md = parse_method_descriptor(descriptor)
        c = G.StraightCode()
        slot = 1  # the receiver, or this
        for p in md.params:
            if p == _THROWABLE or p == _RECORD:
                c.local(op.ALOAD, slot)
                c.with_index(op.INVOKESTATIC, clean if p == _THROWABLE else clean_record, 1, 0)
            slot += type_size(p)
        c.local(op.ALOAD, 0)
        arg_slots = slot - 1
        slot = 1
        for p in md.params:
            c.local(G.load_opcode(p), slot)
            slot += type_size(p)
        if opcode == op.INVOKEINTERFACE:
            c.invoke_interface(ref, 1 + arg_slots, md.return_slots)
        else:
            c.with_index(opcode, ref, 1 + arg_slots, md.return_slots)
        c.simple(G.return_opcode(md.return_type), md.return_slots, 0)
        access = TRAMPOLINE_FLAGS | ACC_PRIVATE | (0 if special else ACC_STATIC)
        m = Method(access, pool.add_utf8(name), pool.add_utf8(tdesc), [], ctx.cf)
        m.attributes.append(c.attribute(pool, slot + markers))  # (and the markers' slots)
        ctx.cf.methods.append(m)
