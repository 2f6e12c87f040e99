"""B2N for a native method: an ESI-shaped method that gives the native method a node of its own.

Native code can call back into Java: the node is published while the native method runs (its
callbacks attach beneath it) and the slot is restored afterwards, also on exceptions. The call
dispatches (``invokevirtual``) so an uninstrumented subclass's override of the native method
still runs.
"""

from __future__ import annotations

from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.frames import Object, initial_frame_locals
from ..classfile.instructions import Instruction
from ..classfile.model import ACC_NATIVE, ACC_PRIVATE, ACC_STATIC, ACC_VARARGS, Method
from . import codegen as G
from .context import ClassContext
from .emit import add_method
from .runtime_api import LocalSite
from .shape_n2b import slot_restoring_body
from .support import ESI_FLAGS, KIND_NATIVE, NODE, esi_descriptor, esi_name

__all__ = ["add_b2n"]


def add_b2n(ctx: ClassContext, m: Method) -> None:
    pool, rt = ctx.pool, ctx.rt
    md = parse_method_descriptor(m.descriptor)
    is_static = bool(m.access & ACC_STATIC)
    args, slot = G.load_arguments(m.descriptor, is_static)
    node, site, saved = slot, slot + 1, slot + 2
    mid = ctx.mids.ref(ctx.name, m.name, m.descriptor, KIND_NATIVE)
    if is_static:
        opcode = op.INVOKESTATIC
    elif m.access & ACC_PRIVATE:
        opcode = op.INVOKESPECIAL
    else:  # dispatch: an uninstrumented subclass's override of the native method must run
        opcode = op.INVOKEVIRTUAL
    call = Instruction(-1, opcode, pool.add_methodref(ctx.name, m.name, m.descriptor))
    restore = rt.restore_slot(node, saved)
    head = [
        *rt.enter(node, LocalSite(site), mid),
        Instruction(-1, op.ASTORE, node),
        *rt.save_slot(node, saved),
        *rt.publish(node),
    ]
    handler_locals = initial_frame_locals(ctx.name, m.name, esi_descriptor(m.descriptor), is_static) + [Object(NODE)]
    body, needs = slot_restoring_body(head, [*args, call], restore, md.return_type, saved + 1, handler_locals)
    access = m.access & ~(ACC_NATIVE | ACC_VARARGS) | ESI_FLAGS
    add_method(ctx, access, esi_name(m.name), esi_descriptor(m.descriptor), body, needs)
    ctx.report.emitted[(esi_name(m.name), esi_descriptor(m.descriptor))] = (m.name, m.descriptor)
    ctx.report.b2n += 1
