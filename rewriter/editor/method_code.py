"""Putting a Code attribute into a method: assembled from a body, or built by the caller.

Every method a rewriting writes passes through here, so this module is compiled with the
assembler (an interpreted ``write_body`` between the compiled rewriter and the compiled
assembler cost a Python frame per method).
"""

from __future__ import annotations

from ..classfile.code import CodeAttribute
from ..classfile.model import Method
from .assembler import FrameAfter, assemble
from .body import CodeBody

__all__ = ["write_body", "set_code", "code_name_index"]


def code_name_index(method: Method) -> int:
    """The pool index of the name ``Code`` for ``method``'s new Code attribute (its old one's)."""
    old = method.code()
    owner = method.owner
    assert owner is not None
    return old.name_index if old is not None else owner.pool.add_utf8("Code")


def write_body(method: Method, body: CodeBody, *, frame_after: FrameAfter | None = None, max_stack: int = -1) -> None:
    """Assemble ``body`` and make it ``method``'s Code attribute (in place of the old one);
    ``max_stack`` as :func:`~.assembler.assemble` takes it.

    A method without code (abstract or native before the caller changed its flags) gets a new
    Code attribute. Raises :class:`CodeTooLargeError` (and leaves the method unchanged) when it
    does not fit.
    """
    owner = method.owner
    assert owner is not None
    new = assemble(
        body,
        owner.pool,
        frames=owner.major >= 50,
        frame_after=frame_after,
        name_index=code_name_index(method),
        attribute_order=body.attribute_order,
        max_stack=max_stack,
    )
    set_code(method, new)


def set_code(method: Method, new: CodeAttribute) -> None:
    """Make ``new`` ``method``'s Code attribute, in the old one's place (first, for a method that
    had none); its nested attributes (the StackMapTable's implicit first frame) take the method's
    descriptor and flags as they are now."""
    new.context = method.decode_context()  # follows descriptor changes
    for nested in new.attributes:
        if hasattr(nested, "context"):
            nested.context = new.context
    old = method.code()
    if old is None:  # a method that had no code (abstract or native) gets some
        method.attributes.insert(0, new)
        return
    attributes = method.attributes
    for i in range(len(attributes)):
        if attributes[i] is old:
            attributes[i] = new
            return
    raise AssertionError("Code attribute vanished")  # pragma: no cover
