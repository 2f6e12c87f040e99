"""Field and method descriptors (JVMS 4.3): parse, validate, size.

Types are kept as descriptor strings (``I``, ``[J``, ``Ljava/lang/String;``)
rather than objects: they are what the class file holds, they hash and
compare for free, and the few questions asked of them (slot size, class
name, is it an array) are cheap string tests.

Parsing is strict, because a rewriter that computes locals from a bad
descriptor would write a bad StackMapTable: malformed input raises
:class:`~jprewrite.errors.ClassFormatError`. Results are cached: the same
descriptors are parsed again and again across a program.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final, NamedTuple

from ..errors import ClassFormatError

__all__ = [
    "MethodDescriptor",
    "parse_method_descriptor",
    "method_slots",
    "parse_field_descriptor",
    "is_valid_field_descriptor",
    "type_size",
    "class_name_of",
    "is_reference",
    "array_of",
    "MAX_ARRAY_DIMENSIONS",
]

#: JVMS 4.3.2: an array type descriptor has at most 255 dimensions.
MAX_ARRAY_DIMENSIONS: Final = 255

_BASE_TYPES: Final = frozenset("BCDFIJSZ")
# Characters an unqualified name may not contain (JVMS 4.2.2); '/' separates the parts
# of a binary class name and may not start, end or double up.
_BAD_NAME_CHARS: Final = frozenset(".;[")


class MethodDescriptor(NamedTuple):
    """A parsed method descriptor: parameter descriptors and the return descriptor (``V`` for void)."""

    params: tuple[str, ...]
    return_type: str

    @property
    def param_slots(self) -> int:
        """Local-variable slots the parameters take (long/double take two), without ``this``."""
        return sum(2 if p in ("J", "D") else 1 for p in self.params)

    @property
    def return_slots(self) -> int:
        """Stack slots of the return value: 0 for void, 2 for long/double, else 1."""
        return type_size(self.return_type)


def _scan_field_type(desc: str, pos: int, whole: str) -> int:
    """End index of the field type that starts at ``desc[pos]``; raise if malformed."""
    start = pos
    n = len(desc)
    while pos < n and desc[pos] == "[":
        pos += 1
    if pos - start > MAX_ARRAY_DIMENSIONS:
        raise ClassFormatError(f"descriptor {whole!r} has more than {MAX_ARRAY_DIMENSIONS} array dimensions")
    if pos >= n:
        raise ClassFormatError(f"descriptor {whole!r} ends inside a type")
    c = desc[pos]
    if c in _BASE_TYPES:
        return pos + 1
    if c == "L":
        end = desc.find(";", pos + 1)
        if end < 0:
            raise ClassFormatError(f"descriptor {whole!r}: class type without ';'")
        name = desc[pos + 1 : end]
        if not _valid_binary_name(name):
            raise ClassFormatError(f"descriptor {whole!r}: bad class name {name!r}")
        return end + 1
    raise ClassFormatError(f"descriptor {whole!r}: unexpected {c!r} at {pos}")


def _valid_binary_name(name: str) -> bool:
    if not name or _BAD_NAME_CHARS.intersection(name):
        return False
    return all(name.split("/"))  # no empty part: no leading, trailing or double '/'


# descriptor -> its parsed form: a dict, not functools.lru_cache, whose wrapper is a call through
# the Python API from compiled code (the rewriter asks a few times for every method it rewrites)
_METHOD_DESCRIPTORS: Final[dict[str, MethodDescriptor]] = {}


def parse_method_descriptor(desc: object) -> MethodDescriptor:  # (not a str: ClassFormatError)
    """Split ``(params)ret`` into parameter and return descriptors; raise ClassFormatError if malformed.

    The JVMS limit of 255 parameter slots is not enforced here (it is a
    property of a method, counting ``this``); see :attr:`MethodDescriptor.param_slots`.
    """
    if isinstance(desc, str):
        found = _METHOD_DESCRIPTORS.get(desc)
        if found is not None:
            return found
    md = _parse_method_descriptor(desc)
    assert isinstance(desc, str)  # (parsed: a str)
    if len(_METHOD_DESCRIPTORS) >= 8192:
        _METHOD_DESCRIPTORS.clear()
    _METHOD_DESCRIPTORS[desc] = md
    return md


def _parse_method_descriptor(desc: object) -> MethodDescriptor:
    if not isinstance(desc, str) or not desc.startswith("("):
        raise ClassFormatError(f"method descriptor {desc!r} does not start with '('")
    params = []
    pos = 1
    n = len(desc)
    while True:
        if pos >= n:
            raise ClassFormatError(f"method descriptor {desc!r} has no ')'")
        if desc[pos] == ")":
            break
        end = _scan_field_type(desc, pos, desc)
        params.append(desc[pos:end])
        pos = end
    pos += 1
    if desc[pos:] == "V":
        ret = "V"
    else:
        if pos >= n:
            raise ClassFormatError(f"method descriptor {desc!r} has no return type")
        end = _scan_field_type(desc, pos, desc)
        if end != n:
            raise ClassFormatError(f"method descriptor {desc!r} has junk after the return type")
        ret = desc[pos:]
    return MethodDescriptor(tuple(params), ret)


# descriptor -> (parameter slots, return slots); descriptors repeat across classes (a few thousand
# distinct in a large program), and the stack-depth flow asks about every call it meets
_SLOTS: Final[dict[str, tuple[int, int]]] = {}


def method_slots(desc: str) -> tuple[int, int]:
    """(slots the parameters take, slots the return value takes) of a valid method descriptor,
    without ``this``: what a call pops and pushes. Remembered per descriptor (a dict lookup: the
    ``param_slots`` property sums the parameters again on every call)."""
    slots = _SLOTS.get(desc)
    if slots is None:
        md = parse_method_descriptor(desc)
        if len(_SLOTS) >= 65536:
            _SLOTS.clear()
        slots = _SLOTS[desc] = (md.param_slots, md.return_slots)
    return slots


@lru_cache(maxsize=8192)
def parse_field_descriptor(desc: str) -> str:
    """Validate a field descriptor and return it; raise ClassFormatError if malformed."""
    if not isinstance(desc, str) or not desc:
        raise ClassFormatError(f"empty field descriptor {desc!r}")
    if _scan_field_type(desc, 0, desc) != len(desc):
        raise ClassFormatError(f"field descriptor {desc!r} has junk after the type")
    return desc


def is_valid_field_descriptor(desc: str) -> bool:
    try:
        parse_field_descriptor(desc)
    except ClassFormatError:
        return False
    return True


def type_size(desc: str) -> int:
    """Slots a value of this (valid) type takes: 0 for ``V``, 2 for ``J``/``D``, else 1."""
    if desc == "V":
        return 0
    return 2 if desc in ("J", "D") else 1


def is_reference(desc: str) -> bool:
    """True for class and array types."""
    return desc[:1] in ("L", "[")


def class_name_of(desc: str) -> str:
    """The CONSTANT_Class-style name of a reference type: ``Lp/C;`` -> ``p/C``; arrays stay as they are."""
    if desc.startswith("L") and desc.endswith(";"):
        return desc[1:-1]
    if desc.startswith("["):
        return desc
    raise ClassFormatError(f"{desc!r} is not a reference type descriptor")


def array_of(name: str) -> str:
    """The descriptor of an array whose elements are of class ``name`` (an internal name, or an
    array descriptor for a multi-dimensional array): ``java/lang/String`` -> ``[Ljava/lang/String;``,
    ``[I`` -> ``[[I``. (Constant-pool Class entries name arrays by descriptor, classes by name.)"""
    return "[" + name if name.startswith("[") else f"[L{name};"
