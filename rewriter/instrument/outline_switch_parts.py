"""Cutting switch regions (:mod:`.outline_switches`) out of a body: a part with its own switch, and its call.

The part takes the method's slots at the switch (as an ordinary part takes them at its start)
and the switch's key after them; it begins with a switch over the keys whose cases it holds, and
each of its exits returns the exit's number (an ``int``; nothing when it has one exit), or, when
an exit hands back locals, an ``Object[]`` of the number and the locals' values. In the method:

* before the switch, ``dup; istore key``: the key kept in a new local;
* the switch's cases in the region go to the call: ``load slots…; iload key; invokestatic part``;
* then a ``tableswitch`` on the number to each exit's target, through a stub that stores the
  exit's locals where it has any.

The order in which this module adds constants to the pool and slots to the method is part of
the output's bytes: a change must keep it.
"""

from __future__ import annotations

from ..classfile import opcodes as op
from ..classfile.frames import Double, Float, Integer, Long, Null, Object, Top, VType
from ..classfile.instructions import Instruction, LookupSwitch, TableSwitch
from ..editor import CodeBody, Handler, Label
from . import codegen as G
from .outline_parts import (
    OutlinedPart,
    PartCutter,
    box,
    boxed_array,
    detach,
    frame_of,
    renulled,
    retarget,
    slot_loads,
    unboxed,
)
from .outline_switches import SwitchExit, SwitchRegion
from .outline_values import STORE, slot_values, used_slots, vtype_descriptor

__all__ = ["SwitchCutter"]

_OBJECT_ARRAY = "[Ljava/lang/Object;"
_TWO = (Long, Double)  #: the types that take two slots
_ZERO: dict[VType, int] = {
    Integer: op.ICONST_0,
    Float: op.FCONST_0,
    Long: op.LCONST_0,
    Double: op.DCONST_0,
}  #: a constant of each


class SwitchCutter:
    """Builds the parts of one body's switch regions; :meth:`finish` stores each switch's key."""

    def __init__(self, cutter: PartCutter) -> None:
        self.c = cutter
        self.key_slot = -1  #: the local that keeps the key (one for every switch: read right after it)
        self.array_slot = -1  #: the local that keeps a part's returned array while its values go back
        self.switches: list[tuple[TableSwitch | LookupSwitch, OutlinedPart]] = []  #: each switch and its first part

    def cut(self, region: SwitchRegion, name: str) -> tuple[OutlinedPart, list]:
        """The part for ``region`` and the instructions that replace it in the method."""
        c = self.c
        body, pool = c.body, c.pool
        if self.key_slot < 0:
            self.key_slot = body.new_local()
        items = body.items
        moved = items[region.start : region.end]
        labels = {id(x) for x in moved if isinstance(x, Label)}
        added_returns: list = []  # what the part's returns became
        params = used_slots(region.entry.locals)
        key_param = _past(params)
        # per exit, the stored locals defined at its target and read from there on (nulls are set again
        # by the method); a dead one whose type there the method's slot lacks gets a constant instead
        returned = [_handed_back(region, ex) for ex in region.exits]
        placeholders = [_placeholders(region, ex) for ex in region.exits]
        boxed = [[(slot, t) for slot, t in r if t is not Null] for r in returned]
        array = any(boxed) or any(ex.value is not None for ex in region.exits)
        n_exits = len(region.exits)
        ret = _OBJECT_ARRAY if array else "I" if n_exits > 1 else "V"
        descriptor = "(" + "".join(vtype_descriptor(t) or "I" for _, t in slot_values(params)) + "I)" + ret
        # the part: its switch, the cases, an exit stub per exit (the fall-through's first: it follows the cases)
        entry = renulled(params)
        switch = region.switch
        cases = [(key, target) for key, target in _cases(switch) if id(target) in labels]
        default = switch.default if id(switch.default) in labels else cases[0][1]
        entry += [Instruction(-1, op.ILOAD, key_param), _switch_of(cases, default)]
        exit_labels = [Label("switch_exit") for _ in region.exits]
        retarget(moved, {id(ex.target): lab for ex, lab in zip(region.exits, exit_labels) if ex.target is not None})
        # a return hands its value back (the first of its kind returns in the method: one bytecode, as before)
        packed: list = []
        returning = {id(x): j for j, ex in enumerate(region.exits) for x in ex.returns}
        for x in moved:
            j = returning.get(id(x), -1)
            if j < 0:
                packed.append(x)
                continue
            value = region.exits[j].value
            code = _packed_return(pool, j, value) if array else _numbered_return(pool, j, n_exits)
            packed += code
            added_returns.extend(code)
        moved = packed
        stubs: list = []
        for j, lab in enumerate(exit_labels):
            if region.exits[j].target is None:
                continue  # (its returns hand back in place)
            stubs.append(lab)
            if array:
                stubs += boxed_array(pool, boxed[j], exit_index=j)
            else:
                stubs += _numbered_return(pool, j, n_exits)
        part = CodeBody(items=[*entry, *moved, *stubs], max_locals=max(body.max_locals, key_param + 1))
        part.frames = {lab: f for lab, f in body.frames.items() if id(lab) in labels}
        for ex, lab in zip(region.exits, exit_labels):
            if ex.state is not None:
                part.frames[lab] = frame_of(list(ex.state.locals), [])
        part.handlers = [h for h in body.handlers if id(h.handler) in labels]
        part.lines = [(lab, line) for lab, line in body.lines if id(lab) in labels]
        part.has_stack_map = body.has_stack_map
        # the call in the method, and the way on from each exit
        call_label, call_end = Label("switch_part"), Label("switch_part_end")
        call = Instruction(
            -1, op.INVOKESTATIC, pool.add_methodref(c.this_class, name, descriptor, interface=c.interface)
        )
        at_switch = _with(list(region.entry.locals), self.key_slot, Integer)
        seq: list = [call_label, *slot_loads(params)]
        seq += [Instruction(-1, op.ILOAD, self.key_slot), call, call_end]
        if body.has_stack_map:
            body.frames[call_label] = frame_of(at_switch, [])
        seq += self._dispatch(region, returned, boxed, array, at_switch, placeholders)
        _cut_rows(body, region, labels, call_label, call_end)
        for k, target in enumerate(switch.targets):
            if id(target) in labels:
                switch.targets[k] = call_label
        if id(switch.default) in labels:
            switch.default = call_label
        detach(body, labels)
        first = c.sites_before[region.start]
        outlined = OutlinedPart(
            name,
            descriptor,
            part,
            first,
            call,
            c.sites_before[region.end] - first,
            {id(x) for x in seq} - {id(ex.returns[0]) for ex in region.exits if ex.returns},
            {id(x) for x in (*entry, *stubs, *added_returns) if not isinstance(x, Label)},
        )
        if not any(sw is switch for sw, _ in self.switches):
            self.switches.append((switch, outlined))
        return outlined, seq

    def _dispatch(
        self, region: SwitchRegion, returned: list, boxed: list, array: bool, at_switch: list, placeholders: list
    ) -> list:
        """After the call: on to the exit the part left by, its locals stored back first."""
        c = self.c
        body, pool = c.body, c.pool
        code: list = []
        if array:
            if self.array_slot < 0:
                self.array_slot = body.new_local()
            code.append(Instruction(-1, op.ASTORE, self.array_slot))
        targets: list = []
        stubs: list = []
        with_array = _with(at_switch, self.array_slot, Object(_OBJECT_ARRAY)) if array else at_switch
        for j, ex in enumerate(region.exits):
            restore: list = list(placeholders[j])
            if ex.value is not None:  # the value the part handed back, returned
                restore += [Instruction(-1, op.ALOAD, self.array_slot), Instruction(-1, op.ICONST_1)]
                restore += [Instruction(-1, op.AALOAD), *unboxed(ex.value, c.hierarchy, pool)]
            k = 1
            for slot, t in returned[j]:
                if t is Null:
                    restore += [Instruction(-1, op.ACONST_NULL), Instruction(-1, op.ASTORE, slot)]
                    continue
                restore += [
                    Instruction(-1, op.ALOAD, self.array_slot),
                    G.push_int(pool, k),
                    Instruction(-1, op.AALOAD),
                    *unboxed(t, c.hierarchy, pool),
                    Instruction(-1, STORE.get(t, op.ASTORE), slot),
                ]
                k += 1
            # on: the exit's target, or the return the region's returns of this kind came from
            onward = Instruction(-1, op.GOTO, ex.target) if ex.target is not None else ex.returns[0]
            if len(region.exits) == 1:
                code += restore
                if not region.falls:
                    code.append(onward)
                break
            if not restore and ex.target is not None:
                targets.append(ex.target)
                continue
            stub = Label("switch_part_exit")
            targets.append(stub)
            stubs += [stub, *restore, onward]
            if body.has_stack_map:
                body.frames[stub] = frame_of(with_array, [])
        if len(region.exits) > 1:
            if array:
                code += [
                    Instruction(-1, op.ALOAD, self.array_slot),
                    Instruction(-1, op.ICONST_0),
                    Instruction(-1, op.AALOAD),
                    *unboxed(Integer, c.hierarchy, pool),
                ]
            code.append(TableSwitch(-1, targets[0], 0, targets))
        fall = region.exits[0]
        if region.falls and body.has_stack_map and fall.target is not None and fall.target not in body.frames:
            assert fall.state is not None  # (a jump's exit has its target's state)
            body.frames[fall.target] = frame_of(list(fall.state.locals), [])  # was only fallen into
        return code + stubs

    def finish(self) -> None:
        """Before each switch a part's call reads the key of: the key kept (``dup; istore``)."""
        items = self.c.body.items
        for switch, part in self.switches:
            i = next(k for k, x in enumerate(items) if x is switch)
            keep = [Instruction(-1, op.DUP), Instruction(-1, op.ISTORE, self.key_slot)]
            items[i:i] = keep
            part.synthetic.update(id(x) for x in keep)


def _handed_back(region: SwitchRegion, ex: SwitchExit) -> list[tuple[int, VType]]:
    """The locals exit ``ex`` hands back: stored by the region, defined at the target, read after it."""
    if ex.state is None:
        return []
    return [
        (slot, t)
        for slot, t in slot_values(ex.state.locals)
        if slot in region.stored and t is not Top and ex.live >> slot & 1
    ]


def _placeholders(region: SwitchRegion, ex: SwitchExit) -> list:
    """Constants for the stored locals exit ``ex`` does not hand back (nothing reads them after it)
    that the target's frame types although the method's slot at the switch has another type there."""
    if ex.state is None:
        return []
    entry = region.entry.locals
    code: list = []
    for slot, t in slot_values(ex.state.locals):
        if slot not in region.stored or t is Top or ex.live >> slot & 1:
            continue
        if slot < len(entry) and entry[slot] == t:
            continue  # the slot still holds a value of that type
        code += [Instruction(-1, _ZERO.get(t, op.ACONST_NULL)), Instruction(-1, STORE.get(t, op.ASTORE), slot)]
    return code


def _numbered_return(pool, j: int, n_exits: int) -> list:
    """A part's exit ``j`` when no exit hands anything back: its number (nothing if it is the only one)."""
    if n_exits > 1:
        return [G.push_int(pool, j), Instruction(-1, op.IRETURN)]
    return [Instruction(-1, op.RETURN)]


def _packed_return(pool, j: int, value: VType | None) -> list:
    """In place of a return of the region: ``return new Object[] {j, value}`` with the value on the
    stack boxed (values below it are left: a return discards them)."""
    code: list = []
    if value is not None:
        code += box(pool, value)
    code += [
        G.push_int(pool, 1 if value is None else 2),
        Instruction(-1, op.ANEWARRAY, pool.add_class("java/lang/Object")),
    ]
    if value is not None:  # [v, a] -> [a, a, 1, v]
        code += [Instruction(-1, op.DUP_X1), Instruction(-1, op.SWAP), Instruction(-1, op.ICONST_1)]
        code += [Instruction(-1, op.SWAP), Instruction(-1, op.AASTORE)]
    code += [Instruction(-1, op.DUP), Instruction(-1, op.ICONST_0), G.push_int(pool, j), *box(pool, Integer)]
    return code + [Instruction(-1, op.AASTORE), Instruction(-1, op.ARETURN)]


def _past(params: list) -> int:
    """The first slot past the parameters ``params`` (one entry per slot, a trailing long's second dropped)."""
    end = 0
    for slot, t in slot_values(params):
        end = slot + (2 if t in _TWO else 1)
    return end


def _cases(switch: TableSwitch | LookupSwitch) -> list[tuple[int, Label]]:
    """``(key, target)`` of every case of a ``tableswitch`` or ``lookupswitch``, the default left out."""
    if isinstance(switch, TableSwitch):
        return [(switch.low + j, t) for j, t in enumerate(switch.targets)]
    return list(zip(switch.keys, switch.targets))


def _switch_of(cases: list[tuple[int, Label]], default: Label) -> Instruction:
    """A switch over ``cases``: a ``tableswitch`` where the keys are dense, else a ``lookupswitch``."""
    cases = sorted(cases)
    low, high = cases[0][0], cases[-1][0]
    if high - low + 1 <= 2 * len(cases):
        by_key = dict(cases)
        return TableSwitch(-1, default, low, [by_key.get(k, default) for k in range(low, high + 1)])
    return LookupSwitch(-1, default, [k for k, _ in cases], [t for _, t in cases])


def _with(locals_: list, slot: int, t: VType) -> list:
    """``locals_`` (one entry per slot) with ``slot`` holding ``t``."""
    out = list(locals_) + [Top] * max(0, slot + 1 - len(locals_))
    out[slot] = t
    return out


def _cut_rows(body: CodeBody, region: SwitchRegion, labels: set[int], call: Label, call_end: Label) -> None:
    """The method's handler rows with code in the region, cut around it; a handler that covered the
    region covers the call (one row, where the handler's first such row was: the order of rows
    decides which handler catches)."""
    rows = {id(r.row): r for r in region.rows}
    out: list[Handler] = []
    covering: set[tuple[int, int]] = set()
    for h in body.handlers:
        r = rows.get(id(h))
        if r is None:
            out.append(h)
            continue
        key = (id(h.handler), h.catch_type)
        if r.covers and key not in covering:
            covering.add(key)
            out.append(Handler(call, call_end, h.handler, h.catch_type))
        if r.before and id(h.start) not in labels:  # (an earlier region right before this one took that code)
            out.append(Handler(h.start, call, h.handler, h.catch_type))
        if r.after:  # from the label that starts the code after the region (regions end at a run of labels)
            after = body.items[region.end]
            assert isinstance(after, Label)
            h.start = after
            out.append(h)  # the same row: a later region may cut it again
    body.handlers = out
