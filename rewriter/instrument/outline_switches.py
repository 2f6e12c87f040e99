"""Choosing runs of a big ``switch``'s cases to outline, each run into a part with a ``switch`` of its own.

An ordinary region (:mod:`.outline_regions`) is entered at its start and left at its end. The
cases of a ``switch`` are neither: each is entered from the switch, and most leave by a jump
(``break`` to the code after the switch, ``continue`` to a loop's head, a jump to shared error
code). A method that is mostly a switch of small cases, as a parser's reduce actions (ecj's
``Parser.consumeRule``) or an interpreter's loop (rhino's ``Interpreter.interpretLoop``) are, has
no ordinary region to outline, and once instrumented it is past HotSpot's limit for compiling
(:data:`~.parts.JIT_HUGE_METHOD_LIMIT`): it would run interpreted for good.

A *switch region* is a run of cases entered only from its switch (and from its own code): no
other jump lands in it, and the code before it does not fall into it. It moves into a part
whose parameters are the method's slots at the switch plus the switch's key; the part starts
with a switch of its own over the keys whose cases it holds. The method's switch sends those
keys to the part's call, and the part returns which of its exits it left by (a jump out, or the
fall-through at its end) with the locals it stored that are defined there and read after it (an
``Object[]``, primitives boxed), and the method jumps on from there. So the profile cannot tell: the cases'
bytecodes count in the part against the method's node, their call sites are the method's.

A return in the region is an exit too: the part hands the value back, and the method returns it
with the original return instruction (one kind of return, one exit). What else a region must
satisfy is what an ordinary region must (no subroutine, lock, super call or final field write,
every instruction reached, no uninitialised object in a local at the switch or an exit, the stack
empty there), and for exception handlers: a handler whose
code moves moves with its whole range; one whose range covers the region covers all of its
instructions that can throw (javac leaves a ``goto`` out of a ``try``'s rows) and reads no local
the region stores; any other leaves the region alone. Rows that cover the region are cut
around the call in the method, and one row per handler covers the call itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from ..analysis.typeflow import State
from ..classfile import opcodes as op
from ..classfile.frames import VType
from ..classfile.instructions import Instruction, LookupSwitch, TableSwitch
from ..editor import CodeBody, Handler, Label
from ..editor.body import branch_targets
from .outline_regions import RegionFinder, clean
from .outline_values import slots_written, used_slots

__all__ = ["SwitchExit", "SwitchFinder", "SwitchRegion", "SwitchRow"]

_MIN_REGION_BYTES = 64  #: a shorter run frees hardly more than its call sequence takes
_MAX_PARAMETER_SLOTS = 254  #: the JVM's 255 parameter slots, less the key's
_MAX_EXITS = 1024  #: a part's exits, returned as a number the method switches on
_CANNOT_THROW = frozenset((op.GOTO, op.GOTO_W))  #: what javac leaves out of a try's rows


@dataclass(frozen=True)
class SwitchExit:
    """Where the method goes on after a part left it this way, and the state there; or, for a
    return (``target`` None), the region's return instructions of one kind (``returns``: the
    first goes back to the method, the part hands it the value, of type ``value``)."""

    target: Label | None
    state: State | None
    returns: tuple[Instruction, ...] = ()
    value: VType | None = None
    live: int = -1  #: the locals the method may read from the target on (bits): only those go back


@dataclass(frozen=True)
class SwitchRow:
    """A handler row of the method with code in a switch region, its handler outside it.

    ``covers``: its handler covers every instruction of the region that can throw (then one row
    of that handler covers the part's call); ``before`` and ``after``: it covers instructions
    before the region or after it, which it goes on covering.
    """

    row: Handler
    covers: bool
    before: bool
    after: bool


@dataclass(frozen=True)
class SwitchRegion:
    """``items[start:end]``, cases of ``switch`` (which stays in the method), move into a part.

    ``entry``: the state at the switch with its key popped (what the part takes). ``exits``: the
    labels the part's code jumps to outside it, the fall-through to ``items[end]`` first when the
    last instruction falls through (``falls``). ``stored``: the slots its code writes. ``rows``: the
    method's handler rows with code in the region, their own code outside, each with whether its
    handler covers the region (then the call is covered too) or holds only ``goto``\\ s of it.
    """

    switch: TableSwitch | LookupSwitch
    start: int
    end: int
    entry: State
    exits: tuple[SwitchExit, ...]
    falls: bool
    stored: frozenset[int]
    rows: tuple[SwitchRow, ...]


class SwitchFinder:
    """The switch regions of one body, found on the states and edges an ordinary search uses."""

    def __init__(self, finder: RegionFinder, body: CodeBody) -> None:
        self.f = finder
        items = finder.items
        self.handlers = body.handlers
        n = len(items)
        self.label_pos = {id(x): i for i, x in enumerate(items) if isinstance(x, Label)}
        groups = finder.groups
        #: per label position, the instructions that jump there
        self.sources: dict[int, list[int]] = {}
        for g in groups.jumps:
            src, target = groups.members[g]
            self.sources.setdefault(target, []).append(src)
        #: instructions that can throw in items[:i] (a handler covers a region when it covers all of those)
        self.throwing = [0] * (n + 1)
        for i, x in enumerate(items):
            self.throwing[i + 1] = self.throwing[i] + (not isinstance(x, Label) and x.opcode not in _CANNOT_THROW)

    def regions(self, budget: int) -> list[SwitchRegion]:
        """Greedily, switch by switch in code order, the longest runs of cases within ``budget`` bytes."""
        f, items = self.f, self.f.items
        chosen: list[SwitchRegion] = []
        for sw, x in enumerate(items):
            if isinstance(x, Label) or x.opcode not in op.SWITCH_OPCODES or f.barrier[sw]:
                continue
            st = f.states[sw]
            if st is None or len(st.stack) != 1 or not clean(st):
                continue
            entry = State(list(st.locals), [])
            if len(used_slots(entry.locals)) > _MAX_PARAMETER_SLOTS:
                continue
            starts = sorted({self._run_start(self.label_pos[id(t)]) for t in branch_targets(x)})
            if len(starts) < 2 or f.positions[starts[-1]] - f.positions[starts[0]] < budget // 2:
                continue  # a small switch: ordinary regions serve it
            end = 0
            for c in starts:
                if c < end or not self._clean_start(c):
                    continue
                region = self._longest_from(sw, cast("TableSwitch | LookupSwitch", x), c, entry, budget)
                if region is not None:
                    chosen.append(region)
                    f.barrier[region.start : region.end] = [True] * (region.end - region.start)
                    end = region.end
                    f.barrier[sw] = True
        return chosen

    def _run_start(self, p: int) -> int:
        """The first label of the run of labels position ``p`` is in."""
        items = self.f.items
        while p > 0 and isinstance(items[p - 1], Label):
            p -= 1
        return p

    def _clean_start(self, c: int) -> bool:
        """Nothing falls into the run of labels at ``c``: the instruction before it never goes on."""
        if c == 0:
            return False
        prev = self.f.items[c - 1]
        return not isinstance(prev, Label) and prev.opcode in op.UNCONDITIONAL_OPCODES and prev.opcode != op.RET

    def _longest_from(
        self, sw: int, switch: TableSwitch | LookupSwitch, c: int, entry: State, budget: int
    ) -> SwitchRegion | None:
        """The longest region from ``c`` (a run of labels) within ``budget`` bytes, or None."""
        f = self.f
        items, positions = f.items, f.positions
        stored: set[int] = set()
        jumps: list[int] = []  # the label positions the region's instructions jump to
        returns: list[int] = []  # the region's return instructions
        need = c  # every instruction that jumps into the region lies before this end
        best: SwitchRegion | None = None
        for i in range(c, len(items)):
            x = items[i]
            if i > c and isinstance(x, Label) and not isinstance(items[i - 1], Label):  # a run of labels: an end?
                size = positions[i] - positions[c]
                if size > budget:
                    break
                if need <= i and size >= _MIN_REGION_BYTES:
                    region = self._region(switch, c, i, entry, stored, jumps, returns)
                    if region is not None:
                        best = region
            if i == sw or f.barrier[i]:
                break
            if isinstance(x, Label):
                for src in self.sources.get(i, ()):
                    if src == sw:
                        continue
                    if src < c:
                        return best  # jumped into from before: a region may end here, not go on
                    need = max(need, src + 1)
                continue
            if x.opcode in op.RETURN_OPCODES:
                if f.states[i] is None or id(x) in f.fixed or f.barrier[i]:
                    break
                returns.append(i)  # the part hands its value back, the method returns it
                continue
            if not f.movable(i, x):
                break
            for t in branch_targets(x):
                jumps.append(self.label_pos[id(t)])
            stored.update(slots_written(x))
        return best

    def _region(
        self,
        switch: TableSwitch | LookupSwitch,
        c: int,
        e: int,
        entry: State,
        stored: set[int],
        jumps: list[int],
        returns: list[int],
    ) -> SwitchRegion | None:
        """items[c:e] as a region of ``switch``'s cases, if its exits and handlers allow."""
        f = self.f
        items, states = f.items, f.states
        falls = cast(Instruction, items[e - 1]).opcode not in op.UNCONDITIONAL_OPCODES  # (regions end at labels)
        exit_positions: list[int] = [e] if falls else []
        for p in jumps:
            if not c <= p < e and p not in exit_positions:
                exit_positions.append(p)
        if len(exit_positions) > _MAX_EXITS:
            return None
        exits = []
        for p in exit_positions:
            k = f.next_insn[p]
            st = states[k] if k < len(items) else None
            if st is None or st.stack or not clean(st) or f.barrier[p]:
                return None
            exits.append(SwitchExit(cast(Label, items[p]), st, live=f.live[k]))
        kinds: dict[tuple[int, VType | None], list[Instruction]] = {}  # returns by opcode and value type
        for i in returns:
            x = cast(Instruction, items[i])
            st = states[i]
            assert st is not None
            kinds.setdefault((x.opcode, st.stack[-1] if x.opcode != op.RETURN else None), []).append(x)
        for (_, value), insns in kinds.items():
            exits.append(SwitchExit(None, None, tuple(insns), value))
        if len(exits) > _MAX_EXITS:
            return None
        rows = self._rows(c, e, stored)
        if rows is None:
            return None
        return SwitchRegion(switch, c, e, entry, tuple(exits), falls, frozenset(stored), rows)

    def _rows(self, c: int, e: int, stored: set[int]) -> tuple[SwitchRow, ...] | None:
        """The handler rows the method keeps that have code in items[c:e], or None if one is in the way."""
        f = self.f
        total = self.throwing[e] - self.throwing[c]
        covered: dict[tuple[int, int], int] = {}  # (handler position, catch type) -> instructions covered
        touching: list[tuple[Handler, tuple[int, int], int]] = []
        for r, (hs, he, hh) in enumerate(f.groups.handler_rows):
            if c <= hh < e:
                if not (c <= hs and he < e):
                    return None  # its code moves, but not all of its range
                continue
            lo, hi = max(hs, c), min(he, e)
            if lo >= hi:
                continue
            h = self.handlers[r]
            key = (hh, h.catch_type)
            covered[key] = covered.get(key, 0) + self.throwing[hi] - self.throwing[lo]
            touching.append((h, key, r))
        whole = set()
        for key, n in covered.items():
            if n == total:
                whole.add(key)
            elif n:
                return None  # a handler for part of the region only
        for _, key, r in touching:
            if key in whole and f.handler_reads[r] & stored:
                return None  # its handler would see the values from before the region
        after = f.next_insn[e]  # the first instruction after the region
        return tuple(
            SwitchRow(h, key in whole, f.groups.handler_rows[r][0] < c, f.groups.handler_rows[r][1] > after)
            for h, key, r in touching
        )
