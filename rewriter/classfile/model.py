"""The class-file object model (JVMS 4.1) with its reader and writer.

Reading is cheap: the constant pool is scanned (not decoded), members are read
with raw attributes, and nothing else happens until someone asks. Writing
produces exactly the input bytes for an unchanged class, whether or not parts
of it were decoded on the way: this is what lets a rewriter touch one method of
a class and leave everything else, including what it does not understand,
exactly as it was.
"""

from __future__ import annotations

import struct
import weakref
from operator import attrgetter
from typing import ClassVar, Final, TypeVar

from ..errors import ClassFormatError, JprewriteError, UnsupportedVersionError
from . import attributes as attrs
from .attributes import Attribute, encode_attribute_list, read_attribute_list
from .code import CodeAttribute, CodeContext, code_context  # (also registers the Code and StackMapTable decoders)
from .constants import ConstantPool

MAGIC: Final = 0xCAFEBABE
MIN_MAJOR: Final = 45
# The newest class-file version this jprewrite was written against (Java 25 = 69).
MAX_MAJOR: Final = 69

# Access flags (JVMS Tables 4.1-B, 4.5-A, 4.6-A)
ACC_PUBLIC: Final = 0x0001
ACC_PRIVATE: Final = 0x0002
ACC_PROTECTED: Final = 0x0004
ACC_STATIC: Final = 0x0008
ACC_FINAL: Final = 0x0010
ACC_SUPER: Final = 0x0020
ACC_SYNCHRONIZED: Final = 0x0020
ACC_VOLATILE: Final = 0x0040
ACC_BRIDGE: Final = 0x0040
ACC_TRANSIENT: Final = 0x0080
ACC_VARARGS: Final = 0x0080
ACC_NATIVE: Final = 0x0100
ACC_INTERFACE: Final = 0x0200
ACC_ABSTRACT: Final = 0x0400
ACC_STRICT: Final = 0x0800
ACC_SYNTHETIC: Final = 0x1000
ACC_ANNOTATION: Final = 0x2000
ACC_ENUM: Final = 0x4000
ACC_MODULE: Final = 0x8000

_HEADER: Final = struct.Struct(">IHH")
_MEMBER: Final = struct.Struct(">HHH")
# True when this module runs compiled by mypyc: Member is then a native class, which object.__new__
# cannot make (and for which calling the class is the fast way anyway)
_COMPILED: Final = __file__.endswith((".so", ".pyd"))
_C = TypeVar("_C", bound=type)


def _python_class(cls: _C) -> _C:
    """Keep ``cls`` an ordinary Python class when mypyc compiles this module (mypyc makes a class
    with any other decorator one): mypyc's native classes cannot be weakly referenced, and
    :class:`ClassCore` refers to its ClassFile weakly."""
    return cls


class ClassCore:
    """What the members of a class read from it: the pool and the header fields.

    Why it exists: a member needs its class's pool and name, and a member that
    pointed back at its ClassFile (whose ``fields``/``methods`` lists point at the
    member) made every class a reference cycle, which only Python's cyclic
    garbage collector frees. In a full decode of java.base that collector spent
    about a third of the run walking dead instructions and frames. Members point
    at this core instead, which points at no member, so a class's objects are
    freed by reference counting as soon as the ClassFile is dropped. The
    ClassFile itself is reachable from the core through a weak reference (see
    :attr:`Member.owner`); its header attributes are stored here.
    """

    __slots__ = ("pool", "minor", "major", "access", "this_class", "super_class", "owner")

    def __init__(self) -> None:
        self.pool = ConstantPool()
        self.minor = 0
        self.major = 0
        self.access = 0
        self.this_class = 0
        self.super_class = 0
        self.owner: weakref.ref | None = None

    @property
    def name(self) -> str:
        """Internal name of the class, e.g. ``java/lang/String``."""
        return self.pool.class_name(self.this_class)

    # Copies and pickles leave the weak reference out; ClassFile.__setstate__ sets it again.
    def __getstate__(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__ if k != "owner"}

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self.owner = None


class Member:
    """A field or method: access flags, name and descriptor indices, attributes.

    ``core`` is the :class:`ClassCore` of the class the member belongs to (not the
    ClassFile: see there why); :attr:`owner` gives the ClassFile.
    """

    __slots__ = ("access", "name_index", "descriptor_index", "attributes", "core")
    context: ClassVar[str] = ""

    def __init__(
        self,
        access: int,
        name_index: int,
        descriptor_index: int,
        attributes: list[Attribute],
        owner: ClassFile | ClassCore | None = None,
    ) -> None:
        self.access = access
        self.name_index = name_index
        self.descriptor_index = descriptor_index
        self.attributes = attributes
        self.core: ClassCore | None = owner.core if isinstance(owner, ClassFile) else owner

    @property
    def owner(self) -> ClassFile | ClassCore | None:
        """The owning ClassFile; if that has been dropped, its core (same pool and header)."""
        core = self.core
        if core is not None:
            cf = core.owner() if core.owner is not None else None
            return cf if cf is not None else core
        return None

    @property
    def pool(self) -> ConstantPool:
        assert self.core is not None
        return self.core.pool

    @property
    def name(self) -> str:
        return self.pool.utf8(self.name_index)

    @property
    def descriptor(self) -> str:
        return self.pool.utf8(self.descriptor_index)

    def decode_context(self) -> object:
        """What decoding this member's attributes needs to know about it (None for a field;
        a method's :class:`CodeContext`, built from its current name and descriptor)."""
        return None

    def attribute(self, name: str) -> Attribute | None:
        """The first attribute called ``name``, decoded if jprewrite knows it here (and kept so)."""
        pool = self.pool
        for i, a in enumerate(self.attributes):
            if pool.utf8(a.name_index) == name:
                if type(a) is not attrs.RawAttribute:
                    return a  # decoded before (and the context it would need is not built again)
                d = attrs.decode_attribute(a, pool, self.context, self.decode_context())
                self.attributes[i] = d
                return d
        return None

    def decode_all(self) -> None:
        attributes = self.attributes
        pool = self.pool
        ctx = self.decode_context()
        context = self.context
        decode = attrs.decode_attribute
        for i, a in enumerate(attributes):
            attributes[i] = d = decode(a, pool, context, ctx)
            if isinstance(d, CodeAttribute):
                d.decode_all(pool)

    def __repr__(self) -> str:
        try:
            return f"{type(self).__name__}({self.name}{self.descriptor})"
        except JprewriteError:
            return f"{type(self).__name__}(#{self.name_index}#{self.descriptor_index})"


class Field(Member):
    __slots__ = ()
    context = attrs.FIELD


class Method(Member):
    __slots__ = ()
    context = attrs.METHOD

    def decode_context(self) -> CodeContext:
        core = self.core
        assert core is not None
        pool = core.pool
        return code_context(
            core.name, pool.utf8(self.name_index), pool.utf8(self.descriptor_index), bool(self.access & ACC_STATIC)
        )

    def code(self) -> CodeAttribute | None:
        """The decoded Code attribute, or None for abstract and native methods."""
        for a in self.attributes:
            if type(a) is CodeAttribute:  # decoded already: found without reading names
                return a
        found = self.attribute("Code")
        return found if isinstance(found, CodeAttribute) else None


def _core_field(name: str, doc: str) -> property:
    core_get = attrgetter(name)

    def get(self: ClassFile):
        return core_get(self.core)

    def set(self: ClassFile, value) -> None:
        setattr(self.core, name, value)

    return property(get, set, doc=doc)


@_python_class
class ClassFile:
    """One class file. Indices refer to ``pool``; helpers give names.

    The header fields and the pool live in a :class:`ClassCore` shared with the
    members (so that members need no reference back to the ClassFile); they read
    and write as plain attributes.
    """

    pool = _core_field("pool", "The constant pool.")
    minor = _core_field("minor", "minor_version.")
    major = _core_field("major", "major_version.")
    access = _core_field("access", "access_flags.")
    this_class = _core_field("this_class", "Index of this class's CONSTANT_Class.")
    super_class = _core_field("super_class", "Index of the superclass's CONSTANT_Class, 0 for none.")

    def __init__(self) -> None:
        self.core = core = ClassCore()  # the pool and the header, shared with the members
        core.owner = weakref.ref(self)
        self.interface_indices: list[int] = []
        self.fields: list[Field] = []
        self.methods: list[Method] = []
        self.attributes: list[Attribute] = []
        self.size = 0  # bytes read

    def __setstate__(self, state: dict) -> None:  # (copy and pickle)
        self.__dict__.update(state)
        core = self.core
        if core.owner is None or core.owner() is None:  # a copied core, not a shallow copy's shared one
            core.owner = weakref.ref(self)

    # ------------------------------------------------------------- names
    @property
    def name(self) -> str:
        """Internal name, e.g. ``java/lang/String``."""
        return self.pool.class_name(self.this_class)

    @property
    def super_name(self) -> str | None:
        return self.pool.class_name(self.super_class) if self.super_class else None

    @property
    def interfaces(self) -> list[str]:
        return [self.pool.class_name(i) for i in self.interface_indices]

    @property
    def version(self) -> tuple[int, int]:
        return self.major, self.minor

    def is_interface(self) -> bool:
        return bool(self.access & ACC_INTERFACE)

    def attribute(self, name: str) -> Attribute | None:
        pool = self.pool
        for i, a in enumerate(self.attributes):
            if pool.utf8(a.name_index) == name:
                d = attrs.decode_attribute(a, pool, attrs.CLASS)
                self.attributes[i] = d
                return d
        return None

    def method(self, name: str, descriptor: str | None = None) -> Method | None:
        for m in self.methods:
            if m.name == name and (descriptor is None or m.descriptor == descriptor):
                return m
        return None

    def decode_all(self) -> None:
        """Decode everything jprewrite knows how to decode (what ``check`` exercises)."""
        pool = self.pool
        pool.decode_all()  # every constant, every Utf8 string decoded, in one bulk pass
        for i, a in enumerate(self.attributes):
            d = attrs.decode_attribute(a, pool, attrs.CLASS)
            self.attributes[i] = d
            if isinstance(d, attrs.Record):
                for comp in d.components:
                    comp.attributes = [attrs.decode_attribute(x, pool, attrs.RECORD_COMPONENT) for x in comp.attributes]
        for f in self.fields:
            f.decode_all()
        for m in self.methods:
            m.decode_all()

    # ------------------------------------------------------------- writing
    def to_bytes(self) -> bytes:
        pool = self.pool
        parts = [_HEADER.pack(MAGIC, self.minor, self.major)]
        # Members and attributes are encoded first: encoding may add constants
        # (e.g. a new frame naming a class), and the pool must be written last-known.
        body = [struct.pack(">HHHH", self.access, self.this_class, self.super_class, len(self.interface_indices))]
        body.append(struct.pack(f">{len(self.interface_indices)}H", *self.interface_indices))
        for members in (self.fields, self.methods):
            body.append(struct.pack(">H", len(members)))
            for m in members:
                body.append(_MEMBER.pack(m.access, m.name_index, m.descriptor_index))
                body.append(encode_attribute_list(m.attributes, pool))
        body.append(encode_attribute_list(self.attributes, pool))
        parts.append(pool.encode())
        parts.extend(body)
        return b"".join(parts)


def read_class(data: bytes, *, check_version: bool = True, attributes: bool = True) -> ClassFile:
    """Parse a class file. Raises ClassFormatError (with the byte offset) on malformed input.

    ``attributes=False``: the class and its members get no attributes (they are checked and
    skipped): for readers of names and signatures only, which then copy no code."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("read_class needs bytes")
    data = bytes(data)
    n = len(data)
    if n < 10:
        raise ClassFormatError(f"truncated class file ({n} bytes)", offset=n)
    magic, minor, major = _HEADER.unpack_from(data, 0)
    if magic != MAGIC:
        raise ClassFormatError(f"bad magic 0x{magic:08X} (not a class file)", offset=0)
    if check_version and not MIN_MAJOR <= major <= MAX_MAJOR:
        raise UnsupportedVersionError(
            f"unsupported class-file version {major}.{minor} (jprewrite supports {MIN_MAJOR}.0 to {MAX_MAJOR}.x)",
            offset=6,
        )
    cf = ClassFile()
    cf.minor, cf.major = minor, major
    cf.pool = pool = ConstantPool.parse(data, 8)
    pos = pool.end_offset
    if pos + 8 > n:
        raise ClassFormatError("truncated after the constant pool", offset=pos)
    cf.access, cf.this_class, cf.super_class, icount = struct.unpack_from(">HHHH", data, pos)
    _expect_class(pool, cf.this_class, "this_class", pos + 2)
    if cf.super_class:
        _expect_class(pool, cf.super_class, "super_class", pos + 4)
    pos += 8
    if pos + 2 * icount > n:
        raise ClassFormatError("truncated interfaces table", offset=pos)
    cf.interface_indices = list(struct.unpack_from(f">{icount}H", data, pos))
    for k, i in enumerate(cf.interface_indices):
        _expect_class(pool, i, "interface", pos + 2 * k)
    pos += 2 * icount
    cf.fields, pos = _read_members(data, pos, pool, Field, cf, attributes)
    cf.methods, pos = _read_members(data, pos, pool, Method, cf, attributes)
    cf.attributes, pos = read_attribute_list(data, pos, pool, keep=attributes)
    if pos != n:
        raise ClassFormatError(f"{n - pos} extra bytes after the end of the class file", offset=pos)
    cf.size = n
    return cf


def _expect_class(pool: ConstantPool, index: int, what: str, offset: int) -> None:
    tags = pool.tags
    if not 0 < index < len(tags) or tags[index] != 7:
        raise ClassFormatError(f"{what} index #{index} is not a Class constant", offset=offset)


def _read_members(
    data: bytes, pos: int, pool: ConstantPool, kind: type[Member], owner: ClassFile, with_attributes: bool = True
) -> tuple[list, int]:
    n = len(data)
    if pos + 2 > n:
        raise ClassFormatError(f"truncated before {kind.__name__.lower()}s_count", offset=pos)
    count = (data[pos] << 8) | data[pos + 1]
    pos += 2
    tags = pool.tags
    ntags = len(tags)
    members = []
    unpack = _MEMBER.unpack_from
    core = owner.core
    new = object.__new__
    m: Member
    for _ in range(count):
        if pos + 6 > n:
            raise ClassFormatError(f"truncated {kind.__name__.lower()}", offset=pos)
        access, name_index, desc_index = unpack(data, pos)
        if not (0 < name_index < ntags and tags[name_index] == 1):
            raise ClassFormatError(f"{kind.__name__.lower()} name index #{name_index} is not a Utf8", offset=pos + 2)
        if not (0 < desc_index < ntags and tags[desc_index] == 1):
            raise ClassFormatError(
                f"{kind.__name__.lower()} descriptor index #{desc_index} is not a Utf8", offset=pos + 4
            )
        attributes, pos = read_attribute_list(data, pos + 6, pool, keep=with_attributes)
        if _COMPILED:
            # (each class itself: a direct call, compiled)
            if kind is Method:
                m = Method(access, name_index, desc_index, attributes, core)
            elif kind is Field:
                m = Field(access, name_index, desc_index, attributes, core)
            else:
                m = kind(access, name_index, desc_index, attributes, core)
            members.append(m)
            continue
        m = new(kind)  # what kind(access, name_index, desc_index, attributes, owner) does
        m.access = access
        m.name_index = name_index
        m.descriptor_index = desc_index
        m.attributes = attributes
        m.core = core
        members.append(m)
    return members, pos
