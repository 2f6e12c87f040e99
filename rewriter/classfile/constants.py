"""The constant pool (JVMS 4.4): every tag, read lazily, written losslessly.

Why lazy: most of a pool is never looked at by a rewriter (a class that is only
copied needs none of it decoded), so reading records just the tag and offset of
every entry; an entry becomes a Python object the first time it is asked for.
Why lossless: the pool of an unchanged class is written back as its original
bytes, and a pool that only grew is written as the original bytes followed by
the new entries. Only when an existing entry is replaced is the whole pool
re-encoded, and then each entry reproduces its own original bytes (Utf8 keeps
its raw bytes, Float/Double keep NaN bit patterns).

References between entries are validated when the pool is read (index in
range, target of the right kind), because a JVM rejects a class with a broken
pool and so should ``jprewrite check``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any, ClassVar, Final

from ..errors import ClassFormatError
from . import mutf8
from .native import mypyc_attr

# Tags (JVMS Table 4.4-B)
UTF8: Final = 1
INTEGER: Final = 3
FLOAT: Final = 4
LONG: Final = 5
DOUBLE: Final = 6
CLASS: Final = 7
STRING: Final = 8
FIELDREF: Final = 9
METHODREF: Final = 10
INTERFACE_METHODREF: Final = 11
NAME_AND_TYPE: Final = 12
METHOD_HANDLE: Final = 15
METHOD_TYPE: Final = 16
DYNAMIC: Final = 17
INVOKE_DYNAMIC: Final = 18
MODULE: Final = 19
PACKAGE: Final = 20

TAG_NAMES: Final = {
    UTF8: "Utf8",
    INTEGER: "Integer",
    FLOAT: "Float",
    LONG: "Long",
    DOUBLE: "Double",
    CLASS: "Class",
    STRING: "String",
    FIELDREF: "Fieldref",
    METHODREF: "Methodref",
    INTERFACE_METHODREF: "InterfaceMethodref",
    NAME_AND_TYPE: "NameAndType",
    METHOD_HANDLE: "MethodHandle",
    METHOD_TYPE: "MethodType",
    DYNAMIC: "Dynamic",
    INVOKE_DYNAMIC: "InvokeDynamic",
    MODULE: "Module",
    PACKAGE: "Package",
}

# Size of the fixed part after the tag byte (Utf8 is 2 + length).
_FIXED_SIZE: Final = {
    INTEGER: 4,
    FLOAT: 4,
    LONG: 8,
    DOUBLE: 8,
    CLASS: 2,
    STRING: 2,
    FIELDREF: 4,
    METHODREF: 4,
    INTERFACE_METHODREF: 4,
    NAME_AND_TYPE: 4,
    METHOD_HANDLE: 3,
    METHOD_TYPE: 2,
    DYNAMIC: 4,
    INVOKE_DYNAMIC: 4,
    MODULE: 2,
    PACKAGE: 2,
}

# Which tags each reference-holding tag may point to, per field, for validation.
_REF_RULES: Final[dict[int, tuple[tuple[int, ...], ...]]] = {
    CLASS: ((UTF8,),),
    STRING: ((UTF8,),),
    FIELDREF: ((CLASS,), (NAME_AND_TYPE,)),
    METHODREF: ((CLASS,), (NAME_AND_TYPE,)),
    INTERFACE_METHODREF: ((CLASS,), (NAME_AND_TYPE,)),
    NAME_AND_TYPE: ((UTF8,), (UTF8,)),
    METHOD_TYPE: ((UTF8,),),
    MODULE: ((UTF8,),),
    PACKAGE: ((UTF8,),),
}

_MH_TARGETS: Final = {
    1: (FIELDREF,),
    2: (FIELDREF,),
    3: (FIELDREF,),
    4: (FIELDREF,),
    5: (METHODREF,),
    8: (METHODREF,),
    6: (METHODREF, INTERFACE_METHODREF),
    7: (METHODREF, INTERFACE_METHODREF),
    9: (INTERFACE_METHODREF,),
}

# True when this module runs compiled by mypyc: its classes are then native, which object.__new__
# cannot make (and for which calling the class is the fast way anyway)
_COMPILED: Final = __file__.endswith((".so", ".pyd"))

_U2: Final = struct.Struct(">H")
_U2U2: Final = struct.Struct(">HH")
# an entry's tag with its operands in one pack (a rewriting encodes a hundred new entries a class)
_TAG_U2: Final = struct.Struct(">BH")
_TAG_U2U2: Final = struct.Struct(">BHH")
_S4: Final = struct.Struct(">i")
_U4: Final = struct.Struct(">I")
_S8: Final = struct.Struct(">q")
_U8: Final = struct.Struct(">Q")


@mypyc_attr(acyclic=True)  # (see classfile.native)
class Constant:
    """One constant-pool entry. Subclasses are small value objects."""

    __slots__ = ()
    tag: ClassVar[int] = 0

    def key(self) -> tuple:
        """Value identity used to find an existing equal entry."""
        raise NotImplementedError

    def encode(self) -> bytes:
        raise NotImplementedError

    def ref_key(self) -> int:
        """The pool index's int key of an entry made only of indices (``tag << 32 | operands``),
        -1 for the other kinds: an int is cheaper to make and hash than the :meth:`key` tuple,
        and find-or-add asks for a hundred of them a class."""
        return -1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Constant) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return f"{TAG_NAMES[self.tag]}{self.key()[1:]}"

    @property
    def width(self) -> int:
        """Pool slots taken: Long and Double take two (JVMS 4.4.5)."""
        return 1


@mypyc_attr(acyclic=True)
class Utf8(Constant):
    """A string constant, kept as its raw modified-UTF-8 bytes (what it encodes back to).

    ``decoded`` is the string once decoded (None until :attr:`value` or the pool's
    bulk decoder first needs it); read :attr:`value`, which decodes on demand.
    """

    __slots__ = ("raw", "decoded")
    tag = UTF8

    def __init__(self, value: str | None = None, *, raw: bytes | None = None) -> None:
        if raw is None:
            if value is None:
                raise ValueError("Utf8 needs a value or raw bytes")
            raw = mutf8.encode(value)
            if len(raw) > 0xFFFF:
                raise ValueError("Utf8 constant longer than 65535 bytes")
        self.raw = raw
        self.decoded = value

    @property
    def value(self) -> str:
        if self.decoded is None:
            self.decoded = mutf8.decode(self.raw)
        return self.decoded

    def key(self) -> tuple:
        return (UTF8, self.raw)

    def encode(self) -> bytes:
        return _TAG_U2.pack(1, len(self.raw)) + self.raw

    def __repr__(self) -> str:
        return f"Utf8({self.value!r})"


@mypyc_attr(acyclic=True)
class Integer(Constant):
    __slots__ = ("value",)
    tag = INTEGER

    def __init__(self, value: int) -> None:
        self.value = value

    def key(self) -> tuple:
        return (INTEGER, self.value)

    def encode(self) -> bytes:
        return b"\x03" + _S4.pack(self.value)


@mypyc_attr(acyclic=True)
class Float(Constant):
    """Kept as its 32 raw bits so every NaN pattern survives."""

    __slots__ = ("bits",)
    tag = FLOAT

    def __init__(self, bits: int) -> None:
        self.bits = bits

    @classmethod
    def of(cls, value: float) -> Float:
        return cls(struct.unpack(">I", struct.pack(">f", value))[0])

    @property
    def value(self) -> float:
        return struct.unpack(">f", _U4.pack(self.bits))[0]

    def key(self) -> tuple:
        return (FLOAT, self.bits)

    def encode(self) -> bytes:
        return b"\x04" + _U4.pack(self.bits)


@mypyc_attr(acyclic=True)
class Long(Constant):
    __slots__ = ("value",)
    tag = LONG

    def __init__(self, value: int) -> None:
        self.value = value

    @property
    def width(self) -> int:
        return 2

    def key(self) -> tuple:
        return (LONG, self.value)

    def encode(self) -> bytes:
        return b"\x05" + _S8.pack(self.value)


@mypyc_attr(acyclic=True)
class Double(Constant):
    """Kept as its 64 raw bits so every NaN pattern survives."""

    __slots__ = ("bits",)
    tag = DOUBLE

    def __init__(self, bits: int) -> None:
        self.bits = bits

    @classmethod
    def of(cls, value: float) -> Double:
        return cls(struct.unpack(">Q", struct.pack(">d", value))[0])

    @property
    def value(self) -> float:
        return struct.unpack(">d", _U8.pack(self.bits))[0]

    @property
    def width(self) -> int:
        return 2

    def key(self) -> tuple:
        return (DOUBLE, self.bits)

    def encode(self) -> bytes:
        return b"\x06" + _U8.pack(self.bits)


@mypyc_attr(acyclic=True)
class _OneRef(Constant):
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def key(self) -> tuple:
        return (self.tag, self.index)

    def ref_key(self) -> int:
        return (self.tag << 32) | self.index

    def encode(self) -> bytes:
        return _TAG_U2.pack(self.tag, self.index)


@mypyc_attr(acyclic=True)
class ClassRef(_OneRef):
    """CONSTANT_Class: ``index`` is the Utf8 of the internal name or array descriptor."""

    __slots__ = ()
    tag = CLASS


@mypyc_attr(acyclic=True)
class String(_OneRef):
    __slots__ = ()
    tag = STRING


@mypyc_attr(acyclic=True)
class MethodType(_OneRef):
    __slots__ = ()
    tag = METHOD_TYPE


@mypyc_attr(acyclic=True)
class Module(_OneRef):
    __slots__ = ()
    tag = MODULE


@mypyc_attr(acyclic=True)
class Package(_OneRef):
    __slots__ = ()
    tag = PACKAGE


@mypyc_attr(acyclic=True)
class _TwoRef(Constant):
    __slots__ = ("first", "second")

    def __init__(self, first: int, second: int) -> None:
        self.first = first
        self.second = second

    def key(self) -> tuple:
        return (self.tag, self.first, self.second)

    def ref_key(self) -> int:
        return (self.tag << 32) | (self.first << 16) | self.second

    def encode(self) -> bytes:
        return _TAG_U2U2.pack(self.tag, self.first, self.second)


@mypyc_attr(acyclic=True)
class _MemberRef(_TwoRef):
    """Field/method reference: ``first`` = Class index, ``second`` = NameAndType index."""

    __slots__ = ()

    @property
    def class_index(self) -> int:
        return self.first

    @property
    def name_and_type_index(self) -> int:
        return self.second


@mypyc_attr(acyclic=True)
class Fieldref(_MemberRef):
    __slots__ = ()
    tag = FIELDREF


@mypyc_attr(acyclic=True)
class Methodref(_MemberRef):
    __slots__ = ()
    tag = METHODREF


@mypyc_attr(acyclic=True)
class InterfaceMethodref(_MemberRef):
    __slots__ = ()
    tag = INTERFACE_METHODREF


@mypyc_attr(acyclic=True)
class NameAndType(_TwoRef):
    """``first`` = name Utf8 index, ``second`` = descriptor Utf8 index."""

    __slots__ = ()
    tag = NAME_AND_TYPE


@mypyc_attr(acyclic=True)
class _Indy(_TwoRef):
    """``first`` = BootstrapMethods index, ``second`` = NameAndType index."""

    __slots__ = ()

    @property
    def bootstrap_index(self) -> int:
        return self.first

    @property
    def name_and_type_index(self) -> int:
        return self.second


@mypyc_attr(acyclic=True)
class Dynamic(_Indy):
    __slots__ = ()
    tag = DYNAMIC


@mypyc_attr(acyclic=True)
class InvokeDynamic(_Indy):
    __slots__ = ()
    tag = INVOKE_DYNAMIC


@mypyc_attr(acyclic=True)
class MethodHandle(Constant):
    __slots__ = ("kind", "index")
    tag = METHOD_HANDLE

    def __init__(self, kind: int, index: int) -> None:
        self.kind = kind
        self.index = index

    def key(self) -> tuple:
        return (METHOD_HANDLE, self.kind, self.index)

    def encode(self) -> bytes:
        return b"\x0f" + bytes((self.kind,)) + _U2.pack(self.index)


_ONE_REF_CLASSES: Final[dict[int, type[_OneRef]]] = {
    CLASS: ClassRef,
    STRING: String,
    METHOD_TYPE: MethodType,
    MODULE: Module,
    PACKAGE: Package,
}
_TWO_REF_CLASSES: Final[dict[int, type[_TwoRef]]] = {
    FIELDREF: Fieldref,
    METHODREF: Methodref,
    INTERFACE_METHODREF: InterfaceMethodref,
    NAME_AND_TYPE: NameAndType,
    DYNAMIC: Dynamic,
    INVOKE_DYNAMIC: InvokeDynamic,
}

# Per-tag tables for the bulk decoder and the validator (indexed by the tag byte, so the
# hot loops do one list index instead of dict lookups or chains of comparisons).
_K_OTHER: Final = 0
_K_UTF8: Final = 1
_K_ONE_REF: Final = 2
_K_TWO_REF: Final = 3
_KIND_BY_TAG: Final[list[int]] = [_K_OTHER] * 256
_CLASS_BY_TAG: Final[list[Any]] = [None] * 256  # (a _OneRef or _TwoRef subclass, or None)
_KIND_BY_TAG[UTF8] = _K_UTF8
for _tag, _one in _ONE_REF_CLASSES.items():
    _KIND_BY_TAG[_tag] = _K_ONE_REF
    _CLASS_BY_TAG[_tag] = _one
for _tag, _two in _TWO_REF_CLASSES.items():
    _KIND_BY_TAG[_tag] = _K_TWO_REF
    _CLASS_BY_TAG[_tag] = _two
# Size after the tag byte, -1 for unknown tags (Utf8: the length field only).
_SIZE_BY_TAG: Final[list[int]] = [-1] * 256
for _tag, _size in _FIXED_SIZE.items():
    _SIZE_BY_TAG[_tag] = _size
_SIZE_BY_TAG[UTF8] = 2
# The tag a reference must point to, per field, when each field allows exactly one
# (every reference-holding tag but MethodHandle); 0 = no such field.
_WANT1: Final[list[int]] = [0] * 256
_WANT2: Final[list[int]] = [0] * 256
for _tag, _fields in _REF_RULES.items():
    _WANT1[_tag] = _fields[0][0]
    if len(_fields) == 2:
        _WANT2[_tag] = _fields[1][0]
_WANT1[DYNAMIC] = _WANT1[INVOKE_DYNAMIC] = 0  # first field: a BootstrapMethods index
_WANT2[DYNAMIC] = _WANT2[INVOKE_DYNAMIC] = NAME_AND_TYPE
del _tag, _one, _two, _size, _fields


# Compiled by mypyc, a class taken from a table is called through the Python API; these call
# each class directly (ConstantPool.decode_all, when compiled).
def _two_ref(tag: int, first: int, second: int) -> Constant:
    if tag == METHODREF:
        return Methodref(first, second)
    if tag == NAME_AND_TYPE:
        return NameAndType(first, second)
    if tag == FIELDREF:
        return Fieldref(first, second)
    if tag == INTERFACE_METHODREF:
        return InterfaceMethodref(first, second)
    if tag == INVOKE_DYNAMIC:
        return InvokeDynamic(first, second)
    assert tag == DYNAMIC
    return Dynamic(first, second)


def _one_ref(tag: int, index: int) -> Constant:
    if tag == CLASS:
        return ClassRef(index)
    if tag == STRING:
        return String(index)
    if tag == METHOD_TYPE:
        return MethodType(index)
    if tag == MODULE:
        return Module(index)
    assert tag == PACKAGE
    return Package(index)


class ConstantPool:
    """An indexable constant pool: ``pool[i]`` for 1 <= i < len(pool).

    ``len(pool)`` is ``constant_pool_count`` (one more than the last index). The
    second slot of a Long/Double is unusable and reads as an error.
    """

    def __init__(
        self,
        data: bytes = b"",
        base: int = 0,
        end: int = 0,
        offsets: list[int] | None = None,
        tags: list[int] | None = None,
    ) -> None:
        """An empty pool; or, as :meth:`parse` makes it, the pool that ``data[base:end]`` holds,
        whose entries start at ``offsets`` and have ``tags`` (its references are validated)."""
        self._data: bytes = data
        self._base = base  # offset of the pool's first entry inside _data (for error offsets)
        self._end = end
        self._offsets: list[int] = offsets if offsets is not None else [0]  # tag byte offsets; -1 = unusable
        self._tags: list[int] = tags if tags is not None else [0]
        count = len(self._tags)
        self._cache: list[Constant | None] = [None] * count
        self._original_count = count  # entries below this come from _data
        self._dirty = False  # an original entry was replaced: re-encode all
        # Find-or-add's index (value -> first index), built on the first add: Utf8 by its raw
        # bytes, entries made only of indices by an int (:meth:`Constant.ref_key`), the few
        # others (numbers, MethodHandle) by their key tuple.
        self._indexed = False
        self._utf8_index: dict[bytes, int] = {}
        self._ref_index: dict[int, int] = {}
        self._other_index: dict[tuple, int] = {}
        # Answers of the find-or-add and name queries, by their arguments: a rewriter asks the
        # same few hundred of them thousands of times per class, and each answer stays true
        # while entries are only appended (``replace`` forgets them all).
        self._memo: dict[tuple, Any] = {}
        # the most frequent memos keyed without a tuple to allocate: what an index reads as
        # (index * 4 + 0 class name, + 1 name and type, + 2 member reference), and the index of
        # a Utf8 or a Class by its text
        self._reads: dict[int, Any] = {}
        self._utf8_at: dict[str, int] = {}
        self._class_at: dict[str, int] = {}
        if tags is not None:
            self._validate()

    # ----------------------------------------------------------------- reading
    @classmethod
    def parse(cls, data: bytes, offset: int) -> ConstantPool:
        """Read the pool starting at ``data[offset]`` (the constant_pool_count).

        Only tags and offsets are recorded (one tight loop, sizes from a table
        indexed by the tag), then the references are validated.
        """
        if type(data) is not bytes:  # entries slice _data and must get (hashable) bytes
            data = bytes(data)
        n = len(data)
        if offset + 2 > n:
            raise ClassFormatError("truncated before constant_pool_count", offset=offset)
        count = (data[offset] << 8) | data[offset + 1]
        if count == 0:
            raise ClassFormatError("constant_pool_count is 0", offset=offset)
        pos = base = offset + 2
        offsets = [-1] * count
        tags = [0] * count
        sizes = _SIZE_BY_TAG
        i = 1
        try:
            while i < count:
                tag = data[pos]  # IndexError: the pool ends before entry i
                offsets[i] = pos
                tags[i] = tag
                if tag == UTF8:
                    pos += 3 + ((data[pos + 1] << 8) | data[pos + 2])  # IndexError: no length
                    if pos > n:
                        raise ClassFormatError(f"truncated Utf8 constant #{i}", offset=offsets[i])
                else:
                    size = sizes[tag]
                    if size < 0:
                        raise ClassFormatError(f"unknown constant-pool tag {tag} at entry #{i}", offset=pos)
                    pos += 1 + size
                    if pos > n:
                        raise ClassFormatError(f"truncated {TAG_NAMES[tag]} constant #{i}", offset=offsets[i])
                    if tag == LONG or tag == DOUBLE:
                        i += 1
                        if i >= count:
                            raise ClassFormatError(
                                f"{TAG_NAMES[tag]} constant #{i - 1} is the last entry but takes two slots",
                                offset=offsets[i - 1],
                            )
                i += 1
        except IndexError:
            if offsets[i] >= 0:  # the tag was read: a Utf8 whose length is cut off
                raise ClassFormatError(f"truncated Utf8 constant #{i}", offset=offsets[i]) from None
            raise ClassFormatError(f"truncated constant pool (entry #{i} of {count - 1})", offset=pos) from None
        return cls(data, base, pos, offsets, tags)

    def _validate(self) -> None:
        """Check every reference inside the pool (JVMS 4.4): index in range and of the right kind.

        The common case (every tag but MethodHandle names exactly one allowed tag
        per field) is tested inline through per-tag tables; only a failing or a
        MethodHandle entry goes through :meth:`_check_ref`, which words the error.
        """
        data = self._data
        tags = self._tags
        offsets = self._offsets
        count = len(tags)
        want1 = _WANT1
        want2 = _WANT2
        for i in range(1, count):
            tag = tags[i]
            w2 = want2[tag]
            w1 = want1[tag]
            if not (w1 or w2):
                if tag == METHOD_HANDLE:
                    pos = offsets[i]
                    kind = data[pos + 1]
                    ref = (data[pos + 2] << 8) | data[pos + 3]
                    allowed = _MH_TARGETS.get(kind)
                    if allowed is None:
                        raise ClassFormatError(f"MethodHandle #{i} has bad reference_kind {kind}", offset=pos)
                    self._check_ref(i, pos, ref, allowed)
                continue
            pos = offsets[i]
            if w1:
                ref = (data[pos + 1] << 8) | data[pos + 2]
                if not (ref < count and tags[ref] == w1):
                    self._check_ref(i, pos, ref, (w1,))
            if w2:
                ref = (data[pos + 3] << 8) | data[pos + 4]
                if not (ref < count and tags[ref] == w2):
                    self._check_ref(i, pos, ref, (w2,))

    def _check_ref(self, i: int, pos: int, ref: int, allowed: tuple[int, ...]) -> None:
        tags = self._tags
        if not 0 < ref < len(tags) or tags[ref] == 0:
            raise ClassFormatError(f"{TAG_NAMES[tags[i]]} constant #{i} refers to invalid index #{ref}", offset=pos)
        if tags[ref] not in allowed:
            want = "/".join(TAG_NAMES[t] for t in allowed)
            raise ClassFormatError(
                f"{TAG_NAMES[tags[i]]} constant #{i} refers to #{ref}, a {TAG_NAMES[tags[ref]]}, not a {want}",
                offset=pos,
            )

    def _materialize(self, i: int) -> Constant:
        data = self._data
        pos = self._offsets[i]
        tag = self._tags[i]
        c: Constant
        if tag == UTF8:
            length = (data[pos + 1] << 8) | data[pos + 2]
            c = Utf8(raw=bytes(data[pos + 3 : pos + 3 + length]))
        elif _KIND_BY_TAG[tag] == _K_ONE_REF:
            c = _one_ref(tag, (data[pos + 1] << 8) | data[pos + 2])
        elif _KIND_BY_TAG[tag] == _K_TWO_REF:
            c = _two_ref(tag, (data[pos + 1] << 8) | data[pos + 2], (data[pos + 3] << 8) | data[pos + 4])
        elif tag == INTEGER:
            c = Integer(_S4.unpack_from(data, pos + 1)[0])
        elif tag == FLOAT:
            c = Float(_U4.unpack_from(data, pos + 1)[0])
        elif tag == LONG:
            c = Long(_S8.unpack_from(data, pos + 1)[0])
        elif tag == DOUBLE:
            c = Double(_U8.unpack_from(data, pos + 1)[0])
        elif tag == METHOD_HANDLE:
            c = MethodHandle(data[pos + 1], (data[pos + 2] << 8) | data[pos + 3])
        else:  # pragma: no cover - tags were validated by parse
            raise ClassFormatError(f"unknown constant-pool tag {tag}", offset=pos)
        self._cache[i] = c
        return c

    def decode_all(self) -> None:
        """Materialise every entry and decode every Utf8 string, in one pass.

        Why a bulk path: a class's ``decode_all`` wants every entry, and asking
        ``pool[i]`` one entry at a time pays a bounds check, a cache test and a
        dispatch per entry (a quarter of a full round trip was once spent so).
        Here one loop dispatches on per-tag tables, builds the entries without
        running their ``__init__`` (the same slots get the same values), and
        decodes Utf8 with one C-level ASCII decode when it can (nearly every
        name), through :func:`mutf8.decode` otherwise.
        The result is exactly what ``pool[i]`` and ``.value`` would give.
        """
        data = self._data
        offsets = self._offsets
        tags = self._tags
        cache = self._cache
        kinds = _KIND_BY_TAG
        classes = _CLASS_BY_TAG
        new = object.__new__
        u2u2 = _U2U2.unpack_from
        decode = mutf8.decode
        K_UTF8, K_ONE, K_TWO = _K_UTF8, _K_ONE_REF, _K_TWO_REF
        Utf8_ = Utf8
        for i in range(1, len(tags)):
            c = cache[i]
            if c is not None:
                if type(c) is Utf8_ and c.decoded is None:  # added or replaced by raw bytes
                    c.decoded = decode(c.raw)
                continue
            tag = tags[i]
            if tag == 0:
                continue
            pos = offsets[i]
            kind = kinds[tag]
            if kind == K_UTF8:
                raw = data[pos + 3 : pos + 3 + ((data[pos + 1] << 8) | data[pos + 2])]
                # ASCII without NUL (nearly every name) decodes in C; the rest is checked.
                text = raw.decode("ascii") if raw.isascii() and 0 not in raw else decode(raw)
                if _COMPILED:
                    c = Utf8(text, raw=raw)  # (the class itself: a direct call, compiled)
                else:
                    c = new(Utf8_)
                    c.raw = raw
                    c.decoded = text
            elif kind == K_TWO:
                if _COMPILED:
                    c = _two_ref(tag, (data[pos + 1] << 8) | data[pos + 2], (data[pos + 3] << 8) | data[pos + 4])
                else:
                    c = new(classes[tag])
                    c.first, c.second = u2u2(data, pos + 1)
            elif kind == K_ONE:
                if _COMPILED:
                    c = _one_ref(tag, (data[pos + 1] << 8) | data[pos + 2])
                else:
                    c = new(classes[tag])
                    c.index = (data[pos + 1] << 8) | data[pos + 2]
            else:
                c = self._materialize(i)
                continue
            cache[i] = c

    # ----------------------------------------------------------------- queries
    @property
    def tags(self) -> list[int]:
        """The tag of every entry by index (0 for index 0 and the second slot of Long/Double).

        The pool's own list, for readers that check many indices in a loop (member and
        attribute names while a class is read): do not change it.
        """
        return self._tags

    @property
    def end_offset(self) -> int:
        """Offset just past the pool in the bytes it was parsed from (0 for a new pool)."""
        return self._end

    def __len__(self) -> int:
        return len(self._tags)

    def __getitem__(self, i: int) -> Constant:
        # Fast path: an entry already materialised (index 0 and unusable slots never are).
        try:
            if i > 0:
                c = self._cache[i]
                if c is not None:
                    return c
        except (TypeError, IndexError):
            pass
        if not isinstance(i, int) or not 0 < i < len(self._tags) or self._tags[i] == 0:
            raise ClassFormatError(
                f"constant-pool index #{i} is out of range or unusable (pool has {len(self._tags) - 1} slots)"
            )
        c = self._cache[i]
        return c if c is not None else self._materialize(i)

    def tag(self, i: int) -> int:
        """Tag of entry i (0 for index 0 and the second slot of Long/Double)."""
        if not 0 <= i < len(self._tags):
            raise ClassFormatError(f"constant-pool index #{i} is out of range")
        return self._tags[i]

    def get(self, i: int, *tags: int) -> Constant:
        """Entry i, checked to be one of ``tags``."""
        c = self[i]
        if tags and c.tag not in tags:
            want = "/".join(TAG_NAMES[t] for t in tags)
            raise ClassFormatError(f"constant-pool entry #{i} is a {TAG_NAMES[c.tag]}, not a {want}")
        return c

    def utf8(self, i: int) -> str:
        # Fast path (attribute and member names are looked up constantly): a decoded Utf8.
        try:
            if i > 0:
                c = self._cache[i]
                if type(c) is Utf8:
                    v = c.decoded
                    if v is not None:
                        return v
        except (TypeError, IndexError):
            pass
        c = self[i]
        if c.tag != UTF8:
            raise ClassFormatError(f"constant-pool entry #{i} is a {TAG_NAMES[c.tag]}, not a Utf8")
        return c.value  # type: ignore[attr-defined]

    def _operand(self, i: int, second: bool) -> int:
        """The first (or ``second``) index operand of entry ``i``, a Class, NameAndType or member
        reference known to be one: read from the pool bytes while the entry is not materialised.

        Why: a rewriter asks for the names of thousands of references a class, and making the
        entry objects on the way (the reference, its NameAndType, its Class) cost more than the
        rest of the answer."""
        c = self._cache[i]
        if c is None:
            pos = self._offsets[i] + (3 if second else 1)
            data = self._data
            return (data[pos] << 8) | data[pos + 1]
        if isinstance(c, _TwoRef):
            return c.second if second else c.first
        assert isinstance(c, _OneRef)
        return c.index

    def class_name(self, i: int) -> str:
        """Internal name (or array descriptor) of the CONSTANT_Class at i."""
        key = i * 4
        name = self._reads.get(key)
        if name is None:
            tags = self._tags
            if not (0 < i < len(tags) and tags[i] == CLASS):
                c = self[i]
                raise ClassFormatError(f"constant-pool entry #{i} is a {TAG_NAMES[c.tag]}, not a Class")
            name = self._reads[key] = self.utf8(self._operand(i, False))
        return name

    def name_and_type(self, i: int) -> tuple[str, str]:
        key = i * 4 + 1
        pair = self._reads.get(key)
        if pair is None:
            tags = self._tags
            if not (0 < i < len(tags) and tags[i] == NAME_AND_TYPE):
                self.get(i, NAME_AND_TYPE)  # (raises: out of range, or another kind)
            pair = self._reads[key] = (self.utf8(self._operand(i, False)), self.utf8(self._operand(i, True)))
        return pair

    def member_ref(self, i: int) -> tuple[str, str, str]:
        """(owner internal name, member name, descriptor) of a Field/Method/InterfaceMethod ref."""
        key = i * 4 + 2
        ref = self._reads.get(key)
        if ref is None:
            tags = self._tags
            if not (0 < i < len(tags) and FIELDREF <= tags[i] <= INTERFACE_METHODREF):
                self.get(i, FIELDREF, METHODREF, INTERFACE_METHODREF)  # (raises)
            name, desc = self.name_and_type(self._operand(i, True))
            ref = self._reads[key] = (self.class_name(self._operand(i, False)), name, desc)
        return ref

    def entries(self) -> Iterator[tuple[int, Constant]]:
        """(index, constant) for every usable slot, in order."""
        tags = self._tags
        cache = self._cache
        for i in range(1, len(tags)):
            if tags[i] != 0:
                c = cache[i]
                yield i, (c if c is not None else self._materialize(i))

    # ---------------------------------------------------------------- editing
    def _build_index(self) -> None:
        """Value -> first index, for find-or-add.

        Keys of entries never materialised are computed straight from the pool
        bytes (the keys their entries would give): a rewriter adds a few
        constants to almost every class, and materialising a whole pool just to
        find "StackMapTable" would cost more than the rest of the edit.
        """
        self._indexed = True
        utf8s = self._utf8_index
        refs = self._ref_index
        data = self._data
        offsets = self._offsets
        tags = self._tags
        cache = self._cache
        kinds = _KIND_BY_TAG
        original = self._original_count
        for i in range(1, len(tags)):
            tag = tags[i]
            if tag == 0:
                continue
            c = cache[i]
            if c is not None or i >= original:
                self._remember(c if c is not None else self[i], i)
                continue
            pos = offsets[i]
            kind = kinds[tag]
            if kind == _K_UTF8:
                n = (data[pos + 1] << 8) | data[pos + 2]
                utf8s.setdefault(data[pos + 3 : pos + 3 + n], i)
            elif kind == _K_TWO_REF:
                key = (tag << 32) | (data[pos + 1] << 24) | (data[pos + 2] << 16) | (data[pos + 3] << 8) | data[pos + 4]
                refs.setdefault(key, i)
            elif kind == _K_ONE_REF:
                refs.setdefault((tag << 32) | (data[pos + 1] << 8) | data[pos + 2], i)
            else:  # numbers and MethodHandles: rare, indexed by their entries' key tuples
                self._remember(self[i], i)

    def _remember(self, const: Constant, i: int) -> None:
        """Index ``const`` at ``i`` unless an equal entry comes earlier."""
        if isinstance(const, Utf8):
            self._utf8_index.setdefault(const.raw, i)
            return
        key = const.ref_key()
        if key >= 0:
            self._ref_index.setdefault(key, i)
        else:
            self._other_index.setdefault(const.key(), i)

    def _find(self, const: Constant) -> int:
        """Index of an entry equal to ``const``, or -1."""
        if not self._indexed:
            self._build_index()
        if isinstance(const, Utf8):
            found = self._utf8_index.get(const.raw)
        else:
            key = const.ref_key()
            found = self._ref_index.get(key) if key >= 0 else self._other_index.get(const.key())
        return -1 if found is None else found

    def _append(self, const: Constant) -> int:
        """Append ``const``, known not to be in the pool yet; the caller indexes it."""
        i = len(self._tags)
        width = const.width
        if i + width > 0x10000:
            raise ClassFormatError("constant pool would exceed 65535 entries")
        self._tags.append(const.tag)
        self._offsets.append(-1)
        self._cache.append(const)
        if width == 2:
            self._tags.append(0)
            self._offsets.append(-1)
            self._cache.append(None)
        return i

    def _add_refs(self, tag: int, first: int, second: int) -> int:
        """Find-or-add of an entry made only of indices (``first`` 0 for the one-index kinds: Class,
        String ...), without making the entry unless it is new."""
        if not self._indexed:
            self._build_index()
        key = (tag << 32) | (first << 16) | second
        found = self._ref_index.get(key)
        if found is None:
            entry = _two_ref(tag, first, second) if _KIND_BY_TAG[tag] == _K_TWO_REF else _one_ref(tag, second)
            found = self._ref_index[key] = self._append(entry)
        return found

    def add(self, const: Constant) -> int:
        """Index of an entry equal to ``const``, appending it if the pool has none."""
        found = self._find(const)
        if found >= 0:
            return found
        i = self._append(const)
        self._remember(const, i)
        return i

    def replace(self, i: int, const: Constant) -> None:
        """Overwrite entry i (same width). Forces a full re-encode of the pool."""
        old = self[i]
        if old.width != const.width:
            raise ValueError("replacement must take the same number of slots")
        self._tags[i] = const.tag
        self._cache[i] = const
        if i < self._original_count:
            self._dirty = True
        self._indexed = False
        self._utf8_index = {}
        self._ref_index = {}
        self._other_index = {}
        self._memo = {}
        self._reads = {}
        self._utf8_at = {}
        self._class_at = {}

    def add_utf8(self, text: str) -> int:
        i = self._utf8_at.get(text)
        if i is None:
            raw = mutf8.encode(text)
            if not self._indexed:
                self._build_index()
            found = self._utf8_index.get(raw)
            if found is None:
                if len(raw) > 0xFFFF:
                    raise ValueError("Utf8 constant longer than 65535 bytes")
                found = self._utf8_index[raw] = self._append(Utf8(text, raw=raw))
            i = self._utf8_at[text] = found
        return i

    def add_class(self, name: str) -> int:
        i = self._class_at.get(name)
        if i is None:
            i = self._class_at[name] = self._add_refs(CLASS, 0, self.add_utf8(name))
        return i

    def add_string(self, text: str) -> int:
        key = ("s", text)
        i = self._memo.get(key)
        if i is None:
            i = self._memo[key] = self._add_refs(STRING, 0, self.add_utf8(text))
        return i

    def add_name_and_type(self, name: str, descriptor: str) -> int:
        key = ("n", name, descriptor)
        i = self._memo.get(key)
        if i is None:
            i = self._memo[key] = self._add_refs(NAME_AND_TYPE, self.add_utf8(name), self.add_utf8(descriptor))
        return i

    def add_fieldref(self, owner: str, name: str, descriptor: str) -> int:
        key = ("f", owner, name, descriptor)
        i = self._memo.get(key)
        if i is None:
            owner_index, nat = self.add_class(owner), self.add_name_and_type(name, descriptor)
            i = self._memo[key] = self._add_refs(FIELDREF, owner_index, nat)
            self._reads[i * 4 + 2] = (owner, name, descriptor)  # what member_ref(i) will answer
        return i

    def add_methodref(self, owner: str, name: str, descriptor: str, *, interface: bool = False) -> int:
        key = ("i" if interface else "m", owner, name, descriptor)
        i = self._memo.get(key)
        if i is None:
            tag = INTERFACE_METHODREF if interface else METHODREF
            owner_index, nat = self.add_class(owner), self.add_name_and_type(name, descriptor)
            i = self._memo[key] = self._add_refs(tag, owner_index, nat)
            self._reads[i * 4 + 2] = (owner, name, descriptor)  # what member_ref(i) will answer
        return i

    def add_invoke_dynamic(self, bootstrap_index: int, name: str, descriptor: str) -> int:
        """An ``InvokeDynamic`` entry of bootstrap method ``bootstrap_index`` (of the class's
        ``BootstrapMethods``) for ``name`` and ``descriptor``."""
        return self._add_refs(INVOKE_DYNAMIC, bootstrap_index, self.add_name_and_type(name, descriptor))

    def add_integer(self, value: int) -> int:
        return self.add(Integer(value))

    def add_long(self, value: int) -> int:
        key = ("j", value)
        i = self._memo.get(key)
        if i is None:
            i = self._memo[key] = self.add(Long(value))
        return i

    # ---------------------------------------------------------------- writing
    def encode(self, *, full: bool = False) -> bytes:
        """constant_pool_count followed by the entries.

        Unless ``full`` or an original entry was replaced, the original bytes
        are reused verbatim and only appended entries are encoded.
        """
        count = len(self._tags)
        parts = [_U2.pack(count)]
        if not full and not self._dirty and self._original_count > 1:
            parts.append(self._data[self._base : self._end])
            start = self._original_count
        else:
            start = 1
        cache = self._cache
        for i in range(start, count):
            if self._tags[i] == 0:
                continue
            c = cache[i]
            if c is None:
                c = self._materialize(i)
            parts.append(c.encode())
        return b"".join(parts)

    @property
    def original_size(self) -> int:
        """Bytes the pool took in the class file it was read from."""
        return self._end - self._base + 2 if self._original_count > 1 else 0
