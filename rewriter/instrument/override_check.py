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
from ..classfile.instructions import Instruction
from ..editor import Label
from . import codegen as G
from .context import ClassContext
from .emit import FrameNeeds
from .runtime_api import LocalSite
from .support import CLASS_METHOD, CLASS_METHOD_DESC, esi_descriptor

__all__ = ["override_check"]


def override_check(ctx: ClassContext, name: str, descriptor: str, node: int, mid: int) -> tuple[list, FrameNeeds]:
    """The check for instance method ``name descriptor`` of a class (not an interface); the ESI's
    node and site parameters are in locals ``node`` and ``node + 1``."""
    pool, cf = ctx.pool, ctx.cf
    go = Label("esi_body")
    needs = FrameNeeds()
    if ctx.strategy.frames:
        body_locals = initial_frame_locals(cf.name, name, esi_descriptor(descriptor), False)
        needs.known[go] = Frame(-1, body_locals, [])
    args, _ = G.load_arguments(descriptor, False)
    md = parse_method_descriptor(descriptor)
    get_class = pool.add_methodref("java/lang/Object", "getClass", "()Ljava/lang/Class;")
    marker = Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(cf.name, CLASS_METHOD, CLASS_METHOD_DESC))
    original = Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(cf.name, name, descriptor))
    # the receiver is exactly this class: dispatch selected this very method
    exact = [
        Instruction(-1, op.ALOAD, 0),
        Instruction(-1, op.INVOKEVIRTUAL, get_class),
        Instruction(-1, op.LDC_W, pool.add_class(cf.name)),
        Instruction(-1, op.IF_ACMPEQ, go),
    ]
    code = [
        Instruction(-1, op.ILOAD, node + 1),
        Instruction(-1, op.IFLT, go),
        *exact,
        Instruction(-1, op.ALOAD, 0),
        marker,
        Instruction(-1, op.ALOAD, 0),
        Instruction(-1, op.INVOKEVIRTUAL, get_class),
        Instruction(-1, op.IF_ACMPEQ, go),
        *ctx.rt.redirect(node, LocalSite(node + 1), mid),
        Instruction(-1, op.IFNULL, go),
        *args,
        original,
        Instruction(-1, G.return_opcode(md.return_type)),
        go,
    ]
    return code, needs
