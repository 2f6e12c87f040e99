"""The one path from a built body to a method's Code attribute, frames included.

A builder declares what its inserted code needs (:class:`FrameNeeds`): frames it knows (a
wrapper's handler, the override check's target, an activation check's skip label), handlers
whose frame is the flow at a label (a pending call's catch-all sees the locals of its call), and
branch targets whose frame is the flow at a label (a call site's null check). :func:`assemble`
then runs one pass: the known frames go in, the handlers and targets get their frames by
straight-line flow (:func:`~jprewrite.analysis.typeflow.flow_to_each`: one walk for all of a
method's), full inference (:func:`~jprewrite.analysis.frames.complete_frames`) only for what flow
cannot reach; and the assembler may widen a branch that no longer reaches (the frame after it
comes from the flow).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ..analysis.frames import complete_frames, frame_after_provider
from ..analysis.typeflow import flow_to_each, frame_from_state
from ..classfile.frames import Frame, Object
from ..classfile.model import ACC_STATIC, Method
from ..editor import Label
from ..editor.body import CodeBody
from ..editor.method_code import write_body
from .context import ClassContext

__all__ = ["FrameNeeds", "assemble", "add_method", "stack_bound"]

THROWABLE: Final = Object("java/lang/Throwable")


@dataclass
class FrameNeeds:
    """Labels of inserted code that need a frame."""

    known: dict[Label, Frame] = field(default_factory=dict)
    #: (label at the protected call, handler label): the handler sees the locals at the label
    handlers: list[tuple[Label, Label]] = field(default_factory=list)
    #: (label, target label): the target's frame is the flow's state at the label, locals and stack
    #: (a branch of inserted code whose target sees what falls through at the branch)
    flows: list[tuple[Label, Label]] = field(default_factory=list)

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(
        self,
        known: dict[Label, Frame] | None = None,
        handlers: list[tuple[Label, Label]] | None = None,
        flows: list[tuple[Label, Label]] | None = None,
    ) -> None:
        self.known = {} if known is None else known
        self.handlers = [] if handlers is None else handlers
        self.flows = [] if flows is None else flows

    def update(self, other: FrameNeeds) -> None:
        self.known.update(other.known)
        self.handlers += other.handlers
        self.flows += other.flows


def assemble(
    ctx: ClassContext, m: Method, body: CodeBody, needs: FrameNeeds | None = None, max_stack: int = -1
) -> None:
    """Write ``body`` as ``m``'s code, with the frames ``needs`` asks for (version 50+);
    ``max_stack``: the builder's bound (:func:`stack_bound`), else (-1) the assembler's flow.

    Code attributes the editor does not know (CLDC's ``StackMap``, vendors' tables) are
    dropped: they may name offsets that the instrumentation moved, and the JVM ignores them.
    """
    body.other_attributes = []
    frame_after = None
    if ctx.strategy.frames:
        if needs is not None:
            _add_frames(ctx, m, body, needs)
        frame_after = frame_after_provider(
            body,
            pool=ctx.pool,
            this_class=ctx.name,
            method_name=m.name,
            descriptor=m.descriptor,
            is_static=bool(m.access & ACC_STATIC),
            hierarchy=ctx.hierarchy,
        )
    write_body(m, body, frame_after=frame_after, max_stack=max_stack)


def stack_bound(original: int, rise: int, own: int = 0) -> int:
    """``max_stack`` of an instrumented body without a depth flow: the original's (``original``)
    plus the most its inserted code rises above the depth it finds there (``rise``,
    :func:`~jprewrite.editor.peak_depth`), or what code at a depth of its own needs (``own``: a
    prologue on an empty stack, a pending call's handler on its exception), whichever is more.

    Sound because every inserted piece goes where the original code has a depth of its own (at
    most ``original``) and leaves it as it found it, bar a call's added arguments, which the call
    takes. At most a few slots more than a flow finds (a counter goes where the stack is mostly
    empty), as JaCoCo's probes add their need to the method's (``ProbeInserter.visitMaxs``); the
    flow it saves visits every instruction of every method. -1 (the assembler's flow) where the
    sum would not fit in a u2.
    """
    bound = max(original + rise, own)
    return bound if bound <= 0xFFFF else -1


def _add_frames(ctx: ClassContext, m: Method, body: CodeBody, needs: FrameNeeds) -> None:
    body.frames.update(needs.known)
    if not needs.handlers and not needs.flows:
        return
    index = {x: i for i, x in enumerate(body.items) if isinstance(x, Label)}
    is_static = bool(m.access & ACC_STATIC)
    unknown = []
    # one walk for all of them (a method's pending calls share the stretches between them)
    wanted = needs.handlers + needs.flows
    targets = [index[start] + 1 for start, _ in wanted]
    states = flow_to_each(body, targets, ctx.pool, ctx.name, m.descriptor, is_static, m.name)
    handlers = len(needs.handlers)
    for k, ((_, label), st) in enumerate(zip(wanted, states)):
        if st is None:
            unknown.append(label)
            continue
        frame = frame_from_state(st)
        body.frames[label] = Frame(-1, frame.locals, [THROWABLE] if k < handlers else frame.stack)
    if unknown:
        complete_frames(
            body,
            pool=ctx.pool,
            hierarchy=ctx.hierarchy,
            this_class=ctx.name,
            method_name=m.name,
            descriptor=m.descriptor,
            is_static=is_static,
            needed=unknown,
        )


def add_method(
    ctx: ClassContext, access: int, name: str, descriptor: str, body: CodeBody, needs: FrameNeeds | None = None
) -> Method:
    """A new method of the class with ``body`` (appended to the class's methods)."""
    pool = ctx.pool
    m = Method(access, pool.add_utf8(name), pool.add_utf8(descriptor), [], ctx.cf)
    assemble(ctx, m, body, needs)
    ctx.cf.methods.append(m)
    return m
