"""How outlining sees locals and stack values: descriptors, slots, and the opcodes that move them.

Choosing a region (:mod:`.outline_regions`) and cutting it into a part method
(:mod:`.outline_parts`) must agree on which values can cross a method boundary and how many
slots each takes; both read that from here, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..classfile import opcodes as op
from ..classfile.frames import Double, Float, Integer, Long, Null, Object, Top, VType
from ..classfile.instructions import Instruction

__all__ = ["LOAD", "STORE", "RETURN", "used_slots", "slot_values", "slots_written", "vtype_descriptor"]

#: Typed loads, stores and returns by verification type; references (and null) use the ``a`` forms.
LOAD: dict[VType, int] = {Integer: op.ILOAD, Float: op.FLOAD, Long: op.LLOAD, Double: op.DLOAD}
STORE: dict[VType, int] = {Integer: op.ISTORE, Float: op.FSTORE, Long: op.LSTORE, Double: op.DSTORE}
RETURN: dict[VType, int] = {Integer: op.IRETURN, Float: op.FRETURN, Long: op.LRETURN, Double: op.DRETURN}
#: Instructions that write a local (``iinc`` included: it changes the slot's value).
_STORES = op.STORE_OPCODES | {op.IINC}
# Top becomes an int parameter: the caller passes 0 for a slot that holds nothing at the region's start.
_DESC: dict[VType, str] = {Integer: "I", Float: "F", Long: "J", Double: "D", Top: "I"}


def vtype_descriptor(t: VType) -> str | None:
    """The field descriptor a value of verification type ``t`` crosses a call as; None if it cannot.

    ``null`` goes as Object (its slot is set to null again on the other side); uninitialised
    objects have no descriptor, which is what keeps a region from handing them over.
    """
    if t in _DESC:
        return _DESC[t]
    if isinstance(t, Object):
        return t.name if t.name.startswith("[") else "L" + t.name + ";"
    if t is Null:
        return "Ljava/lang/Object;"
    return None


def slot_values(locals_: Sequence[VType]) -> Iterator[tuple[int, VType]]:
    """``(slot, type)`` of each value in ``locals_`` (one entry per slot, State's convention).

    A long or double fills two slots; the second is skipped so each value is seen once, the way
    a descriptor or a frame lists it.
    """
    slot = 0
    while slot < len(locals_):
        t = locals_[slot]
        yield slot, t
        slot += 2 if t in (Long, Double) else 1


def used_slots(locals_: Sequence[VType]) -> list[VType]:
    """``locals_`` without the empty (Top) entries at its end.

    What a part takes as parameters (so its descriptor, and the JVM's 255-slot limit on
    parameters, count only the slots in use) and what a frame lists.
    """
    params = list(locals_)
    while params and params[-1] is Top:
        params.pop()
    return params


def slots_written(insn: Instruction) -> tuple[int, ...]:
    """The local slots ``insn`` writes (both halves of a long or double); () if it writes none."""
    slot = insn.operand
    if insn.opcode not in _STORES or slot is None:
        return ()
    if insn.opcode in op.TWO_SLOT_LOCAL_OPCODES:
        return (slot, slot + 1)
    return (slot,)
