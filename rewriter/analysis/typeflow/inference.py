"""The inference of the type flow: the drivers that run the interpreter over a body.

* :func:`flow_to` -- LOCAL: straight-line flow from the nearest known frame to one position;
* :func:`infer_states` / :func:`infer_frames` -- FULL: a worklist over the control-flow graph
  (entry, branches, switches, exception handlers) to a fixpoint, states joined by the merge
  at every leader (ASM's ``Analyzer``); :func:`labels_needing_frames` says where a frame goes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...classfile import opcodes as op
from ...classfile.frames import Frame, Object, VType
from ...classfile.instructions import Instruction
from .interpreter import step
from .merge import TypeMerger, merge_states, state_assignable
from .state import (
    THROWABLE,
    FrameUnknown,
    State,
    SubroutineError,
    TypeflowError,
    frame_from_state,
    initial_state,
    is_label,
    state_from_frame,
)

__all__ = [
    "InferenceReport",
    "ControlFlow",
    "flow_to",
    "flow_to_each",
    "infer_states",
    "infer_frames",
    "labels_needing_frames",
]


@dataclass
class InferenceReport:
    """What :func:`infer_frames` noticed besides the frames."""

    missing_classes: set = field(default_factory=set)  # merges that fell back to java/lang/Object
    unreachable: list = field(default_factory=list)  # labels needing a frame that no flow reaches
    not_assignable: list = field(default_factory=list)  # (item index, incoming State) into a fixed frame
    blocks: int = 0
    iterations: int = 0


class ControlFlow:
    """Positions, leaders and handler coverage of a body, as :func:`infer_states` returns them.

    ``items``/``n`` the body's items; ``pos`` label -> item index; ``next_insn[i]`` the first
    instruction at or after item ``i`` (``n`` past the end); ``at(label)`` the instruction a
    label marks; ``first`` the entry instruction; ``leaders`` the instructions that start a
    straight-line run (the states are kept there); ``handler_entries``/``handler_types`` one
    row per handler entry, with its catch types; ``covering`` instruction -> indices of the
    handler rows covering it; ``fixed_at`` instruction -> the frame kept fixed there.
    """

    def __init__(self, body, pool, fixed: Mapping | None) -> None:
        items = body.items
        self.items = items
        self.n = n = len(items)
        self.pos, self.next_insn = _positions(items)
        self.first = self.next_insn[0]
        if self.first >= n:
            raise TypeflowError("the method has no instructions")
        self.leaders = self._jump_leaders()
        # handlers grouped by entry: one merged state each; rows that share an entry
        # (multi-catch) put the least common superclass of their catch types on the stack
        self.handler_entries: list[int] = []
        self.handler_types: list[list[VType]] = []
        self.covering: dict[int, list[int]] = {}
        self._group_of: dict[int, int] = {}  # handler entry -> its row
        for h in body.handlers:
            self._add_handler(h, pool)
        self.fixed_at: dict[int, Frame] = {}
        if fixed:
            for label, frame in fixed.items():
                if label in self.pos and self.next_insn[self.pos[label]] < n:
                    k = self.next_insn[self.pos[label]]
                    self.leaders.add(k)
                    self.fixed_at.setdefault(k, frame)

    def at(self, label) -> int:
        """The index of the instruction ``label`` marks."""
        try:
            k = self.next_insn[self.pos[label]]
        except KeyError:
            raise TypeflowError(f"label {label!r} is not in the code") from None
        if k >= self.n:
            raise TypeflowError(f"label {label!r} is at the end of the code (no instruction)")
        return k

    def _jump_leaders(self) -> set[int]:
        """The entry, every branch and switch target, and what follows a jump or the end of flow."""
        items, n, next_insn, at = self.items, self.n, self.next_insn, self.at
        leaders = {self.first}
        ends_flow = op.UNCONDITIONAL_OPCODES
        for i, item in enumerate(items):
            if is_label(item):
                continue
            o = item.opcode
            if o in op.SUBROUTINE_OPCODES:
                raise SubroutineError(
                    f"{op.opcode_name(o)}: subroutines (jsr/ret) have no frame "
                    "representation; class files that use them need no frames"
                )
            if o in op.BRANCH_OPCODES:
                leaders.add(at(item.operand))
                if next_insn[i + 1] < n:
                    leaders.add(next_insn[i + 1])
            elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
                leaders.add(at(item.default))
                for t in item.targets:
                    leaders.add(at(t))
                if next_insn[i + 1] < n:
                    leaders.add(next_insn[i + 1])
            elif o in ends_flow and next_insn[i + 1] < n:
                leaders.add(next_insn[i + 1])
        return leaders

    def _add_handler(self, h, pool) -> None:
        """One exception-table row: its entry is a leader, its range covers instructions."""
        items, pos = self.items, self.pos
        s, e = pos.get(h.start), pos.get(h.end)
        if s is None or e is None:
            raise TypeflowError("an exception handler's range refers to a label not in the code")
        covered = [k for k in range(s + 1, e) if not is_label(items[k])]
        if not covered:
            return  # an empty range is dropped by the assembler
        entry = self.at(h.handler)
        self.leaders.add(entry)
        exc = Object(pool.class_name(h.catch_type)) if h.catch_type else Object(THROWABLE)
        idx = self._group_of.get(entry)
        if idx is None:
            idx = self._group_of[entry] = len(self.handler_entries)
            self.handler_entries.append(entry)
            self.handler_types.append([])
        if exc not in self.handler_types[idx]:
            self.handler_types[idx].append(exc)
        covering = self.covering
        for k in covered:
            lst = covering.get(k)
            if lst is None:
                covering[k] = [idx]
            elif idx not in lst:
                lst.append(idx)


def _positions(items: list) -> tuple[dict, list[int]]:
    """(label -> item index, ``next_insn``: for each item index the first instruction at or after it)."""
    n = len(items)
    pos: dict = {}
    next_insn = [n] * (n + 1)
    nxt = n
    for i in range(n - 1, -1, -1):
        item = items[i]
        if is_label(item):
            pos[item] = i
        else:
            nxt = i
        next_insn[i] = nxt
    return pos, next_insn


class _Worklist:
    """The fixpoint of :func:`infer_states`: the state before every reached leader, joined with
    whatever else flows there until nothing changes."""

    def __init__(self, cfg: ControlFlow, merger: TypeMerger, report: InferenceReport) -> None:
        self.cfg, self.merger, self.report = cfg, merger, report
        self.fixed_states = {k: state_from_frame(f) for k, f in cfg.fixed_at.items()}
        self.handler_exc: list[VType] = []
        for types in cfg.handler_types:
            t = types[0]
            for u in types[1:]:
                t = merger.merge_value(t, u) or Object(THROWABLE)
            self.handler_exc.append(t)
        self.states: dict[int, State] = {}
        self.work: list[int] = []
        self.queued: set[int] = set()

    def flow_into(self, k: int, state: State, where: str) -> None:
        """``state`` reaches instruction ``k`` (a leader): join it, queue ``k`` if that changed it."""
        states = self.states
        fs = self.fixed_states.get(k)
        if fs is not None:
            if not state_assignable(self.merger, state, fs):
                self.report.not_assignable.append((k, state.copy()))
            if k not in states:
                states[k] = fs
                self.work.append(k)
                self.queued.add(k)
            return
        old = states.get(k)
        if old is None:
            states[k] = State(list(state.locals), list(state.stack))
        else:
            merged = merge_states(self.merger, old, state, where=where)
            if merged is None:
                return
            states[k] = merged
        if k not in self.queued:
            self.queued.add(k)
            self.work.append(k)

    def into_handlers(self, k: int, locals_: list) -> None:
        cfg, handler_exc = self.cfg, self.handler_exc
        for idx in cfg.covering[k]:
            self.flow_into(cfg.handler_entries[idx], State(locals_, [handler_exc[idx]]), f" (handler of item {k})")

    def run(self, k: int, pool, this_class: str) -> None:
        """Run straight-line from leader ``k`` until the flow ends or reaches another leader."""
        cfg = self.cfg
        items, n, next_insn, leaders, covering = cfg.items, cfg.n, cfg.next_insn, cfg.leaders, cfg.covering
        flow_into, into_handlers = self.flow_into, self.into_handlers
        stores, ends_flow = op.ANY_STORE_OPCODES, op.UNCONDITIONAL_OPCODES
        st = self.states[k]
        locals_, stack = list(st.locals), list(st.stack)
        i = k
        while True:
            insn = items[i]
            o = insn.opcode
            cov = i in covering
            if cov:
                into_handlers(i, locals_)
            try:
                step(locals_, stack, insn, pool, this_class, insn)
            except TypeflowError as e:
                raise type(e)(f"item {i}: {e.message}") from None
            if cov and (o in stores or o == op.INVOKESPECIAL):
                into_handlers(i, locals_)
            nxt = next_insn[i + 1]
            if o in op.BRANCH_OPCODES:
                flow_into(cfg.at(insn.operand), State(locals_, stack), f" (branch at item {i})")
                if o == op.GOTO or o == op.GOTO_W:
                    return
            elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
                for t in (insn.default, *insn.targets):
                    flow_into(cfg.at(t), State(locals_, stack), f" (switch at item {i})")
                return
            elif o in ends_flow:
                return
            if nxt >= n:
                raise TypeflowError(f"execution falls off the end of the code after item {i}")
            if nxt in leaders:
                flow_into(nxt, State(locals_, stack), f" (item {nxt})")
                return
            i = nxt


def infer_states(
    body,
    pool,
    hierarchy,
    this_class: str,
    method_name: str,
    descriptor: str,
    is_static: bool,
    *,
    fixed: Mapping | None = None,
    report: InferenceReport | None = None,
    merger: TypeMerger | None = None,
):
    """Data-flow fixpoint: ``(cfg, states)`` with the state before every reached leader instruction.

    Used by :func:`infer_frames`; exposed for callers that need the state at
    arbitrary instructions (run straight-line from the leader before them).
    ``cfg`` is the body's :class:`ControlFlow`.
    """
    cfg = ControlFlow(body, pool, fixed)
    merger = merger or TypeMerger(hierarchy)
    report = report if report is not None else InferenceReport()
    worklist = _Worklist(cfg, merger, report)
    worklist.flow_into(cfg.first, initial_state(this_class, method_name, descriptor, is_static), " (method entry)")
    work, queued = worklist.work, worklist.queued
    iterations = 0
    while work:
        k = work.pop()
        queued.discard(k)
        iterations += 1
        worklist.run(k, pool, this_class)
    report.iterations += iterations
    report.blocks += len(cfg.leaders)
    report.missing_classes |= merger.missing
    return cfg, worklist.states


def labels_needing_frames(body) -> set:
    """Labels whose position needs a frame: branch/switch targets, handler entries, and the
    instruction after one that does not fall through (goto, returns, athrow, switches).

    One label per position: of several labels at the same place, one that
    already has a frame in ``body.frames`` is chosen, else the first of them.
    Positions with no instruction after them (the end of the code) never need one.
    """
    items = body.items
    n = len(items)
    run_of: dict = {}  # label -> index of the first label of its run
    runs: dict[int, list] = {}
    start = -1
    for i, item in enumerate(items):
        if is_label(item):
            if start < 0:
                start = i
                runs[i] = []
            runs[start].append(item)
            run_of[item] = start
        else:
            start = -1
    needed: set[int] = set()

    def want(label) -> None:
        r = run_of.get(label)
        if r is not None:
            needed.add(r)

    for i, item in enumerate(items):
        if is_label(item):
            continue
        o = item.opcode
        if o in op.BRANCH_OPCODES:
            want(item.operand)
        elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
            want(item.default)
            for t in item.targets:
                want(t)
        if o in op.UNCONDITIONAL_OPCODES and i + 1 < n and is_label(items[i + 1]):
            needed.add(i + 1)
    for h in body.handlers:
        want(h.handler)
    frames = body.frames
    out = set()
    for r in needed:
        labels = runs[r]
        if r + len(labels) >= n:
            continue  # nothing after: end of code
        chosen = next((lab for lab in labels if lab in frames), labels[0])
        out.add(chosen)
    return out


def infer_frames(
    body,
    pool,
    hierarchy,
    this_class: str,
    method_name: str,
    descriptor: str,
    is_static: bool,
    *,
    fixed: Mapping | None = None,
    report: InferenceReport | None = None,
) -> dict:
    """FULL frame inference (like ASM's COMPUTE_FRAMES) for every label that needs a frame.

    Data flow from the method entry and every exception handler to a fixpoint;
    states merge at join points (references to their least common superclass
    by ``hierarchy``, interfaces as java/lang/Object; mismatched locals become
    Top; a mismatch on the stack raises :class:`TypeflowError`). A handler's
    state has the locals of every instruction in its range merged (before each
    instruction, and after each store or constructor call) and the caught type
    (java/lang/Throwable for catch-all) as its stack.

    ``body.frames`` is ignored unless passed as ``fixed``: frames that are kept
    as they are (flow into them is checked, not merged; problems go to
    ``report.not_assignable``). Labels that need a frame but are unreachable
    get none (``report.unreachable``). Raises SubroutineError for jsr/ret.
    """
    report = report if report is not None else InferenceReport()
    cfg, states = infer_states(
        body, pool, hierarchy, this_class, method_name, descriptor, is_static, fixed=fixed, report=report
    )
    out = {}
    for label in labels_needing_frames(body):
        k = cfg.next_insn[cfg.pos[label]]
        st = states.get(k)
        if st is None:
            report.unreachable.append(label)
            continue
        out[label] = frame_from_state(st)
    return out


def flow_to(
    body, target_index: int, pool, this_class: str, method_descriptor: str, is_static: bool, method_name: str
) -> State:
    """The state before ``body.items[target_index]``, by straight-line flow from the nearest frame.

    The start is the closest preceding label that has a frame in ``body.frames``
    or, if there is none, the method entry (implicit initial frame). Raises
    :class:`FrameUnknown` if an instruction that does not fall through (goto,
    return, athrow, switch) lies in between: the position is then reached only
    by jumps and its state is not a matter of straight-line flow. Labels without
    frames in between are passed over (this is the caller's contract: they are
    not join points whose state differs).

    Never changes the body (a ``new`` site is named by its instruction object).
    """
    items: list = body.items  # (typed: compiled, native item reads; a label is any non-instruction)
    frames = body.frames
    start = _flow_start(items, frames, target_index, 0)
    if start >= 0:
        state = state_from_frame(frames[items[start]])
    else:
        state = initial_state(this_class, method_name, method_descriptor, is_static)
    _step_over(items, start + 1, target_index, state, pool, this_class)
    return state


def _flow_start(items: list, frames: dict, target_index: int, floor: int) -> int:
    """Where straight-line flow to ``items[target_index]`` starts, looking back no further than
    ``floor``: the index of the nearest label with a frame, or ``floor - 1`` when there is none
    from ``floor`` on. Raises :class:`FrameUnknown` at an instruction that does not fall through."""
    k = target_index - 1
    insn: Instruction
    while k >= floor:
        item = items[k]
        if not isinstance(item, Instruction):
            if item in frames:
                return k
        else:
            insn = item
            if insn.opcode in op.UNCONDITIONAL_OPCODES:
                raise FrameUnknown(
                    f"{op.opcode_name(insn.opcode)} at item {k} ends straight-line flow before item {target_index}"
                )
        k -= 1
    return floor - 1


def _step_over(items: list, begin: int, end: int, state: State, pool, this_class: str) -> None:
    """``state`` stepped in place over the instructions of ``items[begin:end]`` (labels pass)."""
    locals_, stack = state.locals, state.stack
    for k in range(begin, end):
        item = items[k]
        if isinstance(item, Instruction):
            step(locals_, stack, item, pool, this_class, item)


def flow_to_each(
    body, targets: list[int], pool, this_class: str, method_descriptor: str, is_static: bool, method_name: str
) -> list[State | None]:
    """:func:`flow_to` for each of ``targets`` (item indices), in one walk over the body: each
    state a copy of its own, None where :func:`flow_to` raises :class:`FrameUnknown`.

    A method with many pending calls asks for the state at each of them; flowing each from its
    nearest frame costs the instructions between them again and again. Here the state walks on
    from one target to the next, and starts again only at a frame or the entry, exactly where
    :func:`flow_to` would start: between the last place the state is known and the next target,
    a frame restarts it and an instruction that does not fall through makes that target unknown.
    """
    items: list = body.items
    frames = body.frames
    order = sorted(range(len(targets)), key=targets.__getitem__)
    out: list[State | None] = [None] * len(targets)
    state: State | None = None
    pos = 0  # ``state`` (when not None) is the state before items[pos]
    for j in order:
        target = targets[j]
        floor = 0 if state is None else pos  # (the carried state covers what lies before pos)
        try:
            start = _flow_start(items, frames, target, floor)
        except FrameUnknown:
            continue
        if start >= floor:  # a frame: flow starts again there
            state = state_from_frame(frames[items[start]])
            pos = start + 1
        elif state is None:  # the entry
            state = initial_state(this_class, method_name, method_descriptor, is_static)
            pos = 0
        _step_over(items, pos, target, state, pool, this_class)
        pos = target
        out[j] = State(list(state.locals), list(state.stack))
    return out
