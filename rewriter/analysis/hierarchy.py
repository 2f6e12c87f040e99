"""Class hierarchy service: supertypes, members and JVMS method/field resolution for any class.

Instrumentation decisions depend on what a call site *resolves to* (an
application method that has an ESI twin, or JDK code that does not), so this
service answers the JVM's own questions the JVM's way (JVMS 17 5.4.3.2-5.4.3.4
resolution, 5.4.5 overriding, 5.4.6 selection), over the program's
jars/directories plus the JDK that will run it.

Classes are summarised (names, flags, member signatures) the first time they
are asked for; JDK summaries are additionally kept in an on-disk cache keyed by
the JDK build and the cache format, so a later run does not parse them again.

A class that cannot be found is recorded in :attr:`ClassHierarchy.missing`: a
program's class path is often incomplete, and that must not stop a rewrite.
A question whose answer depends on a missing class answers ``None`` (it is
never guessed from the part of the hierarchy that happens to be present);
one that can be answered before the missing class would be consulted is
answered normally, e.g. a method declared by a class whose superclass is
missing still resolves to that declaration.

This module belongs to the analysis layer and does not import
``jprewrite.archive``: sources are anything with ``find_class(name)`` that
returns class bytes, an object with ``read()`` giving them (such as the
``Entry`` of :meth:`jprewrite.archive.jars.Container.find_class`), or None.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import struct
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Protocol

from ..classfile.attributes import RawAttribute
from ..classfile.code import CodeAttribute
from ..classfile.model import (
    ACC_ABSTRACT,
    ACC_FINAL,
    ACC_INTERFACE,
    ACC_NATIVE,
    ACC_PRIVATE,
    ACC_PROTECTED,
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_VARARGS,
    read_class,
)
from ..errors import JprewriteError
from .leaves import ACC_JP_LEAF, declared_statics, is_leaf_code, statically_bound

__all__ = [
    "OBJECT",
    "CACHE_FORMAT_VERSION",
    "ClassSource",
    "MemberInfo",
    "ClassInfo",
    "summarize",
    "summary_of",
    "JdkSummaryCache",
    "ClassHierarchy",
    "default_cache_directory",
]

OBJECT = "java/lang/Object"
_ARRAY_INTERFACES = ("java/lang/Cloneable", "java/io/Serializable")
_POLYMORPHIC_OWNERS = ("java/lang/invoke/MethodHandle", "java/lang/invoke/VarHandle")

#: Version of the on-disk summary format; part of every cache file's name and
#: header. Bump it whenever :meth:`ClassInfo.to_tuple` or the file layout changes.
CACHE_FORMAT_VERSION = 3


class _Readable(Protocol):
    def read(self) -> bytes: ...


class ClassSource(Protocol):
    """Anything that can give a class by internal name: its bytes, an entry with ``read()``, or None."""

    def find_class(self, internal_name: str) -> bytes | _Readable | None: ...

    # optional: ``find_summary(internal_name)`` -> a ClassInfo.to_tuple() tuple or None, asked first;
    # ``class_names()`` -> every name ``find_class`` can find (a source whose contents never change):
    # the hierarchy then asks such a source only about the names it lists


@dataclass(frozen=True, slots=True)
class MemberInfo:
    owner: str
    name: str
    descriptor: str
    access: int

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(self, owner: str, name: str, descriptor: str, access: int) -> None:
        object.__setattr__(self, "owner", owner)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "descriptor", descriptor)
        object.__setattr__(self, "access", access)

    @property
    def is_static(self) -> bool:
        return bool(self.access & ACC_STATIC)

    @property
    def is_private(self) -> bool:
        return bool(self.access & ACC_PRIVATE)

    @property
    def is_public(self) -> bool:
        return bool(self.access & ACC_PUBLIC)

    @property
    def is_protected(self) -> bool:
        return bool(self.access & ACC_PROTECTED)

    @property
    def is_abstract(self) -> bool:
        return bool(self.access & ACC_ABSTRACT)

    def __str__(self) -> str:
        return f"{self.owner}.{self.name}{self.descriptor}"


@dataclass(frozen=True, slots=True)
class ClassInfo:
    """What hierarchy questions need to know about one class."""

    name: str
    super_name: str | None
    interfaces: tuple[str, ...]
    access: int
    major: int
    methods: tuple[MemberInfo, ...]
    fields: tuple[MemberInfo, ...]
    from_jdk: bool = False

    @property
    def is_interface(self) -> bool:
        return bool(self.access & ACC_INTERFACE)

    def declared_method(self, name: str, descriptor: str) -> MemberInfo | None:
        for m in self.methods:
            if m.name == name and m.descriptor == descriptor:
                return m
        return None

    def declared_field(self, name: str, descriptor: str) -> MemberInfo | None:
        for f in self.fields:
            if f.name == name and f.descriptor == descriptor:
                return f
        return None

    # compact form for the on-disk cache
    def to_tuple(self) -> tuple:
        return (
            self.name,
            self.super_name,
            self.interfaces,
            self.access,
            self.major,
            tuple((m.name, m.descriptor, m.access) for m in self.methods),
            tuple((f.name, f.descriptor, f.access) for f in self.fields),
        )

    @classmethod
    def from_tuple(cls, t: tuple, from_jdk: bool) -> ClassInfo:
        """Inverse of :meth:`to_tuple`; ValueError if ``t`` is not such a tuple (e.g. a damaged cache)."""
        if not _valid_summary(t):
            raise ValueError("not a class summary")
        name = t[0]
        return cls(
            name,
            t[1],
            tuple(t[2]),
            t[3],
            t[4],
            tuple(MemberInfo(name, n, d, a) for n, d, a in t[5]),
            tuple(MemberInfo(name, n, d, a) for n, d, a in t[6]),
            from_jdk,
        )


def _valid_summary(t: object) -> bool:
    if not (isinstance(t, tuple) and len(t) == 7):
        return False
    name, sup, ifaces, access, major, methods, fields = t
    if not (
        isinstance(name, str)
        and (sup is None or isinstance(sup, str))
        and isinstance(access, int)
        and isinstance(major, int)
        and isinstance(ifaces, tuple)
        and all(isinstance(i, str) for i in ifaces)
    ):
        return False
    for members in (methods, fields):
        if not isinstance(members, tuple):
            return False
        for m in members:
            if not (
                isinstance(m, tuple)
                and len(m) == 3
                and isinstance(m[0], str)
                and isinstance(m[1], str)
                and isinstance(m[2], int)
            ):
                return False
    return True


def summarize(data: bytes, *, from_jdk: bool = False) -> ClassInfo:
    """Summarise class bytes (parses the pool lazily; no code is decoded: an application class's
    attributes are kept raw, so that its leaf methods can be marked, :mod:`.leaves`)."""
    return summary_of(read_class(data, check_version=False, attributes=not from_jdk), from_jdk=from_jdk)


def summary_of(cf, *, from_jdk: bool = False) -> ClassInfo:
    """The summary of a class already read (before it is edited); an application class's leaf
    methods carry :data:`~.leaves.ACC_JP_LEAF` in their access (none when read without attributes)."""
    name = cf.name
    class_access = cf.access
    fields = tuple(MemberInfo(name, f.name, f.descriptor, f.access) for f in cf.fields)
    own_fields: frozenset[tuple[str, str]] | None = None
    methods = []
    for m in cf.methods:
        access = m.access
        mname = m.name
        if not from_jdk and statically_bound(class_access, access, mname):
            code = _code_bytes(m, cf.pool)
            if code is not None:
                if own_fields is None:
                    own_fields = declared_statics(fields)
                if is_leaf_code(code, cf.pool, name, own_fields):
                    access |= ACC_JP_LEAF
        methods.append(MemberInfo(name, mname, m.descriptor, access))
    return ClassInfo(
        name, cf.super_name, tuple(cf.interfaces), class_access, cf.major, tuple(methods), fields, from_jdk
    )


def _code_bytes(m, pool) -> bytes | None:
    """The code array of method ``m``'s Code attribute, decoded or raw; None without one."""
    for a in m.attributes:
        if type(a) is CodeAttribute:
            return a.code
        if type(a) is RawAttribute and pool.utf8(a.name_index) == "Code":
            data = a.data
            if len(data) < 8:
                return None
            length = int.from_bytes(data[4:8], "big")
            return data[8 : 8 + length] if 8 + length <= len(data) else None
    return None


def _array_info(name: str) -> ClassInfo:
    """Array classes (JVMS 4.10.1.2 / JLS 10.8): subclasses of Object implementing Cloneable, Serializable."""
    return ClassInfo(name, OBJECT, _ARRAY_INTERFACES, ACC_PUBLIC | ACC_FINAL | ACC_ABSTRACT, 0, (), (), True)


# ---------------------------------------------------------------------------
# On-disk cache of JDK summaries
# ---------------------------------------------------------------------------

_CACHE_MAGIC = b"jprwJDKS"
_CACHE_HEADER = struct.Struct(">8sH32s")  # magic, format version, sha256 of the payload
_ABSENT = "absent"  # lookup(): known not to be in this JDK


def default_cache_directory() -> Path | None:
    """``$XDG_CACHE_HOME/jprewrite`` or ``~/.cache/jprewrite``; None if there is no home to use."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "jprewrite"
    try:
        return Path.home() / ".cache" / "jprewrite"
    except (RuntimeError, KeyError, OSError):
        return None


def cache_file_name(build_id: str) -> str:
    """File name of the cache for one JDK build: readable label + hash of the exact id + format version."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-._+") else "_" for c in build_id)[:80]
    digest = hashlib.sha256(build_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"jdk-summaries-v{CACHE_FORMAT_VERSION}-{safe}-{digest}.marshal"


class JdkSummaryCache:
    """Summaries of JDK classes, persisted per JDK build (and cache format) under a cache directory.

    The file records, for one JDK build, the summaries of the classes asked for
    so far, the classes known *not* to be in that JDK, and the packages it does
    not have (so application classes need no image lookup once the cache is
    warm). It is a hint, never a source of truth for anything but itself: a
    missing, truncated, corrupt or foreign file (another build or format) is
    ignored and rewritten; writes go to a temporary file renamed over the old
    one (atomic, so concurrent writers never produce a torn file), after
    merging what other writers saved in the meantime. Failing to read or write
    it is never an error for the user.
    """

    FORMAT_VERSION: ClassVar[int] = CACHE_FORMAT_VERSION

    def __init__(self, build_id: str, directory: str | os.PathLike[str] | None = None) -> None:
        self.build_id = build_id
        base = Path(directory) if directory is not None else default_cache_directory()
        self.path: Path | None = None if base is None else base / cache_file_name(build_id)
        self._classes: dict[str, tuple | None] | None = None  # None value = not in this JDK
        self._packages: dict[str, bool] = {}  # False = package not in this JDK
        self._dirty = False

    # -- file format
    def _encode(self, classes: dict, packages: dict) -> bytes:
        payload = marshal.dumps(
            {"format": CACHE_FORMAT_VERSION, "build": self.build_id, "classes": classes, "packages": packages}
        )
        return _CACHE_HEADER.pack(_CACHE_MAGIC, CACHE_FORMAT_VERSION, hashlib.sha256(payload).digest()) + payload

    def _read_file(self) -> tuple[dict, dict] | None:
        """(classes, packages) from the file, or None if it is absent, damaged or not ours."""
        if self.path is None:
            return None
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        try:
            if len(data) < _CACHE_HEADER.size:
                return None
            magic, version, digest = _CACHE_HEADER.unpack_from(data, 0)
            payload = data[_CACHE_HEADER.size :]
            if magic != _CACHE_MAGIC or version != CACHE_FORMAT_VERSION or hashlib.sha256(payload).digest() != digest:
                return None
            loaded = marshal.loads(payload)
            if not (
                isinstance(loaded, dict)
                and loaded.get("format") == CACHE_FORMAT_VERSION
                and loaded.get("build") == self.build_id
            ):
                return None
            classes, packages = loaded.get("classes"), loaded.get("packages")
            if not (isinstance(classes, dict) and isinstance(packages, dict)):
                return None
            # Entries are validated one by one when used (ClassInfo.from_tuple).
            return (
                {k: v for k, v in classes.items() if isinstance(k, str)},
                {k: v for k, v in packages.items() if isinstance(k, str) and isinstance(v, bool)},
            )
        except Exception:  # noqa: BLE001 - whatever a damaged file makes marshal raise
            return None

    def _load(self) -> dict[str, tuple | None]:
        if self._classes is None:
            loaded = self._read_file()
            self._classes, self._packages = loaded if loaded is not None else ({}, {})
        return self._classes

    # -- queries
    def lookup(self, name: str) -> tuple | str | None:
        """The summary tuple of ``name``, ``"absent"`` if it is known not to be in the JDK, else None."""
        classes = self._load()
        if name in classes:
            value = classes[name]
            return _ABSENT if value is None else value
        if self._packages.get(name.rpartition("/")[0]) is False:
            return _ABSENT
        return None

    def get(self, name: str) -> tuple | None:
        """The summary tuple of ``name`` if cached."""
        value = self.lookup(name)
        return value if isinstance(value, tuple) else None

    def put(self, name: str, value: tuple) -> None:
        classes = self._load()
        if classes.get(name) != value:
            classes[name] = value
            self._dirty = True

    def put_absent(self, name: str) -> None:
        """Record that the JDK has no class ``name``."""
        classes = self._load()
        if name not in classes or classes[name] is not None:
            classes[name] = None
            self._dirty = True

    def put_package(self, package: str, present: bool) -> None:
        """Record whether the JDK has package ``package`` (internal form, e.g. ``java/util``)."""
        self._load()
        if self._packages.get(package) is not present:
            self._packages[package] = present
            self._dirty = True

    def forget(self, name: str) -> None:
        """Drop a (damaged) entry."""
        if self._load().pop(name, 0) != 0:
            self._dirty = True

    def __len__(self) -> int:
        return len(self._load())

    # -- persistence
    def save(self) -> None:
        """Merge with the file's current content and replace it atomically; never raises OSError."""
        if not self._dirty or self._classes is None or self.path is None:
            return
        tmp: str | None = None
        try:
            on_disk = self._read_file()
            classes, packages = on_disk if on_disk is not None else ({}, {})
            classes.update(self._classes)
            packages.update(self._packages)
            data = self._encode(classes, packages)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-jdk-summaries-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self.path)
            tmp = None
            self._classes, self._packages = classes, packages
            self._dirty = False
        except (OSError, ValueError):
            pass
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass


# ---------------------------------------------------------------------------
# The hierarchy
# ---------------------------------------------------------------------------


class _MissingClass(Exception):
    """Raised inside ``ClassHierarchy.resolve_field``'s search when a class it must search is missing."""


class ClassHierarchy:
    """Answers hierarchy questions over application sources and the JDK.

    ``sources`` are searched in order (like a class path); ``jdk`` (an object
    with ``find_class`` and ``build_id``, optionally ``module_of_package``, e.g.
    :class:`jprewrite.archive.jdk_image.JdkImage`) is searched first, as the
    JVM's boot loader is consulted first.  ``cache`` is the on-disk cache of
    JDK summaries: by default one in :func:`default_cache_directory` keyed by
    ``jdk.build_id``; pass ``False`` for none.  Call :meth:`save_cache` (or use
    the hierarchy as a context manager) to persist what was learnt.
    """

    def __init__(
        self,
        sources: Iterable[ClassSource] = (),
        jdk: ClassSource | None = None,
        *,
        cache: JdkSummaryCache | None | bool = None,
    ) -> None:
        self.sources = list(sources)
        self.jdk = jdk
        #: which sources to ask about a name (see :meth:`_sources_for`); built on the first search
        self._listed: dict[str, list[int]] | None = None
        self._unlisted: list[int] = []
        self._infos: dict[str, ClassInfo | None] = {}
        self.missing: set[str] = set()
        self.broken: dict[str, str] = {}
        if cache is None and jdk is not None:
            try:
                build_id = getattr(jdk, "build_id", None)
            except (JprewriteError, OSError):
                build_id = None
            cache = JdkSummaryCache(build_id) if isinstance(build_id, str) and build_id else None
        self.cache: JdkSummaryCache | None = cache if isinstance(cache, JdkSummaryCache) else None

    def __enter__(self) -> ClassHierarchy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.save_cache()

    # --------------------------------------------------------------- lookup
    def info(self, name: str) -> ClassInfo | None:
        """Summary of class ``name`` (internal name or array descriptor), or None if it cannot be found or read."""
        try:
            return self._infos[name]
        except KeyError:
            pass
        info = self._find(name)
        self._infos[name] = info
        if info is None and name not in self.broken:
            self.missing.add(name)
        return info

    def _find(self, name: str) -> ClassInfo | None:
        if name.startswith("["):
            return _array_info(name)
        if self.jdk is not None:
            info = self._find_in_jdk(name)
            if info is not None or name in self.broken:
                return info
        for source in self._sources_for(name):
            find_summary = getattr(source, "find_summary", None)
            if find_summary is not None:  # a source that keeps summaries (ClassInfo.to_tuple form)
                summary = find_summary(name)
                if summary is not None:
                    try:
                        info = ClassInfo.from_tuple(summary, False)
                    except ValueError:
                        info = None
                    if info is not None and info.name == name:
                        return info
            try:
                found = source.find_class(name)
                if found is None:
                    continue
                data = found if isinstance(found, (bytes, bytearray, memoryview)) else found.read()
            except (JprewriteError, OSError) as e:
                self.broken[name] = str(e)
                return None
            return self._summarize(name, data, False)
        return None

    def _sources_for(self, name: str) -> list[ClassSource]:
        """The sources that may hold ``name``, in class-path order.

        A source with ``class_names()`` is asked only about the names it lists, the others about
        every name. Asking every container of a long class path in turn cost the agent's worker
        minutes on one of 2,600 jars (a question per class and container); the index is built once,
        from the containers' own indexes.
        """
        listed = self._listed
        if listed is None:
            listed = {}
            unlisted: list[int] = []
            for i, source in enumerate(self.sources):
                class_names = getattr(source, "class_names", None)
                if class_names is None:
                    unlisted.append(i)
                    continue
                for n in class_names():
                    at = listed.get(n)
                    if at is None:
                        listed[n] = [i]
                    elif at[-1] != i:
                        at.append(i)
            self._listed, self._unlisted = listed, unlisted
        at = listed.get(name)
        if not self._unlisted:
            return [self.sources[i] for i in at] if at is not None else []
        if at is None:
            return [self.sources[i] for i in self._unlisted]
        return [self.sources[i] for i in sorted([*self._unlisted, *at])]

    def _find_in_jdk(self, name: str) -> ClassInfo | None:
        jdk, cache = self.jdk, self.cache
        assert jdk is not None
        if cache is not None:
            cached = cache.lookup(name)
            if cached == _ABSENT:
                return None
            if isinstance(cached, tuple):
                try:
                    summary = ClassInfo.from_tuple(cached, True)
                    if summary.name == name:
                        return summary
                except ValueError:
                    pass
                cache.forget(name)  # damaged entry: read the image again
        try:
            module_of_package = getattr(jdk, "module_of_package", None)
            if module_of_package is not None:
                package = name.rpartition("/")[0]
                if module_of_package(package) is None:
                    if cache is not None:
                        cache.put_package(package, False)
                    return None
            found = jdk.find_class(name)
            if found is not None and not isinstance(found, (bytes, bytearray, memoryview)):
                found = found.read()
        except (JprewriteError, OSError) as e:
            self.broken[name] = str(e)
            return None
        if found is None:
            if cache is not None:
                cache.put_absent(name)
            return None
        info = self._summarize(name, found, True)
        if info is not None and cache is not None:
            cache.put(name, info.to_tuple())
        return info

    def _summarize(self, name: str, data: bytes, from_jdk: bool) -> ClassInfo | None:
        try:
            info = summarize(data, from_jdk=from_jdk)
        except JprewriteError as e:
            self.broken[name] = str(e)
            return None
        if info.name != name:  # the JVM refuses such a class (NoClassDefFoundError: wrong name)
            self.broken[name] = f"file for {name} defines {info.name}"
            return None
        return info

    def add(self, info: ClassInfo) -> bool:
        """Register a class known by other means (e.g. one being rewritten right now).

        True when the class had been asked for before and was not found (answers that depended
        on its absence may be out of date).
        """
        was_absent = info.name in self._infos and self._infos[info.name] is None
        self._infos[info.name] = info
        self.missing.discard(info.name)
        self.broken.pop(info.name, None)
        return was_absent

    def save_cache(self) -> None:
        if self.cache is not None:
            self.cache.save()

    # ------------------------------------------------------------ supertypes
    def _walk(self, name: str) -> Iterator[ClassInfo | None]:
        """The class and its superclasses upwards, found lazily; a final None if one is missing."""
        seen: set[str] = set()
        current: str | None = name
        while current is not None and current not in seen:
            seen.add(current)
            info = self.info(current)
            yield info
            if info is None:
                return
            current = info.super_name

    def _chain(self, name: str) -> tuple[list[ClassInfo], bool]:
        """The class and its superclasses upwards; and whether the chain is complete (nothing missing)."""
        out: list[ClassInfo] = []
        for info in self._walk(name):
            if info is None:
                return out, False
            out.append(info)
        return out, True

    def _superinterfaces(self, name: str) -> tuple[list[ClassInfo], bool]:
        """All superinterfaces of ``name`` (direct or not, also through superclasses); complete flag."""
        out: dict[str, ClassInfo] = {}
        complete = True

        def visit(iface: str) -> None:
            nonlocal complete
            if iface in out:
                return
            info = self.info(iface)
            if info is None:
                complete = False
                return
            out[iface] = info
            for sup in info.interfaces:
                visit(sup)

        chain, chain_complete = self._chain(name)
        for cls in chain:
            for iface in cls.interfaces:
                visit(iface)
        if chain and chain[0].is_interface:
            out.pop(name, None)
        return list(out.values()), complete and chain_complete

    def superclasses(self, name: str) -> Iterator[ClassInfo]:
        """The class itself, then its superclasses upwards, as far as they can be found."""
        yield from self._chain(name)[0]

    def all_superinterfaces(self, name: str) -> list[ClassInfo]:
        """Every interface ``name`` implements, directly or not (each once, in discovery order)."""
        return self._superinterfaces(name)[0]

    def is_subtype(self, sub: str, sup: str) -> bool | None:
        """Whether ``sub`` is assignable to ``sup`` (classes, interfaces, arrays); None if unknown."""
        if sub == sup or sup == OBJECT:
            return True
        if sub.startswith("["):
            if sup in _ARRAY_INTERFACES:
                return True
            if not sup.startswith("["):
                return False
            a, b = sub[1:], sup[1:]
            if not a or not b:
                return False
            if a[0] in "L[" and b[0] in "L[":
                return self.is_subtype(a[1:-1] if a[0] == "L" else a, b[1:-1] if b[0] == "L" else b)
            return a == b
        if sup.startswith("["):
            return False
        chain, complete = self._chain(sub)
        if any(cls.name == sup for cls in chain):
            return True
        ifaces, ifaces_complete = self._superinterfaces(sub)
        if any(i.name == sup for i in ifaces):
            return True
        return False if complete and ifaces_complete else None

    # ------------------------------------------------------------ resolution
    def resolve_method(self, owner: str, name: str, descriptor: str) -> MemberInfo | None:
        """JVMS 5.4.3.3: resolve a Methodref (a class ``owner``).

        None when ``owner`` is an interface (IncompatibleClassChangeError), when
        nothing matches (NoSuchMethodError), or when the answer depends on a
        missing class (then in :attr:`missing`).
        """
        c = self.info(owner)
        if c is None or c.is_interface:
            return None
        # Step 2: the class and its superclasses (signature-polymorphic methods first).
        for cls in self._walk(owner):
            if cls is None:
                return None
            found = self._polymorphic(cls, name) or cls.declared_method(name, descriptor)
            if found is not None:
                return found
        # Step 3: the superinterfaces.
        return self._lookup_in_superinterfaces(owner, name, descriptor)

    def resolve_interface_method(self, owner: str, name: str, descriptor: str) -> MemberInfo | None:
        """JVMS 5.4.3.4: resolve an InterfaceMethodref (an interface ``owner``); None as for resolve_method."""
        c = self.info(owner)
        if c is None or not c.is_interface:
            return None
        found = c.declared_method(name, descriptor)  # any: static and private too
        if found is not None:
            return found
        obj = self.info(OBJECT)
        if obj is None:
            return None
        m = obj.declared_method(name, descriptor)
        if m is not None and m.is_public and not m.is_static:
            return m
        return self._lookup_in_superinterfaces(owner, name, descriptor)

    def resolve_any_method(self, owner: str, name: str, descriptor: str, interface: bool) -> MemberInfo | None:
        if interface:
            return self.resolve_interface_method(owner, name, descriptor)
        return self.resolve_method(owner, name, descriptor)

    def resolve_field(self, owner: str, name: str, descriptor: str) -> MemberInfo | None:
        """JVMS 5.4.3.2: the class, then its direct superinterfaces (recursively, in order), then its superclass.

        None if no field matches or a class that must be searched is missing.
        """
        seen: set[str] = set()

        def lookup(cname: str) -> MemberInfo | None:
            if cname in seen:  # already searched without success
                return None
            seen.add(cname)
            info = self.info(cname)
            if info is None:
                raise _MissingClass
            f = info.declared_field(name, descriptor)
            if f is not None:
                return f
            for iface in info.interfaces:
                f = lookup(iface)
                if f is not None:
                    return f
            return lookup(info.super_name) if info.super_name else None

        try:
            return lookup(owner)
        except _MissingClass:
            return None

    def _polymorphic(self, cls: ClassInfo, name: str) -> MemberInfo | None:
        """The signature-polymorphic method ``name`` of MethodHandle/VarHandle (JVMS 2.9.3), if ``cls`` is one.

        Applies when the class declares exactly one method of that name, with a
        single ``Object[]`` parameter and ACC_VARARGS and ACC_NATIVE set.
        """
        if cls.name not in _POLYMORPHIC_OWNERS:
            return None
        candidates = [m for m in cls.methods if m.name == name]
        if len(candidates) == 1:
            m = candidates[0]
            if (m.access & (ACC_VARARGS | ACC_NATIVE)) == (ACC_VARARGS | ACC_NATIVE) and m.descriptor.startswith(
                "([Ljava/lang/Object;)"
            ):
                return m
        return None

    def maximally_specific_methods(self, cls: str, name: str, descriptor: str) -> list[MemberInfo] | None:
        """JVMS 5.4.3.3: the maximally-specific superinterface methods of ``cls``; None if that needs a missing class.

        Those declared in a superinterface of ``cls``, neither private nor
        static, with no other such method declared in a subinterface of theirs.
        """
        ifaces, complete = self._superinterfaces(cls)
        if not complete:
            return None
        candidates = []
        for iface in ifaces:
            m = iface.declared_method(name, descriptor)
            if m is not None and not m.is_private and not m.is_static:
                candidates.append(m)
        if len(candidates) < 2:
            return candidates
        supers = {m.owner: {i.name for i in self._superinterfaces(m.owner)[0]} for m in candidates}
        return [m for m in candidates if not any(o.owner != m.owner and m.owner in supers[o.owner] for o in candidates)]

    def _lookup_in_superinterfaces(self, owner: str, name: str, descriptor: str) -> MemberInfo | None:
        """Steps 3 of 5.4.3.3 / 4-5 of 5.4.3.4.

        The only non-abstract maximally-specific method if there is exactly one;
        otherwise the JVMS allows any non-private non-static superinterface
        method: a maximally-specific one is preferred (abstract or, with
        conflicting defaults, the first found; HotSpot then links to a hidden
        method that throws AbstractMethodError/IncompatibleClassChangeError).
        """
        maximal = self.maximally_specific_methods(owner, name, descriptor)
        if not maximal:
            return None
        concrete = [m for m in maximal if not m.is_abstract]
        if len(concrete) == 1:
            return concrete[0]
        return maximal[0]

    # ------------------------------------------------------------ overriding and selection
    def _same_runtime_package(self, a: str, b: str) -> bool:
        """Same package name and (approximately) same defining loader: JDK classes vs the application."""
        if _package(a) != _package(b):
            return False
        ia, ib = self.info(a), self.info(b)
        return ia is not None and ib is not None and ia.from_jdk == ib.from_jdk

    def can_override(self, mc: MemberInfo, ma: MemberInfo) -> bool:
        """JVMS 5.4.5: whether instance method ``mc`` can override instance method ``ma``.

        Includes the transitive case: a package-private ``ma`` in class A is
        overridden by ``mc`` in a subclass C in another run-time package if some
        ``mb`` in a class B between them can override ``ma`` and ``mc`` can
        override ``mb``.
        """
        if mc.name != ma.name or mc.descriptor != ma.descriptor or mc.is_static or ma.is_static:
            return False
        if mc.owner == ma.owner:
            return True  # the same declaration
        if mc.is_private or ma.is_private:
            return False
        if ma.access & (ACC_PUBLIC | ACC_PROTECTED):
            return True
        if self._same_runtime_package(mc.owner, ma.owner):
            return True
        chain = [c.name for c in self._chain(mc.owner)[0]]
        if ma.owner not in chain:
            return False
        for b in chain[1 : chain.index(ma.owner)]:
            info = self.info(b)
            mb = info.declared_method(ma.name, ma.descriptor) if info is not None else None
            if mb is not None and self.can_override(mc, mb) and self.can_override(mb, ma):
                return True
        return False

    def select_method(self, receiver: str, resolved: MemberInfo) -> MemberInfo | None:
        """JVMS 5.4.6: the method invokevirtual/invokeinterface runs for an object of class ``receiver``.

        The result may be abstract (a class's abstract method overriding the
        resolved one: the invocation throws AbstractMethodError) or, for
        invokeinterface, not public (IllegalAccessError). None when no method
        is selected (AbstractMethodError, or IncompatibleClassChangeError for
        conflicting defaults), when ``resolved`` is static, or when the answer
        depends on a missing class (then in :attr:`missing`).
        """
        if resolved.is_static:
            return None
        if resolved.is_private:
            return resolved
        for cls in self._walk(receiver):
            if cls is None:
                return None
            m = cls.declared_method(resolved.name, resolved.descriptor)
            if m is not None and not m.is_static and self.can_override(m, resolved):
                return m
        maximal = self.maximally_specific_methods(receiver, resolved.name, resolved.descriptor)
        if maximal is None:
            return None
        concrete = [m for m in maximal if not m.is_abstract]
        return concrete[0] if len(concrete) == 1 else None


def _package(name: str) -> str:
    return name.rpartition("/")[0]
