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
from ..classfile.instructions import FRAGMENT_OPCODE, Fragment, Instruction
from .body import Label

__all__ = ["stack_effect", "peak_depth"]


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


def peak_depth(items: list, pool: ConstantPool) -> int:
    """The most slots a straight run of ``items`` puts on the operand stack above the depth it
    starts at (0 when it never rises above it): labels take none, a
    :class:`~jprewrite.classfile.instructions.Fragment` its ``peak``.

    For inserted code whose every path reaches its labels at the depth the straight run has
    there (a test that skips a call: the call leaves the stack as it found it). A rewriting that
    knows the original code's ``max_stack`` and inserts such code only where the original code
    has a depth of its own (between its instructions, at a handler's start) may declare
    ``max_stack + peak`` without a depth flow over the whole method, as JaCoCo's probes add
    their own need to the method's (``ProbeInserter.visitMaxs``).
    """
    depth = 0
    best = 0
    fixed = op.STACK_EFFECTS
    for item in items:
        if isinstance(item, Label):
            continue
        insn: Instruction = item
        o = insn.opcode
        if o == FRAGMENT_OPCODE:
            frag: Fragment = item
            if depth + frag.peak > best:
                best = depth + frag.peak
            continue
        eff = fixed[o]
        if eff is None:
            eff = stack_effect(insn, pool)
        depth += eff[1] - eff[0]
        if depth > best:
            best = depth
    return best
