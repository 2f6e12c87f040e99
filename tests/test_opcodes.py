"""The per-opcode facts of ``classfile.opcodes``: consistent with each other, with the JVMS
examples, and with what the code that uses them computes on real class files.

The cross-checks against real code matter most: the type-flow interpreter's handlers (dup,
pop, swap, stores, new, casts...) and the descriptor-driven effects (fields, invocations,
ldc) are written independently of the tables, and javac's ``max_stack`` is exact for the
code it compiles; both must agree with :data:`STACK_EFFECTS` instruction by instruction.
"""

from __future__ import annotations

import pytest

from jprewrite.analysis.typeflow import SubroutineError, TypeflowError, infer_states, step
from jprewrite.classfile import opcodes as op
from jprewrite.classfile.constants import ConstantPool
from jprewrite.classfile.frames import Double, Long
from jprewrite.classfile.instructions import Instruction
from jprewrite.classfile.model import ACC_STATIC, read_class
from jprewrite.editor import Label, disassemble, stack_effect
from jprewrite.editor.assembler import compute_max_stack, max_stack_by_flow, max_stack_in_order
from jprewrite.editor.body import CodeBody

from support.corpus import jar_classes, package_jars

try:
    from test_instructions import compiled_classes, jdk_sample_classes, needs_jdk
except ImportError:  # pragma: no cover - run from the repository root
    from tests.test_instructions import compiled_classes, jdk_sample_classes, needs_jdk

ASSIGNED = [o for o in range(256) if op.OPCODE_NAMES[o] is not None]
#: the opcodes whose stack effect the operand decides (constant, field or method descriptor,
#: dimensions) or that have none of their own
OPERAND_DEPENDENT = {
    *op.LDC_OPCODES,
    *op.FIELD_OPCODES,
    *op.INVOKE_OPCODES,
    op.MULTIANEWARRAY,
    op.WIDE,
    op.BREAKPOINT,
    op.IMPDEP1,
    op.IMPDEP2,
}


def _slots(values: str) -> int:
    return sum(2 if v in "JD" else 1 for v in values)


def test_every_opcode_has_a_signature_or_a_reason():
    shaped = set(op.SIGNATURES) | set(op.DUP_FORMS) | {op.POP, op.POP2, op.SWAP}
    assert set(ASSIGNED) - shaped == {
        *op.INVOKE_OPCODES,
        op.MULTIANEWARRAY,
        op.WIDE,
        op.BREAKPOINT,
        op.IMPDEP1,
        op.IMPDEP2,
    }
    assert not set(op.SIGNATURES) & (set(op.DUP_FORMS) | {op.POP, op.POP2, op.SWAP})
    for o, (pops, pushes) in op.SIGNATURES.items():
        assert set(pops + pushes) <= set("IJFDANRT"), op.OPCODE_NAMES[o]
        assert len(pushes) <= 1, op.OPCODE_NAMES[o]  # no instruction pushes two values
    assert set(op.VALUE_TYPES) == set("IJFDN")


def test_stack_effects_follow_the_signatures():
    assert len(op.STACK_EFFECTS) == 256
    for o in range(256):
        effect = op.STACK_EFFECTS[o]
        if o in OPERAND_DEPENDENT or op.OPCODE_NAMES[o] is None:
            assert effect is None, op.OPCODE_NAMES[o]
            continue
        assert effect is not None, op.OPCODE_NAMES[o]
        if o in op.SIGNATURES:
            pops, pushes = op.SIGNATURES[o]
            assert effect == (_slots(pops), _slots(pushes)), op.OPCODE_NAMES[o]


@pytest.mark.parametrize(
    "opcode, effect",
    [
        (op.IADD, (2, 1)),
        (op.LADD, (4, 2)),
        (op.LSHL, (3, 2)),
        (op.LCMP, (4, 1)),
        (op.DCMPG, (4, 1)),
        (op.FCMPL, (2, 1)),
        (op.I2L, (1, 2)),
        (op.D2F, (2, 1)),
        (op.LASTORE, (4, 0)),
        (op.AASTORE, (3, 0)),
        (op.DALOAD, (2, 2)),
        (op.DUP, (1, 2)),
        (op.DUP_X2, (3, 4)),
        (op.DUP2_X1, (3, 5)),
        (op.DUP2_X2, (4, 6)),
        (op.POP2, (2, 0)),
        (op.SWAP, (2, 2)),
        (op.JSR, (0, 1)),
        (op.RET, (0, 0)),
        (op.IINC, (0, 0)),
        (op.LLOAD_3, (0, 2)),
        (op.DSTORE, (2, 0)),
        (op.ASTORE_0, (1, 0)),
        (op.NEW, (0, 1)),
        (op.ANEWARRAY, (1, 1)),
        (op.LOOKUPSWITCH, (1, 0)),
        (op.LRETURN, (2, 0)),
        (op.ATHROW, (1, 0)),
        (op.IF_ACMPNE, (2, 0)),
        (op.IFNULL, (1, 0)),
        (op.ARRAYLENGTH, (1, 1)),
        (op.MONITOREXIT, (1, 0)),
    ],
)
def test_stack_effects_by_hand(opcode, effect):
    """JVMS 6.5's "Operand Stack" lines, counted in slots."""
    assert op.STACK_EFFECTS[opcode] == effect


def test_kinds_of_instructions():
    assert op.UNCONDITIONAL_OPCODES < op.CONTROL_OPCODES
    assert op.CONTROL_OPCODES - op.UNCONDITIONAL_OPCODES == op.CONDITIONAL_BRANCH_OPCODES | op.JSR_OPCODES
    assert op.BRANCH_OPCODES == op.CONDITIONAL_BRANCH_OPCODES | op.GOTO_OPCODES | op.JSR_OPCODES
    assert op.JUMP_OPCODES == op.BRANCH_OPCODES | op.SWITCH_OPCODES
    assert op.RETURN_OPCODES <= op.UNCONDITIONAL_OPCODES & op.MAY_THROW_OPCODES
    assert op.INVOKE_OPCODES | op.FIELD_OPCODES <= op.MAY_THROW_OPCODES
    assert op.MAY_THROW_OPCODES.isdisjoint(op.LDC_OPCODES | op.BRANCH_OPCODES | op.SWITCH_OPCODES)
    assert {op.IDIV, op.LREM} <= op.MAY_THROW_OPCODES and op.FDIV not in op.MAY_THROW_OPCODES
    assert set(op.INVERSE_BRANCHES) == op.CONDITIONAL_BRANCH_OPCODES
    for o, inverse in op.INVERSE_BRANCHES.items():
        assert inverse != o and op.INVERSE_BRANCHES[inverse] == o


def test_local_variable_forms():
    assert len(op.SHORT_FORMS) == 40 and len(op.ANY_STORE_OPCODES) == 25
    for short, (general, slot) in op.SHORT_FORMS.items():
        assert op.OPCODE_NAMES[short] == f"{op.OPCODE_NAMES[general]}_{slot}"
        assert op.SHORT_FORM_BASE[general] + slot == short
        assert (short in op.ANY_STORE_OPCODES) == (general in op.STORE_OPCODES)
    assert op.LOCAL_SLOT_OPCODES | {op.IINC} == op.WIDENABLE
    for o, t in op.LOCAL_TYPES.items():
        assert (o in op.TWO_SLOT_LOCAL_OPCODES) == (t is Long or t is Double)
        pops, pushes = op.SIGNATURES[o]
        assert op.VALUE_TYPES[pops or pushes] is t
    assert op.ALOAD not in op.LOCAL_TYPES and op.ASTORE not in op.LOCAL_TYPES


def _class_files() -> list[bytes]:
    return [p.read_bytes() for p in compiled_classes() + jdk_sample_classes()]


@needs_jdk
def test_max_stack_of_javac_code_is_reproduced():
    """javac's max_stack is exact: the table's effects, walked over every path, give it back."""
    methods = 0
    for data in _class_files():
        cf = read_class(data)
        for m in cf.methods:
            code = m.code()
            if code is None:
                continue
            assert compute_max_stack(disassemble(m), cf.pool) == code.max_stack, f"{cf.name}.{m.name}"
            methods += 1
    assert methods > 1000


@needs_jdk
def test_interpreter_agrees_with_the_stack_effects():
    """Every instruction the type flow executes changes the stack by its effect, in slots
    (the table for fixed effects, the descriptors for the rest)."""
    checked = 0
    for data in _class_files():
        cf = read_class(data)
        if cf.major < 50:
            continue
        for m in cf.methods:
            if m.code() is None:
                continue
            body = disassemble(m)
            try:
                cfg, states = infer_states(
                    body, cf.pool, None, cf.name, m.name, m.descriptor, bool(m.access & ACC_STATIC)
                )
            except (SubroutineError, TypeflowError):
                continue
            for k, state in states.items():
                locals_, stack = list(state.locals), list(state.stack)
                i = k
                while i < cfg.n:
                    insn = body.items[i]
                    before = sum(2 if t is Long or t is Double else 1 for t in stack)
                    step(locals_, stack, insn, cf.pool, cf.name, insn)
                    after = sum(2 if t is Long or t is Double else 1 for t in stack)
                    pops, pushes = stack_effect(insn, cf.pool)
                    assert after - before == pushes - pops, f"{cf.name}.{m.name} item {i}: {insn!r}"
                    checked += 1
                    i = cfg.next_insn[i + 1]
                    if insn.opcode in op.UNCONDITIONAL_OPCODES or insn.opcode in op.JUMP_OPCODES or i in cfg.leaders:
                        break
    assert checked > 50_000


_COMPILERS = ("scala", "kotlin", "libproguard-java", "jython", "libclojure-java", "libaspectj-java", "groovy")


def test_max_stack_in_code_order_agrees_with_the_work_list():
    """The assembler's one pass in code order (``max_stack_in_order``) gives the work list's
    answer on every method of jars from compilers and tools other than javac, or says it cannot
    tell (-1): it rests on the JVM's rule that every path brings the same depth."""
    methods = 0
    for pkg in _COMPILERS:
        jars = package_jars(pkg)
        for jar in jars[:1]:
            for _, data in jar_classes(jar):
                cf = read_class(data)
                for m in cf.methods:
                    if m.code() is None:
                        continue
                    body = disassemble(m)
                    in_order = max_stack_in_order(body, cf.pool)
                    if in_order >= 0:
                        assert in_order == max_stack_by_flow(body, cf.pool), f"{jar.name} {cf.name}.{m.name}"
                        methods += 1
    assert methods > 100_000


def test_max_stack_falls_back_to_the_work_list_where_the_order_cannot_tell():
    """A loop body after a ``goto`` reached only by a backward branch, without a frame (code below
    version 50): the pass in code order cannot know its depth; the work list can."""
    body_start, cond = Label("body"), Label("cond")
    items = [
        Instruction(-1, op.GOTO, cond),
        body_start,
        *[Instruction(-1, op.ICONST_1) for _ in range(3)],
        *[Instruction(-1, op.POP) for _ in range(3)],
        cond,
        Instruction(-1, op.ICONST_0),
        Instruction(-1, op.IFEQ, body_start),
        Instruction(-1, op.RETURN),
    ]
    body = CodeBody(items=items, max_locals=0)
    pool = ConstantPool()
    assert max_stack_in_order(body, pool) == -1
    assert compute_max_stack(body, pool) == 3
