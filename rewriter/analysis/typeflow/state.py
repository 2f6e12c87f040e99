"""The verifier's state at one position (:class:`State`), its conversions to and from frames, and
the errors of the type flow.

A :class:`State` is what the other modules of the package pass around: the interpreter
changes one, the merge joins two, the inference keeps one per leader instruction. See the
package docstring for its slot-level representation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ...classfile.frames import Double, Frame, Long, Top, VType, initial_frame_locals
from ...classfile.instructions import Instruction
from ...errors import JprewriteError

__all__ = [
    "OBJECT",
    "THROWABLE",
    "TypeflowError",
    "FrameUnknown",
    "SubroutineError",
    "State",
    "type_size",
    "state_from_frame",
    "frame_from_state",
    "initial_state",
    "is_label",
]

OBJECT: Final = "java/lang/Object"
THROWABLE: Final = "java/lang/Throwable"


# ----------------------------------------------------------------------- errors
class TypeflowError(JprewriteError):
    """The code does not type-check the way the verifier would need (or cannot be analysed)."""


class FrameUnknown(TypeflowError):
    """:func:`flow_to` cannot reach the position by straight-line flow from a known frame."""


class SubroutineError(TypeflowError):
    """``jsr``/``ret``: a return-address type cannot be expressed in a frame (class files < 50)."""


# ------------------------------------------------------------------------ state
def type_size(t: VType) -> int:
    """Slots a value of verification type ``t`` takes (2 for Long/Double, else 1)."""
    return 2 if t is Long or t is Double else 1


@dataclass(slots=True)
class State:
    """The verifier's state before (or after) an instruction; see the package docstring.

    ``locals``: one entry per slot, a Long/Double followed by Top; missing slots are Top.
    ``stack``: one entry per value (bottom first), a Long/Double being one entry of size 2.
    """

    locals: list
    stack: list = field(default_factory=list)

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(self, locals: list, stack: list | None = None) -> None:
        self.locals = locals
        self.stack = [] if stack is None else stack

    def copy(self) -> State:
        return State(list(self.locals), list(self.stack))

    def local(self, slot: int) -> VType:
        return self.locals[slot] if slot < len(self.locals) else Top

    @property
    def stack_slots(self) -> int:
        return sum(2 if t is Long or t is Double else 1 for t in self.stack)


def state_from_frame(frame: Frame) -> State:
    """Slot-level state of a frame: each Long/Double entry expands to itself and a Top."""
    locals_: list = []
    for t in frame.locals:
        locals_.append(t)
        if t is Long or t is Double:
            locals_.append(Top)
    return State(locals_, list(frame.stack))


def frame_from_state(state: State, offset: int = -1) -> Frame:
    """The frame (one entry per type) of a state: trailing Tops trimmed, Long/Double + Top collapsed.

    The frame has no ``kind``, so the encoder picks the most compact one.
    """
    src = state.locals
    n = len(src)
    while n and src[n - 1] is Top:
        n -= 1
    out = []
    i = 0
    while i < n:
        t = src[i]
        out.append(t)
        i += 2 if (t is Long or t is Double) else 1
    return Frame(offset, out, list(state.stack))


def initial_state(this_class: str, method_name: str, descriptor: str, is_static: bool) -> State:
    """The implicit frame at method entry (JVMS 4.10.1.6), slot-level."""
    return state_from_frame(Frame(0, initial_frame_locals(this_class, method_name, descriptor, is_static)))


# ------------------------------------------------------------------ items
def is_label(item) -> bool:
    """Whether a code body item is a position marker (a label) rather than an instruction."""
    return not isinstance(item, Instruction)
