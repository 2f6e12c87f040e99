"""N2B wrapper: the original signature of an instrumented method, entering the CCT from outside.

Reflection, the JDK, native code and uninstrumented classes call the original signature; the
wrapper takes the parent from the thread's slot (``ThreadRoot.n2bEnter``: through a pending
call's cache slot when dispatch came straight from instrumented code), calls the ESI twin with
``Node.ENTERED`` and leaves the slot as it found it, also when the twin throws.
"""

from __future__ import annotations

from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.frames import Frame, Object, initial_frame_locals
from ..classfile.instructions import Instruction
from ..classfile.model import ACC_STATIC, Method
from ..editor import Handler, Label
from ..editor.body import CodeBody
from . import codegen as G
from .context import ClassContext
from .emit import THROWABLE, FrameNeeds, assemble
from .support import ENTERED, NODE, esi_descriptor, esi_name

__all__ = ["make_n2b", "slot_restoring_body"]


def make_n2b(ctx: ClassContext, m: Method, self_mid: int) -> None:
    """Replace ``m``'s body (its ESI twin holds the original now) with the N2B wrapper."""
    pool, rt = ctx.pool, ctx.rt
    md = parse_method_descriptor(m.descriptor)
    is_static = bool(m.access & ACC_STATIC)
    args, slot = G.load_arguments(m.descriptor, is_static)
    parent, saved = slot, slot + 1
    this_or_null = Instruction(-1, op.ACONST_NULL) if is_static else Instruction(-1, op.ALOAD, 0)
    items: list = [
        *rt.n2b_enter(this_or_null, self_mid),
        Instruction(-1, op.ASTORE, parent),
        *rt.save_slot(parent, saved),
    ]
    ref = pool.add_methodref(
        ctx.name, esi_name(m.name), esi_descriptor(m.descriptor), interface=ctx.strategy.is_interface
    )
    call = Instruction(-1, op.INVOKESTATIC if is_static else op.INVOKESPECIAL, ref)
    restore = rt.restore_slot(parent, saved)
    protected = [*args, Instruction(-1, op.ALOAD, parent), G.push_int(pool, ENTERED), call]
    handler_locals = initial_frame_locals(ctx.name, m.name, m.descriptor, is_static) + [Object(NODE), Object(NODE)]
    body, needs = slot_restoring_body(items, protected, restore, md.return_type, saved + 1, handler_locals)
    assemble(ctx, m, body, needs)


def slot_restoring_body(
    head: list, protected: list, restore: list, return_type: str, max_locals: int, handler_locals: list
) -> tuple[CodeBody, FrameNeeds]:
    """``head``, then ``protected`` under a catch-all; ``restore`` (the slot as it was found) runs
    before the return and before the rethrow. What N2B and B2N wrappers share."""
    start, end, handler = Label("restore_start"), Label("restore_end"), Label("restore_handler")
    items = [
        *head,
        start,
        *protected,
        end,
        *restore,
        Instruction(-1, G.return_opcode(return_type)),
        handler,
        *restore,
        Instruction(-1, op.ATHROW),
    ]
    body = CodeBody(items=items, max_locals=max_locals)
    body.handlers.append(Handler(start, end, handler, 0))
    needs = FrameNeeds()
    needs.known[handler] = Frame(-1, handler_locals, [THROWABLE])
    return body, needs
