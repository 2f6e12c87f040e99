"""Analysis of classes and code: the class hierarchy, basic blocks, type flow and frames, and the
project's own bytecode verifier (the gate every rewritten method passes before it is emitted).

The main entry points are re-exported here; the submodules are imported by name for the rest:
:mod:`.hierarchy` (class hierarchy and its summary cache), :mod:`.blocks` (basic blocks, loops,
activation-counter paths), :mod:`.typeflow` (verification types through a body: interpreter,
merge, inference), :mod:`.frames` (frames for edited bodies) and :mod:`.verifier`.
"""

from __future__ import annotations

from .blocks import Block, basic_blocks
from .frames import FrameCompletion, check_frames, complete_frames, frame_after_provider
from .hierarchy import ClassHierarchy, ClassInfo, MemberInfo
from .typeflow import FrameUnknown, State, TypeflowError, flow_to, infer_frames
from .verifier import VerifyProblem, verify_class, verify_method

__all__ = [
    "VerifyProblem",
    "verify_class",
    "verify_method",
    "ClassHierarchy",
    "ClassInfo",
    "MemberInfo",
    "Block",
    "basic_blocks",
    "State",
    "TypeflowError",
    "FrameUnknown",
    "flow_to",
    "infer_frames",
    "FrameCompletion",
    "complete_frames",
    "check_frames",
    "frame_after_provider",
]
