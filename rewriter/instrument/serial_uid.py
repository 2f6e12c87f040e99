"""The default ``serialVersionUID`` of a class, and pinning it before a rewrite changes it.

Java serialisation identifies the version of a ``Serializable`` class by its
``serialVersionUID``. A class that does not declare one gets a default, a hash
of its name, modifiers, interfaces and non-private members (Java Object
Serialization Specification, section 4.6). A rewriter that adds members to such
a class changes that default, and data serialised by the original program no
longer deserialises in the rewritten one (``InvalidClassException: local class
incompatible``). The cure is to compute the default *before* rewriting and to
declare it explicitly: ``private static final long serialVersionUID = <value>``.

:func:`default_serial_version_uid` computes exactly what JDK 17's
``java.io.ObjectStreamClass.getSerialVersionUID()`` returns for a class without
an explicit UID, from the class file alone (the class is never loaded). The
details that differ from a first reading of the specification, all following
``ObjectStreamClass.computeDefaultSUID`` and HotSpot:

* The class modifiers are those of ``Class.getModifiers()``: for a member class
  these come from the class's own ``InnerClasses`` entry, not from the class
  file's ``access_flags`` (a ``protected`` nested class is ``ACC_PUBLIC`` in its
  class file but not public to reflection). They are masked with
  PUBLIC|FINAL|INTERFACE|ABSTRACT; an interface is ABSTRACT exactly when it
  declares a method (``<clinit>`` does not count).
* Interface names, class name and method/constructor descriptors are written
  with ``.`` for ``/``; *field* descriptors are written as they are, with ``/``.
* Names and descriptors are sorted as Java strings (UTF-16 code units) and
  written as ``DataOutput.writeUTF`` does (modified UTF-8).
* Fields: all but those that are private and (static or transient), modifiers
  masked with PUBLIC|PRIVATE|PROTECTED|STATIC|FINAL|VOLATILE|TRANSIENT, sorted
  by name (stably: two fields may share a name). Methods and constructors:
  non-private ones, modifiers masked with PUBLIC|PRIVATE|PROTECTED|STATIC|FINAL|
  SYNCHRONIZED|NATIVE|ABSTRACT|STRICT (so bridge, varargs and synthetic flags
  do not count), sorted by descriptor (constructors) or name then descriptor.
* ``<clinit>`` is written when the class declares a static initialiser.
* Enums (``java.lang.Enum`` subclasses, including the classes of constants
  with bodies) and records report ``0L`` unless they declare a UID (JDK 17
  ``ObjectStreamClass``; the UID of both is ignored when deserialising), so the
  field is never added to them. Neither is it added to interfaces: no stream
  contains an interface's class descriptor.
"""

from __future__ import annotations

import hashlib
import struct
from typing import TYPE_CHECKING

from ..classfile import attributes as attrs
from ..classfile import mutf8
from ..classfile.model import (
    ACC_ABSTRACT,
    ACC_ENUM,
    ACC_FINAL,
    ACC_INTERFACE,
    ACC_NATIVE,
    ACC_PRIVATE,
    ACC_PROTECTED,
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_STRICT,
    ACC_SUPER,
    ACC_SYNCHRONIZED,
    ACC_TRANSIENT,
    ACC_VOLATILE,
    ClassFile,
    Field,
)

if TYPE_CHECKING:
    from ..analysis.hierarchy import ClassHierarchy

__all__ = [
    "SERIALIZABLE",
    "UID_NAME",
    "is_serializable",
    "is_enum",
    "is_record",
    "has_explicit_uid",
    "explicit_uid_field",
    "explicit_uid_value",
    "class_modifiers",
    "suid_hash",
    "default_serial_version_uid",
    "serial_version_uid",
    "needs_serial_version_uid",
    "add_serial_version_uid",
    "pin_serial_version_uid",
]

SERIALIZABLE = "java/io/Serializable"
UID_NAME = "serialVersionUID"
_ENUM = "java/lang/Enum"
_RECORD = "java/lang/Record"

_CLASS_MASK = ACC_PUBLIC | ACC_FINAL | ACC_INTERFACE | ACC_ABSTRACT
_FIELD_MASK = ACC_PUBLIC | ACC_PRIVATE | ACC_PROTECTED | ACC_STATIC | ACC_FINAL | ACC_VOLATILE | ACC_TRANSIENT
_METHOD_MASK = (
    ACC_PUBLIC
    | ACC_PRIVATE
    | ACC_PROTECTED
    | ACC_STATIC
    | ACC_FINAL
    | ACC_SYNCHRONIZED
    | ACC_NATIVE
    | ACC_ABSTRACT
    | ACC_STRICT
)
# HotSpot's JVM_ACC_WRITTEN_FLAGS: what Class.getModifiers() can report at all.
_WRITTEN_FLAGS = 0x7FFF
# Field types Field.getLong accepts (widening from byte, short, char, int, long):
# ObjectStreamClass.getDeclaredSUID reads the UID with getLong and ignores a field it cannot read.
_LONG_READABLE = frozenset("JIBSC")


# ----------------------------------------------------------------------- questions
def is_serializable(cf: ClassFile, hierarchy: ClassHierarchy | None, *, assume_when_unknown: bool = False) -> bool:
    """Whether ``cf`` implements ``java.io.Serializable``, directly or through any supertype.

    Only the supertypes are looked up in ``hierarchy`` (``cf`` itself need not be
    in it, e.g. while it is being rewritten). When a supertype cannot be found
    the answer is unknown and ``assume_when_unknown`` is returned.
    """
    supers = ([cf.super_name] if cf.super_name else []) + cf.interfaces
    if cf.name == SERIALIZABLE or SERIALIZABLE in supers:
        return True
    if hierarchy is None:
        return assume_when_unknown
    unknown = False
    for s in supers:
        r = hierarchy.is_subtype(s, SERIALIZABLE)
        if r:
            return True
        if r is None:
            unknown = True
    return assume_when_unknown if unknown else False


def is_enum(cf: ClassFile, hierarchy: ClassHierarchy | None = None) -> bool:
    """Whether ``cf`` is a subclass of ``java.lang.Enum`` (an enum or an enum constant's body).

    This is ObjectStreamClass's test (``Enum.class.isAssignableFrom``), wider than
    ``Class.isEnum()``. Without a hierarchy, or when the superclass cannot be
    found, the superclass and ``ACC_ENUM`` decide: an enum's superclass is
    ``java.lang.Enum``, and javac marks a constant's body (whose superclass is
    the enum) ``ACC_ENUM``.
    """
    sup = cf.super_name
    if sup is None:
        return False
    if sup == _ENUM:
        return True
    if hierarchy is not None:
        r = hierarchy.is_subtype(sup, _ENUM)
        if r is not None:
            return r
    return bool(cf.access & ACC_ENUM)  # javac marks a constant's body ACC_ENUM too


def is_record(cf: ClassFile) -> bool:
    """``Class.isRecord()``: a direct subclass of ``java.lang.Record`` with a ``Record`` attribute."""
    return cf.super_name == _RECORD and any(cf.pool.utf8(a.name_index) == "Record" for a in cf.attributes)


def explicit_uid_field(cf: ClassFile) -> Field | None:
    """The field ObjectStreamClass takes the UID from: the first one named ``serialVersionUID``
    if it is static, final and of a type ``Field.getLong`` reads; otherwise None."""
    for f in cf.fields:
        if f.name == UID_NAME:
            # Class.getDeclaredField returns the first field of that name.
            if (f.access & (ACC_STATIC | ACC_FINAL)) == (ACC_STATIC | ACC_FINAL) and f.descriptor in _LONG_READABLE:
                return f
            return None
    return None


def explicit_uid_value(cf: ClassFile) -> int | None:
    """The value of the class's explicit UID when a ConstantValue attribute gives it (the
    usual ``static final long serialVersionUID = ...L``); None if there is none or it is
    assigned by the static initialiser."""
    f = explicit_uid_field(cf)
    if f is None:
        return None
    cv = f.attribute("ConstantValue")
    if not isinstance(cv, attrs.ConstantValue):
        return None
    value = getattr(cf.pool[cv.index], "value", None)
    if not isinstance(value, int):
        return None
    if f.descriptor == "C":
        return value & 0xFFFF
    return value


def has_explicit_uid(cf: ClassFile) -> bool:
    """Whether the class declares a ``serialVersionUID`` that serialisation uses."""
    return explicit_uid_field(cf) is not None


def _declares_uid_name(cf: ClassFile) -> bool:
    return any(f.name == UID_NAME for f in cf.fields)


def class_modifiers(cf: ClassFile) -> int:
    """``Class.getModifiers()``: the class's own InnerClasses flags if it is listed there,
    else its access_flags; without ACC_SUPER."""
    access = cf.access
    inner = cf.attribute("InnerClasses")
    if isinstance(inner, attrs.InnerClasses):
        name = cf.name
        pool = cf.pool
        for row in inner.rows:
            if row[0] and pool.class_name(row[0]) == name:
                access = row[3]
                break
    return access & ~ACC_SUPER & _WRITTEN_FLAGS


def _has_static_initializer(cf: ClassFile) -> bool:
    # JNI GetStaticMethodID(cl, "<clinit>", "()V") finds only the class's own; before
    # version 51 HotSpot treats <clinit> as static whatever its flags say.
    for m in cf.methods:
        if m.name == "<clinit>" and m.descriptor == "()V":
            return bool(m.access & ACC_STATIC) or cf.major < 51
    return False


# ----------------------------------------------------------------------- the hash
def _java_key(s: str) -> bytes:
    """Sort key ordering strings as Java's String.compareTo does (by UTF-16 code unit)."""
    return s.encode("utf-16-be", "surrogatepass")


class _DataOutput:
    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write_utf(self, s: str) -> None:
        data = mutf8.encode(s)
        if len(data) > 0xFFFF:
            # DataOutputStream.writeUTF throws; ObjectStreamClass turns that into InternalError.
            raise ValueError(f"string too long for writeUTF ({len(data)} bytes)")
        self.parts.append(struct.pack(">H", len(data)) + data)

    def write_int(self, v: int) -> None:
        self.parts.append(struct.pack(">i", v if v < 0x80000000 else v - 0x100000000))

    def getvalue(self) -> bytes:
        return b"".join(self.parts)


def suid_hash(cf: ClassFile) -> int:
    """The hash of JDK 17 ``ObjectStreamClass.computeDefaultSUID`` for ``cf``, as a signed long.

    This is the default UID of a serializable class that is not an enum or a
    record; see :func:`default_serial_version_uid` for the value serialisation uses.
    """
    out = _DataOutput()
    out.write_utf(cf.name.replace("/", "."))

    methods = [m for m in cf.methods if m.name not in ("<init>", "<clinit>")]
    class_mods = class_modifiers(cf) & _CLASS_MASK
    if class_mods & ACC_INTERFACE:
        # compensates an old javac bug: ABSTRACT only when the interface declares methods
        class_mods = (class_mods | ACC_ABSTRACT) if methods else (class_mods & ~ACC_ABSTRACT)
    out.write_int(class_mods)

    for name in sorted((n.replace("/", ".") for n in cf.interfaces), key=_java_key):
        out.write_utf(name)

    # Python's sort is stable, as is Java's Arrays.sort on objects.
    for f in sorted(cf.fields, key=lambda f: _java_key(f.name)):
        mods = f.access & _FIELD_MASK
        if not (mods & ACC_PRIVATE) or not (mods & (ACC_STATIC | ACC_TRANSIENT)):
            out.write_utf(f.name)
            out.write_int(mods)
            out.write_utf(f.descriptor)  # (sic: field descriptors keep their '/')

    if _has_static_initializer(cf):
        out.write_utf("<clinit>")
        out.write_int(ACC_STATIC)
        out.write_utf("()V")

    constructors = [m for m in cf.methods if m.name == "<init>"]
    for m in sorted(constructors, key=lambda m: _java_key(m.descriptor)):
        mods = m.access & _METHOD_MASK
        if not mods & ACC_PRIVATE:
            out.write_utf("<init>")
            out.write_int(mods)
            out.write_utf(m.descriptor.replace("/", "."))

    for m in sorted(methods, key=lambda m: (_java_key(m.name), _java_key(m.descriptor))):
        mods = m.access & _METHOD_MASK
        if not mods & ACC_PRIVATE:
            out.write_utf(m.name)
            out.write_int(mods)
            out.write_utf(m.descriptor.replace("/", "."))

    digest = hashlib.sha1(out.getvalue()).digest()
    return int.from_bytes(digest[:8], "little", signed=True)


def default_serial_version_uid(cf: ClassFile, hierarchy: ClassHierarchy | None) -> int:
    """The ``serialVersionUID`` JDK 17 reports for ``cf`` if it declares none (a signed long).

    0 for a class that is not serializable (as ObjectStreamClass computes it; an
    unknown answer from ``hierarchy`` counts as serializable, and without a
    hierarchy the class is assumed serializable), for enums and for records;
    otherwise the section 4.6 hash (:func:`suid_hash`). An explicit UID the class
    may declare is not consulted: this is the value it would get without one.
    """
    if hierarchy is not None and not is_serializable(cf, hierarchy, assume_when_unknown=True):
        return 0
    if is_enum(cf, hierarchy) or is_record(cf):
        return 0
    return suid_hash(cf)


def serial_version_uid(cf: ClassFile, hierarchy: ClassHierarchy | None) -> int | None:
    """The ``serialVersionUID`` JDK 17 uses for ``cf`` (what ``serialver`` prints): 0 for enums
    (even one declaring a UID), the declared UID if there is one, else the default. None when
    the declared UID is assigned by the static initialiser (no ConstantValue to read)."""
    if is_enum(cf, hierarchy):
        return 0
    if has_explicit_uid(cf):
        return explicit_uid_value(cf)
    return default_serial_version_uid(cf, hierarchy)


def needs_serial_version_uid(
    cf: ClassFile, hierarchy: ClassHierarchy | None, *, assume_when_unknown: bool = True
) -> bool:
    """Whether a rewrite that adds members to ``cf`` must pin its UID first.

    True for a serializable class (``assume_when_unknown`` when its supertypes
    cannot all be found) that is not an interface, an enum or a record, and
    declares no field named ``serialVersionUID`` (not even one serialisation
    ignores: adding a second field of that name would make a bad class).
    """
    if cf.is_interface() or _declares_uid_name(cf):
        return False
    if not is_serializable(cf, hierarchy, assume_when_unknown=assume_when_unknown):
        return False
    return not (is_enum(cf, hierarchy) or is_record(cf))


# ----------------------------------------------------------------------- editing
def add_serial_version_uid(cf: ClassFile, value: int) -> Field:
    """Add ``private static final long serialVersionUID = value`` (with a ConstantValue) to ``cf``.

    In an interface, whose fields must be public, the field is ``public static
    final``. Raises ValueError if the class already has a field of that name, or
    if ``value`` is not a signed 64-bit value.
    """
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError(f"serialVersionUID {value} is not a long")
    if _declares_uid_name(cf):
        raise ValueError(f"{cf.name} already declares a field named {UID_NAME}")
    pool = cf.pool
    access = (ACC_PUBLIC if cf.is_interface() else ACC_PRIVATE) | ACC_STATIC | ACC_FINAL
    cv = attrs.ConstantValue(pool.add_utf8("ConstantValue"), pool.add_long(value))
    f = Field(access, pool.add_utf8(UID_NAME), pool.add_utf8("J"), [cv], cf)
    cf.fields.append(f)
    return f


def pin_serial_version_uid(cf: ClassFile, hierarchy: ClassHierarchy | None) -> int | None:
    """Before a rewrite: declare ``cf``'s default UID explicitly if it needs one
    (:func:`needs_serial_version_uid`). Returns the value added, or None."""
    if not needs_serial_version_uid(cf, hierarchy):
        return None
    value = suid_hash(cf)
    add_serial_version_uid(cf, value)
    return value
