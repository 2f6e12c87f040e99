"""Editing method bodies: labels instead of offsets, an assembler that lays code out again.

``disassemble(method)`` gives a :class:`CodeBody`; transformations splice
instructions into it; :func:`write_body` assembles it back into the method.
"""

from __future__ import annotations

from .assembler import (
    MAX_CODE_LENGTH,
    AssemblyError,
    CodeTooLargeError,
    FrameAfter,
    assemble,
    encode_straight,
    layout,
    make_fragment,
)
from .body import CodeBody, Handler, Item, Label, LocalVariable, branch_targets
from .disassembler import disassemble, disassemble_code
from .method_code import set_code, write_body
from .params import insert_locals, insert_parameter, shift_body
from .stack import peak_depth, stack_effect

__all__ = [
    "CodeBody",
    "Handler",
    "Label",
    "LocalVariable",
    "Item",
    "branch_targets",
    "disassemble",
    "disassemble_code",
    "assemble",
    "layout",
    "make_fragment",
    "encode_straight",
    "set_code",
    "write_body",
    "FrameAfter",
    "MAX_CODE_LENGTH",
    "CodeTooLargeError",
    "AssemblyError",
    "insert_locals",
    "insert_parameter",
    "shift_body",
    "stack_effect",
    "peak_depth",
]
