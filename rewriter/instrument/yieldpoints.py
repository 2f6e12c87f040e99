"""Yieldpoints for the sampling backend: where a thread may take a sample of itself.

A yieldpoint is a read of one static volatile field and a branch (``Sampling.requested``), at
the start of a method body and at every loop start (JP's backward-jump targets: the places where
the activation checks of JP §5.2 go, so a thread never runs long without passing one). Only
while a sampling round has tickets out does the thread call into the runtime:

* **hybrid** mode (exact CCT and counters as well): ``Sampling.yieldpoint(node)``; the current
  CCT node *is* the stack trace (Hofer's shared frame objects), so a sample costs O(1);
* **sample** mode (time profile only): ``Sampling.yieldpoint()``; the thread walks its own
  stack. Bodies are changed in place and nothing else: no ESI twins, no node passing, no
  counters, no holder class (:func:`add_sample_yieldpoints`).

The runtime side (tickets, partial safepoints, incremental stack walks) is
``runtime-java/src/jprewrite/runtime/Sampling.java``; ``docs/sampling.md`` describes it.
"""

from __future__ import annotations

from ..analysis import blocks as B
from ..classfile.frames import Frame, initial_frame_locals
from ..classfile.model import ACC_STATIC, Method
from ..editor import CodeTooLargeError, Label, disassemble
from ..editor.body import CodeBody
from . import codegen as G
from .context import ClassContext
from .emit import FrameNeeds, assemble

__all__ = ["yieldpoint_blocks", "yieldpoint_code", "add_sample_yieldpoints"]


def yieldpoint_blocks(body: CodeBody, blocks: list, *, entry: bool) -> set[int]:
    """Indexes of the blocks that start with a yieldpoint: the entry (``entry``) and loop starts."""
    if not blocks:
        return set()
    points = set(B.backward_jump_targets(body, blocks))
    if entry:
        points.add(0)
    return points


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
    points = yieldpoint_blocks(body, blocks, entry=True)
    if not points:
        return False
    needs = FrameNeeds()
    entry = Frame(-1, initial_frame_locals(ctx.name, m.name, m.descriptor, bool(m.access & ACC_STATIC)), [])
    inserts = []
    for blk in blocks:
        if blk.index in points:
            code = yieldpoint_code(ctx, None, blk, body, needs, entry_frame=entry)
            if code:
                inserts.append((G.after_labels(body, blk.start), code))
    for index, code in sorted(inserts, key=lambda x: -x[0]):
        body.insert(index, code)
    ctx.report.yieldpoints += len(inserts)
    assemble(ctx, m, body, needs)
    return True
