"""Verification types flowing through a method body, by the rules of the type-checking verifier.

This is the JVMS 4.10.1 view of a method: what the *verifier* believes is in
each local and on the operand stack, not what the interpreter holds. It gives
a rewriter the frames (StackMapTable entries) its edited code needs, in two
ways:

* :func:`flow_to` -- LOCAL: start from the nearest frame before a position
  (an existing frame at a label, or the implicit frame at method entry) and
  execute straight-line code forward. Cheap and exact when nothing jumps into
  the stretch in between; what a rewriter uses after inserting code.
* :func:`infer_frames` -- FULL: data flow over the whole control-flow graph
  (entry, branches, switches, exception handlers) merging states at join
  points, like ASM's ``COMPUTE_FRAMES``. Needs a class hierarchy to merge
  reference types.

State representation
--------------------
:class:`State` is the verifier's *slot-level* view:

* ``locals`` has ONE entry PER SLOT. A ``Long``/``Double`` occupies its slot
  and the next slot holds ``Top``. Slots past the end of the list are ``Top``.
* ``stack`` has ONE entry PER VALUE. A ``Long``/``Double`` is a single entry;
  its size (two slots) is implied by the type (:func:`type_size`). ``dup2``
  and friends take as many entries as make up two slots, exactly as the JVMS
  forms of those instructions do, and fail on a split category-2 value.

A :class:`~jprewrite.classfile.frames.Frame` (one entry per verification
type, as in the class file) converts with :func:`state_from_frame` and
:func:`frame_from_state`.

``Uninitialized`` types hold their ``new`` *instruction object* (as everywhere
in symbolic bodies), so nothing here inserts labels or shifts item indices.

Subroutines (``jsr``/``ret``) have no frame representation (a return address
type cannot be written in a StackMapTable): they raise
:class:`SubroutineError`. Class files that use them are older than version 50
and need no frames at all.

Package layout (ASM's Analyzer/Interpreter/Frame split)
-------------------------------------------------------
* :mod:`.state` -- :class:`State`, its conversions to and from frames, the errors;
* :mod:`.interpreter` -- the transfer function: what one instruction does to a state;
* :mod:`.merge` -- joins of types and states at control-flow merges, assignability;
* :mod:`.inference` -- the drivers: :func:`flow_to` and the fixpoint of :func:`infer_states`.
"""

from __future__ import annotations

from .inference import (
    ControlFlow,
    InferenceReport,
    flow_to,
    flow_to_each,
    infer_frames,
    infer_states,
    labels_needing_frames,
)
from .interpreter import component_type, execute, step
from .merge import TypeMerger, merge_states, state_assignable
from .state import (
    OBJECT,
    THROWABLE,
    FrameUnknown,
    State,
    SubroutineError,
    TypeflowError,
    frame_from_state,
    initial_state,
    is_label,
    state_from_frame,
    type_size,
)

__all__ = [
    "State",
    "TypeflowError",
    "FrameUnknown",
    "SubroutineError",
    "InferenceReport",
    "ControlFlow",
    "type_size",
    "state_from_frame",
    "frame_from_state",
    "initial_state",
    "is_label",
    "execute",
    "step",
    "component_type",
    "flow_to",
    "flow_to_each",
    "infer_frames",
    "infer_states",
    "labels_needing_frames",
    "merge_states",
    "TypeMerger",
    "state_assignable",
    "OBJECT",
    "THROWABLE",
]
