"""Read classes straight out of a JDK's runtime image (``$JAVA_HOME/lib/modules``).

Since JDK 9 the platform classes no longer live in ``rt.jar`` but in one file
in the *jimage* format. Reading it directly (instead of running ``jimage
extract`` or a JVM) lets jprewrite resolve platform classes for hierarchy
analysis and rewrite them, with nothing but the standard library.

Layout of the file (all 4-byte integers in the file's byte order, which is
detected from the magic number; the JDK writes the platform's native order)::

    header      magic 0xCAFEDADA, version (major << 16 | minor), flags,
                resource count, table length, locations size, strings size
    redirect    s4 * table length   perfect-hash redirect table
    offsets     u4 * table length   offset of each entry's attributes
    locations   attribute streams   (kind << 3 | length - 1) + big-endian value
    strings     NUL-terminated modified UTF-8
    resources   content; OFFSET attributes are relative to here

A name is found with one perfect-hash probe (see :func:`image_hash`) and then
verified against the entry's own module/parent/base/extension strings, so
misses never need a scan. Besides ``/module/path`` resources, the image holds
directory entries ``/modules/...`` and ``/packages/<pkg.name>`` whose content
lists (isEmpty, module-name string offset) pairs: that is how a class name is
mapped to its module without a scan.

Resources may be compressed (``jlink --compress``): the content then starts
with one or more stacked headers (magic 0xCAFEFAFA) naming a decompressor.
``zip`` (zlib) and ``compact-cp`` (constant-pool string sharing) are the two
the JDK defines; both are supported here.
"""

from __future__ import annotations

import array
import hashlib
import mmap
import os
import re
import shutil
import struct
import sys
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from jprewrite.errors import ArchiveError

__all__ = [
    "JdkImage",
    "find_java_home",
    "decompress_resource",
    "SharedStrings",
    "IMAGE_MAGIC",
    "COMPRESSED_MAGIC",
]

IMAGE_MAGIC = 0xCAFEDADA
IMAGE_MAJOR_VERSION = 1
IMAGE_MINOR_VERSION = 0
_HEADER_SIZE = 7 * 4

HASH_MULTIPLIER = 0x01000193

# Location attribute kinds (jdk.internal.jimage.ImageLocation).
_ATTR_END = 0
_ATTR_MODULE = 1
_ATTR_PARENT = 2
_ATTR_BASE = 3
_ATTR_EXTENSION = 4
_ATTR_OFFSET = 5
_ATTR_COMPRESSED = 6
_ATTR_UNCOMPRESSED = 7
_ATTR_COUNT = 8

COMPRESSED_MAGIC = 0xCAFEFAFA
_COMPRESSED_HEADER_SIZE = 29
# Stacked compression is legal, but a loop bound keeps crafted input finite.
_MAX_DECOMPRESSION_STAGES = 16
# Java stores resources in byte[]; anything larger is corrupt, not real.
_MAX_RESOURCE_SIZE = 0x7FFFFFFF

# Pseudo-modules of the directory entries; they hold no resources.
_DIRECTORY_ROOTS = frozenset({"modules", "packages"})


# --------------------------------------------------------------------------
# Locating a JDK
# --------------------------------------------------------------------------


def find_java_home(env: Mapping[str, str] | None = None) -> Path:
    """Return the home of the JDK to read platform classes from.

    ``JAVA_HOME`` wins when set, because that is what the user asked for; a
    ``JAVA_HOME`` without ``lib/modules`` is an error rather than a silent
    fall-back, so a typo does not quietly analyse a different JDK. Otherwise
    the ``java`` on ``PATH`` is followed through its symlinks (Debian's
    ``/usr/bin/java`` → ``/etc/alternatives/java`` → ``<home>/bin/java``).
    """
    env = os.environ if env is None else env
    java_home = env.get("JAVA_HOME", "").strip()
    if java_home:
        home = Path(java_home)
        _require_modules_file(home, "JAVA_HOME")
        return home
    java = shutil.which("java", path=env.get("PATH", ""))
    if java is None:
        raise ArchiveError("no JDK found: JAVA_HOME is not set and there is no 'java' on PATH")
    home = Path(java).resolve().parent.parent
    _require_modules_file(home, f"'java' on PATH ({java})")
    return home


def _require_modules_file(home: Path, origin: str) -> None:
    """Fail clearly unless *home* is a JDK 9+ home with a runtime image."""
    modules = home / "lib" / "modules"
    if not modules.is_file():
        raise ArchiveError(f"{origin} does not point at a JDK 9 or later: {modules} does not exist", path=str(home))


# --------------------------------------------------------------------------
# Hashing and strings
# --------------------------------------------------------------------------


def image_hash(data: bytes, seed: int = HASH_MULTIPLIER) -> int:
    """ImageStringsReader.hashCode over the modified UTF-8 bytes of a name.

    The seed is the initial value; the multiplier is always 0x01000193. Java
    computes in 32-bit ints, so every step is truncated to 32 bits.
    """
    h = seed
    for b in data:
        h = ((h * HASH_MULTIPLIER) ^ b) & 0xFFFFFFFF
    return h & 0x7FFFFFFF


def _to_mutf8(text: str) -> bytes:
    """Encode like the JDK's strings table: modified UTF-8 (CESU-8, NUL as C0 80)."""
    if text.isascii() and "\0" not in text:
        return text.encode("ascii")
    units = []
    for ch in text:
        code = ord(ch)
        if code > 0xFFFF:
            code -= 0x10000
            units.append(chr(0xD800 | (code >> 10)))
            units.append(chr(0xDC00 | (code & 0x3FF)))
        else:
            units.append(ch)
    return "".join(units).encode("utf-8", "surrogatepass").replace(b"\0", b"\xc0\x80")


def _from_mutf8(data: bytes) -> str:
    """Decode modified UTF-8; lone surrogates survive so names round-trip.

    Raises UnicodeDecodeError (a ValueError) for bytes that are not UTF-8 at all.
    """
    if data.isascii():
        return data.decode("ascii")
    text = data.replace(b"\xc0\x80", b"\0").decode("utf-8", "surrogatepass")
    # Join surrogate pairs into real code points; keep any lone halves.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _printable(data: bytes) -> str:
    """A string from the image for an error message, whatever its bytes are."""
    return data.decode("utf-8", "replace")


def _full_name(module: bytes, parent: bytes, base: bytes, extension: bytes) -> bytes:
    """Rebuild a resource name the way ImageLocation.getFullName does."""
    parts: list[bytes] = []
    if module:
        parts += (b"/", module, b"/")
    if parent:
        parts += (parent, b"/")
    parts.append(base)
    if extension:
        parts += (b".", extension)
    return b"".join(parts)


# --------------------------------------------------------------------------
# Decompression
# --------------------------------------------------------------------------

StringsProvider = Callable[[int], bytes]


def decompress_resource(
    data: bytes,
    *,
    byte_order: str,
    strings: StringsProvider | SharedStrings,
    path: str | None = None,
    entry: str | None = None,
) -> bytes:
    """Undo every stacked compression header at the start of *data*.

    Mirrors jdk.internal.jimage.decompressor.Decompressor: as long as the
    content starts with a 0xCAFEFAFA header, the named decompressor is applied
    to the bytes after it. *strings* maps a strings-table offset to its raw
    (modified UTF-8) bytes; wrap it in a :class:`SharedStrings` that outlives
    the call to reuse its caches. *byte_order* is ``"little"`` or ``"big"``
    (the image's order, which the headers use too).
    """
    fmt = ("<" if byte_order == "little" else ">") + "IqqiiB"
    if not isinstance(strings, SharedStrings):
        strings = SharedStrings(strings)
    for _ in range(_MAX_DECOMPRESSION_STAGES):
        if len(data) < _COMPRESSED_HEADER_SIZE:
            return data
        magic, _stored, size, name_offset, _unused, _terminal = struct.unpack_from(fmt, data, 0)
        if magic != COMPRESSED_MAGIC:
            return data
        if not 0 <= size <= _MAX_RESOURCE_SIZE:
            raise ArchiveError(f"compressed resource claims impossible size {size}", path=path, entry=entry)
        try:
            name = strings(name_offset)
        except ArchiveError as exc:
            exc.located(path=path, entry=entry)
            raise
        try:
            data = _run_decompressor(name, data, size, strings)
        except ArchiveError as exc:
            exc.located(path=path, entry=entry)
            raise
        except (IndexError, ValueError, struct.error, zlib.error) as exc:
            raise ArchiveError(
                f"corrupt {_printable(name)!r} compressed resource: {exc}", path=path, entry=entry
            ) from None
    raise ArchiveError(f"more than {_MAX_DECOMPRESSION_STAGES} stacked compression headers", path=path, entry=entry)


def _run_decompressor(name: bytes, data: bytes, size: int, strings: SharedStrings) -> bytes:
    """Apply one decompressor, checking the output size the header promised."""
    if name == b"zip":
        out = _inflate(data, _COMPRESSED_HEADER_SIZE, size)
    elif name == b"compact-cp":
        out = _expand_shared_strings(data, _COMPRESSED_HEADER_SIZE, strings)
    else:
        raise ArchiveError(
            f"unsupported jimage decompressor {_printable(name)!r} (only 'zip' and 'compact-cp' are known)"
        )
    if len(out) != size:
        raise ArchiveError(f"{_printable(name)!r} decompressed to {len(out)} bytes, header says {size}")
    return out


def _inflate(data: bytes, start: int, size: int) -> bytes:
    """The 'zip' decompressor is java.util.zip.Inflater: a zlib stream."""
    inflater = zlib.decompressobj()
    # Ask for one byte more than promised so an over-long stream is noticed
    # without inflating a bomb.
    return inflater.decompress(memoryview(data)[start:], size + 1)


# Constant-pool entry sizes as StringSharingDecompressor.SIZES has them
# (tags without an entry are 0 there, and so here: the JDK's compressor and
# decompressor share the table, so copying that quirk keeps bytes identical).
_CP_SIZES = (0, 0, 0, 4, 4, 8, 8, 2, 2, 4, 4, 4, 4, 0, 0, 3, 2, 0, 4, 2, 2)
_CP_UTF8 = 1
_CP_LONG = 5
_CP_DOUBLE = 6
_EXTERNALIZED_STRING = 23
_EXTERNALIZED_STRING_DESCRIPTOR = 25


class SharedStrings:
    """A strings provider plus the caches that make 'compact-cp' fast.

    The same few thousand names and descriptors recur in every class, so the
    finished CONSTANT_Utf8 entries are cached by their *encoded* reference
    (the compressed index bytes, or a descriptor's whole encoding): the hot
    loop then costs one slice and one dict lookup per entry. One instance
    lives as long as its image.
    """

    def __init__(self, strings: StringsProvider) -> None:
        self.strings = strings
        self.entries: dict[bytes, bytes] = {}
        self.descriptors: dict[bytes, bytes] = {}

    def __call__(self, offset: int) -> bytes:
        return self.strings(offset)

    def string_entry(self, code: bytes) -> bytes:
        """CONSTANT_Utf8 entry for a tag-23 reference (a compressed index)."""
        offset, _end = _read_compressed_int(code, 0)
        entry = self.entries[code] = _utf8_entry(self.strings(offset))
        return entry

    def descriptor_entry(self, src: bytes, pos: int) -> tuple[bytes, int]:
        """CONSTANT_Utf8 entry for the tag-25 descriptor at *pos*, and where it ends."""
        desc_offset, after_desc = _read_compressed_int(src, pos)
        flow_length, flow_start = _read_compressed_int(src, after_desc)
        end = flow_start + flow_length
        key = src[pos:end]
        entry = self.descriptors.get(key)
        if entry is None:
            indices = _decompress_flow(_take(src, flow_start, flow_length))
            entry = _utf8_entry(_rebuild_descriptor(self.strings(desc_offset), indices, self.strings))
            self.descriptors[key] = entry
        return entry, end


def _expand_shared_strings(src: bytes, pos: int, strings: SharedStrings) -> bytes:
    """The 'compact-cp' decompressor (StringSharingDecompressor.normalize).

    jlink --compress=1 moves constant-pool UTF-8 strings into the image's
    shared strings table: tag 23 is a whole string by index, tag 25 a
    descriptor whose class names were cut out and stored as (package, class)
    index pairs. Everything after the constant pool is copied verbatim.

    This runs once per constant (~150 per class), so it is written flat:
    slices past the end come back short rather than failing, which the final
    position check turns into an error (positions only grow).
    """
    parts = [_take(src, pos, 10)]  # magic, minor, major, constant pool count
    count = int.from_bytes(parts[0][8:], "big")
    pos += 10
    append = parts.append
    cached = strings.entries.get
    index = 1
    while index < count:
        tag = src[pos]
        if tag == _CP_UTF8:
            end = pos + 3 + (src[pos + 1] << 8 | src[pos + 2])
            append(src[pos:end])
        elif tag == _EXTERNALIZED_STRING:
            end = pos + 1 + _compressed_int_length(src[pos + 1])
            code = src[pos + 1 : end]
            append(cached(code) or strings.string_entry(code))
        elif tag == _EXTERNALIZED_STRING_DESCRIPTOR:
            entry, end = strings.descriptor_entry(src, pos + 1)
            append(entry)
        elif tag < len(_CP_SIZES):
            if tag == _CP_LONG or tag == _CP_DOUBLE:
                index += 1
            end = pos + 1 + _CP_SIZES[tag]
            append(src[pos:end])
        else:
            raise ArchiveError(f"unknown constant pool tag {tag} in compact-cp resource")
        pos = end
        index += 1
    if pos > len(src):
        raise ArchiveError("compact-cp resource is truncated")
    append(src[pos:])
    return b"".join(parts)


def _take(src: bytes, pos: int, size: int) -> bytes:
    """Slice exactly *size* bytes, failing on truncation instead of padding short."""
    piece = src[pos : pos + size]
    if len(piece) != size:
        raise ArchiveError("compact-cp resource is truncated")
    return piece


def _utf8_entry(text: bytes) -> bytes:
    if len(text) > 0xFFFF:
        raise ArchiveError("compact-cp string longer than a CONSTANT_Utf8 can hold")
    return b"\x01" + len(text).to_bytes(2, "big") + text


def _rebuild_descriptor(desc: bytes, indices: list[int], strings: StringsProvider) -> bytes:
    """Re-insert the class names cut out of a descriptor: a (package, class) pair per 'L'."""
    pieces = desc.split(b"L")
    if len(indices) < 2 * (len(pieces) - 1):
        raise ArchiveError("compact-cp descriptor has fewer class names than 'L's")
    out = [pieces[0]]
    for i, rest in enumerate(pieces[1:]):
        package = strings(indices[2 * i])
        out.append(b"L" + package + b"/" if package else b"L")
        out.append(strings(indices[2 * i + 1]))
        out.append(rest)
    return b"".join(out)


def _read_compressed_int(src: bytes, pos: int) -> tuple[int, int]:
    """CompressIndexes.readInt: 0x80 flag + 2-bit length + 5 value bits, else 4 bytes."""
    header = src[pos]
    length = _compressed_int_length(header)
    value = header & 0x1F if header & 0x80 else header
    for b in _take(src, pos + 1, length - 1):
        value = (value << 8) | b
    return value, pos + length


def _compressed_int_length(header: int) -> int:
    """Bytes taken by the compressed int starting with *header* (table lookup)."""
    length = _COMPRESSED_INT_LENGTHS[header]
    if length == 0:
        raise ArchiveError("compact-cp index with zero length")
    return length


_COMPRESSED_INT_LENGTHS = bytes(4 if h < 0x80 else (h >> 5) & 3 for h in range(256))


def _decompress_flow(flow: bytes) -> list[int]:
    """CompressIndexes.decompressFlow: a packed run of compressed ints."""
    values = []
    pos = 0
    while pos < len(flow):
        value, pos = _read_compressed_int(flow, pos)
        values.append(value)
    return values


# --------------------------------------------------------------------------
# The image
# --------------------------------------------------------------------------


class _Index:
    """Parsed, validated header plus the hash tables of one mapped image."""

    def __init__(self, mm: mmap.mmap, path: str) -> None:
        self.mm = mm
        self.path = path
        size = len(mm)
        if size < _HEADER_SIZE:
            raise ArchiveError(
                f"file ends inside the {_HEADER_SIZE}-byte jimage header (only {size} bytes)", path=path, offset=size
            )
        self.byte_order = _detect_byte_order(mm[:4], path)
        self.prefix = "<" if self.byte_order == "little" else ">"
        (_magic, version, self.flags, self.resource_count, self.table_length, locations_size, strings_size) = (
            struct.unpack_from(self.prefix + "7I", mm, 0)
        )
        major, minor = version >> 16, version & 0xFFFF
        if (major, minor) != (IMAGE_MAJOR_VERSION, IMAGE_MINOR_VERSION):
            raise ArchiveError(
                f"unsupported jimage version {major}.{minor} (expected {IMAGE_MAJOR_VERSION}.{IMAGE_MINOR_VERSION})",
                path=path,
                offset=4,
            )
        self.redirect_start = _HEADER_SIZE
        self.offsets_start = self.redirect_start + 4 * self.table_length
        self.locations_start = self.offsets_start + 4 * self.table_length
        self.strings_start = self.locations_start + locations_size
        self.index_size = self.strings_start + strings_size
        self._check_sections_fit(size)
        self.redirect = self._int_table(self.redirect_start, "i")
        self.offsets = self._int_table(self.offsets_start, "I")
        self._strings: dict[int, bytes] = {}
        self._texts: dict[int, str] = {}
        self.shared = SharedStrings(self.string)

    def _check_sections_fit(self, size: int) -> None:
        """Each section must lie inside the file; say which one does not."""
        sections = (
            ("redirect table", self.redirect_start, self.offsets_start),
            ("offsets table", self.offsets_start, self.locations_start),
            ("location attributes", self.locations_start, self.strings_start),
            ("strings table", self.strings_start, self.index_size),
        )
        for label, start, end in sections:
            if end > size:
                raise ArchiveError(
                    f"file is truncated: the {label} needs bytes {start}..{end} but the file has {size}",
                    path=self.path,
                    offset=size,
                )

    def _int_table(self, start: int, code: str) -> array.array | tuple[int, ...]:
        """Copy a table of 4-byte ints out of the map (fast random access later)."""
        count = self.table_length
        table = array.array(code)
        if table.itemsize != 4:
            return struct.unpack_from(f"{self.prefix}{count}{code}", self.mm, start)
        table.frombytes(self.mm[start : start + 4 * count])
        if self.byte_order != sys.byteorder:
            table.byteswap()
        return table

    # -- strings ------------------------------------------------------------

    def string(self, offset: int) -> bytes:
        """Raw bytes of the NUL-terminated string at *offset* in the strings table."""
        cached = self._strings.get(offset)
        if cached is not None:
            return cached
        start = self.strings_start + offset
        if not 0 <= offset < self.index_size - self.strings_start:
            raise ArchiveError(f"string offset {offset} outside the strings table", path=self.path)
        end = self.mm.find(b"\0", start, self.index_size)
        if end < 0:
            raise ArchiveError("unterminated string in the strings table", path=self.path, offset=start)
        value = self.mm[start:end]
        self._strings[offset] = value
        return value

    def text(self, offset: int) -> str:
        """The string at *offset* decoded; bad modified UTF-8 is an ArchiveError."""
        cached = self._texts.get(offset)
        if cached is not None:
            return cached
        try:
            value = _from_mutf8(self.string(offset)) if offset else ""
        except UnicodeDecodeError:
            raise ArchiveError(
                "string is not valid modified UTF-8", path=self.path, offset=self.strings_start + offset
            ) from None
        self._texts[offset] = value
        return value

    # -- locations ----------------------------------------------------------

    def attributes(self, index: int) -> list[int]:
        """Decode the attribute stream of table entry *index* (ImageLocation.decompress)."""
        mm = self.mm
        location_offset = self.offsets[index]
        pos = self.locations_start + location_offset
        end = self.strings_start
        if pos >= end:
            raise ArchiveError(
                f"location offset {location_offset} outside the attributes",
                path=self.path,
                offset=self.offsets_start + 4 * index,
            )
        values = [0] * _ATTR_COUNT
        while True:
            if pos >= end:
                raise ArchiveError("location attributes run past their section", path=self.path, offset=pos)
            byte = mm[pos]
            kind = byte >> 3
            if kind == _ATTR_END:
                return values
            if kind >= _ATTR_COUNT:
                raise ArchiveError(f"unknown location attribute kind {kind}", path=self.path, offset=pos)
            length = (byte & 7) + 1
            if pos + 1 + length > end:
                raise ArchiveError("location attributes run past their section", path=self.path, offset=pos)
            values[kind] = int.from_bytes(mm[pos + 1 : pos + 1 + length], "big")
            pos += 1 + length

    def name_parts(self, attrs: list[int]) -> tuple[bytes, bytes, bytes, bytes]:
        """Raw module, parent, base and extension of a location (b"" when absent)."""
        string = self.string
        return (
            string(attrs[_ATTR_MODULE]) if attrs[_ATTR_MODULE] else b"",
            string(attrs[_ATTR_PARENT]) if attrs[_ATTR_PARENT] else b"",
            string(attrs[_ATTR_BASE]),
            string(attrs[_ATTR_EXTENSION]) if attrs[_ATTR_EXTENSION] else b"",
        )

    def find(self, name: bytes) -> list[int] | None:
        """One perfect-hash probe, then verify the entry really has *name*."""
        count = self.table_length
        if count == 0:
            return None
        slot = image_hash(name) % count
        redirect = self.redirect[slot]
        if redirect < 0:
            index = -1 - redirect
        elif redirect > 0:
            index = image_hash(name, redirect) % count
        else:
            return None
        if index >= count:
            raise ArchiveError(
                f"redirect entry {slot} points outside the table", path=self.path, offset=self.redirect_start + 4 * slot
            )
        attrs = self.attributes(index)
        if _full_name(*self.name_parts(attrs)) != name:
            return None
        return attrs

    def all_locations(self) -> Iterator[list[int]]:
        """Attributes of every entry, in table order."""
        for index in range(self.table_length):
            yield self.attributes(index)

    # -- content ------------------------------------------------------------

    def content(self, attrs: list[int], entry: str) -> bytes:
        """The (decompressed) bytes of a location's resource."""
        compressed = attrs[_ATTR_COMPRESSED]
        size = attrs[_ATTR_UNCOMPRESSED]
        stored = compressed or size
        start = self.index_size + attrs[_ATTR_OFFSET]
        if start + stored > len(self.mm):
            raise ArchiveError(
                f"resource content ({stored} bytes) runs past the end of the file",
                path=self.path,
                entry=entry,
                offset=start,
            )
        data = self.mm[start : start + stored]
        if not compressed:
            return data
        data = decompress_resource(data, byte_order=self.byte_order, strings=self.shared, path=self.path, entry=entry)
        if len(data) != size:
            raise ArchiveError(
                f"resource decompressed to {len(data)} bytes, index says {size}",
                path=self.path,
                entry=entry,
                offset=start,
            )
        return data

    def ints(self, data: bytes) -> tuple[int, ...]:
        """Directory content (``/packages/...``) as the image's 4-byte unsigned ints."""
        return struct.unpack(f"{self.prefix}{len(data) // 4}I", data[: len(data) // 4 * 4])


def _detect_byte_order(magic: bytes, path: str) -> str:
    """The JDK writes the image in native order; accept either, as ImageHeader does."""
    if int.from_bytes(magic, "little") == IMAGE_MAGIC:
        return "little"
    if int.from_bytes(magic, "big") == IMAGE_MAGIC:
        return "big"
    raise ArchiveError(f"not a jimage file: magic is 0x{magic.hex()}, expected CAFEDADA", path=path, offset=0)


class _Entry:
    """A module resource as listed by the catalogue (content is read on demand)."""

    __slots__ = ("module", "path", "extension", "attrs")

    def __init__(self, module: str, path: str, extension: str, attrs: list[int]) -> None:
        self.module = module
        self.path = path  # inside the module, e.g. java/lang/Object.class
        self.extension = extension
        self.attrs = attrs


class JdkImage:
    """Read-only access to a JDK runtime image, opened lazily with mmap.

    Construct with a JDK home or the ``lib/modules`` file itself. Nothing is
    mapped until the first query, so creating one per JDK is free; use it as a
    context manager (or call :meth:`close`) to release the mapping. Returned
    bytes are copies, so they stay valid after closing.
    """

    def __init__(self, java_home_or_modules_path: str | os.PathLike[str]) -> None:
        location = Path(java_home_or_modules_path)
        if location.is_dir():
            modules = location / "lib" / "modules"
            if not modules.is_file():
                raise ArchiveError(f"not a JDK 9 or later home: {modules} does not exist", path=str(location))
            self.java_home: Path | None = location
        elif location.is_file():
            modules = location
            self.java_home = location.parent.parent if location.parent.name == "lib" else None
        else:
            raise ArchiveError("no such file or directory", path=str(location))
        self.path = modules
        self._lock = threading.Lock()
        self._file: BinaryIO | None = None
        self._index: _Index | None = None
        self._closed = False
        self._package_modules: dict[str, str | None] = {}
        self._catalogue: dict[str, list[_Entry]] | None = None
        self._build_id: str | None = None

    # -- lifetime -----------------------------------------------------------

    def __enter__(self) -> JdkImage:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"JdkImage({str(self.path)!r})"

    def close(self) -> None:
        """Unmap the file; further queries raise ValueError."""
        with self._lock:
            self._closed = True
            index, self._index = self._index, None
            file, self._file = self._file, None
            self._catalogue = None
            if index is not None:
                index.mm.close()
            if file is not None:
                file.close()

    def _open(self) -> _Index:
        """Map and validate the file on first use (all later calls are one attribute read)."""
        index = self._index
        if index is not None:
            return index
        with self._lock:
            if self._closed:
                raise ValueError(f"{self!r} is closed")
            if self._index is None:
                self._index = self._map()
            return self._index

    def _map(self) -> _Index:
        path = str(self.path)
        try:
            file = open(self.path, "rb")
        except OSError as exc:
            raise ArchiveError(f"cannot open: {exc.strerror}", path=path) from None
        try:
            size = os.fstat(file.fileno()).st_size
            if size < _HEADER_SIZE:
                raise ArchiveError(
                    f"file ends inside the {_HEADER_SIZE}-byte jimage header (only {size} bytes)",
                    path=path,
                    offset=size,
                )
            mm = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as exc:
            file.close()
            raise ArchiveError(f"cannot map: {exc.strerror}", path=path) from None
        except BaseException:
            file.close()
            raise
        try:
            index = _Index(mm, path)
        except BaseException:
            mm.close()
            file.close()
            raise
        self._file = file
        return index

    # -- identity -----------------------------------------------------------

    @property
    def byte_order(self) -> str:
        """``"little"`` or ``"big"``: the order the image's integers are stored in."""
        return self._open().byte_order

    @property
    def build_id(self) -> str:
        """A file-name-safe key that changes whenever the JDK build changes.

        Made of the ``release`` file (version, vendor, modules) and the size and
        modification time of ``lib/modules``, so caches of derived data (class
        hierarchies, rewritten classes) are invalidated by a JDK update without
        hashing 100+ MB.
        """
        if self._build_id is None:
            self._build_id = self._compute_build_id()
        return self._build_id

    def _compute_build_id(self) -> str:
        release = self._read_release()
        stat = self.path.stat()
        digest = hashlib.sha256()
        for key in sorted(release):
            digest.update(f"{key}={release[key]}\n".encode())
        digest.update(f"size={stat.st_size}\nmtime_ns={stat.st_mtime_ns}\n".encode())
        version = release.get("JAVA_RUNTIME_VERSION") or release.get("JAVA_VERSION") or "unknown"
        label = re.sub(r"[^A-Za-z0-9._+-]", "_", f"{release.get('IMPLEMENTOR', 'jdk')}-{version}")
        return f"{label}-{digest.hexdigest()[:16]}"

    @property
    def feature_version(self) -> int | None:
        """The JDK's feature release (17 for ``17.0.15``, 22 for ``22-ea``), None if it is not known.

        Read from ``JAVA_VERSION`` in ``$JAVA_HOME/release``: multi-release jars hold a copy of a
        class per release, and the one this JDK loads is the copy the rewriting must plan with.
        """
        version = self._read_release().get("JAVA_VERSION", "")
        m = re.match(r"([0-9]+)(?![0-9])", version)
        return int(m.group(1)) if m else None

    def _read_release(self) -> dict[str, str]:
        """KEY="value" lines of ``$JAVA_HOME/release`` (empty if there is none)."""
        if self.java_home is None:
            return {}
        try:
            text = (self.java_home / "release").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return {}
        release = {}
        for line in text.splitlines():
            key, sep, value = line.partition("=")
            if sep:
                release[key.strip()] = value.strip().strip('"')
        return release

    # -- lookups ------------------------------------------------------------

    def read_resource(self, name: str) -> bytes | None:
        """Content of the resource called *name* (``/java.base/java/lang/Object.class``), or None."""
        index = self._open()
        attrs = index.find(_to_mutf8(name))
        if attrs is None:
            return None
        return index.content(attrs, name)

    def has_resource(self, name: str) -> bool:
        """Whether *name* exists, without reading its content."""
        return self._open().find(_to_mutf8(name)) is not None

    def module_of_package(self, pkg_internal: str) -> str | None:
        """The module that defines package *pkg_internal* (``java/lang``), or None.

        ``/packages/<pkg>`` lists every module that has the package's directory,
        some of them only as an empty directory; the first non-empty one is the
        owner, exactly as the JVM's own class loader decides.
        """
        try:
            return self._package_modules[pkg_internal]
        except KeyError:
            pass
        module = self._lookup_package(pkg_internal)
        self._package_modules[pkg_internal] = module
        return module

    def _lookup_package(self, pkg_internal: str) -> str | None:
        if not pkg_internal:
            return None
        index = self._open()
        name = "/packages/" + pkg_internal.replace("/", ".")
        attrs = index.find(_to_mutf8(name))
        if attrs is None:
            return None
        data = index.content(attrs, name)
        if len(data) % 8:
            raise ArchiveError(
                f"package entry has {len(data)} bytes, not a multiple of 8",
                path=index.path,
                entry=name,
                offset=index.index_size + attrs[_ATTR_OFFSET],
            )
        pairs = index.ints(data)
        for is_empty, module_offset in zip(pairs[::2], pairs[1::2]):
            if not is_empty:
                return index.text(module_offset)
        return None

    def find_class(self, internal_name: str) -> bytes | None:
        """Bytes of class *internal_name* (``java/lang/Object``), or None if absent.

        One cached package→module lookup plus one perfect-hash probe; no scan.
        Classes in the unnamed package (only ``module-info``) are not findable
        this way because they exist once per module; use :meth:`read_resource`.
        """
        package, slash, _simple = internal_name.rpartition("/")
        if not slash:
            return None
        module = self.module_of_package(package)
        if module is None:
            return None
        return self.read_resource(f"/{module}/{internal_name}.class")

    # -- listings -----------------------------------------------------------

    def modules(self) -> list[str]:
        """Names of all modules in the image, sorted."""
        return sorted(self._modules_catalogue())

    def iter_resource_names(self, module: str | None = None) -> Iterator[tuple[str, str]]:
        """(module, path inside the module) for every resource, sorted by module then path."""
        for entry in self._entries(module):
            yield entry.module, entry.path

    def iter_class_names(self, module: str | None = None) -> Iterator[tuple[str, str]]:
        """(module, internal class name) of every ``.class`` resource, without reading bytes."""
        for entry in self._entries(module):
            if entry.extension == "class":
                yield entry.module, entry.path[:-6]

    def iter_classes(self, module: str | None = None) -> Iterator[tuple[str, str, bytes]]:
        """(module, internal class name, bytes) of every ``.class`` resource.

        Includes each module's ``module-info``. Limited to *module* when given
        (an unknown module yields nothing).
        """
        index = self._open()
        for entry in self._entries(module):
            if entry.extension == "class":
                full = f"/{entry.module}/{entry.path}"
                yield entry.module, entry.path[:-6], index.content(entry.attrs, full)

    def _entries(self, module: str | None) -> Iterator[_Entry]:
        catalogue = self._modules_catalogue()
        names = sorted(catalogue) if module is None else [module]
        for name in names:
            yield from catalogue.get(name, ())

    def _modules_catalogue(self) -> dict[str, list[_Entry]]:
        """All module resources grouped by module, built once from the offsets table.

        Listing needs every entry anyway, and decoding each attribute stream
        once (~30k of them in a full JDK) is far cheaper than walking the
        ``/modules`` directory tree entry by entry.
        """
        catalogue = self._catalogue
        if catalogue is not None:
            return catalogue
        index = self._open()
        text = index.text
        catalogue = {}
        for attrs in index.all_locations():
            module = text(attrs[_ATTR_MODULE])
            if not module or module in _DIRECTORY_ROOTS:
                continue
            ext = text(attrs[_ATTR_EXTENSION])
            base = text(attrs[_ATTR_BASE])
            path = f"{text(attrs[_ATTR_PARENT])}/{base}" if attrs[_ATTR_PARENT] else base
            if ext:
                path = f"{path}.{ext}"
            catalogue.setdefault(module, []).append(_Entry(module, path, ext, attrs))
        for entries in catalogue.values():
            entries.sort(key=lambda entry: entry.path)
        self._catalogue = catalogue
        return catalogue


def _benchmark(location: str | None = None) -> None:
    """Print listing, lookup and full-read speeds for the local JDK."""
    import time

    image = JdkImage(location or find_java_home())
    with image:
        start = time.perf_counter()
        names = list(image.iter_class_names())
        listed = time.perf_counter() - start
        print(f"{image.path}: {len(image.modules())} modules, {len(names)} classes, build {image.build_id}")
        print(f"  catalogue (first listing): {listed * 1000:.0f} ms")

        start = time.perf_counter()
        total = sum(len(data) for _m, _n, data in image.iter_classes())
        elapsed = time.perf_counter() - start
        print(
            f"  iter_classes: {len(names) / elapsed:,.0f} classes/s "
            f"({total / elapsed / 1e6:,.0f} MB/s, {elapsed:.2f} s)"
        )

        sample = [name for _m, name in names if "/" in name]
        start = time.perf_counter()
        for name in sample:
            image.find_class(name)
        elapsed = time.perf_counter() - start
        print(f"  find_class: {len(sample) / elapsed:,.0f} lookups/s")

        missing = [name + "$Missing" for name in sample[:5000]]
        start = time.perf_counter()
        for name in missing:
            image.find_class(name)
        elapsed = time.perf_counter() - start
        print(f"  find_class (misses): {len(missing) / elapsed:,.0f} lookups/s")


if __name__ == "__main__":
    _benchmark(sys.argv[1] if len(sys.argv) > 1 else None)
