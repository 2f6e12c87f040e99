"""The interpreter of the type flow: what one instruction does to a :class:`~.state.State`.

This is the transfer function (ASM's ``Interpreter`` and ``Frame.execute`` in one), by the
rules of the type-checking verifier (JVMS 4.10.1.9) as far as frames need them: it tracks
types, it does not check every assignability the verifier checks (that is
:mod:`jprewrite.analysis.verifier`'s job). The facts that depend on the opcode alone come from
:mod:`jprewrite.classfile.opcodes`; what depends on the operand (constants, fields, methods,
classes) comes from the constant pool.
"""

from __future__ import annotations

from typing import Final

from ...classfile import constants as C
from ...classfile import opcodes as op
from ...classfile.descriptors import array_of, parse_method_descriptor
from ...classfile.frames import (
    Double,
    Long,
    Null,
    Object,
    Top,
    Uninitialized,
    UninitializedThis,
    VType,
    vtype_of_descriptor,
)
from ...classfile.instructions import FRAGMENT_OPCODE, Instruction
from .state import State, SubroutineError, TypeflowError, type_size

__all__ = ["step", "execute", "component_type"]

# opcode -> (values popped, type pushed or None): the instructions that only move values of a
# fixed type on the operand stack, from opcodes.SIGNATURES. Left to step()'s branches: stores
# (they write a local), jsr/ret (refused), and whatever reads its operand ("T": ldc, fields) or
# pushes a reference whose type the stack, a local or the operand decides ("A", "R").
_SIMPLE: Final[dict[int, tuple[int, VType | None]]] = {
    o: (len(pops), op.VALUE_TYPES[pushes] if pushes else None)
    for o, (pops, pushes) in op.SIGNATURES.items()
    if "T" not in pops
    and (pushes == "" or pushes in op.VALUE_TYPES)
    and o not in op.ANY_STORE_OPCODES
    and o not in op.SUBROUTINE_OPCODES
}


def _name(insn: Instruction) -> str:
    return op.opcode_name(insn.opcode)


def _pop(stack: list, insn: Instruction) -> VType:
    if not stack:
        raise TypeflowError(f"{_name(insn)}: operand stack underflow")
    return stack.pop()


def _pop_n(stack: list, n: int, insn: Instruction) -> None:
    if n:
        if len(stack) < n:
            raise TypeflowError(f"{_name(insn)}: operand stack underflow (needs {n} values, has {len(stack)})")
        del stack[-n:]


def _take_slots(stack: list, end: int, slots: int, insn: Instruction) -> int:
    """Index ``i`` such that ``stack[i:end]`` is exactly ``slots`` slots (no category-2 split)."""
    i = end
    got = 0
    while got < slots:
        if i == 0:
            raise TypeflowError(f"{_name(insn)}: operand stack underflow")
        i -= 1
        t = stack[i]
        got += 2 if (t is Long or t is Double) else 1
    if got != slots:
        raise TypeflowError(f"{_name(insn)} would split a long or double on the stack")
    return i


def _store(locals_: list, slot: int, t: VType) -> None:
    """Store ``t`` at ``slot`` as the verifier does (a long/double split by it is invalidated)."""
    size = 2 if (t is Long or t is Double) else 1
    need = slot + size
    if len(locals_) < need:
        locals_.extend([Top] * (need - len(locals_)))
    if slot > 0:
        prev = locals_[slot - 1]
        if prev is Long or prev is Double:
            locals_[slot - 1] = Top
    locals_[slot] = t
    if size == 2:
        locals_[slot + 1] = Top


def _is_reference(t: VType) -> bool:
    return t is Null or type(t) is Object or type(t) is Uninitialized or t is UninitializedThis


def component_type(t: VType, insn: Instruction | None = None) -> VType:
    """What ``aaload`` pushes for an array of type ``t`` (Null stays Null)."""
    if t is Null:
        return Null
    if type(t) is Object and t.name.startswith("["):
        comp = t.name[1:]
        if comp[0] == "L":
            return Object(comp[1:-1])
        if comp[0] == "[":
            return Object(comp)
    where = f"{_name(insn)}: " if insn is not None else ""
    raise TypeflowError(f"{where}{t!r} is not an array of references")


def step(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label=None) -> None:
    """Execute ``insn`` on (``locals_``, ``stack``) in place (the state's lists; see :func:`execute`).

    Raises :class:`TypeflowError` when the code cannot be typed (stack underflow, a split
    long or double, a load of a non-reference by ``aload``...), :class:`SubroutineError` for
    ``jsr``/``ret``.
    """
    o = insn.opcode
    simple = _SIMPLE.get(o)
    if simple is not None:
        pops, push = simple
        if pops:
            _pop_n(stack, pops, insn)
        if push is not None:
            stack.append(push)
        return
    _HANDLERS[o](locals_, stack, insn, pool, this_class, new_label)


# The other instructions, one handler each: (locals_, stack, insn, pool, this_class, new_label).
def _slot(insn: Instruction) -> int:
    short = op.SHORT_FORMS.get(insn.opcode)
    return short[1] if short is not None else insn.operand


def _aload(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    slot = _slot(insn)
    t = locals_[slot] if slot < len(locals_) else Top
    if not _is_reference(t):
        raise TypeflowError(f"aload {slot}: local holds {t!r}, not a reference")
    stack.append(t)


def _astore(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    slot = _slot(insn)
    t = _pop(stack, insn)
    if not _is_reference(t):
        raise TypeflowError(f"astore {slot}: {t!r} is not a reference")
    _store(locals_, slot, t)


def _primitive_store(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    short = op.SHORT_FORMS.get(insn.opcode)
    o, slot = short if short is not None else (insn.opcode, insn.operand)
    _pop(stack, insn)
    _store(locals_, slot, op.LOCAL_TYPES[o])


def _ldc(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    stack.append(_ldc_type(pool, insn.operand))


def _aaload(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    _pop(stack, insn)
    stack.append(component_type(_pop(stack, insn), insn))


def _dup(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    slots, skip = op.DUP_FORMS[insn.opcode]
    n = len(stack)
    i = _take_slots(stack, n, slots, insn)
    j = _take_slots(stack, i, skip, insn) if skip else i
    stack[j:j] = stack[i:n]


def _pop_one(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    t = _pop(stack, insn)
    if t is Long or t is Double:
        raise TypeflowError("pop of a long or double")


def _pop_two(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    del stack[_take_slots(stack, len(stack), 2, insn) :]


def _swap(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    if len(stack) < 2:
        raise TypeflowError("swap: operand stack underflow")
    a, b = stack[-2], stack[-1]
    if type_size(a) == 2 or type_size(b) == 2:
        raise TypeflowError("swap of a long or double")
    stack[-2], stack[-1] = b, a


def _field(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    o = insn.opcode
    _, _, desc = pool.member_ref(insn.operand)
    if o == op.PUTFIELD:
        _pop_n(stack, 2, insn)
        return
    if o == op.GETFIELD:
        _pop(stack, insn)
    stack.append(vtype_of_descriptor(desc))


def _putstatic(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    _pop(stack, insn)  # (the value's type is the field's: not in _SIMPLE)


def _invoke(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    o = insn.opcode
    owner, name, desc = pool.member_ref(insn.operand)
    md = parse_method_descriptor(desc)
    _pop_n(stack, len(md.params), insn)
    if o != op.INVOKESTATIC:
        receiver = _pop(stack, insn)
        if o == op.INVOKESPECIAL and name == "<init>":
            if receiver is UninitializedThis:
                done = Object(this_class)
            elif type(receiver) is Uninitialized:
                done = Object(owner)
            else:
                raise TypeflowError(
                    f"invokespecial {owner}.<init> on {receiver!r}, which is not an uninitialized object"
                )
            for k, t in enumerate(locals_):
                if t == receiver:
                    locals_[k] = done
            for k, t in enumerate(stack):
                if t == receiver:
                    stack[k] = done
    if md.return_type != "V":
        stack.append(vtype_of_descriptor(md.return_type))


def _invokedynamic(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    c = pool.get(insn.operand, C.INVOKE_DYNAMIC)
    _, desc = pool.name_and_type(c.second)
    md = parse_method_descriptor(desc)
    _pop_n(stack, len(md.params), insn)
    if md.return_type != "V":
        stack.append(vtype_of_descriptor(md.return_type))


def _new(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    if new_label is None:
        raise TypeflowError(
            "new: the object naming this new site is needed (in symbolic bodies: the new instruction itself)"
        )
    stack.append(Uninitialized(new_label))


def _newarray(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    _pop(stack, insn)
    try:
        stack.append(Object(op.NEWARRAY_DESCRIPTORS[insn.operand]))
    except KeyError:
        raise TypeflowError(f"newarray: bad array type code {insn.operand}") from None


def _anewarray(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    _pop(stack, insn)
    stack.append(Object(array_of(pool.class_name(insn.operand))))


def _multianewarray(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    _pop_n(stack, insn.dims, insn)  # type: ignore[attr-defined]
    stack.append(Object(pool.class_name(insn.operand)))


def _checkcast(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    _pop(stack, insn)
    stack.append(Object(pool.class_name(insn.operand)))


def _subroutine(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    raise SubroutineError(
        f"{_name(insn)}: subroutines (jsr/ret) have no frame representation; "
        "class files that use them (version < 50) need no frames"
    )


def _fragment(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    """A :class:`~jprewrite.classfile.instructions.Fragment` is neutral: the state after it is the state before."""


def _cannot(locals_: list, stack: list, insn: Instruction, pool, this_class: str, new_label) -> None:
    raise TypeflowError(f"cannot execute {_name(insn)}")


def _handlers() -> tuple:
    table: list = [_cannot] * 256
    by_kind = {
        op.ALOAD: _aload,
        op.ASTORE: _astore,
        op.ISTORE: _primitive_store,
        op.LSTORE: _primitive_store,
        op.FSTORE: _primitive_store,
        op.DSTORE: _primitive_store,
    }
    for o, handler in by_kind.items():
        table[o] = handler
    for short, (general, _) in op.SHORT_FORMS.items():
        if general in by_kind:
            table[short] = by_kind[general]
    for o in op.LDC_OPCODES:
        table[o] = _ldc
    for o in op.DUP_FORMS:
        table[o] = _dup
    for o in (op.GETSTATIC, op.GETFIELD, op.PUTFIELD):
        table[o] = _field
    for o in (op.INVOKEVIRTUAL, op.INVOKESPECIAL, op.INVOKESTATIC, op.INVOKEINTERFACE):
        table[o] = _invoke
    for o in op.SUBROUTINE_OPCODES:
        table[o] = _subroutine
    table[op.AALOAD], table[op.POP], table[op.POP2], table[op.SWAP] = _aaload, _pop_one, _pop_two, _swap
    table[op.PUTSTATIC], table[op.INVOKEDYNAMIC], table[op.NEW] = _putstatic, _invokedynamic, _new
    table[op.NEWARRAY], table[op.ANEWARRAY], table[op.MULTIANEWARRAY] = _newarray, _anewarray, _multianewarray
    table[op.CHECKCAST] = _checkcast
    table[FRAGMENT_OPCODE] = _fragment
    return tuple(table)


_HANDLERS: Final = _handlers()


def _ldc_type(pool, index: int) -> VType:
    """What ``ldc`` of constant ``index`` pushes (:data:`~jprewrite.classfile.opcodes.LDC_TYPES`,
    or a dynamic constant's descriptor type)."""
    tag = pool.tag(index)
    t = op.LDC_TYPES.get(tag)
    if t is not None:
        return t
    if tag == C.DYNAMIC:
        _, desc = pool.name_and_type(pool[index].second)
        return vtype_of_descriptor(desc)
    raise TypeflowError(f"ldc of constant #{index}, a {C.TAG_NAMES.get(tag, tag)}")


def execute(state: State, insn: Instruction, pool, this_class: str, *, new_label=None) -> State:
    """The state after ``insn`` (a new State; ``state`` is not changed).

    ``new_label`` is required for ``new``: what its ``Uninitialized`` type names
    (in symbolic bodies, the ``new`` instruction object itself). For a branch the result is the state on both
    edges (operands popped); after ``goto``/returns/``athrow``/switches it is
    the state with the operands popped (nothing falls through). ``jsr`` and
    ``ret`` raise :class:`SubroutineError`.
    """
    locals_ = list(state.locals)
    stack = list(state.stack)
    step(locals_, stack, insn, pool, this_class, new_label)
    return State(locals_, stack)
