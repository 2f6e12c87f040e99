"""The override check at the start of an ESI that an uninstrumented subclass could override.

Instrumented callers call ``m$jp`` directly; if the receiver's class is an uninstrumented
subclass that overrides ``m`` (it has no ``m$jp`` of its own), dispatch would run *our* ESI
instead of its override. The check finds that case cheaply (the site is -1 after a super call;
the receiver's class is this class; its ``$jprewrite$class()`` is its own class) and otherwise
lets the runtime decide (``ThreadRoot.redirect``), calling the original signature so the
override runs under a boundary node. Interface ESIs need none: they are only reached through
dispatchers, which check the receiver themselves.
"""

from __future__ import annotations

from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.frames import Frame, initial_frame_locals
from ..classfile.instructions import Fragment
from ..editor import Label
from . import codegen as G
from .context import ClassContext
from .emit import FrameNeeds
from .runtime_api import ROOT_REDIRECT
from .support import CLASS_METHOD, CLASS_METHOD_DESC, esi_descriptor

__all__ = ["override_check"]


def override_check(ctx: ClassContext, name: str, descriptor: str, node: int, mid: int) -> tuple[list, FrameNeeds]:
    """The check for instance method ``name descriptor`` of a class (not an interface); the ESI's
    node and site parameters are in locals ``node`` and ``node + 1``.

    Every virtual twin of a non-final class starts with one, and its shape is fixed, so it is
    written as bytes (:class:`~.codegen.StraightCode`) and placed as one fragment whose branches
    all go to its end, where the twin's body starts (the frame there is the method's first):
    about 25 instructions a method less to lay out, encode and flow. The bytes are those the
    assembler gives the same instructions (tested)."""
    pool, this = ctx.pool, ctx.name
    go = Label("esi_body")
    needs = FrameNeeds()
    if ctx.strategy.frames:
        body_locals = initial_frame_locals(this, name, esi_descriptor(descriptor), False)
        needs.known[go] = Frame(-1, body_locals, [])
    # (the references in the order the pool has always had them added)
    get_class = pool.add_methodref("java/lang/Object", "getClass", "()Ljava/lang/Class;")
    marker = pool.add_methodref(this, CLASS_METHOD, CLASS_METHOD_DESC)
    original = pool.add_methodref(this, name, descriptor)
    site = node + 1
    c = G.StraightCode()
    c.local(op.ILOAD, site)
    c.branch_to_end(op.IFLT, 1)  # a super call, or the wrapper: dispatch selected this method
    # the receiver is exactly this class: dispatch selected this very method
    c.simple(op.ALOAD_0, 0, 1)
    c.with_index(op.INVOKEVIRTUAL, get_class, 1, 1)
    c.ldc(pool.add_class(this))
    c.branch_to_end(op.IF_ACMPEQ, 2)
    # the receiver's class is instrumented (its $jprewrite$class is itself)
    c.simple(op.ALOAD_0, 0, 1)
    c.with_index(op.INVOKEVIRTUAL, marker, 1, 1)
    c.simple(op.ALOAD_0, 0, 1)
    c.with_index(op.INVOKEVIRTUAL, get_class, 1, 1)
    c.branch_to_end(op.IF_ACMPEQ, 2)
    # ThreadRoot.redirect(this, node, site, mid): null when the ESI may run after all
    c.simple(op.ALOAD_0, 0, 1)
    c.local(op.ALOAD, node)
    c.local(op.ILOAD, site)
    ctx.mids.write(mid, c)
    c.with_index(op.INVOKESTATIC, ctx.rt.method_ref(ROOT_REDIRECT), 4, 1)
    c.branch_to_end(op.IFNULL, 1)
    # else the override runs: this.m(args...) through the original signature
    md = parse_method_descriptor(descriptor)
    c.load_arguments(descriptor, False)
    c.with_index(op.INVOKEVIRTUAL, original, 1 + md.param_slots, md.return_slots)
    c.simple(G.return_opcode(md.return_type), md.return_slots, 0)
    c.end_branches()
    return [Fragment(c.bytes(), c.max_stack, site + 1), go], needs
