"""Containers of class files (jars/zips, directory trees, single class files) and their output.

Reading: :func:`open_container` looks at the *content* (``PK`` or ``CAFEBABE``)
rather than the file name, because build tools name jars freely (``.jar``,
``.war``, ``.zip``, ``.ear``, no extension at all).  Opening a jar reads only
its central directory; entry bytes are read when asked for, so walking the
class index of a 100 MB jar is cheap.

Writing: :class:`JarWriter` / :class:`DirectoryWriter` (and the one-call
helpers :func:`write_jar`, :func:`write_directory`, :func:`rewrite_container`)
keep everything the input had -- order, names, timestamps, compression method,
comments, attributes, manifest, resources, ``module-info.class``,
multi-release entries -- and copy unchanged zip entries as raw compressed
bytes.  Output replaces its target atomically (temporary file or directory
next to it, fsync, rename) so that an interrupted or failed run never leaves a
half-written jar where the JVM will pick it up, and never touches the input.

Signed jars: rewriting classes invalidates the signature and a jar with a
stale signature fails to load (``SecurityException: SHA-256 digest error``),
so output drops the signature files and the per-entry digests from the
manifest, and says so through the ``warn`` callback.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
import struct
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import BinaryIO, Self, Union

from ..errors import ArchiveError, ClassFormatError
from .zipformat import (
    DEFLATED,
    FLAG_UTF8,
    STORED,
    ZipReader,
    ZipRecord,
    ZipWriter,
    dos_datetime,
    find_end_record,
    pread_fn,
    read_fully,
)

__all__ = [
    "open_container",
    "Container",
    "ZipContainer",
    "DirectoryContainer",
    "ClassFileContainer",
    "Entry",
    "ZipEntry",
    "FileEntry",
    "Manifest",
    "Attributes",
    "MANIFEST_NAME",
    "JarWriter",
    "DirectoryWriter",
    "write_jar",
    "write_directory",
    "rewrite_container",
    "ArchiveWarning",
    "is_signature_file",
    "split_release",
    "ReleaseView",
    "STORED",
    "DEFLATED",
]

MANIFEST_NAME = "META-INF/MANIFEST.MF"
_VERSIONS_PREFIX = "META-INF/versions/"
_CLASS_MAGIC = b"\xca\xfe\xba\xbe"
_O_BINARY = getattr(os, "O_BINARY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

WarnCallback = Callable[[str], None]


class ArchiveWarning(UserWarning):
    """Issued (when no ``warn`` callback is given) for lossy but deliberate output changes."""


def _default_warn(message: str) -> None:
    warnings.warn(message, ArchiveWarning, stacklevel=4)


def _os_error_message(e: OSError) -> str:
    if isinstance(e, FileNotFoundError):
        return "no such file or directory"
    if isinstance(e, PermissionError):
        return "permission denied"
    return e.strerror or str(e)


# =========================================================================== names


def split_release(name: str) -> tuple[int | None, str]:
    """``META-INF/versions/11/a/B.class`` -> ``(11, "a/B.class")``; anything else -> ``(None, name)``."""
    if name.startswith(_VERSIONS_PREFIX):
        rest = name[len(_VERSIONS_PREFIX) :]
        slash = rest.find("/")
        if slash > 0:
            number = rest[:slash]
            if number.isascii() and number.isdigit():
                return int(number), rest[slash + 1 :]
    return None, name


def is_signature_file(name: str) -> bool:
    """True for jar signature files, by the JDK's rule (``SignatureFileVerifier.isSigningRelated``).

    Only files directly in ``META-INF/`` count: ``*.SF``, ``*.RSA``, ``*.DSA``,
    ``*.EC`` and ``SIG-*``, case-insensitively.
    """
    upper = name.upper()
    if not upper.startswith("META-INF/"):
        return False
    base = upper[9:]
    if not base or "/" in base:
        return False
    return base.endswith((".SF", ".RSA", ".DSA", ".EC")) or base.startswith("SIG-")


def _is_manifest_name(name: str) -> bool:
    # The JDK finds the manifest case-insensitively.
    return len(name) == len(MANIFEST_NAME) and name.upper() == MANIFEST_NAME


# =========================================================================== manifest

_ATTR_NAME = re.compile(r"[A-Za-z0-9_-]{1,70}\Z")
_EOL = re.compile(rb"\r\n|\r|\n")
_LINE_BYTES = 72


class Attributes(MutableMapping[str, str]):
    """One manifest section: ordered, with case-insensitive names like ``java.util.jar.Attributes``.

    Assigning to an existing name keeps the original spelling and position.
    """

    def __init__(self, items: Iterable[tuple[str, str]] = ()) -> None:
        self._data: dict[str, tuple[str, str]] = {}
        for key, value in items:
            self[key] = value

    def __getitem__(self, key: str) -> str:
        return self._data[key.lower()][1]

    def __setitem__(self, key: str, value: str) -> None:
        if not isinstance(key, str) or not _ATTR_NAME.match(key):
            raise ValueError(f"invalid manifest attribute name {key!r} (1-70 of A-Z a-z 0-9 _ -)")
        if not isinstance(value, str) or any(c in value for c in "\r\n\0"):
            raise ValueError(f"invalid manifest attribute value {value!r} (no CR, LF or NUL)")
        lower = key.lower()
        old = self._data.get(lower)
        self._data[lower] = (old[0] if old else key, value)

    def __delitem__(self, key: str) -> None:
        del self._data[key.lower()]

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self._data.values())

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.lower() in self._data

    def snapshot(self) -> tuple[tuple[str, str], ...]:
        """(name as spelled, value) in order: what :attr:`Manifest.is_modified` compares."""
        return tuple(self._data.values())

    def __repr__(self) -> str:
        return f"Attributes({list(self._data.values())!r})"


class Manifest:
    """A ``META-INF/MANIFEST.MF``: main attributes plus named sections, order preserved.

    :meth:`to_bytes` returns the original bytes untouched when nothing was
    changed (tools such as jarsigner compare manifest bytes, and there is no
    reason to churn a file we did not mean to edit); otherwise it writes the
    standard form: ``Name: value`` lines wrapped at 72 bytes with one-space
    continuation lines (never splitting a UTF-8 character), sections separated
    by blank lines, the input's line terminator (CRLF by default).
    """

    def __init__(
        self,
        main: Iterable[tuple[str, str]] = (),
        sections: Iterable[tuple[str, Iterable[tuple[str, str]]]] = (),
        *,
        newline: bytes = b"\r\n",
    ) -> None:
        self.main = Attributes(main)
        self.sections: dict[str, Attributes] = {name: Attributes(attrs) for name, attrs in sections}
        self.newline = newline
        self._original: bytes | None = None
        self._original_state: object = None

    # -- parsing

    @classmethod
    def parse(cls, data: bytes, *, path: str | None = None, entry: str | None = MANIFEST_NAME) -> Manifest:
        """Parse manifest bytes with the JDK's rules; ArchiveError (with byte offset) if malformed.

        Continuation lines are joined as bytes before decoding, because older
        writers cut lines at 72 bytes even inside a multi-byte character.
        Repeated attribute names: the last wins; repeated sections merge (as in the JDK).
        """

        def fail(message: str, offset: int) -> ArchiveError:
            return ArchiveError(f"malformed manifest: {message}", path=path, entry=entry, offset=offset)

        newline = b"\r\n"
        blocks: list[list[tuple[bytes, bytearray, int]]] = []
        current: list[tuple[bytes, bytearray, int]] | None = None
        pos, size = 0, len(data)
        first_eol = True
        while pos < size:
            m = _EOL.search(data, pos)
            if m:
                line, next_pos = data[pos : m.start()], m.end()
                if first_eol:
                    newline, first_eol = m.group(), False
            else:
                line, next_pos = data[pos:], size
            if not line:
                if current is not None:
                    blocks.append(current)
                    current = None
                elif not blocks:
                    blocks.append([])  # manifest starts with a blank line: empty main section
            elif line[:1] == b" ":
                if not current:
                    raise fail("continuation line without an attribute before it", pos)
                current[-1][1].extend(line[1:])
            else:
                sep = line.find(b": ")
                if sep <= 0:
                    raise fail(f"expected 'Name: value', got {line[:40]!r}", pos)
                if current is None:
                    current = []
                current.append((line[:sep], bytearray(line[sep + 2 :]), pos))
            pos = next_pos
        if current is not None:
            blocks.append(current)

        def decode(block: list[tuple[bytes, bytearray, int]]) -> list[tuple[str, str]]:
            out = []
            for raw_key, raw_value, offset in block:
                try:
                    key = raw_key.decode("ascii")
                    value = bytes(raw_value).decode("utf-8")
                except UnicodeDecodeError:
                    raise fail("attribute is not valid UTF-8", offset) from None
                if not _ATTR_NAME.match(key):
                    raise fail(f"invalid attribute name {key!r}", offset)
                if "\0" in value:
                    raise fail("NUL in attribute value", offset)
                out.append((key, value))
            return out

        manifest = cls(newline=newline)
        for key, value in decode(blocks[0]) if blocks else ():
            manifest.main[key] = value
        for block in blocks[1:]:
            items = decode(block)
            if items[0][0].lower() != "name":
                raise fail(f"section does not start with 'Name:' (starts with {items[0][0]!r})", block[0][2])
            section = manifest.sections.setdefault(items[0][1], Attributes())
            for key, value in items[1:]:
                section[key] = value
        manifest._original = bytes(data)
        manifest._original_state = manifest._state()
        return manifest

    # -- state and output

    def _state(self) -> object:
        return (self.main.snapshot(), tuple((n, a.snapshot()) for n, a in self.sections.items()), self.newline)

    @property
    def is_modified(self) -> bool:
        """True when :meth:`to_bytes` would not return the parsed bytes."""
        return self._original is None or self._state() != self._original_state

    def to_bytes(self) -> bytes:
        if not self.is_modified:
            assert self._original is not None
            return self._original
        nl = self.newline
        out = bytearray()
        main = list(self.main.items())
        main.sort(key=lambda kv: kv[0].lower() != "manifest-version")  # stable: version first, as the JDK
        for key, value in main:
            out += _wrap72(f"{key}: {value}".encode(), nl)
        out += nl
        for name, attrs in self.sections.items():
            out += _wrap72(f"Name: {name}".encode(), nl)
            for key, value in attrs.items():
                if key.lower() != "name":
                    out += _wrap72(f"{key}: {value}".encode(), nl)
            out += nl
        return bytes(out)

    def strip_digests(self) -> bool:
        """Remove per-entry signature digests (``*-Digest``, ``*-Digest-Manifest*``) from named sections.

        Sections left without attributes are dropped; main attributes and
        other per-entry attributes stay.  Returns True if anything changed.
        """
        changed = False
        for name in list(self.sections):
            attrs = self.sections[name]
            doomed = [k for k in attrs if _is_digest_attribute(k)]
            if not doomed:
                continue
            changed = True
            for key in doomed:
                del attrs[key]
            if not attrs:
                del self.sections[name]
        return changed

    def __repr__(self) -> str:
        return f"<Manifest main={len(self.main)} attributes, {len(self.sections)} sections>"


def _is_digest_attribute(key: str) -> bool:
    lower = key.lower()
    return lower.endswith("-digest") or "-digest-manifest" in lower


def _wrap72(line: bytes, nl: bytes) -> bytes:
    """Wrap one header line at 72 bytes; continuation lines are a space plus up to 71 bytes."""
    if len(line) <= _LINE_BYTES:
        return line + nl
    parts = []
    pos, width = 0, _LINE_BYTES
    while pos < len(line):
        end = min(len(line), pos + width)
        if end < len(line):
            while end > pos + 1 and (line[end] & 0xC0) == 0x80:  # do not cut inside a UTF-8 sequence
                end -= 1
        parts.append(line[pos:end] if pos == 0 else b" " + line[pos:end])
        pos, width = end, _LINE_BYTES - 1
    return nl.join(parts) + nl


# =========================================================================== entries


class Entry:
    """One file or directory of a container; bytes are read on demand with :meth:`read`.

    ``name`` is zip style (``/`` separators, directories end with ``/``).
    ``class_name`` is the internal class name derived from the path, with the
    multi-release prefix removed (``release`` then holds the version).
    ``shadowed``: a later entry of the same container has the same name (zips may repeat names;
    the JVM reads the last one), so lookups never give this entry and rewriting leaves it as it is.
    """

    __slots__ = ("name", "container", "is_dir", "is_class", "release", "class_name", "shadowed")

    def __init__(self, name: str, container: Container) -> None:
        self.name = name
        self.container = container
        self.is_dir = name.endswith("/")
        release, rest = split_release(name)
        self.release: int | None = release
        self.is_class = not self.is_dir and name.endswith(".class")
        self.class_name: str | None = rest[:-6] if self.is_class else None
        self.shadowed = False

    @property
    def is_module_info(self) -> bool:
        return self.class_name == "module-info"

    @property
    def is_manifest(self) -> bool:
        return _is_manifest_name(self.name)

    @property
    def is_signature_file(self) -> bool:
        return is_signature_file(self.name)

    def read(self) -> bytes:
        raise NotImplementedError

    # Metadata used when an entry is written to a jar.
    @property
    def date_time(self) -> tuple[int, int, int, int, int, int]:
        raise NotImplementedError

    @property
    def compress_type(self) -> int:
        raise NotImplementedError

    @property
    def comment(self) -> bytes:
        return b""

    @property
    def external_attr(self) -> int:
        return 0x10 if self.is_dir else 0

    @property
    def file_size(self) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} in {self.container.path!r}>"


class ZipEntry(Entry):
    """An entry of a jar/zip; ``record`` is its central directory record."""

    __slots__ = ("record",)

    def __init__(self, record: ZipRecord, container: ZipContainer) -> None:
        super().__init__(record.name, container)
        self.record = record

    def read(self) -> bytes:
        container = self.container
        assert isinstance(container, ZipContainer)
        return container.open_reader().read(self.record)

    @property
    def date_time(self) -> tuple[int, int, int, int, int, int]:
        return self.record.date_time

    @property
    def compress_type(self) -> int:
        return self.record.compress_type

    @property
    def comment(self) -> bytes:
        return self.record.comment

    @property
    def external_attr(self) -> int:
        return self.record.external_attr

    @property
    def file_size(self) -> int:
        return self.record.file_size


class FileEntry(Entry):
    """A file or directory on disk (directory containers, single class files)."""

    __slots__ = ("fs_path", "_mtime", "_size")

    def __init__(self, name: str, container: Container, fs_path: str, mtime: float, size: int) -> None:
        super().__init__(name, container)
        self.fs_path = fs_path
        self._mtime = mtime
        self._size = size

    def read(self) -> bytes:
        if self.is_dir:
            return b""
        try:
            fd = os.open(self.fs_path, os.O_RDONLY | _O_BINARY | _O_CLOEXEC)
            with open(fd, "rb", closefd=True) as f:
                return f.read()
        except OSError as e:
            raise ArchiveError(
                f"cannot read: {_os_error_message(e)}", path=self.container.path, entry=self.name
            ) from None

    @property
    def date_time(self) -> tuple[int, int, int, int, int, int]:
        t = time.localtime(self._mtime)  # zip timestamps are local time, as the jar tool writes them
        return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec)

    @property
    def compress_type(self) -> int:
        return STORED if self.is_dir else DEFLATED

    @property
    def file_size(self) -> int:
        return 0 if self.is_dir else self._size


# =========================================================================== containers


class Container:
    """Entries of a jar, directory or class file, in their original order, with lookups.

    Use as a context manager (or call :meth:`close`) to release the file.
    """

    kind = ""

    def __init__(self, path: str) -> None:
        self.path = path
        self._entries: list[Entry] = []
        self._by_name: dict[str, Entry] = {}
        self._base_classes: dict[str, Entry] | None = None
        self._versioned_classes: dict[str, list[tuple[int, Entry]]] = {}
        self._manifest: Manifest | None = None
        self._manifest_read = False
        self._signature_files: tuple[str, ...] | None = None

    def _set_entries(self, entries: list[Entry]) -> None:
        """Index ``entries`` by name; of a repeated name the last one counts, as in the JVM's ``ZipFile``."""
        self._entries = entries
        by_name: dict[str, Entry] = {}
        for e in entries:
            previous = by_name.get(e.name)
            if previous is not None:
                previous.shadowed = True
            by_name[e.name] = e
        self._by_name = by_name

    # -- access

    def entries(self) -> Iterator[Entry]:
        """All entries in original order (zip central directory order; sorted walk for directories)."""
        return iter(self._entries)

    __iter__ = entries

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def entry(self, name: str) -> Entry | None:
        return self._by_name.get(name)

    def get(self, name: str) -> bytes | None:
        """Bytes of the entry called ``name``, or None when there is no such entry."""
        e = self._by_name.get(name)
        return None if e is None else e.read()

    def find_class(self, internal_name: str, release: int | None = None) -> Entry | None:
        """The entry defining ``internal_name`` (e.g. ``com/acme/Foo``), as the JVM would pick it.

        ``release=None`` gives the base entry.  With a release, a multi-release
        jar (manifest ``Multi-Release: true``) yields the entry of the highest
        ``META-INF/versions/N`` with 9 <= N <= release, else the base entry --
        the rule of ``java.util.jar.JarFile``.  Directories are never versioned:
        the JVM's class path reads ``META-INF/versions`` only inside jars.
        """
        if self._base_classes is None:
            self._build_class_index()
        assert self._base_classes is not None
        if release is not None and self.has_versioned_classes:
            for version, e in self._versioned_classes.get(internal_name, ()):
                if 9 <= version <= release:
                    return e
        return self._base_classes.get(internal_name)

    def class_names(self) -> Iterable[str]:
        """Every name :meth:`find_class` can find, at any release (``ClassSource.class_names``: the
        class hierarchy indexes a long class path by it instead of asking every container)."""
        if self._base_classes is None:
            self._build_class_index()
        assert self._base_classes is not None
        return [*self._base_classes, *(n for n in self._versioned_classes if n not in self._base_classes)]

    @property
    def has_versioned_classes(self) -> bool:
        """True for a multi-release jar with class entries under ``META-INF/versions/N``: a JVM of
        release N or later loads those in place of the base entries."""
        if self._base_classes is None:
            self._build_class_index()
        return bool(self._versioned_classes) and self.kind == "jar" and self.is_multi_release

    def at_release(self, release: int) -> ReleaseView:
        """The classes as a JVM of feature version ``release`` loads them (see :meth:`find_class`)."""
        return ReleaseView(self, release)

    def _build_class_index(self) -> None:
        base: dict[str, Entry] = {}
        versioned: dict[str, list[tuple[int, Entry]]] = {}
        for e in self._entries:
            if not e.is_class or e.shadowed:
                continue
            assert e.class_name is not None
            if e.release is None:
                base.setdefault(e.class_name, e)
            else:
                versioned.setdefault(e.class_name, []).append((e.release, e))
        for versions in versioned.values():
            versions.sort(key=lambda item: -item[0])
        self._versioned_classes = versioned
        self._base_classes = base

    # -- jar metadata

    def manifest_entry(self) -> Entry | None:
        e = self._by_name.get(MANIFEST_NAME)
        if e is None:
            e = next((x for x in self._entries if x.is_manifest), None)
        return e

    def manifest(self) -> Manifest | None:
        """The parsed manifest (cached), or None; ArchiveError if it is malformed."""
        if not self._manifest_read:
            e = self.manifest_entry()
            self._manifest = None if e is None else Manifest.parse(e.read(), path=self.path, entry=e.name)
            self._manifest_read = True
        return self._manifest

    @property
    def is_multi_release(self) -> bool:
        m = self.manifest()
        return m is not None and m.main.get("Multi-Release", "").strip().lower() == "true"

    @property
    def signature_files(self) -> tuple[str, ...]:
        if self._signature_files is None:
            self._signature_files = tuple(e.name for e in self._entries if e.is_signature_file)
        return self._signature_files

    @property
    def is_signed(self) -> bool:
        return bool(self.signature_files)

    @property
    def comment(self) -> bytes:
        """The zip archive comment (b"" for other containers)."""
        return b""

    @property
    def preamble(self) -> bytes:
        """Bytes before the zip data, e.g. the launcher script of an executable jar (b"" if none)."""
        return b""

    # -- lifetime

    def close(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.path!r}, {len(self._entries)} entries>"


class ReleaseView:
    """A class source over one container, seen by a JVM of one feature version.

    Multi-release jars hold several copies of a class; which one runs depends on the JVM's
    release, and so do the questions the rewriting plan asks of the class (its methods, its
    supertypes). The plan for that JVM reads the classes through this view.
    """

    __slots__ = ("container", "release")

    def __init__(self, container: Container, release: int) -> None:
        self.container = container
        self.release = release

    def find_class(self, internal_name: str) -> Entry | None:
        return self.container.find_class(internal_name, self.release)

    def class_names(self) -> Iterable[str]:
        return self.container.class_names()

    def __repr__(self) -> str:
        return f"<ReleaseView {self.container.path!r} at {self.release}>"


class ZipContainer(Container):
    """A jar/zip file (any name; recognized by content)."""

    kind = "jar"

    def __init__(self, path: str, fd: int, size: int) -> None:
        super().__init__(path)
        self._reader: ZipReader | None = ZipReader(path, fd, size)
        self._comment = self._reader.comment
        self._set_entries([ZipEntry(rec, self) for rec in self._reader.records])
        self._preamble: bytes | None = None

    def open_reader(self) -> ZipReader:
        """The reader of the open file (entries and the jar writer's raw copies read through it)."""
        if self._reader is None:
            raise ValueError(f"{self.path}: container is closed")
        return self._reader

    @property
    def comment(self) -> bytes:
        return self._comment

    @property
    def preamble(self) -> bytes:
        if self._preamble is None:
            self._preamble = self.open_reader().read_preamble()
        return self._preamble

    def close(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()


class DirectoryContainer(Container):
    """A directory tree of class files and resources (a class path directory).

    The tree is listed once at open (so that output written later next to or
    into it does not change what we read); file contents are read on demand.
    Order: ``META-INF/`` and the manifest first (as the jar tool does, which
    ``JarInputStream`` needs), then a depth-first walk in sorted name order.
    Symbolic links are followed (the JVM follows them too), with loop
    protection; sockets, FIFOs and broken links are not class path content and
    are skipped.
    """

    kind = "directory"

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self._set_entries(self._walk())

    def _walk(self) -> list[Entry]:
        root = self.path
        entries: list[Entry] = []
        visited: set[tuple[int, int]] = set()

        def children(fs_dir: str, rel: str) -> list[tuple[str, str, bool, os.stat_result]]:
            try:
                st = os.stat(fs_dir)
                key = (st.st_dev, st.st_ino)
                if key in visited:  # symlink loop
                    return []
                visited.add(key)
                with os.scandir(fs_dir) as it:
                    items = sorted(it, key=lambda d: d.name)
            except OSError as e:
                raise ArchiveError(
                    f"cannot list directory: {_os_error_message(e)}", path=root, entry=rel or None
                ) from None
            out = []
            for d in items:
                try:
                    st = d.stat()  # follows symlinks
                except OSError:
                    continue  # broken symlink or vanished file
                if stat.S_ISDIR(st.st_mode):
                    out.append((rel + d.name + "/", d.path, True, st))
                elif stat.S_ISREG(st.st_mode):
                    out.append((rel + d.name, d.path, False, st))
            return out

        stack = list(reversed(children(root, "")))
        while stack:
            name, fs_path, is_dir, st = stack.pop()
            entries.append(FileEntry(name, self, fs_path, st.st_mtime, st.st_size))
            if is_dir:
                stack.extend(reversed(children(fs_path, name)))
        front = [e for e in entries if e.name == "META-INF/" or e.is_manifest]
        if front:
            front.sort(key=lambda e: not e.is_dir)
            ids = {id(e) for e in front}
            entries = front + [e for e in entries if id(e) not in ids]
        return entries


class ClassFileContainer(Container):
    """A single ``.class`` file; its entry is named after the class it defines (``com/acme/Foo.class``)."""

    kind = "class"

    def __init__(self, path: str, data: bytes, mtime: float) -> None:
        super().__init__(path)
        internal = _class_file_name(data, path)
        self._set_entries([FileEntry(internal + ".class", self, path, mtime, len(data))])


def _class_file_name(data: bytes, path: str) -> str:
    """The internal name of the class a class file defines (``this_class``), reading only the constant pool."""
    u2 = struct.Struct(">H").unpack_from
    pos = 10
    try:
        if len(data) < 10 or data[:4] != _CLASS_MAGIC:
            raise ClassFormatError("truncated class file header", path=path, offset=min(len(data), 10))
        count = u2(data, 8)[0]
        utf8: dict[int, bytes] = {}
        classes: dict[int, int] = {}
        index = 1
        while index < count:
            tag = data[pos]
            if tag == 1:
                n = u2(data, pos + 1)[0]
                if pos + 3 + n > len(data):
                    raise IndexError
                utf8[index] = data[pos + 3 : pos + 3 + n]
                pos += 3 + n
            elif tag == 7:
                classes[index] = u2(data, pos + 1)[0]
                pos += 3
            elif tag in (3, 4, 9, 10, 11, 12, 17, 18):
                pos += 5
            elif tag in (5, 6):
                pos += 9
                index += 1
            elif tag in (8, 16, 19, 20):
                pos += 3
            elif tag == 15:
                pos += 4
            else:
                raise ClassFormatError(f"bad constant pool tag {tag}", path=path, offset=pos)
            index += 1
        this_class = u2(data, pos + 2)[0]
    except (IndexError, struct.error):
        raise ClassFormatError("truncated class file (constant pool)", path=path, offset=min(pos, len(data))) from None
    raw = utf8.get(classes.get(this_class, -1))
    if raw is None:
        raise ClassFormatError(f"this_class #{this_class} is not a class constant", path=path, offset=pos + 2)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ClassFormatError("class name is not valid UTF-8", path=path, offset=pos + 2) from None


def open_container(path: str | os.PathLike[str]) -> Container:
    """Open a jar/zip (by content, also behind a launcher script), a class directory or a class file.

    Raises ArchiveError naming the path for a missing or unreadable path and
    for content that is neither a zip archive nor a class file.
    """
    fs_path = os.fspath(path)
    try:
        st = os.stat(fs_path)
    except OSError as e:
        raise ArchiveError(f"cannot open: {_os_error_message(e)}", path=fs_path) from None
    if stat.S_ISDIR(st.st_mode):
        if not os.access(fs_path, os.R_OK | os.X_OK):
            raise ArchiveError("cannot open: permission denied", path=fs_path)
        return DirectoryContainer(fs_path)
    if not stat.S_ISREG(st.st_mode):
        raise ArchiveError("not a regular file or directory", path=fs_path)
    try:
        fd = os.open(fs_path, os.O_RDONLY | _O_BINARY | _O_CLOEXEC)
    except OSError as e:
        raise ArchiveError(f"cannot open: {_os_error_message(e)}", path=fs_path) from None
    handed_over = False
    try:
        size = os.fstat(fd).st_size
        read_at = pread_fn(fd)
        head = read_at(0, 4)
        if head[:2] == b"PK":
            handed_over = True
            return ZipContainer(fs_path, fd, size)
        if head == _CLASS_MAGIC:
            return ClassFileContainer(fs_path, read_fully(read_at, 0, size), st.st_mtime)
        # Executable jars carry a launcher script before the zip data: look for the end record.
        if size and find_end_record(fs_path, read_at, size, required=False):
            handed_over = True
            return ZipContainer(fs_path, fd, size)
        what = "empty file" if not size else f"starts with {head!r}"
        raise ArchiveError(f"neither a jar/zip archive nor a class file ({what})", path=fs_path, offset=0)
    except OSError as e:
        raise ArchiveError(f"read error: {_os_error_message(e)}", path=fs_path) from None
    finally:
        if not handed_over:
            os.close(fd)


# =========================================================================== output


def _realpath(p: str) -> str:
    return os.path.normcase(os.path.realpath(p))


def _is_within(child: str, parent: str) -> bool:
    return child == parent or child.startswith(parent.rstrip(os.sep) + os.sep)


def _same_file(a: str, b: str) -> bool:
    try:
        if os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b):
            return True
    except OSError:
        pass
    return _realpath(a) == _realpath(b)


def _fsync_dir(path: str) -> None:
    """Make a rename durable; not possible on every platform, so best effort."""
    try:
        fd = os.open(path, os.O_RDONLY | _O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_name(parent: str, target: str, suffix: str) -> str:
    base = os.path.basename(target.rstrip(os.sep))[:120]
    return os.path.join(parent, f".{base}.{secrets.token_hex(4)}{suffix}")


def _discard_file(stream: BinaryIO, tmp: str) -> None:
    try:
        stream.close()
    except Exception:
        pass
    try:
        os.unlink(tmp)
    except OSError:
        pass


class _AtomicFile:
    """A temporary file next to ``target`` that replaces it on :meth:`commit` (fsync + os.replace).

    A finalizer removes the temporary file if the object is dropped without
    commit (exception paths the caller did not handle, interpreter exit).
    """

    def __init__(self, target: str, *, fsync: bool) -> None:
        self.target = target
        self._fsync = fsync
        self.parent = os.path.dirname(target) or os.curdir
        if os.path.isdir(target):
            raise ArchiveError("cannot write: output path is a directory", path=target)
        if not os.path.isdir(self.parent):
            raise ArchiveError(f"cannot write: directory {self.parent} does not exist", path=target)
        for _ in range(100):
            tmp = _temp_name(self.parent, target, ".tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY | _O_CLOEXEC, 0o666)
                break
            except FileExistsError:
                continue
            except OSError as e:
                raise ArchiveError(
                    f"cannot create temporary output file: {_os_error_message(e)}", path=target
                ) from None
        else:  # pragma: no cover - 100 random collisions
            raise ArchiveError("cannot create temporary output file", path=target)
        self.tmp = tmp
        self.stream = open(fd, "wb", buffering=1 << 20)
        self._finalizer = weakref.finalize(self, _discard_file, self.stream, tmp)

    def commit(self) -> None:
        try:
            self.stream.flush()
            if self._fsync:
                os.fsync(self.stream.fileno())
            self.stream.close()
            try:  # replacing a file: keep its permissions (umask applies to new files)
                os.chmod(self.tmp, stat.S_IMODE(os.stat(self.target).st_mode))
            except FileNotFoundError:
                pass
            os.replace(self.tmp, self.target)
        except OSError as e:
            self.discard()
            raise ArchiveError(f"cannot write: {_os_error_message(e)}", path=self.target) from None
        self._finalizer.detach()
        if self._fsync:
            _fsync_dir(self.parent)

    def discard(self) -> None:
        self._finalizer()


EntrySpec = Union["Entry", tuple[Union["Entry", str], bytes]]


class _Output:
    """Policy shared by jar and directory output.

    * refuses to write over an input (checked for explicit ``inputs`` up
      front, and for the container of every entry written);
    * refuses duplicate names (a repeated *directory* entry is tolerated,
      real jars have them);
    * drops signature files of signed inputs and strips the digests from
      their manifest, warning once per input;
    * on any error removes the temporary output, so nothing is left behind.
    """

    def __init__(
        self,
        out_path: str | os.PathLike[str],
        *,
        inputs: Iterable[str | os.PathLike[str] | Container],
        warn: WarnCallback | None,
    ) -> None:
        self.out_path = os.fspath(out_path)
        self._warn = warn or _default_warn
        self._checked: dict[int, Container] = {}
        self._warned: set[str] = set()
        self._names: dict[str, bool] = {}
        self._state = "open"
        for inp in inputs:
            self._check_input(inp.path if isinstance(inp, Container) else os.fspath(inp))

    # -- policy hooks

    def _check_input(self, in_path: str) -> None:
        raise NotImplementedError

    def _check_container(self, container: Container) -> None:
        if id(container) not in self._checked:
            self._check_input(container.path)
            self._checked[id(container)] = container

    def _claim(self, name: str, is_dir: bool) -> bool:
        """Register an output name; True if it is a repeated directory entry."""
        previous = self._names.get(name)
        if previous is None:
            self._names[name] = is_dir
            return False
        if is_dir and previous:
            return True
        raise ArchiveError("duplicate entry name in output (written twice)", path=self.out_path, entry=name)

    def _signature_policy(self, entry: Entry) -> str | None:
        """'drop' for signature files of signed inputs, 'manifest' for their manifest, else None."""
        container = entry.container
        if not container.is_signed:
            return None
        if entry.is_signature_file:
            self._warn_signed(container)
            return "drop"
        if entry.is_manifest:
            return "manifest"
        return None

    def _warn_signed(self, container: Container) -> None:
        if container.path in self._warned:
            return
        self._warned.add(container.path)
        self._warn(
            f"{container.path}: signed jar: the output is unsigned (rewritten classes would fail "
            f"signature verification); removed {', '.join(container.signature_files)} and the per-entry "
            f"digests in {MANIFEST_NAME}"
        )

    def _unsigned_manifest(self, entry: Entry, data: bytes) -> bytes:
        manifest = Manifest.parse(data, path=entry.container.path, entry=entry.name)
        manifest.strip_digests()
        self._warn_signed(entry.container)
        return manifest.to_bytes()

    # -- error handling

    def _guard(self, fn: Callable[[], None]) -> None:
        if self._state != "open":
            raise ValueError(f"{self.out_path}: writer is {self._state}")
        try:
            fn()
        except OSError as e:
            self.abort()
            raise ArchiveError(f"cannot write: {_os_error_message(e)}", path=self.out_path) from None
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """Throw the output away (temporary file or directory); the target stays as it was."""
        if self._state == "open":
            self._state = "aborted"
            self._discard()

    def _discard(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self.abort()
        elif self._state == "open":
            self.close()

    def close(self) -> None:
        raise NotImplementedError

    def copy(self, entry: Entry) -> None:
        raise NotImplementedError

    def put(
        self, entry_or_name: Entry | str, data: bytes, *, date_time: tuple[int, int, int, int, int, int] | None = None
    ) -> None:
        raise NotImplementedError

    def write_all(self, entries: Iterable[EntrySpec]) -> None:
        """Write ``Entry`` objects unchanged and ``(entry_or_name, bytes)`` pairs with new content."""
        for item in entries:
            if isinstance(item, Entry):
                self.copy(item)
            else:
                target, data = item
                self.put(target, data)


class JarWriter(_Output):
    """Write a jar/zip atomically, copying unchanged zip entries as raw compressed bytes.

    ``copy(entry)`` keeps an entry exactly; ``put(entry, data)`` gives it new
    content but keeps its name, timestamps, method, comment, attributes and
    extra fields; ``put("new/Name.class", data, ...)`` adds an entry.  The
    target is replaced only by :meth:`close` (or leaving the ``with`` block
    without an exception).
    """

    def __init__(
        self,
        out_path: str | os.PathLike[str],
        *,
        inputs: Iterable[str | os.PathLike[str] | Container] = (),
        warn: WarnCallback | None = None,
        comment: bytes = b"",
        preamble: bytes = b"",
        compresslevel: int = 6,
        fsync: bool = True,
    ) -> None:
        super().__init__(out_path, inputs=inputs, warn=warn)
        if len(comment) > 0xFFFF:
            raise ArchiveError(f"archive comment too long ({len(comment)} bytes, at most 65535)", path=self.out_path)
        self.comment = comment
        self.compresslevel = compresslevel
        self._file = _AtomicFile(self.out_path, fsync=fsync)
        try:
            self._zip = ZipWriter(self._file.stream, self.out_path, preamble=preamble)
        except OSError as e:
            self._file.discard()
            raise ArchiveError(f"cannot write: {_os_error_message(e)}", path=self.out_path) from None

    def _check_input(self, in_path: str) -> None:
        if _same_file(self.out_path, in_path):
            raise ArchiveError(
                f"refusing to overwrite the input {in_path} (write the output elsewhere)", path=self.out_path
            )

    def copy(self, entry: Entry) -> None:
        self._guard(lambda: self._copy(entry))

    def _copy(self, entry: Entry) -> None:
        self._check_container(entry.container)
        policy = self._signature_policy(entry)
        if policy == "drop":
            return
        if policy == "manifest":
            data = entry.read()
            if self._unsigned_manifest(entry, data) != data:  # else: no digests, copy it raw below
                self._put(entry, data, _NO_CHANGES)
                return
        if not entry.shadowed:  # a repeated name of the input stays repeated; the last copy claims it
            self._claim(entry.name, entry.is_dir)
        if isinstance(entry, ZipEntry):
            container = entry.container
            assert isinstance(container, ZipContainer)
            self._zip.copy_raw(container.open_reader(), entry.record)
        else:
            self._put(entry, entry.read(), _NO_CHANGES, claimed=True)

    def put(
        self,
        entry_or_name: Entry | str,
        data: bytes,
        *,
        date_time: tuple[int, int, int, int, int, int] | None = None,
        compress_type: int | None = None,
        comment: bytes | None = None,
        external_attr: int | None = None,
    ) -> None:
        """Write ``data`` as the content of an input entry (keeping its metadata) or of a new entry name.

        Keyword arguments override metadata; a new entry defaults to the
        current time, DEFLATED, no comment.
        """
        meta = _Meta(date_time, compress_type, comment, external_attr)
        self._guard(lambda: self._put(entry_or_name, data, meta))

    def _put(self, entry_or_name: Entry | str, data: bytes, meta: _Meta, claimed: bool = False) -> None:
        local_extra = b""
        if isinstance(entry_or_name, Entry):
            entry = entry_or_name
            self._check_container(entry.container)
            policy = self._signature_policy(entry)
            if policy == "drop":
                return
            if policy == "manifest":
                data = self._unsigned_manifest(entry, data)
            if isinstance(entry, ZipEntry):
                template = entry.record
                container = entry.container
                assert isinstance(container, ZipContainer)
                local_extra = container.open_reader().local_header(template).extra
            else:
                template = _new_record(
                    entry.name, entry.date_time, entry.compress_type, entry.comment, entry.external_attr, self.out_path
                )
            template = meta.apply(template)
        else:
            template = _new_record(
                entry_or_name,
                meta.date_time or time.localtime()[:6],
                DEFLATED if meta.compress_type is None else meta.compress_type,
                meta.comment or b"",
                meta.external_attr or 0,
                self.out_path,
            )
        if template.is_dir and data:
            raise ValueError(f"directory entry {template.name!r} cannot have content")
        if not claimed and not (isinstance(entry_or_name, Entry) and entry_or_name.shadowed):
            self._claim(template.name, template.is_dir)
        self._zip.write_entry(template, bytes(data), local_extra=local_extra, compresslevel=self.compresslevel)

    def close(self) -> None:
        """Finish the central directory and atomically replace the target."""

        def finish() -> None:
            self._zip.finish(self.comment)
            self._file.commit()
            self._state = "closed"

        self._guard(finish)

    def _discard(self) -> None:
        self._file.discard()


def _new_record(
    name: str, date_time: tuple[int, ...], compress_type: int, comment: bytes, external_attr: int, out_path: str
) -> ZipRecord:
    """Central record template for an entry that has no zip record to inherit (JDK jar tool conventions)."""
    if not name or "\0" in name or name.startswith("/"):
        raise ArchiveError(f"invalid entry name {name!r}", path=out_path, entry=name)
    try:
        raw = name.encode("utf-8")
    except UnicodeEncodeError:
        raise ArchiveError(
            "entry name is not valid Unicode (undecodable file name?)",
            path=out_path,
            entry=name.encode("utf-8", "replace").decode("utf-8"),
        ) from None
    if len(raw) > 0xFFFF:
        raise ArchiveError("entry name too long for a zip", path=out_path, entry=name)
    dos_date, dos_time = dos_datetime(date_time)
    version = 10 if compress_type == STORED else 20
    return ZipRecord(
        name,
        raw,
        20,
        0,
        version,
        FLAG_UTF8,
        compress_type,
        dos_time,
        dos_date,
        0,
        0,
        0,
        b"",
        comment,
        0,
        0,
        external_attr,
        0,
    )


@dataclass(frozen=True, slots=True)
class _Meta:
    """Metadata overrides given to :meth:`JarWriter.put` (None = keep the entry's own / default)."""

    date_time: tuple[int, int, int, int, int, int] | None = None
    compress_type: int | None = None
    comment: bytes | None = None
    external_attr: int | None = None

    def __post_init__(self) -> None:
        if self.compress_type not in (None, STORED, DEFLATED):
            raise ValueError(f"compress_type must be STORED (0) or DEFLATED (8), not {self.compress_type!r}")
        if self.comment is not None and len(self.comment) > 0xFFFF:
            raise ValueError("entry comment longer than 65535 bytes")

    def apply(self, rec: ZipRecord) -> ZipRecord:
        changes: dict[str, object] = {}
        if self.date_time is not None:
            changes["dos_date"], changes["dos_time"] = dos_datetime(self.date_time)
        if self.compress_type is not None:
            changes["compress_type"] = self.compress_type
            if self.compress_type == DEFLATED:
                changes["extract_version"] = max(rec.extract_version, 20)
        if self.comment is not None:
            changes["comment"] = self.comment
        if self.external_attr is not None:
            changes["external_attr"] = self.external_attr
        return rec.evolve(**changes) if changes else rec


_NO_CHANGES = _Meta()


_DRIVE = re.compile(r"[A-Za-z]:")


def _safe_relative(name: str) -> str | None:
    """The relative path for ``name`` under an output directory, or None if it could escape it."""
    stripped = name[:-1] if name.endswith("/") else name
    if not stripped or stripped.startswith("/") or "\\" in stripped or "\0" in stripped or _DRIVE.match(stripped):
        return None
    parts = stripped.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return os.path.join(*parts)


class DirectoryWriter(_Output):
    """Write entries as files under a directory, atomically: into a temporary directory, then renamed.

    An existing non-empty ``out_dir`` is only replaced with ``replace=True``
    (a mistyped output path must not wipe a directory).  The output may not be
    an input nor contain one.  Entry names that would escape the directory
    (``../``, absolute, drive letters, backslashes) are refused.  Files get the
    entry's timestamp as modification time.
    """

    def __init__(
        self,
        out_dir: str | os.PathLike[str],
        *,
        inputs: Iterable[str | os.PathLike[str] | Container] = (),
        warn: WarnCallback | None = None,
        replace: bool = False,
        fsync: bool = True,
    ) -> None:
        super().__init__(out_dir, inputs=inputs, warn=warn)
        target = self.out_path.rstrip(os.sep) or self.out_path
        self.out_path = target
        self._replace = replace
        self._fsync = fsync
        self.parent = os.path.dirname(os.path.abspath(target))
        self._check_target()
        if not os.path.isdir(self.parent):
            raise ArchiveError(f"cannot write: directory {self.parent} does not exist", path=target)
        for _ in range(100):
            tmp = _temp_name(self.parent, target, ".tmp")
            try:
                os.mkdir(tmp, 0o777)
                break
            except FileExistsError:
                continue
            except OSError as e:
                raise ArchiveError(
                    f"cannot create temporary output directory: {_os_error_message(e)}", path=target
                ) from None
        else:  # pragma: no cover
            raise ArchiveError("cannot create temporary output directory", path=target)
        self.tmp = tmp
        self._dirs: set[str] = {tmp}
        self._finalizer = weakref.finalize(self, shutil.rmtree, tmp, True)

    def _check_target(self) -> None:
        target = self.out_path
        if os.path.islink(target):
            raise ArchiveError("cannot write: output directory path is a symbolic link", path=target)
        if os.path.lexists(target):
            if not os.path.isdir(target):
                raise ArchiveError("cannot write: output path exists and is not a directory", path=target)
            if not self._replace and os.listdir(target):
                raise ArchiveError(
                    "output directory exists and is not empty (use replace=True to replace it)", path=target
                )

    def _check_input(self, in_path: str) -> None:
        out, inp = _realpath(self.out_path), _realpath(in_path)
        if _same_file(self.out_path, in_path) or _is_within(inp, out):
            raise ArchiveError(
                f"refusing to write over the input {in_path} (the output directory is or contains it)",
                path=self.out_path,
            )
        if os.path.isdir(in_path) and _is_within(out, inp):
            raise ArchiveError(f"refusing to write the output inside the input directory {in_path}", path=self.out_path)

    def copy(self, entry: Entry) -> None:
        self._guard(lambda: self._put(entry, None, None))

    def put(
        self, entry_or_name: Entry | str, data: bytes, *, date_time: tuple[int, int, int, int, int, int] | None = None
    ) -> None:
        """Write ``data`` to the file for an entry (keeping its timestamp) or for a new name."""
        self._guard(lambda: self._put(entry_or_name, data, date_time))

    def _put(
        self, entry_or_name: Entry | str, data: bytes | None, date_time: tuple[int, int, int, int, int, int] | None
    ) -> None:
        if isinstance(entry_or_name, Entry):
            entry = entry_or_name
            if entry.shadowed:  # a file holds one content: the copy the JVM would read (the last)
                return
            self._check_container(entry.container)
            policy = self._signature_policy(entry)
            if policy == "drop":
                return
            if data is None:
                data = entry.read()
            if policy == "manifest":
                data = self._unsigned_manifest(entry, data)
            name, source = entry.name, entry.container.path
            date_time = date_time or entry.date_time
        else:
            name, source = entry_or_name, None
            assert data is not None
        rel = _safe_relative(name)
        if rel is None:
            raise ArchiveError(
                f"unsafe entry name: it would be written outside the output directory {self.out_path}",
                path=source or self.out_path,
                entry=name,
            )
        is_dir = name.endswith("/")
        if is_dir and data:
            raise ValueError(f"directory entry {name!r} cannot have content")
        if self._claim(name, is_dir):
            return
        target = os.path.join(self.tmp, rel)
        try:
            if is_dir:
                self._makedirs(target)
                return
            self._makedirs(os.path.dirname(target))
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY | _O_CLOEXEC, 0o666)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            raise ArchiveError(
                "entry collides with another entry's path in the output directory (a file and a "
                "directory of the same name, or names differing only in case on a "
                "case-insensitive file system)",
                path=source or self.out_path,
                entry=name,
            ) from None
        except OSError as e:
            raise ArchiveError(
                f"cannot write entry to {self.out_path}: {_os_error_message(e)}",
                path=source or self.out_path,
                entry=name,
            ) from None
        with open(fd, "wb") as f:
            f.write(data)
            if self._fsync:
                f.flush()
                os.fsync(f.fileno())
        if date_time is not None:
            try:
                year, month, day, hour, minute, second = date_time
                t = time.mktime((year, month, day, hour, minute, second, 0, 0, -1))
                os.utime(target, (t, t))
            except (OverflowError, ValueError, OSError):
                pass

    def _makedirs(self, path: str) -> None:
        if path in self._dirs:
            return
        parent = os.path.dirname(path)
        if parent == path or not _is_within(path, self.tmp):  # cannot happen with checked names
            raise ArchiveError("internal error: path outside the output directory", path=self.out_path)
        self._makedirs(parent)
        try:
            os.mkdir(path, 0o777)
        except FileExistsError:
            if not os.path.isdir(path):
                raise
        self._dirs.add(path)

    def close(self) -> None:
        """Rename the finished temporary directory into place (replacing an old output if allowed)."""
        self._guard(self._commit)

    def _commit(self) -> None:
        if self._fsync:
            for d in self._dirs:
                _fsync_dir(d)
        self._check_target()
        target = self.out_path
        if os.path.isdir(target) and not os.listdir(target):
            os.rmdir(target)
        if os.path.lexists(target):
            old = _temp_name(self.parent, target, ".old")
            os.rename(target, old)
            try:
                os.rename(self.tmp, target)
            except BaseException:
                os.rename(old, target)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(self.tmp, target)
        self._finalizer.detach()
        self._state = "closed"
        if self._fsync:
            _fsync_dir(self.parent)

    def _discard(self) -> None:
        self._finalizer()


# =========================================================================== one-call helpers


def write_jar(
    out_path: str | os.PathLike[str],
    entries: Iterable[EntrySpec],
    *,
    warn: WarnCallback | None = None,
    comment: bytes = b"",
    preamble: bytes = b"",
    inputs: Iterable[str | os.PathLike[str] | Container] = (),
    compresslevel: int = 6,
    fsync: bool = True,
) -> None:
    """Write a jar from ``Entry`` objects (copied unchanged) and ``(entry_or_name, bytes)`` pairs (new content)."""
    with JarWriter(
        out_path, inputs=inputs, warn=warn, comment=comment, preamble=preamble, compresslevel=compresslevel, fsync=fsync
    ) as writer:
        writer.write_all(entries)


def write_directory(
    out_dir: str | os.PathLike[str],
    entries: Iterable[EntrySpec],
    *,
    warn: WarnCallback | None = None,
    inputs: Iterable[str | os.PathLike[str] | Container] = (),
    replace: bool = False,
    fsync: bool = True,
) -> None:
    """Like :func:`write_jar`, but to files under a directory (see :class:`DirectoryWriter`)."""
    with DirectoryWriter(out_dir, inputs=inputs, warn=warn, replace=replace, fsync=fsync) as writer:
        writer.write_all(entries)


def rewrite_container(
    container: Container,
    out_path: str | os.PathLike[str],
    transform: Callable[[Entry], bytes | None] | None = None,
    *,
    warn: WarnCallback | None = None,
    as_directory: bool | None = None,
    replace: bool = False,
    fsync: bool = True,
) -> None:
    """Write a copy of ``container`` where ``transform(entry)`` may return new bytes (None = unchanged).

    The output has the input's kind unless ``as_directory`` says otherwise: a
    jar (keeping archive comment and preamble), a directory, or a single
    class file.  ``transform`` is called for every non-directory entry but the earlier copies of a
    repeated name (``Entry.shadowed``), which the JVM never reads: they are copied as they are.
    """
    if as_directory is None:
        as_directory = container.kind == "directory"

    def pairs() -> Iterator[EntrySpec]:
        for e in container.entries():
            new = transform(e) if transform is not None and not e.is_dir and not e.shadowed else None
            yield e if new is None else (e, new)

    if as_directory:
        write_directory(out_path, pairs(), warn=warn, inputs=[container], replace=replace, fsync=fsync)
    elif container.kind == "class":
        out = os.fspath(out_path)
        if _same_file(out, container.path):
            raise ArchiveError(
                f"refusing to overwrite the input {container.path} (write the output elsewhere)", path=out
            )
        (entry,) = list(container.entries())
        data = (transform(entry) if transform is not None else None) or entry.read()
        atomic = _AtomicFile(out, fsync=fsync)
        try:
            atomic.stream.write(data)
        except OSError as e:
            atomic.discard()
            raise ArchiveError(f"cannot write: {_os_error_message(e)}", path=out) from None
        except BaseException:
            atomic.discard()
            raise
        atomic.commit()
    else:
        write_jar(
            out_path,
            pairs(),
            warn=warn,
            comment=container.comment,
            preamble=container.preamble,
            inputs=[container],
            fsync=fsync,
        )
