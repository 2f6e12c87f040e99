"""Frames for edited method bodies: fill in what is missing, check what is there.

After a transformation has spliced code into a :class:`~jprewrite.editor.body.CodeBody`,
some positions need a StackMapTable frame they do not have yet (a branch into
inserted code, a handler added around it, the instruction after an inserted
``goto``...). :func:`complete_frames` keeps every existing frame and adds the
missing ones:

1. LOCAL first: :func:`~jprewrite.analysis.typeflow.flow_to` from the nearest
   frame before each position. The result is then checked by a linear pass
   that does what the JVM's type checker does (:func:`check_frames`): every
   branch, switch, fall-through and handler edge into a frame must carry
   assignable types. Cheap, and it leaves the original frames' (often more
   general, javac-declared) types in charge.
2. FULL inference as the fallback, when the local frames are not enough
   (a position reached only by jumps, or a join whose incoming types differ):
   :func:`~jprewrite.analysis.typeflow.infer_frames` with the existing frames
   kept fixed.

:func:`frame_after_provider` gives the assembler the ``frame_after(i)``
callable it needs when it widens a conditional branch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..classfile import opcodes as op
from ..classfile.frames import Frame, Object
from .typeflow import (
    THROWABLE,
    FrameUnknown,
    InferenceReport,
    State,
    TypeflowError,
    TypeMerger,
    execute,
    flow_to,
    frame_from_state,
    infer_states,
    initial_state,
    is_label,
    labels_needing_frames,
    state_assignable,
    state_from_frame,
)

__all__ = ["FrameCompletion", "complete_frames", "check_frames", "frame_after_provider", "labels_needing_frames"]


@dataclass
class FrameCompletion:
    """What :func:`complete_frames` did."""

    method: str = "none"  # "none" (nothing missing), "local" (flow_to) or "inferred"
    needed: int = 0  # positions that need a frame
    existing: int = 0  # ... that already had one (kept as they are)
    added_local: int = 0  # frames added from flow_to
    added_inferred: int = 0  # frames added from infer_frames
    unreachable: list = field(default_factory=list)  # need a frame, no flow reaches them: none added
    missing_classes: set = field(default_factory=set)  # merges that fell back to java/lang/Object
    local_failure: str | None = None  # why the local frames were not used
    problems: list = field(default_factory=list)  # check_frames problems left at the end

    @property
    def added(self) -> int:
        return self.added_local + self.added_inferred


def _runs(body) -> tuple[dict, dict]:
    """label -> first item index of its run of adjacent labels; run -> frame (the assembler's pick)."""
    items = body.items
    run_of: dict = {}
    start = -1
    for i, item in enumerate(items):
        if is_label(item):
            if start < 0:
                start = i
            run_of[item] = start
        else:
            start = -1
    run_frame: dict = {}
    for label, frame in body.frames.items():  # the assembler keeps the first frame per offset
        r = run_of.get(label)
        if r is not None and r not in run_frame:
            run_frame[r] = frame
    return run_of, run_frame


def check_frames(
    body,
    frames: dict | None = None,
    *,
    pool,
    hierarchy,
    this_class: str,
    method_name: str,
    descriptor: str,
    is_static: bool,
    merger: TypeMerger | None = None,
    limit: int = 10,
) -> list[str]:
    """Frame-consistency problems the type checker would find with ``frames`` (default ``body.frames``).

    This checks the frames against the flow, not every operand's type (an
    ``iload`` of a float local is not reported): it is the question "are these
    frames right for this code", which is what frame computation can get wrong.

    A linear pass as in JVMS 4.10.1: the state after each instruction must be
    assignable to the frame at the next position (if it has one), to the frame
    at every branch/switch target and, for locals, to every covering handler's
    frame (checked before each instruction and after stores and constructor
    calls); after goto/return/athrow/switch the next instruction must have a
    frame. Returns up to ``limit`` messages; empty means the frames are consistent.
    Classes the hierarchy lacks make reference checks fail (conservatively).
    """
    if frames is not None and frames is not body.frames:
        saved = body.frames
        body.frames = {**saved, **frames}
        try:
            return check_frames(
                body,
                None,
                pool=pool,
                hierarchy=hierarchy,
                this_class=this_class,
                method_name=method_name,
                descriptor=descriptor,
                is_static=is_static,
                merger=merger,
                limit=limit,
            )
        finally:
            body.frames = saved
    merger = merger or TypeMerger(hierarchy)
    items = body.items
    run_of, run_frame = _runs(body)
    problems: list[str] = []
    frame_states: dict[int, State] = {r: state_from_frame(f) for r, f in run_frame.items()}

    def target(label, what: str, i: int) -> State | None:
        r = run_of.get(label)
        fs = frame_states.get(r) if r is not None else None
        if fs is None:
            problems.append(f"item {i}: {what} target {label!r} has no frame")
        return fs

    handlers = []
    pos = {item: i for i, item in enumerate(items) if is_label(item)}
    for h in body.handlers:
        s, e = pos.get(h.start), pos.get(h.end)
        if s is None or e is None or s >= e:
            continue
        exc = Object(pool.class_name(h.catch_type)) if h.catch_type else Object(THROWABLE)
        handlers.append((s, e, h.handler, exc))

    def check_handlers(i: int, st: State, when: str) -> None:
        for s, e, hl, exc in handlers:
            if s < i < e:
                hs = target(hl, "handler", i)
                if hs is None:
                    continue
                if len(hs.stack) != 1 or not merger.assignable(exc, hs.stack[0]):
                    problems.append(f"item {i}: handler {hl!r} frame stack {hs.stack} does not accept {exc!r}")
                elif not state_assignable(merger, st, hs, stack=False):
                    problems.append(
                        f"item {i}: locals {when} ({st.locals}) not assignable to handler {hl!r} frame {hs.locals}"
                    )

    state: State | None = initial_state(this_class, method_name, descriptor, is_static)
    for i, item in enumerate(items):
        if len(problems) >= limit:
            break
        if is_label(item):
            if run_of[item] != i:
                continue  # only the first label of a run carries the position's frame
            fs = frame_states.get(i)
            if fs is not None:
                if state is not None and not state_assignable(merger, state, fs):
                    problems.append(f"item {i}: incoming {state} not assignable to frame {fs}")
                state = fs.copy()
            continue
        if state is None:
            problems.append(f"item {i}: {item!r} follows an unconditional transfer and has no frame")
            break
        o = item.opcode
        if handlers:
            check_handlers(i, state, "before")
        try:
            state = execute(state, item, pool, this_class, new_label=item)
        except TypeflowError as e:
            problems.append(f"item {i}: {e.message}")
            break
        if handlers and (o in op.ANY_STORE_OPCODES or o == op.INVOKESPECIAL):
            check_handlers(i, state, "after")
        if o in op.BRANCH_OPCODES:
            fs = target(item.operand, "branch", i)
            if fs is not None and not state_assignable(merger, state, fs):
                problems.append(f"item {i}: branch state {state} not assignable to frame {fs}")
        elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
            for t in (item.default, *item.targets):
                fs = target(t, "switch", i)
                if fs is not None and not state_assignable(merger, state, fs):
                    problems.append(f"item {i}: switch state {state} not assignable to frame {fs}")
        if o in op.UNCONDITIONAL_OPCODES:
            state = None
    return problems[:limit]


def complete_frames(
    body,
    *,
    pool,
    hierarchy,
    this_class: str,
    method_name: str,
    descriptor: str,
    is_static: bool,
    needed: Iterable | None = None,
) -> FrameCompletion:
    """Add a frame (to ``body.frames``) at every position that needs one and lacks it.

    ``needed``: the labels to consider (default :func:`labels_needing_frames`);
    a label whose position already has a frame (at any label there) is skipped.
    Existing frames are never changed. Tries :func:`flow_to` frames first and
    keeps them if :func:`check_frames` accepts the result; otherwise runs
    :func:`infer_frames` with the existing frames fixed. Labels that need a
    frame but are unreachable (dead code) get none (``unreachable``).
    """
    stats = FrameCompletion()
    run_of, run_frame = _runs(body)
    labels = labels_needing_frames(body) if needed is None else set(needed)
    seen_runs: set[int] = set()
    missing = []
    for label in labels:
        r = run_of.get(label)
        if r is None:
            raise TypeflowError(f"label {label!r} is not in the code")
        if r in seen_runs:
            continue
        seen_runs.add(r)
        if r in run_frame:
            stats.existing += 1
        else:
            missing.append((r, label))
    stats.needed = len(seen_runs)
    if not missing:
        return stats
    missing.sort(key=lambda x: x[0])
    common = dict(
        pool=pool,
        hierarchy=hierarchy,
        this_class=this_class,
        method_name=method_name,
        descriptor=descriptor,
        is_static=is_static,
    )
    merger = TypeMerger(hierarchy)

    # 1. local: straight-line flow from the nearest frame
    local: dict = {}
    try:
        for r, label in missing:
            st = flow_to(body, r, pool, this_class, descriptor, is_static, method_name)
            local[label] = frame_from_state(st)
    except TypeflowError as e:
        stats.local_failure = str(e)
    else:
        problems = check_frames(body, local, merger=merger, limit=1, **common)
        if not problems:
            body.frames.update(local)
            stats.method = "local"
            stats.added_local = len(local)
            return stats
        stats.local_failure = problems[0]

    # 2. full inference, the existing frames kept
    report = InferenceReport()
    cfg, states = infer_states(
        body,
        pool,
        hierarchy,
        this_class,
        method_name,
        descriptor,
        is_static,
        fixed=body.frames,
        report=report,
        merger=merger,
    )
    for r, label in missing:
        st = states.get(cfg.next_insn[r])
        if st is None:
            stats.unreachable.append(label)
            continue
        body.frames[label] = frame_from_state(st)
        stats.added_inferred += 1
    stats.method = "inferred"
    stats.missing_classes = set(report.missing_classes)
    for k, st in report.not_assignable:
        stats.problems.append(f"item {k}: incoming {st} not assignable to an existing frame")
    return stats


def frame_after_provider(
    body, *, pool, this_class: str, method_name: str, descriptor: str, is_static: bool, hierarchy=None
):
    """The ``frame_after(i)`` callable for :func:`jprewrite.editor.assembler.assemble`.

    ``frame_after(i)`` is the frame after executing ``body.items[i]`` (for a
    conditional branch: its operands popped), which is what the position right
    after a widened branch needs. Call this once the body's frames are complete
    (after :func:`complete_frames`) and do not edit the body before assembling
    (``i`` is an item index). Uses :func:`flow_to`; if straight-line flow cannot reach ``i``, falls
    back to full inference (existing frames fixed; needs ``hierarchy``).
    """
    return _FrameAfter(body, pool, this_class, method_name, descriptor, is_static, hierarchy)


class _FrameAfter:
    """:func:`frame_after_provider`'s callable. (An object, not two closures calling each other:
    compiled by mypyc, such closures and their shared environment form a reference cycle that
    kept every body alive until the cyclic garbage collector ran.)"""

    def __init__(
        self, body, pool, this_class: str, method_name: str, descriptor: str, is_static: bool, hierarchy
    ) -> None:
        self.body = body
        self.pool = pool
        self.this_class = this_class
        self.method_name = method_name
        self.descriptor = descriptor
        self.is_static = is_static
        self.hierarchy = hierarchy
        self.inferred: list = []

    def state_before(self, i: int) -> State:
        body, pool, this_class = self.body, self.pool, self.this_class
        try:
            return flow_to(body, i, pool, this_class, self.descriptor, self.is_static, self.method_name)
        except FrameUnknown:
            if not self.inferred:
                self.inferred.append(
                    infer_states(
                        body,
                        pool,
                        self.hierarchy,
                        this_class,
                        self.method_name,
                        self.descriptor,
                        self.is_static,
                        fixed=body.frames,
                    )
                )
            cfg, states = self.inferred[0]
            k = i
            while k >= 0 and k not in cfg.leaders:
                k -= 1
            if k < 0 or k not in states:
                raise FrameUnknown(f"item {i} is not reachable") from None
            st = states[k].copy()
            for j in range(k, i):
                item = body.items[j]
                if not is_label(item):
                    st = execute(st, item, pool, this_class, new_label=item)
            return st

    def __call__(self, i: int) -> Frame:
        insn = self.body.items[i]
        st = self.state_before(i)
        return frame_from_state(execute(st, insn, self.pool, self.this_class, new_label=insn))
