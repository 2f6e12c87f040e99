"""Operand-stack effects of instructions, in slots (long/double count two), for max_stack.

The assembler recomputes ``max_stack`` because inserted code may need more
stack than the original method did; the JVM rejects a method whose code can
exceed it.
"""

from __future__ import annotations

from ..classfile import constants as C
from ..classfile import opcodes as op
from ..classfile.constants import ConstantPool
from ..classfile.descriptors import parse_method_descriptor, type_size
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
        _, _, desc = pool.member_ref(insn.operand)
        size = type_size(desc)
        return {op.GETSTATIC: (0, size), op.PUTSTATIC: (size, 0), op.GETFIELD: (1, size), op.PUTFIELD: (1 + size, 0)}[o]
    if o in (op.INVOKEVIRTUAL, op.INVOKESPECIAL, op.INVOKESTATIC, op.INVOKEINTERFACE):
        _, _, desc = pool.member_ref(insn.operand)
        md = parse_method_descriptor(desc)
        receiver = 0 if o == op.INVOKESTATIC else 1
        return md.param_slots + receiver, md.return_slots
    if o == op.INVOKEDYNAMIC:
        c = pool.get(insn.operand, C.INVOKE_DYNAMIC)
        _, desc = pool.name_and_type(c.second)  # type: ignore[attr-defined]
        md = parse_method_descriptor(desc)
        return md.param_slots, md.return_slots
    if o == op.MULTIANEWARRAY:
        return insn.dims, 1  # type: ignore[attr-defined]
    raise ValueError(f"no stack effect for opcode {o}")
