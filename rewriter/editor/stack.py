"""Operand-stack effects of instructions, in slots (long/double count two), and max_stack.

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

# opcode -> (popped slots, pushed slots) for opcodes whose effect does not depend on operands.
_FIXED: dict[int, tuple[int, int]] = {}


def _set(ops, pop: int, push: int) -> None:
    for o in ops:
        _FIXED[o] = (pop, push)


_set([op.NOP], 0, 0)
_set([op.ACONST_NULL, op.ICONST_M1, op.ICONST_0, op.ICONST_1, op.ICONST_2, op.ICONST_3, op.ICONST_4,
      op.ICONST_5, op.FCONST_0, op.FCONST_1, op.FCONST_2, op.BIPUSH, op.SIPUSH], 0, 1)
_set([op.LCONST_0, op.LCONST_1, op.DCONST_0, op.DCONST_1], 0, 2)
_set([op.ILOAD, op.FLOAD, op.ALOAD], 0, 1)
_set([op.LLOAD, op.DLOAD], 0, 2)
_set([op.IALOAD, op.FALOAD, op.AALOAD, op.BALOAD, op.CALOAD, op.SALOAD], 2, 1)
_set([op.LALOAD, op.DALOAD], 2, 2)
_set([op.ISTORE, op.FSTORE, op.ASTORE], 1, 0)
_set([op.LSTORE, op.DSTORE], 2, 0)
_set([op.IASTORE, op.FASTORE, op.AASTORE, op.BASTORE, op.CASTORE, op.SASTORE], 3, 0)
_set([op.LASTORE, op.DASTORE], 4, 0)
_set([op.POP], 1, 0)
_set([op.POP2], 2, 0)
_set([op.DUP], 1, 2)
_set([op.DUP_X1], 2, 3)
_set([op.DUP_X2], 3, 4)
_set([op.DUP2], 2, 4)
_set([op.DUP2_X1], 3, 5)
_set([op.DUP2_X2], 4, 6)
_set([op.SWAP], 2, 2)
_set([op.IADD, op.ISUB, op.IMUL, op.IDIV, op.IREM, op.ISHL, op.ISHR, op.IUSHR, op.IAND, op.IOR,
      op.IXOR, op.FADD, op.FSUB, op.FMUL, op.FDIV, op.FREM], 2, 1)
_set([op.LADD, op.LSUB, op.LMUL, op.LDIV, op.LREM, op.LAND, op.LOR, op.LXOR, op.DADD, op.DSUB,
      op.DMUL, op.DDIV, op.DREM], 4, 2)
_set([op.LSHL, op.LSHR, op.LUSHR], 3, 2)
_set([op.INEG, op.FNEG], 1, 1)
_set([op.LNEG, op.DNEG], 2, 2)
_set([op.IINC], 0, 0)
_set([op.I2F, op.F2I, op.I2B, op.I2C, op.I2S], 1, 1)
_set([op.I2L, op.I2D, op.F2L, op.F2D], 1, 2)
_set([op.L2I, op.L2F, op.D2I, op.D2F], 2, 1)
_set([op.L2D, op.D2L], 2, 2)
_set([op.LCMP, op.DCMPL, op.DCMPG], 4, 1)
_set([op.FCMPL, op.FCMPG], 2, 1)
_set([op.IFEQ, op.IFNE, op.IFLT, op.IFGE, op.IFGT, op.IFLE, op.IFNULL, op.IFNONNULL], 1, 0)
_set([op.IF_ICMPEQ, op.IF_ICMPNE, op.IF_ICMPLT, op.IF_ICMPGE, op.IF_ICMPGT, op.IF_ICMPLE,
      op.IF_ACMPEQ, op.IF_ACMPNE], 2, 0)
_set([op.GOTO, op.GOTO_W, op.RET], 0, 0)
_set([op.JSR, op.JSR_W], 0, 1)
_set([op.TABLESWITCH, op.LOOKUPSWITCH], 1, 0)
_set([op.IRETURN, op.FRETURN, op.ARETURN], 1, 0)
_set([op.LRETURN, op.DRETURN], 2, 0)
_set([op.RETURN], 0, 0)
_set([op.NEW], 0, 1)
_set([op.NEWARRAY, op.ANEWARRAY], 1, 1)
_set([op.ARRAYLENGTH], 1, 1)
_set([op.ATHROW], 1, 0)
_set([op.CHECKCAST, op.INSTANCEOF], 1, 1)
_set([op.MONITORENTER, op.MONITOREXIT], 1, 0)


def stack_effect(insn: Instruction, pool: ConstantPool) -> tuple[int, int]:
    """(slots popped, slots pushed) by ``insn``."""
    o = insn.opcode
    fixed = _FIXED.get(o)
    if fixed is not None:
        return fixed
    if o in (op.LDC, op.LDC_W, op.LDC2_W):
        c = pool[insn.operand]  # type: ignore[index]
        if c.tag in (C.LONG, C.DOUBLE):
            return 0, 2
        if c.tag == C.DYNAMIC:
            _, desc = pool.name_and_type(c.second)  # type: ignore[attr-defined]
            return 0, type_size(desc)
        return 0, 1
    if o in (op.GETSTATIC, op.PUTSTATIC, op.GETFIELD, op.PUTFIELD):
        _, _, desc = pool.member_ref(insn.operand)  # type: ignore[arg-type]
        size = type_size(desc)
        return {op.GETSTATIC: (0, size), op.PUTSTATIC: (size, 0), op.GETFIELD: (1, size),
                op.PUTFIELD: (1 + size, 0)}[o]
    if o in (op.INVOKEVIRTUAL, op.INVOKESPECIAL, op.INVOKESTATIC, op.INVOKEINTERFACE):
        _, _, desc = pool.member_ref(insn.operand)  # type: ignore[arg-type]
        md = parse_method_descriptor(desc)
        receiver = 0 if o == op.INVOKESTATIC else 1
        return md.param_slots + receiver, md.return_slots
    if o == op.INVOKEDYNAMIC:
        c = pool.get(insn.operand, C.INVOKE_DYNAMIC)  # type: ignore[arg-type]
        _, desc = pool.name_and_type(c.second)  # type: ignore[attr-defined]
        md = parse_method_descriptor(desc)
        return md.param_slots, md.return_slots
    if o == op.MULTIANEWARRAY:
        return insn.dims, 1  # type: ignore[attr-defined]
    raise ValueError(f"no stack effect for opcode {o}")
