"""StackMapTable (JVMS 4.7.4): explicit frames and their lossless codec.

The class file stores frames as deltas (same / chop / append / ...) against
the previous frame. Here every frame is spelled out -- its absolute
``offset``, all its ``locals`` and its whole ``stack`` -- because that is what
a rewriter needs to read and edit. To stay byte-identical, each decoded frame
also remembers the ``kind`` it was written as (the frame_type byte); the
encoder reuses that kind whenever it is still a correct encoding of the
frame, so an unchanged table re-encodes to the same bytes, and an edited
frame quietly gets a correct (most compact) kind instead of a stale one.

Locals and stack hold ONE entry per verification_type_info, exactly as in
the class file: a long or double is one ``Long``/``Double`` entry, not
followed by ``Top`` (the verifier's two-slot view is a different thing).
chop_frame and append_frame count entries the same way, as HotSpot does.

Verification types are immutable and hashable: seven singletons
(:data:`Top`, :data:`Integer`, :data:`Float`, :data:`Double`, :data:`Long`,
:data:`Null`, :data:`UninitializedThis`) and two classes, :class:`Object`
(compared by name only; ``cp_index`` remembers which CONSTANT_Class it came
from, since a pool may hold duplicates and byte identity needs the same one)
and :class:`Uninitialized` (the offset of its ``new`` instruction).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any, Final

from ..errors import ClassFormatError
from .constants import ConstantPool
from .descriptors import parse_method_descriptor
from .native import mypyc_attr

__all__ = [
    "VType",
    "Top",
    "Integer",
    "Float",
    "Double",
    "Long",
    "Null",
    "UninitializedThis",
    "Object",
    "Uninitialized",
    "Frame",
    "ClassPool",
    "decode_stack_map_table",
    "encode_stack_map_table",
    "initial_frame_locals",
    "initial_locals",
    "vtype_of_descriptor",
    "frame_kind_name",
    "SAME_LOCALS_1_STACK_ITEM_EXTENDED",
    "SAME_FRAME_EXTENDED",
    "FULL_FRAME",
]

# verification_type_info tags (JVMS 4.7.4)
ITEM_TOP: Final = 0
ITEM_INTEGER: Final = 1
ITEM_FLOAT: Final = 2
ITEM_DOUBLE: Final = 3
ITEM_LONG: Final = 4
ITEM_NULL: Final = 5
ITEM_UNINITIALIZED_THIS: Final = 6
ITEM_OBJECT: Final = 7
ITEM_UNINITIALIZED: Final = 8

# frame_type values (ranges for the delta-carrying ones)
SAME_FRAME_MAX: Final = 63  # 0..63: same_frame, delta = frame_type
SAME_LOCALS_1_STACK_ITEM: Final = 64  # 64..127: delta = frame_type - 64
SAME_LOCALS_1_STACK_ITEM_EXTENDED: Final = 247
CHOP_FRAME: Final = 248  # 248..250: chop 251 - frame_type locals
SAME_FRAME_EXTENDED: Final = 251
APPEND_FRAME: Final = 252  # 252..254: append frame_type - 251 locals
FULL_FRAME: Final = 255


#: The frame codec's constant pool (its class names and find-or-add of classes). A concrete
#: type, not a protocol: compiled, the encoder then calls ``add_class`` natively.
ClassPool = ConstantPool


# --------------------------------------------------------- verification types
@mypyc_attr(acyclic=True)  # (see classfile.native)
class VType:
    """A verification type (JVMS 4.10.1.2). Immutable; ``tag`` is its verification_type_info tag."""

    __slots__ = ()
    tag: int

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")


@mypyc_attr(acyclic=True)
class _Simple(VType):
    """The verification types without data; one instance each, compared by identity."""

    __slots__ = ("tag", "_name")
    tag: int
    _name: str

    def __init__(self, tag: int, name: str) -> None:
        object.__setattr__(self, "tag", tag)
        object.__setattr__(self, "_name", name)

    def __repr__(self) -> str:
        return self._name

    def __reduce__(self) -> str:
        return self._name  # pickle/copy give back the module-level singleton


Top = _Simple(ITEM_TOP, "Top")
Integer = _Simple(ITEM_INTEGER, "Integer")
Float = _Simple(ITEM_FLOAT, "Float")
Double = _Simple(ITEM_DOUBLE, "Double")
Long = _Simple(ITEM_LONG, "Long")
Null = _Simple(ITEM_NULL, "Null")
UninitializedThis = _Simple(ITEM_UNINITIALIZED_THIS, "UninitializedThis")
_SIMPLE: Final[tuple[VType, ...]] = (Top, Integer, Float, Double, Long, Null, UninitializedThis)


@mypyc_attr(acyclic=True)
class Object(VType):
    """A reference type by class internal name or array descriptor (``java/lang/String``, ``[I``).

    Equality and hash use the name only: two frames that name the same class
    through different (duplicate) CONSTANT_Class entries are the same frame.
    ``cp_index`` is that entry (or None: the encoder will find or add one).
    """

    __slots__ = ("name", "cp_index")
    tag = ITEM_OBJECT
    name: str
    cp_index: int | None

    def __init__(self, name: str, cp_index: int | None = None) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "cp_index", cp_index)

    def __eq__(self, other: object) -> bool:
        if type(other) is Object:
            return self.name == other.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash((ITEM_OBJECT, self.name))

    def __repr__(self) -> str:
        idx = "" if self.cp_index is None else f", #{self.cp_index}"
        return f"Object({self.name!r}{idx})"

    def __reduce__(self) -> tuple:
        return (Object, (self.name, self.cp_index))


@mypyc_attr(acyclic=True)
class Uninitialized(VType):
    """The result of the ``new`` instruction at ``offset``, before its constructor has run."""

    __slots__ = ("offset",)
    tag = ITEM_UNINITIALIZED
    offset: Any  # an int; in editable code (jprewrite.editor) the `new` instruction itself

    def __init__(self, offset: Any) -> None:
        object.__setattr__(self, "offset", offset)

    def __eq__(self, other: object) -> bool:
        if type(other) is Uninitialized:
            a, b = self.offset, other.offset
            # In editable code the site is the `new` instruction object: identity, not value.
            return a == b if type(a) is int and type(b) is int else a is b
        return NotImplemented

    def __hash__(self) -> int:
        site = self.offset
        return hash((ITEM_UNINITIALIZED, site if type(site) is int else id(site)))

    def __repr__(self) -> str:
        return f"Uninitialized({self.offset})"

    def __reduce__(self) -> tuple:
        return (Uninitialized, (self.offset,))


# ------------------------------------------------------------------- frames
@mypyc_attr(acyclic=True)
class Frame:
    """The types at ``offset``: ``locals`` and ``stack``, one entry per verification_type_info.

    ``kind`` is the frame_type byte it was decoded from, or None for a frame
    the encoder should choose the most compact kind for.
    """

    __slots__ = ("offset", "locals", "stack", "kind")

    def __init__(
        self, offset: int, locals: list[VType], stack: list[VType] | None = None, kind: int | None = None
    ) -> None:
        self.offset = offset
        self.locals = locals
        self.stack = [] if stack is None else stack
        self.kind = kind

    def __eq__(self, other: object) -> bool:
        if type(other) is not Frame:
            return NotImplemented
        return (
            self.offset == other.offset
            and self.kind == other.kind
            and self.locals == other.locals
            and self.stack == other.stack
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def same_types(self, other: Frame) -> bool:
        """Same offset, locals and stack; the kind it is written as does not matter."""
        return self.offset == other.offset and self.locals == other.locals and self.stack == other.stack

    def __repr__(self) -> str:
        kind = "" if self.kind is None else f" {frame_kind_name(self.kind)}({self.kind})"
        return f"<Frame {self.offset}{kind} locals={self.locals} stack={self.stack}>"


def frame_kind_name(kind: int) -> str:
    """JVMS name of a frame_type byte (javap prints the same words)."""
    if kind <= SAME_FRAME_MAX:
        return "same"
    if kind < 128:
        return "same_locals_1_stack_item"
    if kind < SAME_LOCALS_1_STACK_ITEM_EXTENDED:
        return "reserved"
    if kind == SAME_LOCALS_1_STACK_ITEM_EXTENDED:
        return "same_locals_1_stack_item_extended"
    if kind < SAME_FRAME_EXTENDED:
        return "chop"
    if kind == SAME_FRAME_EXTENDED:
        return "same_frame_extended"
    if kind < FULL_FRAME:
        return "append"
    return "full_frame"


# ---------------------------------------------------------- initial frame
def vtype_of_descriptor(desc: str) -> VType:
    """The verification type of a value of a (valid) field type, as a local or stack entry."""
    c = desc[0]
    if c in "BCISZ":
        return Integer
    if c == "F":
        return Float
    if c == "J":
        return Long
    if c == "D":
        return Double
    if c == "L":
        return Object(desc[1:-1])
    if c == "[":
        return Object(desc)
    raise ClassFormatError(f"{desc!r} is not a field type")


def initial_frame_locals(class_name: str, method_name: str, descriptor: str, is_static: bool) -> list[VType]:
    """The implicit frame at offset 0 (JVMS 4.10.1.6), the base of the first delta frame.

    ``this`` is UninitializedThis in a constructor (except java/lang/Object's,
    which has no super constructor to call), else Object(class_name).
    """
    return list(initial_locals(class_name, method_name, descriptor, is_static))


# (class, method, descriptor, static) -> the initial frame's locals: a dict, not functools.lru_cache,
# whose wrapper is a call through the Python API from compiled code
_INITIAL_LOCALS: Final[dict[tuple[str, str, str, bool], tuple[VType, ...]]] = {}


def initial_locals(class_name: str, method_name: str, descriptor: str, is_static: bool) -> tuple[VType, ...]:
    """:func:`initial_frame_locals` as a shared, cached tuple (do not build on it: copy it).

    Why: a StackMapTable asks for it when decoded and again when encoded, and the
    types are immutable, so the same tuple serves both."""
    key = (class_name, method_name, descriptor, is_static)
    found = _INITIAL_LOCALS.get(key)
    if found is None:
        if len(_INITIAL_LOCALS) >= 4096:
            _INITIAL_LOCALS.clear()
        found = _INITIAL_LOCALS[key] = _initial_locals(class_name, method_name, descriptor, is_static)
    return found


def _initial_locals(class_name: str, method_name: str, descriptor: str, is_static: bool) -> tuple[VType, ...]:
    locals_: list[VType] = []
    if not is_static:
        if method_name == "<init>" and class_name != "java/lang/Object":
            locals_.append(UninitializedThis)
        else:
            locals_.append(Object(class_name))
    for p in parse_method_descriptor(descriptor).params:
        locals_.append(vtype_of_descriptor(p))
    return tuple(locals_)


# ------------------------------------------------------------------ decoding
_U2: Final = struct.Struct(">H")
# True when this module runs compiled by mypyc: Frame is then a native class, which object.__new__
# cannot make (and for which calling the class is the fast way anyway)
_COMPILED: Final = __file__.endswith((".so", ".pyd"))


def _read_types(
    data: bytes,
    pos: int,
    count: int,
    pool: ClassPool,
    code_length: int,
    out: list[VType],
    objects: dict[int, VType] | None = None,
) -> int:
    """Append ``count`` verification types read at ``pos`` to ``out``; return the new position.

    ``objects`` (CONSTANT_Class index -> Object) lets one table share its Object
    types: they are immutable, and the same few classes recur in frame after frame.
    """
    simple = _SIMPLE
    if objects is None:
        objects = {}
    for _ in range(count):
        tag = data[pos]
        if tag < 7:
            out.append(simple[tag])
            pos += 1
        elif tag == ITEM_OBJECT:
            index = (data[pos + 1] << 8) | data[pos + 2]
            obj = objects.get(index)
            if obj is None:
                try:
                    name = pool.class_name(index)
                except ClassFormatError as e:
                    if e.offset is None:
                        e.offset = pos
                    raise
                obj = objects[index] = Object(name, index)
            out.append(obj)
            pos += 3
        elif tag == ITEM_UNINITIALIZED:
            offset = (data[pos + 1] << 8) | data[pos + 2]
            if 0 <= code_length <= offset:
                raise ClassFormatError(
                    f"Uninitialized({offset}) is past the end of the code (length {code_length})", offset=pos
                )
            out.append(Uninitialized(offset))
            pos += 3
        else:
            raise ClassFormatError(f"bad verification type tag {tag}", offset=pos)
    return pos


def decode_stack_map_table(
    data: bytes, pool: ClassPool, initial_locals: Sequence[VType], code_length: int | None = None
) -> list[Frame]:
    """Decode a StackMapTable attribute body into explicit frames.

    ``initial_locals`` is the implicit first frame (see :func:`initial_frame_locals`).
    If ``code_length`` is given (None or negative: unknown), frame offsets and
    Uninitialized offsets must lie inside the code. Errors are ClassFormatError
    with ``offset`` relative to the start of ``data``.
    """
    clen = -1 if code_length is None else code_length
    frames: list[Frame] = []
    objects: dict[int, VType] = {}  # shared Object types, see _read_types
    new = object.__new__
    Frame_ = Frame
    locals_: list[VType] = list(initial_locals)
    prev = -1
    pos = 0
    start = 0
    try:
        count = _U2.unpack_from(data, 0)[0]
        pos = 2
        for _ in range(count):
            start = pos
            kind = data[pos]
            pos += 1
            stack: list[VType] = []
            if kind <= SAME_FRAME_MAX:
                delta = kind
                locals_ = list(locals_)
            elif kind < 128:
                delta = kind - SAME_LOCALS_1_STACK_ITEM
                locals_ = list(locals_)
                pos = _read_types(data, pos, 1, pool, clen, stack, objects)
            elif kind < SAME_LOCALS_1_STACK_ITEM_EXTENDED:
                raise ClassFormatError(f"reserved frame_type {kind}", offset=start)
            else:
                delta = (data[pos] << 8) | data[pos + 1]
                pos += 2
                if kind == SAME_LOCALS_1_STACK_ITEM_EXTENDED:
                    locals_ = list(locals_)
                    pos = _read_types(data, pos, 1, pool, clen, stack, objects)
                elif kind < SAME_FRAME_EXTENDED:
                    k = SAME_FRAME_EXTENDED - kind
                    if k > len(locals_):
                        raise ClassFormatError(
                            f"chop_frame removes {k} locals but only {len(locals_)} are defined", offset=start
                        )
                    locals_ = locals_[: len(locals_) - k]
                elif kind == SAME_FRAME_EXTENDED:
                    locals_ = list(locals_)
                elif kind < FULL_FRAME:
                    locals_ = list(locals_)
                    pos = _read_types(data, pos, kind - SAME_FRAME_EXTENDED, pool, clen, locals_, objects)
                else:
                    nlocals = (data[pos] << 8) | data[pos + 1]
                    locals_ = []
                    pos = _read_types(data, pos + 2, nlocals, pool, clen, locals_, objects)
                    nstack = (data[pos] << 8) | data[pos + 1]
                    pos = _read_types(data, pos + 2, nstack, pool, clen, stack, objects)
            offset = prev + 1 + delta
            if 0 <= clen <= offset:
                raise ClassFormatError(
                    f"frame at offset {offset} is past the end of the code (length {clen})", offset=start
                )
            if _COMPILED:
                frames.append(Frame(offset, locals_, stack, kind))  # (the class itself: a direct call)
            else:
                frame = new(Frame_)  # Frame(offset, locals_, stack, kind) without the __init__ call
                frame.offset = offset
                frame.locals = locals_
                frame.stack = stack
                frame.kind = kind
                frames.append(frame)
            prev = offset
    except (IndexError, struct.error):
        raise ClassFormatError(f"StackMapTable truncated ({len(data)} bytes)", offset=start) from None
    if pos != len(data):
        raise ClassFormatError(f"StackMapTable has {len(data) - pos} bytes after its {len(frames)} frames", offset=pos)
    return frames


# ------------------------------------------------------------------ encoding
def _fits(kind: int, locals_: list[VType], stack: list[VType], prev: Sequence[VType] | None, delta: int) -> int | None:
    """The frame_type byte for ``kind``'s family if it can encode this frame exactly, else None.

    With ``prev`` unknown (first frame, no initial locals given) the kind is
    trusted as far as the frame itself can tell.
    """
    if kind == FULL_FRAME:
        return FULL_FRAME
    if kind <= SAME_FRAME_MAX or kind == SAME_FRAME_EXTENDED:
        if stack or (prev is not None and locals_ != prev):
            return None
        if kind == SAME_FRAME_EXTENDED:
            return SAME_FRAME_EXTENDED
        return delta if delta <= SAME_FRAME_MAX else None
    if kind < 128 or kind == SAME_LOCALS_1_STACK_ITEM_EXTENDED:
        if len(stack) != 1 or (prev is not None and locals_ != prev):
            return None
        if kind == SAME_LOCALS_1_STACK_ITEM_EXTENDED:
            return kind
        return SAME_LOCALS_1_STACK_ITEM + delta if delta <= SAME_FRAME_MAX else None
    if stack:
        return None
    if CHOP_FRAME <= kind < SAME_FRAME_EXTENDED:
        if prev is None:
            return kind
        k = len(prev) - len(locals_)
        if 1 <= k <= 3 and list(prev[: len(locals_)]) == locals_:
            return SAME_FRAME_EXTENDED - k
        return None
    if APPEND_FRAME <= kind < FULL_FRAME:
        if prev is None:
            k = kind - SAME_FRAME_EXTENDED
            return kind if k <= len(locals_) else None
        k = len(locals_) - len(prev)
        if 1 <= k <= 3 and locals_[: len(prev)] == list(prev):
            return SAME_FRAME_EXTENDED + k
        return None
    return None  # reserved kinds are never kept


def _compact(locals_: list[VType], stack: list[VType], prev: Sequence[VType] | None, delta: int) -> int:
    """The most compact frame_type for a frame (JVMS order of preference)."""
    if prev is None:
        return FULL_FRAME
    if not stack:
        for kind in (0, CHOP_FRAME, APPEND_FRAME):
            ft = _fits(kind, locals_, stack, prev, delta)
            if ft is not None:
                return ft
        ft = _fits(SAME_FRAME_EXTENDED, locals_, stack, prev, delta)
        return FULL_FRAME if ft is None else ft
    if len(stack) == 1 and locals_ == list(prev):
        return SAME_LOCALS_1_STACK_ITEM + delta if delta <= SAME_FRAME_MAX else SAME_LOCALS_1_STACK_ITEM_EXTENDED
    return FULL_FRAME


def _write_types(out: list[int], types: list[VType], pool: ClassPool) -> None:
    """Append ``types`` as verification_type_info bytes (a list of ints: an append to a
    bytearray is a call by name once compiled, one to a list is not)."""
    for t in types:
        if isinstance(t, Object):
            index = t.cp_index
            if index is None:
                index = pool.add_class(t.name)
            out.append(ITEM_OBJECT)
            _put_u2(out, index)
        elif isinstance(t, Uninitialized):
            site = t.offset
            if type(site) is not int:
                raise TypeError(f"Uninitialized at {site!r}, not a code offset")
            out.append(ITEM_UNINITIALIZED)
            _put_u2(out, site)
        else:
            out.append(t.tag)


def _put_u2(out: list[int], value: int) -> None:
    if not 0 <= value <= 0xFFFF:
        raise ValueError(f"{value} does not fit in two bytes")
    out.append(value >> 8)
    out.append(value & 0xFF)


def encode_stack_map_table(
    frames: Sequence[Frame], pool: ClassPool, initial_locals: Sequence[VType] | None = None
) -> bytes:
    """Encode explicit frames as a StackMapTable attribute body.

    Each frame is written as its ``kind`` if that is still a correct encoding
    (so an unchanged decoded table comes back byte-identical), else as the
    most compact correct kind. Pass ``initial_locals`` to allow delta kinds
    for the first frame of a new table (without it a kind-less first frame
    becomes a full_frame, and a decoded first frame's kind is trusted).
    Frames must be in strictly increasing offset order.
    """
    out: list[int] = []
    try:
        _put_u2(out, len(frames))
    except ValueError as count_error:
        raise ClassFormatError(f"cannot encode {len(frames)} frames: {count_error}") from None
    prev: Sequence[VType] | None = initial_locals
    prev_offset = -1
    for i, f in enumerate(frames):
        delta = f.offset - prev_offset - 1
        if not 0 <= delta <= 0xFFFF:
            raise ClassFormatError(
                f"frame {i} at offset {f.offset} does not come after the previous frame (offset {prev_offset})"
            )
        locals_, stack = f.locals, f.stack
        ft = None if f.kind is None else _fits(f.kind, locals_, stack, prev, delta)
        if ft is None:
            ft = _compact(locals_, stack, prev, delta)
        try:
            out.append(ft)
            if ft <= SAME_FRAME_MAX:
                pass
            elif ft < 128:
                _write_types(out, stack, pool)
            else:
                _put_u2(out, delta)
                if ft == SAME_LOCALS_1_STACK_ITEM_EXTENDED:
                    _write_types(out, stack, pool)
                elif APPEND_FRAME <= ft < FULL_FRAME:
                    _write_types(out, locals_[len(locals_) - (ft - SAME_FRAME_EXTENDED) :], pool)
                elif ft == FULL_FRAME:
                    _put_u2(out, len(locals_))
                    _write_types(out, locals_, pool)
                    _put_u2(out, len(stack))
                    _write_types(out, stack, pool)
        except (ValueError, AttributeError, TypeError) as e:
            raise ClassFormatError(f"cannot encode frame {i} at offset {f.offset}: {e}") from None
        prev = locals_
        prev_offset = f.offset
    return bytes(out)
