"""Delegating ESI: a boundary node, then the original signature.

For abstract methods (so callers passing the node find an ESI whatever the receiver), and for
methods kept as they were (past 64 KB once instrumented, rejected by the verification gate,
contract-only classes): the body runs uninstrumented beneath a boundary node.
"""

from __future__ import annotations

from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.instructions import Instruction, InvokeInterface
from ..classfile.model import (
    ACC_ABSTRACT,
    ACC_FINAL,
    ACC_NATIVE,
    ACC_PRIVATE,
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_VARARGS,
    Method,
)
from ..editor.body import CodeBody
from . import codegen as G
from .context import ClassContext
from .emit import FrameNeeds, add_method
from .override_check import override_check
from .runtime_api import LocalSite
from .support import ESI_FLAGS, KIND_UNINSTRUMENTED, esi_descriptor, esi_name

__all__ = ["add_abstract_delegator", "add_kept_delegator"]


def add_abstract_delegator(ctx: ClassContext, m: Method) -> None:
    """The ESI of an abstract method: dispatch to the original signature."""
    _add_delegator(ctx, m, abstract=True)


def add_kept_delegator(ctx: ClassContext, m: Method) -> None:
    """The ESI of a method whose body stays as it was: call this class's own body."""
    _add_delegator(ctx, m, abstract=False)


def _add_delegator(ctx: ClassContext, m: Method, *, abstract: bool) -> None:
    is_static = bool(m.access & ACC_STATIC)
    interface = ctx.strategy.is_interface
    if is_static:
        opcode = op.INVOKESTATIC
    elif abstract:
        opcode = op.INVOKEINTERFACE if interface else op.INVOKEVIRTUAL
    else:
        opcode = op.INVOKESPECIAL  # this class's own (uninstrumented) body
    access = m.access & ~(ACC_ABSTRACT | ACC_VARARGS | ACC_NATIVE) | ESI_FLAGS
    if interface and not is_static and not m.access & ACC_PRIVATE:
        access |= ACC_PUBLIC
    _delegating_esi(ctx, access, m.name, m.descriptor, opcode)


def _delegating_esi(ctx: ClassContext, access: int, name: str, descriptor: str, opcode: int) -> None:
    """A body of this class called with ``invokespecial`` may be overridden by an uninstrumented
    subclass, which has no ESI of its own: the override check runs that override instead."""
    md = parse_method_descriptor(descriptor)
    args, slot = G.load_arguments(descriptor, opcode == op.INVOKESTATIC)
    mid = ctx.mids.ref(ctx.name, name, descriptor, KIND_UNINSTRUMENTED)
    ref = ctx.pool.add_methodref(ctx.name, name, descriptor, interface=ctx.strategy.is_interface)
    call = (
        InvokeInterface(-1, ref, 1 + md.param_slots) if opcode == op.INVOKEINTERFACE else Instruction(-1, opcode, ref)
    )
    check: list = []
    needs = FrameNeeds()
    if (
        opcode == op.INVOKESPECIAL
        and ctx.strategy.check_overrides
        and not access & (ACC_PRIVATE | ACC_FINAL | ACC_STATIC)
    ):
        check, needs = override_check(ctx, name, descriptor, slot, mid)
    items = [
        *check,
        *ctx.rt.boundary(slot, LocalSite(slot + 1), mid),
        *args,
        call,
        Instruction(-1, G.return_opcode(md.return_type)),
    ]
    add_method(
        ctx, access, esi_name(name), esi_descriptor(descriptor), CodeBody(items=items, max_locals=slot + 2), needs
    )
    ctx.report.emitted[(esi_name(name), esi_descriptor(descriptor))] = None
    ctx.report.delegators += 1
