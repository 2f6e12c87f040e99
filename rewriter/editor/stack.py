"""Operand-stack effects of instructions, in slots (long/double count two), for max_stack.

The assembler recomputes ``max_stack`` because inserted code may need more
stack than the original method did; the JVM rejects a method whose code can
exceed it.
"""

from __future__ import annotations

from ..classfile import constants as C
from ..classfile import opcodes as op
from ..classfile.constants import ConstantPool
from ..classfile.descriptors import method_slots, type_size
from ..classfile.instructions import Instruction

__all__ = ["stack_effect"]


def stack_effect(insn: Instruction, pool: ConstantPool) -> tuple[int, int]:
    """(slots popped, slots pushed) by ``insn``: :data:`~jprewrite.classfile.opcodes.STACK_EFFECTS`,
    or what its constant, field or method descriptor says."""
    o = insn.opcode
    fixed = op.STACK_EFFECTS[o]
    if fixed is not None:
        return fixed
    if o in op.LDC_OPCODES:
        c = pool[insn.operand]
        if c.tag in (C.LONG, C.DOUBLE):
            return 0, 2
        if c.tag == C.DYNAMIC:
            _, desc = pool.name_and_type(c.second)  # type: ignore[attr-defined]
            return 0, type_size(desc)
        return 0, 1
    if o in op.FIELD_OPCODES:
        size = type_size(pool.member_ref(insn.operand)[2])
        if o == op.GETSTATIC:
            return 0, size
        if o == op.PUTSTATIC:
            return size, 0
        if o == op.GETFIELD:
            return 1, size
        return 1 + size, 0
    if o == op.INVOKEVIRTUAL or o == op.INVOKESPECIAL or o == op.INVOKESTATIC or o == op.INVOKEINTERFACE:
        params, ret = method_slots(pool.member_ref(insn.operand)[2])
        return (params if o == op.INVOKESTATIC else params + 1), ret
    if o == op.INVOKEDYNAMIC:
        c = pool.get(insn.operand, C.INVOKE_DYNAMIC)
        _, desc = pool.name_and_type(c.second)  # type: ignore[attr-defined]
        return method_slots(desc)
    if o == op.MULTIANEWARRAY:
        return insn.dims, 1  # type: ignore[attr-defined]
    raise ValueError(f"no stack effect for opcode {o}")
