"""JP section 5.2's periodic activation: where the per-thread counter is decremented and checked.

With ``--activation`` every update point (the entry, loop starts, handlers, subroutines)
decrements ``root.activation`` by the longest path to the next update point, so the counter
stays an upper bound of what ran, and the entry and every loop start check it and call the
profiling agent (``ThreadRoot.triggerReport``) when it runs out.
"""

from __future__ import annotations

from ..analysis import blocks as B
from ..classfile.frames import Double, Frame, Long, Object, Top, initial_frame_locals
from ..classfile.model import ACC_STATIC, Method
from ..editor import Label
from ..editor.body import CodeBody
from . import codegen as G
from .context import ClassContext
from .emit import FrameNeeds
from .support import NODE

__all__ = ["activation_plan", "activation_code", "entry_frame_of"]


def activation_plan(method: Method, body: CodeBody, blocks: list) -> dict[int, tuple[int, bool]]:
    """{block: (decrement, with check)} at the entry, loop starts, handlers, subroutines.

    The conditional is at the entry (left out where JP allows) and at every loop start.
    ``<clinit>`` runs once: no entry check there.
    """
    if not blocks:
        return {}
    loops = B.backward_jump_targets(body, blocks)
    points = B.update_points(blocks, loops)
    try:
        lengths = B.longest_paths(body, blocks, points)
    except ValueError:  # a cycle no update point breaks (jsr/ret shapes): no activation here
        return {}
    checks = set(loops)
    if method.name != "<clinit>" and not B.omittable_checks(body, blocks, loops):
        checks.add(0)
    return {b: (lengths[b], b in checks) for b in points if lengths.get(b, 0) > 0 or b in checks}


def activation_code(
    ctx: ClassContext, node: int, blk, amount: int, check: bool, method: Method, body: CodeBody, needs: FrameNeeds
) -> list:
    """The decrement and (``check``) the conditional call at the start of block ``blk``."""
    rt = ctx.rt
    out = rt.activation_decrement(node, amount) if amount else []
    if not check:
        return out
    frame = None
    if ctx.strategy.frames:
        frame = G.frame_before(body, blk.start)
        if frame is None and blk.index != 0:
            return out  # no frame to give the skip label (cannot happen with javac)
        if frame is None:
            frame = entry_frame_of(ctx, method, node)
    skip = Label("activation_ok")
    if frame is not None:
        needs.known[skip] = Frame(-1, list(frame.locals), list(frame.stack))
    return out + rt.activation_check(node, skip)


def entry_frame_of(ctx: ClassContext, method: Method, node: int) -> Frame:
    """The frame at the start of an instrumented body whose node is in local ``node``."""
    locals_ = initial_frame_locals(ctx.name, method.name, method.descriptor, bool(method.access & ACC_STATIC))
    slots = sum(2 if t in (Long, Double) else 1 for t in locals_)
    if node >= slots:  # OSI bodies: the node and the saved slot (node + 1) are locals
        locals_ = locals_ + [Top] * (node - slots) + [Object(NODE), Object(NODE)]
    return Frame(-1, locals_, [])
