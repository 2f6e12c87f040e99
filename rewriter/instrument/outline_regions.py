"""Choosing the regions of a method body to outline (the conditions are in :mod:`.outline`'s docstring).

The search is greedy in code order: from each instruction where a region may start, the
farthest end within the byte budget, and the next search starts where that region ends. It
needs the verifier's type state before every instruction (what crosses the call, and whether
the region touches values below its own on the stack) and, per candidate start, a running
count of the branch edges and handler rows the region so far holds in part, so that testing
each possible end costs only the labels right before it, not a pass over every edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, cast

from ..analysis.typeflow import State, TypeflowError, execute, infer_states
from ..classfile import opcodes as op
from ..classfile.frames import Double, Long, Null, Top, Uninitialized, UninitializedThis
from ..classfile.instructions import Instruction
from ..editor import CodeBody, Label, layout
from ..editor.body import branch_targets
from ..editor.stack import stack_effect
from .outline_values import slots_written, used_slots, vtype_descriptor

__all__ = ["MethodSite", "Region", "RegionFinder", "clean", "instruction_states", "live_in", "region_finder"]

# a part cannot return for the method, take part in a subroutine, or lock (structured locking is per frame)
_FORBIDDEN = op.RETURN_OPCODES | op.SUBROUTINE_OPCODES | {op.MONITORENTER, op.MONITOREXIT}
_MAX_PARAMETER_SLOTS = 255  #: the JVM's limit on a method's parameter slots
_MAX_PUSHED = 64  #: values a region may leave on the stack (handed back in an Object[])
_MIN_REGION_BYTES = 64  #: a shorter region frees hardly more than its call sequence takes
# slots read and written, for liveness: loads, iinc and ret read; stores write
_READS = {o: 2 if o in op.TWO_SLOT_LOCAL_OPCODES else 1 for o in op.LOAD_OPCODES | {op.IINC, op.RET}}
_WRITES = {o: 2 if o in op.TWO_SLOT_LOCAL_OPCODES else 1 for o in op.STORE_OPCODES}


@dataclass(frozen=True)
class Region:
    """``items[start:end]`` move into a part method; the method goes on at instruction ``resume``.

    Only labels lie between ``end`` and ``resume``: the region's end labels, to which its
    branches may go (they go to the part's exit instead). ``entry`` and ``exit`` are the type
    states before ``start`` and before ``resume``: they decide what the part takes and returns.
    """

    start: int
    end: int
    resume: int
    entry: State
    exit: State


class MethodSite(NamedTuple):
    """The method a body belongs to, as the type inference needs it."""

    this_class: str
    name: str
    descriptor: str
    is_static: bool


def region_finder(
    body: CodeBody,
    pool,
    method: MethodSite,
    hierarchy,
    *,
    fixed,
    final_fields: frozenset[tuple[str, str]] = frozenset(),
) -> RegionFinder | None:
    """What the regions of ``body`` are chosen with (:meth:`RegionFinder.regions`); None when the
    types are unknown (jsr/ret, or code the inference cannot follow: nothing is moved).

    ``fixed``: ids of instructions that never move (a set); ``final_fields``: (name, descriptor) of
    the class's final fields, whose writes never move.
    """
    this_class, method_name, descriptor, is_static = method
    try:
        cfg, leader_states = infer_states(
            body, pool, hierarchy, this_class, method_name, descriptor, is_static, fixed=body.frames
        )
    except TypeflowError:
        return None
    states = instruction_states(body, cfg, leader_states, pool, this_class)
    return RegionFinder(body, pool, this_class, states, cfg.next_insn, fixed, final_fields)


def instruction_states(
    body: CodeBody, cfg, leader_states: dict[int, State], pool, this_class: str
) -> list[State | None]:
    """The state before every instruction (None where unreached), run forward from each leader's state.

    Inference keeps states at leaders only; a region may start or end anywhere, so each block
    is replayed. A replay stops at the next leader (it has its own, merged, state).
    """
    items = body.items
    n = len(items)
    states: list[State | None] = [None] * n
    for k, st in leader_states.items():
        i, cur = k, st
        while i < n:
            if states[i] is not None and i != k:
                break
            states[i] = cur
            insn = cast(Instruction, items[i])  # leaders and their successors are instructions
            if insn.opcode in op.UNCONDITIONAL_OPCODES:
                break
            try:
                cur = execute(cur, insn, pool, this_class, new_label=insn)
            except TypeflowError:
                break
            i = cfg.next_insn[i + 1]
            if i in cfg.leaders:
                break
    return states


def clean(st: State | None) -> bool:
    """No local holds an uninitialised object (the stack may hold anything: a region leaves
    what is below its own values alone)."""
    return st is not None and not any(isinstance(t, Uninitialized) or t is UninitializedThis for t in st.locals)


class EdgeGroups:
    """Item positions a region must hold all or none of, numbered: each branch or switch edge
    (its instruction and its target label) and each handler row (start, end, handler labels).

    A region holding part of an edge would be jumped into or out of; part of a handler row,
    and a handler would cover code on both sides of the call.
    """

    def __init__(self, body: CodeBody, label_pos: dict[int, int]) -> None:
        self.members: list[tuple[int, ...]] = []
        self.jumps: set[int] = set()  #: the groups that are branch or switch edges
        for i, x in enumerate(body.items):
            if not isinstance(x, Label):
                for t in branch_targets(x):
                    self.jumps.add(len(self.members))
                    self.members.append((i, label_pos[id(t)]))
        self.handler_rows: list[tuple[int, int, int]] = []
        for h in body.handlers:
            row = (label_pos[id(h.start)], label_pos[id(h.end)], label_pos[id(h.handler)])
            self.handler_rows.append(row)
            self.members.append(row)
        self.at: list[list[int]] = [[] for _ in body.items]  #: the groups each position belongs to
        for g, ends in enumerate(self.members):
            for p in set(ends):
                self.at[p].append(g)
        self.low = [min(ends) for ends in self.members]
        self.size = [len(set(ends)) for ends in self.members]


class RegionFinder:
    """What every candidate region of one body is checked against: states, sizes, edges, liveness."""

    def __init__(
        self,
        body: CodeBody,
        pool,
        this_class: str,
        states: list[State | None],
        next_insn: list[int],
        fixed: set[int] | frozenset,
        final_fields: frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        self.items = body.items
        self.pool = pool
        self.this_class = this_class
        self.final_fields = final_fields
        self.states = states
        self.fixed = fixed
        self.positions, _ = layout(body, limit=False)
        label_pos = {id(x): i for i, x in enumerate(self.items) if isinstance(x, Label)}
        self.groups = EdgeGroups(body, label_pos)
        live = live_in(self.items, body, label_pos, next_insn)
        self.live = live  #: per instruction, the locals read before written on some path from it (bits)
        n = len(self.items)
        #: per handler row, the locals its handler code may read before writing them
        self.handler_reads: list[set[int]] = []
        for row in self.groups.handler_rows:
            k = next_insn[row[2]]
            bits = live[k] if k < n else -1
            self.handler_reads.append({slot for slot in range(body.max_locals + 2) if bits >> slot & 1})
        self.next_insn = next_insn
        #: items no region may hold: switch regions (:mod:`.outline_switches`) and their switches
        self.barrier = [False] * n
        #: operand stack depth in slots before each instruction
        self.depth = [sum(2 if t in (Long, Double) else 1 for t in st.stack) if st is not None else 0 for st in states]

    def movable(self, i: int, x: Instruction) -> bool:
        """Instruction ``x`` (at ``i``) may run in a part at all: reached, no return, subroutine or lock,
        not the rewriting's own, no super call, no write of a final field of the class."""
        if self.states[i] is None or x.opcode in _FORBIDDEN or id(x) in self.fixed or self.barrier[i]:
            return False
        if x.opcode == op.INVOKESPECIAL:
            owner, name, _ = self.pool.member_ref(x.operand)
            if name != "<init>" and owner != self.this_class:
                return False  # a super call needs an instance method
        elif x.opcode == op.PUTFIELD or x.opcode == op.PUTSTATIC:
            owner, name, desc = self.pool.member_ref(x.operand)
            if owner == self.this_class and (name, desc) in self.final_fields:
                return False  # only <init> (<clinit>) may write a final field of its class
        return True

    def regions(self, budget: int) -> list[Region]:
        """Greedily, in code order, the farthest region from each start that has one."""
        chosen: list[Region] = []
        items, states = self.items, self.states
        i = 0
        while i < len(items):
            if isinstance(items[i], Label) or not clean(states[i]) or self.barrier[i]:
                i += 1
                continue
            e = self.farthest(i, budget)
            if e is None:
                i += 1
                continue
            entry, exit_ = states[i], states[e]
            assert entry is not None and exit_ is not None
            chosen.append(Region(i, self.first_label_before(e), e, entry, exit_))
            i = e
        return chosen

    def first_label_before(self, i: int) -> int:
        """Index of the first item of the run of labels right before instruction ``i`` (or ``i``)."""
        while i > 0 and isinstance(self.items[i - 1], Label):
            i -= 1
        return i

    def farthest(self, s: int, limit: int) -> int | None:
        """The farthest instruction e (a region items[s:first_label_before(e)]) within ``limit`` bytes."""
        st = self.states[s]
        if st is None or not clean(st) or len(used_slots(st.locals)) >= _MAX_PARAMETER_SLOTS:
            return None
        scan = _Scan(self, s)
        for i in range(s, len(self.items)):
            x = self.items[i]
            if not isinstance(x, Label):
                size = self.positions[i] - self.positions[s]
                if i > s and size > limit:
                    break
                if i > s and size >= _MIN_REGION_BYTES and scan.may_end_at(i):
                    scan.best = i
                if not scan.takes(i, x):
                    break
            if not scan.enter(i, x):
                break
        return scan.best


class _Scan:
    """One candidate start ``s`` walked forward, with what the region up to the current item holds.

    ``inside[g]`` counts group g's positions in the region and ``partial`` the groups held in
    part: an end is acceptable when the only groups held in part are edges to the end labels.
    """

    def __init__(self, finder: RegionFinder, s: int) -> None:
        self.f = finder
        self.s = s
        groups = finder.groups
        # a handler covering the start reads the locals as they were before the region
        self.covering = [reads for row, reads in zip(groups.handler_rows, finder.handler_reads) if row[0] < s < row[1]]
        self.floor = finder.depth[s]  # the region never touches the values below its own
        self.inside = [0] * len(groups.members)
        self.partial = 0
        self.stored: set[int] = set()
        self.best: int | None = None
        self.blocked = False  # an edge from before the region lands here: it may end, not go on

    def may_end_at(self, e: int) -> bool:
        """The region may end right before instruction ``e`` (and the labels before it)."""
        return self.f.states[e] is not None and self.ends_well(e) and self.whole(self.f.first_label_before(e), e)

    def ends_well(self, e: int) -> bool:
        """At ``e`` the stack is the region's start stack, or that plus one value it returns (then
        it may hand back no local as well: Clojure's compiled ``load`` keeps every form's value)."""
        st_in, st_out = self.f.states[self.s], self.f.states[e]
        assert st_in is not None
        if st_out is None or not clean(st_out):
            return False
        extra = len(st_out.stack) - len(st_in.stack)
        if extra == 0:
            return _outs_ok(st_out, self.stored)
        if extra < 0 or extra > _MAX_PUSHED:
            return False
        for t in st_out.stack[len(st_in.stack) :]:
            if t is not Null and (vtype_descriptor(t) is None or t is Top):
                return False
        return not any(slot < len(st_out.locals) and st_out.locals[slot] not in (Top, Null) for slot in self.stored)

    def whole(self, hi: int, e: int) -> bool:
        """Every group all in items[s:hi] or all out, but edges from inside to the end labels."""
        groups = self.f.groups
        touched: dict[int, int] = {}
        for t in range(hi, e):
            for g in groups.at[t]:
                touched[g] = touched.get(g, 0) + 1
        still = self.partial
        exits = 0
        for g, k in touched.items():
            before = 0 < self.inside[g] < groups.size[g]
            now = 0 < self.inside[g] - k < groups.size[g]
            still += now - before
            if now and g in groups.jumps and self.s <= groups.members[g][0] < hi and hi <= groups.members[g][1] < e:
                exits += 1
        return still == exits

    def takes(self, i: int, x) -> bool:
        """Instruction ``x`` (at ``i``) may be moved: it keeps the region single-exit and verifiable."""
        f = self.f
        if self.blocked or not f.movable(i, x):
            return False
        if self.floor and f.depth[i] - stack_effect(x, f.pool)[0] < self.floor:
            return False
        written = slots_written(x)
        if written:
            self.stored.update(written)
            if any(r & self.stored for r in self.covering):
                return False  # that handler would see the value from before the region
        return True

    def enter(self, i: int, x) -> bool:
        """Count item ``i`` into its groups; False when an edge or handler from before the region meets it."""
        groups = self.f.groups
        for g in groups.at[i]:
            if groups.low[g] < self.s:
                if isinstance(x, Label):
                    self.blocked = True  # a region may still end at this label
                    continue
                return False
            self.inside[g] += 1
            if self.inside[g] == 1 and groups.size[g] > 1:
                self.partial += 1
            elif self.inside[g] == groups.size[g] and groups.size[g] > 1:
                self.partial -= 1
        return True


def _outs_ok(st_out: State, stored: set[int]) -> bool:
    """Every local the region stores and that is still defined after it can be handed back."""
    for slot in stored:
        t = st_out.locals[slot] if slot < len(st_out.locals) else Top
        if t is not Top and t is not Null and vtype_descriptor(t) is None:
            return False
    return True


def live_in(items: list, body: CodeBody, label_pos: dict, next_insn: list) -> list[int]:
    """Locals live before each instruction (bit sets): read on some path before being written.

    Exceptional flow counts: a local its handler reads is live throughout a handler's range.
    """
    n = len(items)
    succ: list[list[int]] = [[] for _ in range(n)]
    handlers_at: list[list[int]] = [[] for _ in range(n)]
    for h in body.handlers:
        s, e, t = label_pos[id(h.start)], label_pos[id(h.end)], next_insn[label_pos[id(h.handler)]]
        for k in range(s, e):
            if not isinstance(items[k], Label):
                handlers_at[k].append(t)
    use = [0] * n
    kill = [0] * n
    insns = []
    for i, x in enumerate(items):
        if isinstance(x, Label):
            continue
        insns.append(i)
        o = x.opcode
        if o in _READS:
            use[i] = ((1 << _READS[o]) - 1) << x.operand
        elif o in _WRITES:
            kill[i] = ((1 << _WRITES[o]) - 1) << x.operand
        targets = [next_insn[label_pos[id(t)]] for t in branch_targets(x)]
        if o not in op.UNCONDITIONAL_OPCODES and next_insn[i + 1] < n:
            targets.append(next_insn[i + 1])
        if o == op.RET:
            targets = []  # no splitting where subroutines are (inference refused them anyway)
        succ[i] = targets
    live = [0] * (n + 1)
    changed = True
    while changed:
        changed = False
        for i in reversed(insns):
            out = 0
            for t in succ[i]:
                out |= live[t]
            new = use[i] | (out & ~kill[i])
            for t in handlers_at[i]:
                new |= live[t]
            if new != live[i]:
                live[i] = new
                changed = True
    return live
