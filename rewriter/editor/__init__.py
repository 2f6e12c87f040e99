"""Editing method bodies: labels instead of offsets, an assembler that lays code out again.

``disassemble(method)`` gives a :class:`CodeBody`; transformations splice
instructions into it; :func:`write_body` assembles it back into the method.
"""

from __future__ import annotations

from ..classfile.model import Method
from .assembler import MAX_CODE_LENGTH, AssemblyError, CodeTooLargeError, FrameAfter, assemble, layout, make_fragment
from .body import CodeBody, Handler, Item, Label, LocalVariable, branch_targets
from .disassembler import disassemble, disassemble_code
from .params import insert_locals, insert_parameter, shift_body
from .stack import stack_effect

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
    "write_body",
    "FrameAfter",
    "MAX_CODE_LENGTH",
    "CodeTooLargeError",
    "AssemblyError",
    "insert_locals",
    "insert_parameter",
    "shift_body",
    "stack_effect",
]


def write_body(method: Method, body: CodeBody, *, frame_after: FrameAfter | None = None) -> None:
    """Assemble ``body`` and make it ``method``'s Code attribute (in place of the old one).

    A method without code (abstract or native before the caller changed its flags) gets a new
    Code attribute. Raises :class:`CodeTooLargeError` (and leaves the method unchanged) when it
    does not fit.
    """
    owner = method.owner
    assert owner is not None
    old = method.code()
    name_index = old.name_index if old is not None else owner.pool.add_utf8("Code")
    new = assemble(
        body,
        owner.pool,
        frames=owner.major >= 50,
        frame_after=frame_after,
        name_index=name_index,
        attribute_order=body.attribute_order,
    )
    new.context = method.decode_context()  # follows descriptor changes
    for nested in new.attributes:
        if hasattr(nested, "context"):
            nested.context = new.context  # the StackMapTable's implicit first frame
    if old is None:  # a method that had no code (abstract or native) gets some
        method.attributes.insert(0, new)
        return
    for i, a in enumerate(method.attributes):
        if a is old:
            method.attributes[i] = new
            return
    raise AssertionError("Code attribute vanished")  # pragma: no cover
