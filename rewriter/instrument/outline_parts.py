"""Cutting chosen regions out of a body: each becomes a part method and, in its place, a call to it.

A part takes the method's slots ``0..k`` as its parameters so that its instructions, frames
and handlers move unchanged; what it hands back (the locals it stored, or the values it left
on the stack) comes back as its return value, one value as is and several in an ``Object[]``
(primitives boxed), and the call sequence stores or pushes them again. The order in which
this module adds constants to the pool and slots to the method is part of the output's
bytes: a change must keep it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..classfile import opcodes as op
from ..classfile.frames import Double, Float, Frame, Integer, Long, Null, Object, Top, VType
from ..classfile.instructions import Instruction
from ..editor import CodeBody, Label
from . import codegen as G
from .outline_regions import Region
from .outline_values import LOAD, RETURN, STORE, slot_values, slots_written, used_slots, vtype_descriptor

__all__ = [
    "OutlinedPart",
    "PartCutter",
    "PartSignature",
    "box",
    "boxed_array",
    "detach",
    "frame_of",
    "renulled",
    "retarget",
    "slot_loads",
    "unboxed",
]

_BOX = {
    Integer: ("java/lang/Integer", "I", "intValue"),
    Float: ("java/lang/Float", "F", "floatValue"),
    Long: ("java/lang/Long", "J", "longValue"),
    Double: ("java/lang/Double", "D", "doubleValue"),
}
_OBJECT = "Ljava/lang/Object;"
_OBJECT_ARRAY = "[Ljava/lang/Object;"


@dataclass
class OutlinedPart:
    """One outlined region: a private static method ``name`` with ``descriptor`` and ``body``."""

    name: str
    descriptor: str
    body: CodeBody
    first_site: int  #: the number of call sites before the region in the whole method
    call: Instruction  #: the ``invokestatic`` that replaced it in the method
    sites: int  #: call sites in the region
    synthetic: set[int] = field(default_factory=set)  #: ids of the instructions added to the method
    added: set[int] = field(default_factory=set)  #: ids of the instructions added to the part


@dataclass
class PartSignature:
    """What crosses the call of one part: its parameters, what it hands back, its descriptor.

    ``pushed`` are the values the region leaves on the stack above the ``below`` values it
    leaves alone; when there are none, ``returned`` are the stored locals it hands back
    (``outs`` also has those that hold null: the method sets them to null itself).
    """

    params: list[VType]  #: the slots at the region's start, trailing empty ones dropped
    outs: list[tuple[int, VType]]  #: stored slots still defined after the region, with their types
    returned: list[tuple[int, VType]]  #: ``outs`` but the nulls
    below: int  #: values on the stack under the region's own
    pushed: list[VType]  #: values the region leaves on the stack
    value: VType | None  #: the single non-null value pushed, returned as is
    descriptor: str

    @classmethod
    def of(cls, region: Region, items: list) -> PartSignature:
        st_in, st_out = region.entry, region.exit
        params = used_slots(st_in.locals)
        stored: set[int] = set()
        for x in items[region.start : region.end]:
            if not isinstance(x, Label):
                stored.update(slots_written(x))
        outs = [
            (slot, st_out.locals[slot])
            for slot in sorted(stored)
            if slot < len(st_out.locals) and st_out.locals[slot] is not Top
        ]
        returned = [(slot, t) for slot, t in outs if t is not Null]
        below = len(st_in.stack)
        pushed = st_out.stack[below:]
        value = pushed[0] if len(pushed) == 1 and pushed[0] is not Null else None
        desc = "(" + "".join(vtype_descriptor(t) or "I" for _, t in slot_values(params)) + ")"
        if value is not None:
            desc += vtype_descriptor(value) or _OBJECT
        elif len(pushed) > 1:
            desc += _OBJECT_ARRAY
        elif not returned:
            desc += "V"
        elif len(returned) == 1:
            desc += vtype_descriptor(returned[0][1]) or _OBJECT
        else:
            desc += _OBJECT_ARRAY
        return cls(params, outs, returned, below, pushed, value, desc)


class PartCutter:
    """Builds the parts of one body, in order: the body's ``max_locals`` grows as calls need slots."""

    def __init__(
        self, body: CodeBody, pool, this_class: str, hierarchy, *, interface: bool, fixed: set[int] | frozenset
    ) -> None:
        self.body = body
        self.pool = pool
        self.this_class = this_class
        self.hierarchy = hierarchy
        self.interface = interface
        self.sites_before = _call_sites_before(body.items, fixed)

    def cut(self, region: Region, name: str) -> tuple[OutlinedPart, list]:
        """The part for ``region`` and the instructions that replace it in the method."""
        items = self.body.items
        sig = PartSignature.of(region, items)
        moved = items[region.start : region.end]
        exit_label = Label("outlined_exit")
        entry = renulled(sig.params)
        exit_code, extra_locals = self._exit(sig, exit_label)
        retarget(moved, {id(x): exit_label for x in items[region.end : region.resume] if isinstance(x, Label)})
        part = self._part_body(moved, entry, exit_code, sig, region, extra_locals)
        call = Instruction(
            -1,
            op.INVOKESTATIC,
            self.pool.add_methodref(self.this_class, name, sig.descriptor, interface=self.interface),
        )
        seq = self._call_sequence(sig, call)
        detach(self.body, {id(x) for x in moved if isinstance(x, Label)})
        first = self.sites_before[region.start]
        return OutlinedPart(
            name,
            sig.descriptor,
            part,
            first,
            call,
            self.sites_before[region.end] - first,
            {id(x) for x in seq},
            {id(x) for x in (*entry, *exit_code) if not isinstance(x, Label)},
        ), seq

    def _exit(self, sig: PartSignature, exit_label: Label) -> tuple[list, int]:
        """The part's exit (where the region's end branches go) and the locals it needs, if more."""
        code: list = [exit_label]
        extra_locals = 0
        pushed, returned = sig.pushed, sig.returned
        if sig.value is not None:
            code.append(Instruction(-1, RETURN.get(sig.value, op.ARETURN)))
        elif len(pushed) == 1:  # a null the method pushes again itself
            code += [Instruction(-1, op.POP), Instruction(-1, op.RETURN)]
        elif pushed:  # several values: into temporaries, then an Object[]
            temps = []
            slot = self.body.max_locals
            for t in pushed:
                temps.append(slot)
                slot += 2 if t in (Long, Double) else 1
            extra_locals = slot
            for t, tslot in reversed(list(zip(pushed, temps))):
                code.append(Instruction(-1, STORE.get(t, op.ASTORE), tslot))
            code += boxed_array(self.pool, list(zip(temps, pushed)))
        elif not returned:
            code.append(Instruction(-1, op.RETURN))
        elif len(returned) == 1:
            slot, t = returned[0]
            code += [Instruction(-1, LOAD.get(t, op.ALOAD), slot), Instruction(-1, RETURN.get(t, op.ARETURN))]
        else:
            code += boxed_array(self.pool, returned)
        return code, extra_locals

    def _part_body(
        self, moved: list, entry: list, exit_code: list, sig: PartSignature, region: Region, extra_locals: int
    ) -> CodeBody:
        """The part's code with the frames, handlers and line numbers of the moved labels."""
        body = self.body
        part = CodeBody(items=[*entry, *moved, *exit_code], max_locals=max(body.max_locals, extra_locals))
        labels = {id(x) for x in moved if isinstance(x, Label)}
        handler_labels = {id(h.handler) for h in body.handlers}
        # the region's frames without the values below its own (handlers start on an empty stack)
        part.frames = {
            lab: f
            if id(lab) in handler_labels or not sig.below
            else Frame(-1, list(f.locals), list(f.stack[sig.below :]))
            for lab, f in body.frames.items()
            if id(lab) in labels
        }
        part.frames[exit_code[0]] = frame_of(list(region.exit.locals), sig.pushed)
        part.handlers = [h for h in body.handlers if id(h.handler) in labels]
        part.lines = [(lab, line) for lab, line in body.lines if id(lab) in labels]
        part.has_stack_map = body.has_stack_map
        return part

    def _call_sequence(self, sig: PartSignature, call: Instruction) -> list:
        """Slots loaded (an empty one as int 0), the call, and what the part hands back put in place."""
        seq = slot_loads(sig.params)
        seq.append(call)
        seq += self._take_back(sig)
        for slot, t in sig.outs:
            if t is Null:
                seq += [Instruction(-1, op.ACONST_NULL), Instruction(-1, op.ASTORE, slot)]
        return seq

    def _take_back(self, sig: PartSignature) -> list:
        """After the call: the pushed values back on the stack, or the returned locals back in their slots."""
        pool, hierarchy = self.pool, self.hierarchy
        seq: list = []
        if len(sig.pushed) == 1:
            if sig.value is None:
                seq.append(Instruction(-1, op.ACONST_NULL))
        elif sig.pushed:  # the array into a temporary, its values onto the stack
            array = self.body.max_locals
            self.body.max_locals += 1
            seq.append(Instruction(-1, op.ASTORE, array))
            for j, t in enumerate(sig.pushed):
                if t is Null:
                    seq.append(Instruction(-1, op.ACONST_NULL))
                    continue
                seq += [
                    Instruction(-1, op.ALOAD, array),
                    G.push_int(pool, j),
                    Instruction(-1, op.AALOAD),
                    *unboxed(t, hierarchy, pool),
                ]
        elif len(sig.returned) == 1:  # returned with its own type: nothing to cast
            slot, t = sig.returned[0]
            seq.append(Instruction(-1, STORE.get(t, op.ASTORE), slot))
        elif sig.returned:
            for j, (slot, t) in enumerate(sig.returned):
                seq += [
                    Instruction(-1, op.DUP),
                    G.push_int(pool, j),
                    Instruction(-1, op.AALOAD),
                    *unboxed(t, hierarchy, pool),
                    Instruction(-1, STORE.get(t, op.ASTORE), slot),
                ]
            seq.append(Instruction(-1, op.POP))
        return seq


def _call_sites_before(items: list, fixed: set[int] | frozenset) -> list[int]:
    """Per item index, the call sites before it: a part's sites are numbered as in the whole method."""
    before = [0] * (len(items) + 1)
    count = 0
    for i, x in enumerate(items):
        before[i] = count
        if not isinstance(x, Label) and id(x) not in fixed and x.opcode in op.INVOKE_OPCODES:
            count += 1
    before[len(items)] = count
    return before


def renulled(params: list) -> list:
    """A part's entry code: each slot that held null holds it again (it came in typed as ``Object``)."""
    code: list = []
    for slot, t in slot_values(params):
        if t is Null:
            code += [Instruction(-1, op.ACONST_NULL), Instruction(-1, op.ASTORE, slot)]
    return code


def slot_loads(params: list) -> list:
    """The caller's loads of a part's parameter slots, in order; an empty slot passed as int 0."""
    return [
        Instruction(-1, op.ICONST_0) if t is Top else Instruction(-1, LOAD.get(t, op.ALOAD), slot)
        for slot, t in slot_values(params)
    ]


def retarget(moved: list, exits: dict[int, Label]) -> None:
    """Branches and switch cases to a label ``exits`` has (by id) go to the part's exit for it instead."""
    for x in moved:
        if isinstance(x, Label):
            continue
        if x.opcode in op.BRANCH_OPCODES:
            x.operand = exits.get(id(x.operand), x.operand)
        elif x.opcode in op.SWITCH_OPCODES:
            x.default = exits.get(id(x.default), x.default)
            x.targets = [exits.get(id(t), t) for t in x.targets]


def detach(body: CodeBody, labels: set[int]) -> None:
    """Drop from the method what went with the moved labels: handlers, frames, lines, variables.

    Local variable tables name ranges the method no longer has; the code's type annotations
    are dropped altogether, as their offsets would no longer be right.
    """
    body.handlers = [h for h in body.handlers if id(h.handler) not in labels]
    for lab in list(body.frames):
        if id(lab) in labels:
            del body.frames[lab]
    body.lines = [(lab, line) for lab, line in body.lines if id(lab) not in labels]
    body.local_variables = [v for v in body.local_variables if id(v.start) not in labels and id(v.end) not in labels]
    body.local_variable_types = [
        v for v in body.local_variable_types if id(v.start) not in labels and id(v.end) not in labels
    ]
    body.code_annotations = []


def frame_of(locals_: list, stack: list) -> Frame:
    """A frame with ``locals_`` (one entry per slot, State's convention) and ``stack``."""
    return Frame(-1, used_slots([t for _, t in slot_values(locals_)]), list(stack))


def boxed_array(pool, values: list[tuple[int, VType]], exit_index: int | None = None) -> list:
    """``return new Object[] {slot values…}``, primitives boxed: how a part hands back several values.

    With ``exit_index``, the array's first element is that number (boxed), the values follow: how a
    part of a switch's cases says which of its exits it left by (:mod:`.outline_switch_parts`)."""
    first = 0 if exit_index is None else 1
    out = [G.push_int(pool, first + len(values)), Instruction(-1, op.ANEWARRAY, pool.add_class("java/lang/Object"))]
    if exit_index is not None:
        out += [Instruction(-1, op.DUP), G.push_int(pool, 0), G.push_int(pool, exit_index), _box(pool, Integer)]
        out.append(Instruction(-1, op.AASTORE))
    for j, (slot, t) in enumerate(values):
        out += [Instruction(-1, op.DUP), G.push_int(pool, first + j), Instruction(-1, LOAD.get(t, op.ALOAD), slot)]
        if t in _BOX:
            out.append(_box(pool, t))
        out.append(Instruction(-1, op.AASTORE))
    return out + [Instruction(-1, op.ARETURN)]


def _box(pool, t: Any) -> Instruction:
    """``Integer.valueOf`` and its kind: the primitive on the stack boxed."""
    owner, d, _ = _BOX[t]
    return Instruction(-1, op.INVOKESTATIC, pool.add_methodref(owner, "valueOf", f"({d})L{owner};"))


def box(pool, t: VType) -> list:
    """The value of type ``t`` on the stack as an object: primitives boxed, references as they are."""
    return [_box(pool, t)] if t in _BOX else []


def unboxed(t: VType, hierarchy, pool) -> list:
    """An element of that array (on the stack) back to type ``t``: unboxed, or cast (:func:`_unpack`)."""
    if t in _BOX:
        owner, d, getter = _BOX[t]
        return [
            Instruction(-1, op.CHECKCAST, pool.add_class(owner)),
            Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(owner, getter, f"(){d}")),
        ]
    return _unpack(t, hierarchy, pool)


def _unpack(t: VType, hierarchy, pool) -> list:
    """A checkcast back to the slot's class. Interfaces get none: the verifier treats them as
    Object, and the value (which the verifier let through as one) need not implement it."""
    if not isinstance(t, Object) or t.name == "java/lang/Object":
        return []
    if not t.name.startswith("["):
        info = hierarchy.info(t.name) if hierarchy is not None else None
        if info is not None and info.is_interface:
            return []
    return [Instruction(-1, op.CHECKCAST, pool.add_class(t.name))]
