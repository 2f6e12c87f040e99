"""N2B wrapper: the original signature of an instrumented method, entering the CCT from outside.

Reflection, the JDK, native code and uninstrumented classes call the original signature; the
wrapper takes the parent from the thread's slot (``ThreadRoot.n2bEnter``: through a pending
call's cache slot when dispatch came straight from instrumented code), calls the ESI twin with
``Node.ENTERED`` and leaves the slot as it found it, also when the twin throws.
"""

from __future__ import annotations

from ..classfile import opcodes as op
from ..classfile.code import CodeAttribute, ExceptionHandler, StackMapTable
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.frames import Frame, Object, initial_frame_locals
from ..classfile.instructions import Instruction
from ..classfile.model import ACC_STATIC, Method
from ..editor import Handler, Label
from ..editor.assembler import encode_straight
from ..editor.body import CodeBody
from ..editor.method_code import code_name_index, set_code
from . import codegen as G
from .context import ClassContext
from .emit import THROWABLE, FrameNeeds
from .support import ENTERED, NODE, esi_descriptor, esi_name

__all__ = ["make_n2b", "slot_restoring_body"]


def make_n2b(ctx: ClassContext, m: Method, self_mid: int) -> None:
    """Replace ``m``'s body (its ESI twin holds the original now) with the N2B wrapper.

    Every instrumented method has one, and its shape is fixed: two straight runs (the entry and
    the call), the slot restore before the return and before the rethrow, one catch-all handler
    and its one frame. So the Code attribute is written from those parts' bytes, with the
    handler's offsets, frame and ``max_stack`` known from the shape: a body of labels, its
    layout and a stack-depth flow cost more than the rest of the wrapper. What comes out is
    byte for byte what assembling :func:`slot_restoring_body`'s body gives (tested).
    """
    pool, rt = ctx.pool, ctx.rt
    is_static = bool(m.access & ACC_STATIC)
    args, slot = G.load_arguments(m.descriptor, is_static)
    parent, saved = slot, slot + 1
    this_or_null = Instruction(-1, op.ACONST_NULL) if is_static else Instruction(-1, op.ALOAD, 0)
    head = [*rt.n2b_enter(this_or_null, self_mid), Instruction(-1, op.ASTORE, parent), *rt.save_slot(parent, saved)]
    ref = pool.add_methodref(
        ctx.name, esi_name(m.name), esi_descriptor(m.descriptor), interface=ctx.strategy.is_interface
    )
    call = Instruction(-1, op.INVOKESTATIC if is_static else op.INVOKESPECIAL, ref)
    protected = [*args, Instruction(-1, op.ALOAD, parent), G.push_int(pool, ENTERED), call]
    restore = rt.restore_slot_fragment(parent, saved)
    head_code, _, head_peak, _ = encode_straight(head, pool)
    call_code, result, call_peak, _ = encode_straight(protected, pool)
    start = len(head_code)
    end = start + len(call_code)
    handler = end + len(restore.code) + 1
    return_op = G.return_opcode(parse_method_descriptor(m.descriptor).return_type)
    code = b"".join((head_code, call_code, restore.code, bytes((return_op,)), restore.code, bytes((op.ATHROW,))))
    # the depths: the head and the call start at 0; the restore runs above the result and
    # above the handler's Throwable
    max_stack = max(head_peak, call_peak, result + restore.peak, 1 + restore.peak)
    nested: list = []
    if ctx.strategy.frames:
        locals_ = initial_frame_locals(ctx.name, m.name, m.descriptor, is_static) + [Object(NODE), Object(NODE)]
        smt = StackMapTable(pool.add_utf8("StackMapTable"), b"", None)
        smt.set_frames([Frame(handler, locals_, [THROWABLE])])
        nested.append(smt)
    attribute = CodeAttribute(
        code_name_index(m), max_stack, saved + 1, code, [ExceptionHandler(start, end, handler, 0)], nested
    )
    set_code(m, attribute)


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
