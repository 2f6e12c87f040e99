"""Class hierarchy service: supertypes, members and JVMS method/field resolution for any class.

Instrumentation decisions depend on what a call site *resolves to* (an
application method that has an ESI twin, or JDK code that does not), so this
service answers the JVM's own questions the JVM's way (JVMS 5.4.3.2-5.4.3.4),
over the program's jars/directories plus the JDK that will run it.

Classes are summarised (names, flags, member signatures) the first time they
are asked for; JDK summaries are additionally kept in an on-disk cache keyed by
the JDK build, so a later run does not parse them again. A class that cannot be
found is recorded in :attr:`ClassHierarchy.missing` and answers ``None``: a
program's class path is often incomplete, and that must not stop a rewrite.
"""

from __future__ import annotations

import marshal
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Protocol

from ..errors import JprewriteError
from ..classfile.model import (ACC_ABSTRACT, ACC_INTERFACE, ACC_NATIVE, ACC_PRIVATE, ACC_STATIC,
                               ACC_VARARGS, read_class)

OBJECT = "java/lang/Object"


class ClassSource(Protocol):
    """Anything that can give the bytes of a class by internal name."""

    def find_class(self, internal_name: str) -> bytes | None: ...


@dataclass(frozen=True, slots=True)
class MemberInfo:
    owner: str
    name: str
    descriptor: str
    access: int

    @property
    def is_static(self) -> bool:
        return bool(self.access & ACC_STATIC)

    @property
    def is_private(self) -> bool:
        return bool(self.access & ACC_PRIVATE)

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
        return (self.name, self.super_name, self.interfaces, self.access, self.major,
                tuple((m.name, m.descriptor, m.access) for m in self.methods),
                tuple((f.name, f.descriptor, f.access) for f in self.fields))

    @classmethod
    def from_tuple(cls, t: tuple, from_jdk: bool) -> "ClassInfo":
        name = t[0]
        return cls(name, t[1], tuple(t[2]), t[3], t[4],
                   tuple(MemberInfo(name, n, d, a) for n, d, a in t[5]),
                   tuple(MemberInfo(name, n, d, a) for n, d, a in t[6]), from_jdk)


def summarize(data: bytes, *, from_jdk: bool = False) -> ClassInfo:
    """Summarise class bytes (parses the pool lazily; no code is decoded)."""
    cf = read_class(data, check_version=False)
    name = cf.name
    return ClassInfo(
        name, cf.super_name, tuple(cf.interfaces), cf.access, cf.major,
        tuple(MemberInfo(name, m.name, m.descriptor, m.access) for m in cf.methods),
        tuple(MemberInfo(name, f.name, f.descriptor, f.access) for f in cf.fields),
        from_jdk)


class JdkSummaryCache:
    """Summaries of JDK classes, persisted per JDK build under the user's cache directory."""

    def __init__(self, build_id: str, directory: Path | None = None) -> None:
        base = directory or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jprewrite"
        safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in build_id)[:150]
        self.path = base / f"jdk-summaries-{safe}.marshal"
        self._entries: dict[str, tuple] | None = None
        self._dirty = False

    def _load(self) -> dict[str, tuple]:
        if self._entries is None:
            try:
                with open(self.path, "rb") as f:
                    loaded = marshal.load(f)
                self._entries = loaded if isinstance(loaded, dict) else {}
            except (OSError, EOFError, ValueError, TypeError):
                self._entries = {}  # a missing or damaged cache is rebuilt, never fatal
        return self._entries

    def get(self, name: str) -> tuple | None:
        return self._load().get(name)

    def put(self, name: str, value: tuple) -> None:
        self._load()[name] = value
        self._dirty = True

    def save(self) -> None:
        """Write atomically; failure to write a cache is not an error for the user."""
        if not self._dirty or self._entries is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-jdk-")
            with os.fdopen(fd, "wb") as f:
                marshal.dump(self._entries, f)
            os.replace(tmp, self.path)
            self._dirty = False
        except OSError:
            pass


class ClassHierarchy:
    """Answers hierarchy questions over application sources and the JDK.

    ``sources`` are searched in order (like a class path); ``jdk`` (an object
    with ``find_class`` and ``build_id``, e.g. :class:`jprewrite.archive.jdk_image.JdkImage`)
    is searched first, as the JVM's boot loader is consulted first.
    """

    def __init__(self, sources: Iterable[ClassSource] = (), jdk: ClassSource | None = None,
                 *, cache: JdkSummaryCache | None = None) -> None:
        self.sources = list(sources)
        self.jdk = jdk
        self._infos: dict[str, ClassInfo | None] = {}
        self.missing: set[str] = set()
        self.broken: dict[str, str] = {}
        if cache is None and jdk is not None and getattr(jdk, "build_id", None):
            cache = JdkSummaryCache(jdk.build_id)  # type: ignore[attr-defined]
        self.cache = cache

    # --------------------------------------------------------------- lookup
    def info(self, name: str) -> ClassInfo | None:
        """Summary of class ``name`` (internal name), or None if it cannot be found or read."""
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
            return None
        if self.jdk is not None:
            if self.cache is not None:
                cached = self.cache.get(name)
                if cached is not None:
                    return ClassInfo.from_tuple(cached, True)
            data = self.jdk.find_class(name)
            if data is not None:
                info = self._summarize(name, data, True)
                if info is not None and self.cache is not None:
                    self.cache.put(name, info.to_tuple())
                return info
        for source in self.sources:
            data = source.find_class(name)
            if data is not None:
                return self._summarize(name, data, False)
        return None

    def _summarize(self, name: str, data: bytes, from_jdk: bool) -> ClassInfo | None:
        try:
            return summarize(data, from_jdk=from_jdk)
        except JprewriteError as e:
            self.broken[name] = str(e)
            return None

    def add(self, info: ClassInfo) -> None:
        """Register a class known by other means (e.g. one being rewritten right now)."""
        self._infos[info.name] = info

    def save_cache(self) -> None:
        if self.cache is not None:
            self.cache.save()

    # ------------------------------------------------------------ supertypes
    def superclasses(self, name: str) -> Iterator[ClassInfo]:
        """The class itself, then its superclasses upwards, as far as they can be found."""
        seen = set()
        current: str | None = name
        while current is not None and current not in seen:
            seen.add(current)
            info = self.info(current)
            if info is None:
                return
            yield info
            current = info.super_name

    def all_superinterfaces(self, name: str) -> list[ClassInfo]:
        """Every interface ``name`` implements, directly or not (each once, in discovery order)."""
        out: dict[str, ClassInfo] = {}

        def visit(iface: str) -> None:
            if iface in out:
                return
            info = self.info(iface)
            if info is None:
                return
            out[iface] = info
            for sup in info.interfaces:
                visit(sup)

        for cls in self.superclasses(name):
            for iface in cls.interfaces:
                visit(iface)
        start = self.info(name)
        if start is not None and start.is_interface:
            out.pop(name, None)
        return list(out.values())

    def is_subtype(self, sub: str, sup: str) -> bool | None:
        """Whether ``sub`` is assignable to ``sup`` (classes/interfaces); None if unknown."""
        if sub == sup or sup == OBJECT:
            return True
        incomplete = False
        for cls in self.superclasses(sub):
            if cls.name == sup:
                return True
            if cls.super_name is not None and self.info(cls.super_name) is None:
                incomplete = True
        if any(i.name == sup for i in self.all_superinterfaces(sub)):
            return True
        return None if incomplete or self.info(sub) is None else False

    # ------------------------------------------------------------ resolution
    def resolve_method(self, owner: str, name: str, descriptor: str) -> MemberInfo | None:
        """JVMS 5.4.3.3: resolve a Methodref. None if classes are missing or nothing matches."""
        c = self.info(owner)
        if c is None:
            return None
        if c.is_interface:
            return None  # IncompatibleClassChangeError at run time
        for cls in self.superclasses(owner):
            found = self._polymorphic(cls, name) or cls.declared_method(name, descriptor)
            if found is not None:
                return found
        return self._superinterface_method(owner, name, descriptor)

    def resolve_interface_method(self, owner: str, name: str, descriptor: str) -> MemberInfo | None:
        """JVMS 5.4.3.4: resolve an InterfaceMethodref."""
        c = self.info(owner)
        if c is None or not c.is_interface:
            return None
        found = c.declared_method(name, descriptor)
        if found is not None:
            return found
        obj = self.info(OBJECT)
        if obj is not None:
            m = obj.declared_method(name, descriptor)
            if m is not None and m.access & 0x0001 and not m.is_static:
                return m
        return self._superinterface_method(owner, name, descriptor)

    def resolve_any_method(self, owner: str, name: str, descriptor: str,
                           interface: bool) -> MemberInfo | None:
        if interface:
            return self.resolve_interface_method(owner, name, descriptor)
        return self.resolve_method(owner, name, descriptor)

    def resolve_field(self, owner: str, name: str, descriptor: str) -> MemberInfo | None:
        """JVMS 5.4.3.2: the class, then its superinterfaces (recursively), then its superclass."""
        seen: set[str] = set()

        def lookup(cname: str) -> MemberInfo | None:
            if cname in seen:
                return None
            seen.add(cname)
            info = self.info(cname)
            if info is None:
                return None
            f = info.declared_field(name, descriptor)
            if f is not None:
                return f
            for iface in info.interfaces:
                f = lookup(iface)
                if f is not None:
                    return f
            return lookup(info.super_name) if info.super_name else None

        return lookup(owner)

    def _polymorphic(self, cls: ClassInfo, name: str) -> MemberInfo | None:
        """Signature-polymorphic methods of MethodHandle/VarHandle (JVMS 2.9.3)."""
        if cls.name not in ("java/lang/invoke/MethodHandle", "java/lang/invoke/VarHandle"):
            return None
        candidates = [m for m in cls.methods if m.name == name]
        if len(candidates) == 1:
            m = candidates[0]
            if (m.access & (ACC_VARARGS | ACC_NATIVE)) == (ACC_VARARGS | ACC_NATIVE) and \
                    m.descriptor.startswith("([Ljava/lang/Object;)"):
                return m
        return None

    def _superinterface_method(self, owner: str, name: str, descriptor: str) -> MemberInfo | None:
        """Maximally-specific superinterface method, else any non-private non-static one."""
        candidates = []
        for iface in self.all_superinterfaces(owner):
            m = iface.declared_method(name, descriptor)
            if m is not None and not m.is_private and not m.is_static:
                candidates.append(m)
        if not candidates:
            return None
        maximal = [m for m in candidates
                   if not any(o is not m and o.owner != m.owner and self.is_subtype(o.owner, m.owner)
                              for o in candidates)]
        concrete = [m for m in maximal if not m.is_abstract]
        if len(concrete) == 1:
            return concrete[0]
        return maximal[0] if maximal else candidates[0]

    # ------------------------------------------------------------ selection
    def select_method(self, receiver: str, resolved: MemberInfo) -> MemberInfo | None:
        """JVMS 5.4.6: the method invokevirtual/invokeinterface runs for a receiver class.

        None when the answer depends on missing classes.
        """
        if resolved.is_private:
            return resolved
        for cls in self.superclasses(receiver):
            m = cls.declared_method(resolved.name, resolved.descriptor)
            if m is not None and not m.is_static and self._overrides(m, resolved):
                return m
        return self._superinterface_method(receiver, resolved.name, resolved.descriptor)

    def _overrides(self, m: MemberInfo, resolved: MemberInfo) -> bool:
        """JVMS 5.4.5 (simplified to the transitive-free cases that decide real programs)."""
        if m.owner == resolved.owner:
            return True
        if m.is_private:
            return False
        if resolved.access & (0x0001 | 0x0004):  # public or protected
            return True
        return _package(m.owner) == _package(resolved.owner)


def _package(name: str) -> str:
    return name.rpartition("/")[0]
