"""Attributes (JVMS 4.7): the ones a rewriter edits are decoded, every other is carried as bytes.

An attribute is read as a :class:`RawAttribute` (name index + body bytes) and
decoded only when asked for (:func:`decode_attribute`). The decoded forms here
are the ones whose contents refer to things a rewriter moves: code offsets,
local-variable slots, parameter positions, constant-pool entries and
bootstrap methods. Each decoded form encodes back to exactly the bytes it was
read from, so a class can go through the object model and come out identical.

Decoding depends on where an attribute sits (JVMS Table 4.7-C): a ``Code``
attribute on a field is not a Code attribute to the JVM, so it stays raw here.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any, ClassVar, Final

from ..errors import ClassFormatError
from .constants import ConstantPool
from .native import mypyc_attr

_U2: Final = struct.Struct(">H")
_U4: Final = struct.Struct(">I")
_HI: Final = struct.Struct(">HI")  # attribute_name_index, attribute_length
_chain = chain.from_iterable
_new = object.__new__
# True when this module runs compiled by mypyc: its classes are then native, which object.__new__
# cannot make (and for which calling the class is the fast way anyway)
_COMPILED: Final = __file__.endswith((".so", ".pyd"))

# Compiled ">{n}H" formats by n: tables and index lists are read and written with one
# (un)pack each, and formatting the format string cost more than the unpacking.
_U2S: Final[dict[int, struct.Struct]] = {}


def _u2s(count: int) -> struct.Struct:
    """The Struct for ``count`` big-endian u2 values."""
    st = _U2S.get(count)
    if st is None:
        if len(_U2S) >= 1024:
            _U2S.clear()
        st = _U2S[count] = struct.Struct(f">{count}H")
    return st


# Where an attribute may appear.
CLASS: Final = "class"
FIELD: Final = "field"
METHOD: Final = "method"
CODE: Final = "code"
RECORD_COMPONENT: Final = "record component"


@mypyc_attr(acyclic=True)  # (see classfile.native)
class Attribute:
    """Base of all attributes. ``name_index`` is the Utf8 index of the attribute's name.

    The index (not just the name) is kept because a pool may hold the same Utf8
    twice and a byte-identical round trip must reuse the same one.
    """

    __slots__ = ("name_index",)
    name: ClassVar[str] = ""

    def __init__(self, name_index: int) -> None:
        self.name_index = name_index

    def encode_body(self, pool: ConstantPool) -> bytes:
        raise NotImplementedError

    # Optional, for the attributes that are on nearly every member: a public classmethod
    # ``decode_body(name_index, data, offset, pool, ctx)`` beside ``decode`` that decodes a
    # whole, well-formed body without a Reader (cheaper: no reader object, no per-field
    # method calls) and returns None for anything else, in which case ``decode`` runs as
    # usual and words the error. register() picks it up; see decode_attribute.

    def encode(self, pool: ConstantPool) -> bytes:
        body = self.encode_body(pool)
        return _HI.pack(self.name_index, len(body)) + body


@mypyc_attr(acyclic=True)
class RawAttribute(Attribute):
    """An attribute carried byte for byte: unknown ones, and known ones not decoded yet."""

    __slots__ = ("data", "offset")

    def __init__(self, name_index: int, data: bytes, offset: int = -1) -> None:
        self.name_index = name_index  # (not super().__init__: one of these per attribute read)
        self.data = data
        self.offset = offset  # where the body started in the class file, for error messages

    def encode_body(self, pool: ConstantPool) -> bytes:
        return self.data

    def __repr__(self) -> str:
        return f"RawAttribute(#{self.name_index}, {len(self.data)} bytes)"


class Reader:
    """Bounds-checked big-endian reads over one attribute body (what ``decode`` methods get).

    ``pos`` is the read position in ``data``; a read past the end raises
    :class:`ClassFormatError` naming the attribute and the file offset.
    """

    __slots__ = ("data", "pos", "base", "what")

    def __init__(self, data: bytes, base: int, what: str) -> None:
        self.data = data
        self.pos = 0
        self.base = base  # file offset of data[0], or -1 if unknown
        self.what = what

    def need(self, n: int) -> None:
        """Raise ClassFormatError unless ``n`` more bytes can be read."""
        if self.pos + n > len(self.data):
            raise ClassFormatError(f"{self.what} attribute is truncated", offset=self.file_offset)

    @property
    def file_offset(self) -> int | None:
        return self.base + self.pos if self.base >= 0 else None

    # The reads check bounds inline rather than through need(): they run for every
    # field of every decoded attribute, and a method call per read was measurable.
    def u1(self) -> int:
        pos = self.pos
        data = self.data
        if pos >= len(data):
            self.need(1)
        self.pos = pos + 1
        return data[pos]

    def u2(self) -> int:
        pos = self.pos
        data = self.data
        if pos + 2 > len(data):
            self.need(2)
        self.pos = pos + 2
        return (data[pos] << 8) | data[pos + 1]

    def u4(self) -> int:
        pos = self.pos
        if pos + 4 > len(self.data):
            self.need(4)
        self.pos = pos + 4
        return _U4.unpack_from(self.data, pos)[0]

    def take(self, n: int) -> bytes:
        pos = self.pos
        if pos + n > len(self.data):
            self.need(n)
        self.pos = pos + n
        return bytes(self.data[pos : pos + n])

    def u2_list(self) -> list[int]:
        n = self.u2()
        pos = self.pos
        if pos + 2 * n > len(self.data):
            self.need(2 * n)
        self.pos = pos + 2 * n
        return list(struct.unpack_from(f">{n}H", self.data, pos))

    def done(self) -> None:
        if self.pos != len(self.data):
            raise ClassFormatError(
                f"{self.what} attribute has {len(self.data) - self.pos} bytes after its content",
                offset=self.file_offset,
            )


# --------------------------------------------------------------------------- simple forms
class _U2Attribute(Attribute):
    __slots__ = ("index",)

    def __init__(self, name_index: int, index: int) -> None:
        self.name_index = name_index
        self.index = index

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> _U2Attribute:
        return cls(name_index, r.u2())

    @classmethod
    def decode_body(
        cls, name_index: int, data: bytes, offset: int, pool: ConstantPool, ctx: object
    ) -> _U2Attribute | None:
        if len(data) != 2:
            return None
        if _COMPILED:
            return cls(name_index, (data[0] << 8) | data[1])
        a = _new(cls)
        a.name_index = name_index
        a.index = (data[0] << 8) | data[1]
        return a

    def encode_body(self, pool: ConstantPool) -> bytes:
        return _U2.pack(self.index)


class ConstantValue(_U2Attribute):
    __slots__ = ()
    name = "ConstantValue"


class Signature(_U2Attribute):
    __slots__ = ()
    name = "Signature"


class SourceFile(_U2Attribute):
    __slots__ = ()
    name = "SourceFile"


class NestHost(_U2Attribute):
    __slots__ = ()
    name = "NestHost"


class _U2ListAttribute(Attribute):
    __slots__ = ("indices",)

    def __init__(self, name_index: int, indices: list[int]) -> None:
        self.name_index = name_index
        self.indices = indices

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> _U2ListAttribute:
        return cls(name_index, r.u2_list())

    @classmethod
    def decode_body(
        cls, name_index: int, data: bytes, offset: int, pool: ConstantPool, ctx: object
    ) -> _U2ListAttribute | None:
        n = len(data)
        if n < 2 or n != 2 + 2 * ((data[0] << 8) | data[1]):
            return None
        if _COMPILED:
            return cls(name_index, list(_u2s((n - 2) >> 1).unpack_from(data, 2)))
        a = _new(cls)
        a.name_index = name_index
        a.indices = list(_u2s((n - 2) >> 1).unpack_from(data, 2))
        return a

    def encode_body(self, pool: ConstantPool) -> bytes:
        return struct.pack(f">H{len(self.indices)}H", len(self.indices), *self.indices)


class Exceptions(_U2ListAttribute):
    __slots__ = ()
    name = "Exceptions"


class NestMembers(_U2ListAttribute):
    __slots__ = ()
    name = "NestMembers"


class PermittedSubclasses(_U2ListAttribute):
    __slots__ = ()
    name = "PermittedSubclasses"


class EnclosingMethod(Attribute):
    __slots__ = ("class_index", "method_index")
    name = "EnclosingMethod"

    def __init__(self, name_index: int, class_index: int, method_index: int) -> None:
        self.name_index = name_index
        self.class_index = class_index
        self.method_index = method_index  # 0 when not enclosed by a method

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> EnclosingMethod:
        return cls(name_index, r.u2(), r.u2())

    def encode_body(self, pool: ConstantPool) -> bytes:
        return struct.pack(">HH", self.class_index, self.method_index)


class _TableAttribute(Attribute):
    """An attribute that is a u2-counted table of fixed-size rows of u2 fields."""

    __slots__ = ("rows",)
    row_fields: ClassVar[int] = 1

    def __init__(self, name_index: int, rows: list[tuple[int, ...]]) -> None:
        self.name_index = name_index
        self.rows = rows

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> _TableAttribute:
        n = r.u2()
        k = cls.row_fields
        pos = r.pos
        size = 2 * k * n
        if pos + size > len(r.data):
            r.need(size)
        it = iter(_u2s(k * n).unpack_from(r.data, pos))
        r.pos = pos + size
        # zip over k references to one iterator yields consecutive k-tuples, built in C:
        # several times cheaper than slicing a tuple per row (LineNumberTable and
        # LocalVariableTable are on nearly every method).
        return cls(name_index, list(zip(*(it,) * k)))

    @classmethod
    def decode_body(
        cls, name_index: int, data: bytes, offset: int, pool: ConstantPool, ctx: object
    ) -> _TableAttribute | None:
        k = cls.row_fields
        n = len(data)
        if n < 2 or n != 2 + 2 * k * ((data[0] << 8) | data[1]):
            return None
        count = (n - 2) >> 1
        it = iter((_U2S.get(count) or _u2s(count)).unpack_from(data, 2))
        if _COMPILED:
            return cls(name_index, list(zip(*(it,) * k)))
        a = _new(cls)
        a.name_index = name_index
        a.rows = list(zip(*(it,) * k))
        return a

    def encode_body(self, pool: ConstantPool) -> bytes:
        rows = self.rows
        count = self.row_fields * len(rows) + 1
        try:  # straight from the rows when each has row_fields values (always, unless edited badly)
            return (_U2S.get(count) or _u2s(count)).pack(len(rows), *_chain(rows))
        except struct.error:
            flat = list(_chain(rows))  # rows of other lengths: written as they are, as always
            return _u2s(len(flat) + 1).pack(len(rows), *flat)


class InnerClasses(_TableAttribute):
    """Rows: (inner_class_info, outer_class_info, inner_name, inner_class_access_flags)."""

    __slots__ = ()
    name = "InnerClasses"
    row_fields: ClassVar[int] = 4


class LineNumberTable(_TableAttribute):
    """Rows: (start_pc, line_number)."""

    __slots__ = ()
    name = "LineNumberTable"
    row_fields: ClassVar[int] = 2


class LocalVariableTable(_TableAttribute):
    """Rows: (start_pc, length, name_index, descriptor_index, slot)."""

    __slots__ = ()
    name = "LocalVariableTable"
    row_fields: ClassVar[int] = 5


class LocalVariableTypeTable(_TableAttribute):
    """Rows: (start_pc, length, name_index, signature_index, slot)."""

    __slots__ = ()
    name = "LocalVariableTypeTable"
    row_fields: ClassVar[int] = 5


class MethodParameters(Attribute):
    """Rows: (name_index, access_flags); the count is a u1."""

    __slots__ = ("parameters",)
    name = "MethodParameters"

    def __init__(self, name_index: int, parameters: list[tuple[int, int]]) -> None:
        self.name_index = name_index
        self.parameters = parameters

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> MethodParameters:
        n = r.u1()
        return cls(name_index, [(r.u2(), r.u2()) for _ in range(n)])

    def encode_body(self, pool: ConstantPool) -> bytes:
        out = bytearray((len(self.parameters),))
        for name, flags in self.parameters:
            out += struct.pack(">HH", name, flags)
        return bytes(out)


class BootstrapMethods(Attribute):
    """Each method: (method_handle_index, [argument indices])."""

    __slots__ = ("methods",)
    name = "BootstrapMethods"

    def __init__(self, name_index: int, methods: list[tuple[int, list[int]]]) -> None:
        self.name_index = name_index
        self.methods = methods

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> BootstrapMethods:
        n = r.u2()
        methods = []
        for _ in range(n):
            ref = r.u2()
            methods.append((ref, r.u2_list()))
        return cls(name_index, methods)

    def encode_body(self, pool: ConstantPool) -> bytes:
        out = bytearray(_U2.pack(len(self.methods)))
        for ref, args in self.methods:
            out += struct.pack(f">HH{len(args)}H", ref, len(args), *args)
        return bytes(out)


# --------------------------------------------------------------------------- annotations
def _skip_element_value(r: Reader) -> None:
    tag = r.u1()
    if tag in b"BCDFIJSZsc":
        r.u2()
    elif tag == ord("e"):
        r.u2()
        r.u2()
    elif tag == ord("@"):
        _skip_annotation(r)
    elif tag == ord("["):
        for _ in range(r.u2()):
            _skip_element_value(r)
    else:
        raise ClassFormatError(f"{r.what}: unknown element_value tag {tag!r}", offset=r.file_offset)


def _skip_annotation(r: Reader) -> None:
    r.u2()
    for _ in range(r.u2()):
        r.u2()
        _skip_element_value(r)


def _read_annotation(r: Reader) -> bytes:
    """One annotation structure, kept as its bytes (type index first)."""
    start = r.pos
    _skip_annotation(r)
    return bytes(r.data[start : r.pos])


class ParameterAnnotations(Attribute):
    """Runtime(In)VisibleParameterAnnotations: per parameter, a list of annotations (bytes each).

    Decoded because adding a parameter shifts these lists; the annotations themselves
    stay as bytes (their first two bytes are the type's Utf8 index).
    """

    __slots__ = ("parameters",)

    def __init__(self, name_index: int, parameters: list[list[bytes]]) -> None:
        self.name_index = name_index
        self.parameters = parameters

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> ParameterAnnotations:
        n = r.u1()
        params = []
        for _ in range(n):
            params.append([_read_annotation(r) for _ in range(r.u2())])
        return cls(name_index, params)

    def encode_body(self, pool: ConstantPool) -> bytes:
        out = bytearray((len(self.parameters),))
        for per_parameter in self.parameters:
            out += _U2.pack(len(per_parameter))
            for a in per_parameter:
                out += a
        return bytes(out)


class RuntimeVisibleParameterAnnotations(ParameterAnnotations):
    __slots__ = ()
    name = "RuntimeVisibleParameterAnnotations"


class RuntimeInvisibleParameterAnnotations(ParameterAnnotations):
    __slots__ = ()
    name = "RuntimeInvisibleParameterAnnotations"


class TypeAnnotation:
    """One type_annotation (JVMS 4.7.20).

    ``target_info`` is decoded by kind because it names code offsets, local slots,
    exception-table rows or parameter positions that a rewriter shifts:
    a tuple of ints, except localvar targets (0x40/0x41): a list of
    (start_pc, length, slot) rows.
    """

    __slots__ = ("target_type", "target_info", "type_path", "annotation")

    def __init__(self, target_type: int, target_info, type_path: bytes, annotation: bytes) -> None:
        self.target_type = target_type
        self.target_info = target_info
        self.type_path = type_path  # path_length + path entries, as bytes
        self.annotation = annotation  # the annotation structure, as bytes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeAnnotation) and (
            self.target_type,
            self.target_info,
            self.type_path,
            self.annotation,
        ) == (other.target_type, other.target_info, other.type_path, other.annotation)

    def encode(self) -> bytes:
        t = self.target_type
        out = bytearray((t,))
        info = self.target_info
        if t in (0x40, 0x41):
            out += _U2.pack(len(info))
            for row in info:
                out += struct.pack(">HHH", *row)
        else:
            for size, value in zip(_TARGET_LAYOUT[t], info):
                out += value.to_bytes(size, "big")
        out += self.type_path
        out += self.annotation
        return bytes(out)


# target_type -> sizes (in bytes) of the target_info fields (localvar handled apart).
_TARGET_LAYOUT: Final[dict[int, tuple[int, ...]]] = {
    0x00: (1,),
    0x01: (1,),
    0x10: (2,),
    0x11: (1, 1),
    0x12: (1, 1),
    0x13: (),
    0x14: (),
    0x15: (),
    0x16: (1,),
    0x17: (2,),
    0x42: (2,),
    0x43: (2,),
    0x44: (2,),
    0x45: (2,),
    0x46: (2,),
    0x47: (2, 1),
    0x48: (2, 1),
    0x49: (2, 1),
    0x4A: (2, 1),
    0x4B: (2, 1),
}


def _read_type_annotation(r: Reader) -> TypeAnnotation:
    t = r.u1()
    info: list[tuple[int, int, int]] | tuple[int, ...]
    if t in (0x40, 0x41):
        info = [(r.u2(), r.u2(), r.u2()) for _ in range(r.u2())]
    else:
        layout = _TARGET_LAYOUT.get(t)
        if layout is None:
            raise ClassFormatError(f"{r.what}: unknown type annotation target_type 0x{t:02x}", offset=r.file_offset)
        info = tuple(r.u1() if size == 1 else r.u2() for size in layout)
    path_len = r.u1()
    r.pos -= 1
    type_path = r.take(1 + 2 * path_len)
    return TypeAnnotation(t, info, type_path, _read_annotation(r))


class TypeAnnotations(Attribute):
    __slots__ = ("annotations",)

    def __init__(self, name_index: int, annotations: list[TypeAnnotation]) -> None:
        self.name_index = name_index
        self.annotations = annotations

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> TypeAnnotations:
        return cls(name_index, [_read_type_annotation(r) for _ in range(r.u2())])

    def encode_body(self, pool: ConstantPool) -> bytes:
        return _U2.pack(len(self.annotations)) + b"".join(a.encode() for a in self.annotations)


class RuntimeVisibleTypeAnnotations(TypeAnnotations):
    __slots__ = ()
    name = "RuntimeVisibleTypeAnnotations"


class RuntimeInvisibleTypeAnnotations(TypeAnnotations):
    __slots__ = ()
    name = "RuntimeInvisibleTypeAnnotations"


# --------------------------------------------------------------------------- records
class RecordComponent:
    __slots__ = ("name_index", "descriptor_index", "attributes")

    def __init__(self, name_index: int, descriptor_index: int, attributes: list[Attribute]) -> None:
        self.name_index = name_index
        self.descriptor_index = descriptor_index
        self.attributes = attributes


class Record(Attribute):
    __slots__ = ("components",)
    name = "Record"

    def __init__(self, name_index: int, components: list[RecordComponent]) -> None:
        self.name_index = name_index
        self.components = components

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> Record:
        comps = []
        for _ in range(r.u2()):
            name, desc = r.u2(), r.u2()
            attrs, used = read_attribute_list(r.data, r.pos, pool, base_offset=r.base)
            r.pos = used
            comps.append(RecordComponent(name, desc, attrs))
        return cls(name_index, comps)

    def encode_body(self, pool: ConstantPool) -> bytes:
        out = bytearray(_U2.pack(len(self.components)))
        for c in self.components:
            out += struct.pack(">HH", c.name_index, c.descriptor_index)
            out += encode_attribute_list(c.attributes, pool)
        return bytes(out)


# --------------------------------------------------------------------------- lists
def read_attribute_list(
    data: bytes, pos: int, pool: ConstantPool, base_offset: int = 0, keep: bool = True
) -> tuple[list[Attribute], int]:
    """Read ``attributes_count`` and the attributes at ``data[pos]`` as raw attributes.

    Returns the list and the position after it. ``base_offset`` maps positions in
    ``data`` to file offsets for error messages (-1: unknown). ``keep=False`` checks the
    attributes the same way but keeps none (an empty list): a reader of names and signatures
    only (a class hierarchy) copies no attribute bodies.
    """
    n = len(data)
    if pos + 2 > n:
        raise ClassFormatError(
            "truncated before attributes_count", offset=base_offset + pos if base_offset >= 0 else None
        )
    count = (data[pos] << 8) | data[pos + 1]
    pos += 2
    attrs: list[Attribute] = []
    if not count:
        return attrs, pos
    tags = pool.tags
    ntags = len(tags)
    append = attrs.append
    Raw = RawAttribute
    new = _new
    known = base_offset >= 0
    for _ in range(count):
        if pos + 6 > n:
            raise ClassFormatError("truncated attribute header", offset=base_offset + pos if base_offset >= 0 else None)
        # (the header by byte arithmetic: native once compiled, where a struct unpack is a call by name)
        name_index = (data[pos] << 8) | data[pos + 1]
        length = (data[pos + 2] << 24) | (data[pos + 3] << 16) | (data[pos + 4] << 8) | data[pos + 5]
        if not (name_index < ntags and tags[name_index] == 1):  # tags[0] is 0: index 0 fails too
            raise ClassFormatError(
                f"attribute name index #{name_index} is not a Utf8 constant",
                offset=base_offset + pos if base_offset >= 0 else None,
            )
        start = pos + 6
        end = start + length
        if end > n:
            raise ClassFormatError(
                f"attribute '{pool.utf8(name_index)}' of length {length} overruns its container "
                f"({n - start} bytes left)",
                offset=base_offset + pos if base_offset >= 0 else None,
            )
        if keep and _COMPILED:
            append(RawAttribute(name_index, data[start:end], base_offset + start if known else -1))
        elif keep:
            a = new(Raw)  # RawAttribute(name_index, body, offset), minus the __init__ call
            a.name_index = name_index
            a.data = data[start:end]
            a.offset = base_offset + start if known else -1
            append(a)
        pos = end
    return attrs, pos


def encode_attribute_list(attrs: Iterable[Attribute], pool: ConstantPool) -> bytes:
    """attributes_count and the attributes, each as header + body.

    The header is packed here beside the body (one pack, no concatenation of the
    body) for every attribute that encodes the standard way; a subclass that
    overrides :meth:`Attribute.encode` is still called through it.
    """
    if type(attrs) is not list:
        attrs = list(attrs)
    parts = [_U2.pack(len(attrs))]
    append = parts.append
    pack = _HI.pack
    standard = Attribute.encode
    for a in attrs:
        if type(a) is RawAttribute:
            body = a.data
        elif type(a).encode is standard:
            body = a.encode_body(pool)
        else:
            append(a.encode(pool))
            continue
        append(pack(a.name_index, len(body)))
        append(body)
    return b"".join(parts)


Decoder = Callable[[int, Reader, ConstantPool, object], Attribute]

# name -> (contexts where decoded, decoder). Code and StackMapTable are registered by code.py.
# Change it through register() only: decode_attribute reads the per-context copy below.
DECODERS: Final[dict[str, tuple[frozenset[str], Decoder]]] = {}
# The same, by context: context -> {name: (fast body decoder or None, decoder)}, so that
# decode_attribute (run for every attribute of a fully decoded class) does one lookup
# per attribute. Kept in step with DECODERS by register().
_DECODERS_IN: Final[dict[str, dict[str, tuple[Callable | None, Decoder]]]] = {}
_NOTHING: Final[dict[str, tuple[Callable | None, Decoder]]] = {}


def _defined_in(cls: type, attribute: str) -> type | None:
    """The class in ``cls``'s MRO that defines ``attribute``."""
    return next((c for c in cls.__mro__ if attribute in c.__dict__), None)


def register(name: str, contexts: Iterable[str], decoder: Decoder) -> None:
    contexts = frozenset(contexts)
    DECODERS[name] = (contexts, decoder)
    # The whole-body fast path of a built-in attribute class (see Attribute), used only
    # together with that class's own decode.
    owner = getattr(decoder, "__self__", None)
    fast = None
    if isinstance(owner, type) and _defined_in(owner, "decode_body") is _defined_in(owner, "decode"):
        fast = owner.decode_body  # type: ignore[attr-defined]
    for table in _DECODERS_IN.values():
        table.pop(name, None)
    for context in contexts:
        _DECODERS_IN.setdefault(context, {})[name] = (fast, decoder)


_BUILT_IN: Final[list[tuple[Any, tuple[str, ...]]]] = [  # (attribute class, where it is decoded)
    (ConstantValue, (FIELD,)),
    (Signature, (CLASS, FIELD, METHOD, RECORD_COMPONENT)),
    (SourceFile, (CLASS,)),
    (NestHost, (CLASS,)),
    (NestMembers, (CLASS,)),
    (PermittedSubclasses, (CLASS,)),
    (EnclosingMethod, (CLASS,)),
    (Exceptions, (METHOD,)),
    (InnerClasses, (CLASS,)),
    (LineNumberTable, (CODE,)),
    (LocalVariableTable, (CODE,)),
    (LocalVariableTypeTable, (CODE,)),
    (MethodParameters, (METHOD,)),
    (BootstrapMethods, (CLASS,)),
    (RuntimeVisibleParameterAnnotations, (METHOD,)),
    (RuntimeInvisibleParameterAnnotations, (METHOD,)),
    (RuntimeVisibleTypeAnnotations, (CLASS, FIELD, METHOD, CODE, RECORD_COMPONENT)),
    (RuntimeInvisibleTypeAnnotations, (CLASS, FIELD, METHOD, CODE, RECORD_COMPONENT)),
    (Record, (CLASS,)),
]
for _cls, _ctx in _BUILT_IN:
    register(_cls.name, _ctx, _cls.decode)


def decode_attribute(attr: Attribute, pool: ConstantPool, context: str, ctx: object = None) -> Attribute:
    """The decoded form of ``attr`` if it is a known attribute in this context, else ``attr`` itself."""
    if type(attr) is not RawAttribute:
        return attr
    name = pool.utf8(attr.name_index)
    entry = _DECODERS_IN.get(context, _NOTHING).get(name)
    if entry is None:
        return attr
    fast, decoder = entry
    if fast is not None:
        decoded = fast(attr.name_index, attr.data, attr.offset, pool, ctx)
        if decoded is not None:
            return decoded
    r = Reader(attr.data, attr.offset, name)
    decoded = decoder(attr.name_index, r, pool, ctx)
    if r.pos != len(r.data):
        r.done()  # raises
    return decoded
