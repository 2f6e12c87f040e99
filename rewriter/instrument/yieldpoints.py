"""Yieldpoints for the sampling backend: where a thread may take a sample of itself.

A yieldpoint is a read of one static volatile field and a branch (``Sampling.requested``). Only
while a sampling round has tickets out does the thread call into the runtime:

* **hybrid** mode (exact CCT and counters as well): ``Sampling.yieldpoint(node)`` at the start of
  a method body (but a short leaf's, :func:`trivial_leaf`; an ESI twin's is in ``Node.enterSampled``,
  whose sample is the caller's node), at every loop start (JP's backward-jump targets, where the
  activation checks of JP §5.2 go), and before an ESI twin's returns by sample mode's rules with
  :data:`HYBRID_TRIVIAL` (:func:`exit_yieldpoint_frames`); the current CCT node *is* the stack trace
  (Hofer's shared frame objects), so a sample costs O(1);
* **sample** mode (time profile only): ``Sampling.yieldpoint()``; the thread walks its own
  stack. Bodies are changed in place and nothing else: no ESI twins, no node passing, no
  counters, no holder class (:func:`add_sample_yieldpoints`).

**Where sample mode puts them.** A ticket issued while a thread runs is taken at the next
yieldpoint the thread reaches, so the time since its previous one is charged to the stack *there*.
That is right only if the stretch in between ran in that frame. With yieldpoints at method entries
(charged to the entered method) and loop starts only, a loop-free leaf's time went to whatever
yieldpoint followed its return, and the caller's code before a call went to the callee (measured: a
leaf doing two thirds of the work got a third of the samples). Sample mode therefore puts them

* at the entry, calling ``Sampling.entry()``, whose sample leaves the entered frame out: nothing of
  the activation has run, the stretch before it was the caller's (or, for a callback, the JDK
  code's that called it, which ``compare --app-only`` folds into its application caller, as it
  does JFR's frames);
* before every return and ``athrow`` (:func:`exit_points`): the stretch before it was this frame's;
* at every loop start, so a thread never runs long without one.

A call into uninstrumented code (the JDK) has no yieldpoint inside: its time goes to the next one
after it in the caller, or to a callback's entry. Refinements that keep the count down:

* a method of at most :data:`SHORT_LEAF` instructions without calls or loops (a getter, a dot
  product, a bounds test) gets none (:func:`trivial_leaf`): its few instructions go to its caller's
  next sample, where a JIT compiler that inlines it puts them too (JFR without
  ``DebugNonSafepoints`` charges them to the caller as well). Such methods sit in the innermost
  loops: when only methods of up to 8 instructions went without, sunflow's jar with sampling off
  cost 1.32x plain; with up to 24, 1.10x, hot-edge coverage of JFR about the same (50-53 % vs
  56-58 %, JFR against itself 69-75 %; bench/RESULTS.md);
* an exit at most :data:`TRIVIAL` instructions after the entry or a loop start, with only calls
  into instrumented code in between (``return foo(x)``), gets none;
* exit yieldpoints are *pinned* (the field read twice, see ``RuntimeCalls.yieldpoint``): C2 may
  schedule a lone volatile read at the start of its compiled block, so a read written before a
  return would run before the method's work; the second read follows the first one's acquire
  barrier, which follows every store before it. Work that touches no memory can still move.

The runtime side (tickets, partial safepoints, incremental stack walks) is
``runtime-java/src/jprewrite/runtime/Sampling.java``; ``docs/sampling.md`` describes it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..analysis import blocks as B
from ..analysis.typeflow import FrameUnknown, State, flow_to, frame_from_state, step
from ..classfile import opcodes as op
from ..classfile.frames import Frame, Uninitialized, UninitializedThis, initial_frame_locals
from ..classfile.model import ACC_STATIC, Method
from ..editor import CodeTooLargeError, Label, disassemble
from ..editor.body import CodeBody
from . import codegen as G
from .context import ClassContext
from .emit import FrameNeeds, assemble

__all__ = [
    "TRIVIAL",
    "SHORT_LEAF",
    "HYBRID_TRIVIAL",
    "yieldpoint_blocks",
    "wants_entry_yieldpoint",
    "yieldpoint_code",
    "trivial_leaf",
    "exit_points",
    "exit_yieldpoint_frames",
    "add_sample_yieldpoints",
]

#: the most instructions a stretch may run after the previous yieldpoint (or the method's entry, or
#: the return of an instrumented callee) before a return without a yieldpoint of its own
TRIVIAL = 8
#: the most instructions a method without calls or loops may have and get no yieldpoint at all
SHORT_LEAF = 24
#: hybrid mode's :data:`TRIVIAL`: an ESI twin's exit needs a yieldpoint only after a longer stretch (each
#: exit yieldpoint costs every return: hybrid over exact on xalan +19 % with 8, +7 % with 24, accuracy
#: against JFR the same; bench/RESULTS.md)
HYBRID_TRIVIAL = 24

_INVOKES = op.INVOKE_OPCODES
_EXITS = op.RETURN_OPCODES | {op.ATHROW}


def yieldpoint_blocks(body: CodeBody, blocks: list, *, entry: bool) -> set[int]:
    """Indexes of the blocks that start with a yieldpoint (hybrid mode): loop starts, and the entry
    (``entry``) unless the body is a short leaf (:func:`trivial_leaf`), as in sample mode."""
    if not blocks:
        return set()
    points = set(B.backward_jump_targets(body, blocks))
    if entry and wants_entry_yieldpoint(body, blocks, points):
        points.add(0)
    return points


def wants_entry_yieldpoint(body: CodeBody, blocks: list, loops: set[int]) -> bool:
    """Does a method body with these blocks and loop starts get hybrid mode's entry yieldpoint?
    Not a short leaf (:func:`trivial_leaf`), as in sample mode."""
    return bool(blocks) and not trivial_leaf(body, blocks, loops)


def yieldpoint_code(
    ctx: ClassContext,
    node: int | None,
    blk,
    body: CodeBody,
    needs: FrameNeeds,
    *,
    entry_frame: Frame | None = None,
) -> list:
    """The yieldpoint at the start of block ``blk`` (``node``: the CCT node's local in hybrid mode).

    The label after the call gets the frame of the block start (the yieldpoint changes no local
    and leaves the stack as it was); ``entry_frame`` is that frame for the entry block when no
    label there carries one.
    """
    skip = Label("yieldpoint_done")
    if ctx.strategy.frames:
        frame = G.frame_before(body, blk.start)
        if frame is None and blk.index == 0:
            frame = entry_frame
        if frame is None:
            return []  # no frame to give the label (code below version 50 needs none)
        needs.known[skip] = Frame(-1, list(frame.locals), list(frame.stack))
    return ctx.rt.yieldpoint(node, skip)


def trivial_leaf(body: CodeBody, blocks: list, loops: set[int]) -> bool:
    """A method of at most :data:`SHORT_LEAF` instructions without calls or loops (a getter, a
    setter, a dot product): no yieldpoint at all; its instructions go to the sample at the next one,
    its caller's."""
    if loops:
        return False
    n = 0
    for blk in blocks:
        for i in range(blk.start, blk.end):
            insn = body.items[i]
            if isinstance(insn, Label):
                continue
            if insn.opcode in op.INVOKE_OPCODES:
                return False
            n += 1
    return n <= SHORT_LEAF


def exit_points(
    body: CodeBody, blocks: list, loops: set[int], instrumented: Callable[[str], bool], pool, trivial: int = TRIVIAL
) -> list[int]:
    """Item indexes of the returns and ``athrow`` s that get a yieldpoint just before them.

    One forward pass in code order (every cycle passes a loop start, which has a yieldpoint, so
    the blocks a block is reached from by a forward edge are done before it): per instruction, how
    many of this method's instructions ran since the entry or the last loop start, and did a call
    into uninstrumented code (the JDK, ``invokedynamic``) come in between, whose time is this
    method's and would otherwise go to the caller's next yieldpoint? An exit needs a yieldpoint
    unless the stretch is at most :data:`TRIVIAL` instructions and called only instrumented
    methods (a delegating method's ``return foo(x)``). A call counts as one instruction: a getter
    it calls has no yieldpoint, its time belongs to this stretch. Handlers and ``jsr`` targets
    start unanchored (reached from anywhere).
    """
    owners: dict[int, bool] = {}

    def into_app(ref: int) -> bool:
        known = owners.get(ref)
        if known is None:
            known = owners[ref] = instrumented(pool.member_ref(ref)[0])
        return known

    #: per block end: (anchored, instructions since, the calls in between, looked up only when an
    #: exit follows within TRIVIAL instructions, which most never do)
    end: dict[int, tuple[bool, int, tuple[int, ...]]] = {}
    points = []
    items = body.items
    for blk in blocks:
        calls: tuple[int, ...] = ()
        if blk.index in loops or blk.is_entry:
            anchored, since = True, 0
        elif blk.is_handler or blk.is_subroutine:
            anchored, since = False, 0
        else:
            ins = [end[p] for p in blk.predecessors if p in end]
            anchored = bool(ins) and all(a for a, _, _ in ins)
            since = max((s for _, s, _ in ins), default=0)
            calls = tuple({c for _, _, cs in ins for c in cs})
        for i in range(blk.start, blk.end):
            insn = items[i]
            if isinstance(insn, Label):
                continue
            code = insn.opcode
            if code in _EXITS:
                if not anchored or since > trivial or not all(into_app(c) for c in calls):
                    points.append(i)
                continue
            since += 1
            if code in _INVOKES and anchored and since <= trivial:
                if code == op.INVOKEDYNAMIC:
                    anchored = False
                else:
                    calls += (insn.operand,)
        end[blk.index] = (anchored, since, calls)
    return points


def exit_yieldpoint_frames(ctx: ClassContext, m: Method, body: CodeBody, blocks: list, loops: set[int]) -> dict:
    """Hybrid mode (an ESI twin's body, before instrumentation): item index of each return and ``athrow``
    that gets a yieldpoint before it (:func:`exit_points`) -> the frame its skip label needs (None where
    the class needs no frames). Exits where no frame can be known (an uninitialized object on the
    stack) are left out."""
    points = exit_points(body, blocks, loops, ctx.plan.is_instrumented, ctx.cf.pool, HYBRID_TRIVIAL)
    if not ctx.strategy.frames:
        return dict.fromkeys(points)
    return {i: frame_from_state(st) for i, st in _states_at(ctx, m, body, points).items()}


def add_sample_yieldpoints(
    ctx: ClassContext, keep: frozenset[tuple[str, str]] = frozenset(), keep_reason: str = "kept as it was"
) -> None:
    """Sample mode: every method with code gets its yieldpoints in place, and nothing else
    (``keep``: methods the verification gate sent back, left as they were)."""
    for m in ctx.cf.methods:
        if m.code() is None:
            continue
        if (m.name, m.descriptor) in keep:
            ctx.not_instrumented(m, keep_reason)
            continue
        try:
            if _sample_method(ctx, m):
                ctx.report.sampled += 1
                ctx.emitted((m,), (m.name, m.descriptor))
        except CodeTooLargeError:
            ctx.not_instrumented(m, "too large for its yieldpoints (64 KB); kept as it was")


def _sample_method(ctx: ClassContext, m: Method) -> bool:
    body = disassemble(m)
    blocks = B.basic_blocks(body, "default", pool=ctx.cf.pool)
    live = B.reachable_blocks(blocks)
    blocks = [b for b in blocks if b.index in live]
    if not blocks:
        return False
    loops = yieldpoint_blocks(body, blocks, entry=False)
    if trivial_leaf(body, blocks, loops):
        return False
    needs = FrameNeeds()
    static = bool(m.access & ACC_STATIC)
    entry = Frame(-1, initial_frame_locals(ctx.name, m.name, m.descriptor, static), [])
    inserts = [(0, _entry_code(ctx, body, entry, needs))]
    for blk in blocks:
        if blk.index in loops:
            code = yieldpoint_code(ctx, None, blk, body, needs, entry_frame=entry)
            if code:
                inserts.append((G.after_labels(body, blk.start), code))
    points = exit_points(body, blocks, loops, ctx.plan.is_instrumented, ctx.cf.pool)
    states = _states_at(ctx, m, body, points) if ctx.strategy.frames else {}
    for i in points:
        skip = Label("yieldpoint_done")
        if ctx.strategy.frames:
            st = states.get(i)
            if st is None:
                continue  # an uninitialized object on the stack: no branch here
            needs.known[skip] = frame_from_state(st)
        inserts.append((i, ctx.rt.yieldpoint(None, skip, pinned=True)))
    for index, code in sorted(inserts, key=lambda x: -x[0]):
        body.insert(index, code)
    ctx.report.yieldpoints += len(inserts)
    assemble(ctx, m, body, needs)
    return True


def _entry_code(ctx: ClassContext, body: CodeBody, entry: Frame, needs: FrameNeeds) -> list:
    """``Sampling.entry()``'s yieldpoint, before everything (a loop starting at the first instruction
    jumps back past it: its label gets the entry frame, which it had implicitly)."""
    skip = Label("yieldpoint_done")
    if ctx.strategy.frames:
        needs.known[skip] = Frame(-1, list(entry.locals), [])
        for x in body.items:
            if not isinstance(x, Label):
                break
            if x not in body.frames:
                needs.known[x] = Frame(-1, list(entry.locals), [])
    return ctx.rt.yieldpoint(None, skip, entry=True)


def _states_at(ctx: ClassContext, m: Method, body: CodeBody, points: list[int]) -> dict[int, State]:
    """The verifier's state before each of ``points`` (ascending), by straight-line flow: from the
    nearest frame for the first point after one, then on from the previous point. Points where an
    object is not initialised yet are left out."""
    static = bool(m.access & ACC_STATIC)
    out: dict[int, State] = {}
    state: State | None = None
    at = -1
    for i in points:
        if state is None or _flow_breaks(body, at, i):
            try:
                state = flow_to(body, i, ctx.pool, ctx.name, m.descriptor, static, m.name)
            except FrameUnknown:
                state = None
                continue
        else:
            for k in range(at, i):
                insn = body.items[k]
                if not isinstance(insn, Label):
                    step(state.locals, state.stack, insn, ctx.pool, ctx.name, insn)
        at = i
        if UninitializedThis in state.locals or any(type(t) is Uninitialized for t in (*state.stack, *state.locals)):
            continue
        out[i] = State(list(state.locals), list(state.stack))
    return out


def _flow_breaks(body: CodeBody, a: int, b: int) -> bool:
    """Does straight-line flow from item ``a`` to item ``b`` pass a label with a frame (a join) or an
    instruction that does not fall through?"""
    for k in range(a, b):
        x = body.items[k]
        if isinstance(x, Label):
            if x in body.frames:
                return True
        elif x.opcode in op.UNCONDITIONAL_OPCODES:
            return True
    return False
