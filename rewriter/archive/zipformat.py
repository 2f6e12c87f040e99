"""A small ZIP reader and writer made for jars.

Why not :mod:`zipfile`?  jprewrite must copy unchanged entries of big jars
*as raw compressed bytes* (decompressing and recompressing 100 MB of classes
is slow and changes bytes), must keep every structural detail of an entry
(local and central extra fields, flags, versions, comments, attributes), and
must reject input that the standard library silently accepts (local headers
that disagree with the central directory).  Repeated entry names are kept,
all of them, in order: the JVM accepts such jars (its ``ZipFile`` finds the
*last* entry of a name), so a rewriter must too (``jars.Container`` applies
that rule).  Doing
the ZIP structures ourselves with :mod:`struct` is simpler than working around
:mod:`zipfile` and is fast: opening reads only the central directory, entry
data is read on demand with ``pread``.

Scope, chosen to match what the JVM itself accepts: compression methods
STORED (0) and DEFLATED (8); ZIP64 read and written; no encryption, no
multi-disk archives.  A preamble before the archive (a launcher script in
"executable" jars) is found and can be written back.

Every problem with input is raised as :class:`~jprewrite.errors.ArchiveError`
carrying the file, the entry and the byte offset.
"""

from __future__ import annotations

import os
import struct
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from ..errors import ArchiveError

__all__ = [
    "STORED",
    "DEFLATED",
    "ZipRecord",
    "LocalHeader",
    "ZipReader",
    "ZipWriter",
    "find_end_record",
    "dos_datetime",
    "parse_extra",
    "build_extra",
    "pread_fn",
    "read_fully",
]

STORED = 0
DEFLATED = 8

#: Compression methods by number, only used to word error messages.
METHOD_NAMES = {
    0: "stored",
    1: "shrunk",
    6: "imploded",
    8: "deflated",
    9: "deflate64",
    12: "bzip2",
    14: "lzma",
    93: "zstd",
    95: "xz",
    96: "jpeg",
    97: "wavpack",
    98: "ppmd",
    99: "aes-encrypted",
}

_LOCAL = struct.Struct("<4sHHHHHIIIHH")  # 30 bytes
_CENTRAL = struct.Struct("<4sBBHHHHHIIIHHHHHII")  # 46 bytes
_EOCD = struct.Struct("<4sHHHHIIH")  # 22 bytes
_EOCD64 = struct.Struct("<4sQHHIIQQQQ")  # 56 bytes
_LOCATOR = struct.Struct("<4sIQI")  # 20 bytes
_DD32 = struct.Struct("<4sIII")
_DD64 = struct.Struct("<4sIQQ")
_EXTRA_HEAD = struct.Struct("<HH")

LOCAL_SIG = b"PK\x03\x04"
CENTRAL_SIG = b"PK\x01\x02"
EOCD_SIG = b"PK\x05\x06"
EOCD64_SIG = b"PK\x06\x06"
LOCATOR_SIG = b"PK\x06\x07"
DD_SIG = b"PK\x07\x08"

U16 = 0xFFFF
U32 = 0xFFFFFFFF
ZIP64_EXTRA_ID = 0x0001
ZIP64_VERSION = 45

FLAG_ENCRYPTED = 0x0001
FLAG_DATA_DESCRIPTOR = 0x0008
FLAG_UTF8 = 0x0800

_COPY_CHUNK = 1 << 20
#: Entry count from which the end records must be ZIP64 (a module variable so tests can lower it).
ZIP64_COUNT_LIMIT = U16
_MAX_COMMENT = 0xFFFF


# --------------------------------------------------------------------------- records


@dataclass(slots=True)
class ZipRecord:
    """One central directory entry, with everything needed to write it back unchanged.

    ``header_offset`` is the absolute position of the local header in the file
    (any preamble shift already applied).  ``z64_fields`` remembers which of
    (file_size, compress_size, header_offset, disk_start) were stored in the
    ZIP64 extra field, so that a copy keeps the same layout.
    """

    name: str
    raw_name: bytes
    create_version: int
    create_system: int
    extract_version: int
    flag_bits: int
    compress_type: int
    dos_time: int
    dos_date: int
    crc: int
    compress_size: int
    file_size: int
    extra: bytes
    comment: bytes
    disk_start: int
    internal_attr: int
    external_attr: int
    header_offset: int
    z64_fields: tuple[bool, bool, bool, bool] = (False, False, False, False)
    record_offset: int = -1

    def evolve(self, **changes: object) -> ZipRecord:
        """A copy with some fields changed (much cheaper than dataclasses.replace; called per entry)."""
        new = ZipRecord(
            self.name,
            self.raw_name,
            self.create_version,
            self.create_system,
            self.extract_version,
            self.flag_bits,
            self.compress_type,
            self.dos_time,
            self.dos_date,
            self.crc,
            self.compress_size,
            self.file_size,
            self.extra,
            self.comment,
            self.disk_start,
            self.internal_attr,
            self.external_attr,
            self.header_offset,
            self.z64_fields,
            self.record_offset,
        )
        for key, value in changes.items():
            setattr(new, key, value)
        return new

    @property
    def date_time(self) -> tuple[int, int, int, int, int, int]:
        """The MS-DOS timestamp as ``(year, month, day, hour, minute, second)``, like zipfile."""
        d, t = self.dos_date, self.dos_time
        return ((d >> 9) + 1980, (d >> 5) & 0xF, d & 0x1F, t >> 11, (t >> 5) & 0x3F, (t & 0x1F) * 2)

    @property
    def is_dir(self) -> bool:
        return self.name.endswith("/")


@dataclass(slots=True, frozen=True)
class LocalHeader:
    """A validated local file header: its raw bytes (header + name + extra) and where data starts."""

    raw: bytes
    data_offset: int
    extra: bytes
    flag_bits: int


def dos_datetime(date_time: tuple[int, ...]) -> tuple[int, int]:
    """(year, month, day, hour, minute, second) -> (dos_date, dos_time), clamped to the DOS range.

    The DOS format cannot hold years before 1980 or after 2107; like the JDK we
    clamp instead of failing, because a file system timestamp is no reason to
    refuse writing a jar.
    """
    y, mo, d, h, mi, s = (tuple(date_time) + (0, 0, 0, 0, 0, 0))[:6]
    if y < 1980:
        y, mo, d, h, mi, s = 1980, 1, 1, 0, 0, 0
    elif y > 2107:
        y, mo, d, h, mi, s = 2107, 12, 31, 23, 59, 58
    return ((y - 1980) << 9) | (mo << 5) | d, (h << 11) | (mi << 5) | (s // 2)


def parse_extra(extra: bytes) -> list[tuple[int, bytes]] | None:
    """Split an extra field into (id, data) blocks; None when it is not well formed.

    Some tools pad extra fields with zero bytes or write garbage; callers then
    keep the field as opaque bytes rather than failing.
    """
    blocks: list[tuple[int, bytes]] = []
    pos, end = 0, len(extra)
    while pos < end:
        if pos + 4 > end:
            return None
        hid, size = _EXTRA_HEAD.unpack_from(extra, pos)
        if pos + 4 + size > end:
            return None
        blocks.append((hid, extra[pos + 4 : pos + 4 + size]))
        pos += 4 + size
    return blocks


def build_extra(blocks: list[tuple[int, bytes]]) -> bytes:
    """Inverse of :func:`parse_extra`."""
    return b"".join(_EXTRA_HEAD.pack(hid, len(data)) + data for hid, data in blocks)


def _without_zip64(extra: bytes) -> tuple[bytes, int | None, list[tuple[int, bytes]] | None]:
    """Return (extra without the ZIP64 block, index the block had, parsed blocks)."""
    blocks = parse_extra(extra)
    if blocks is None:
        return extra, None, None
    index: int | None = None
    kept: list[tuple[int, bytes]] = []
    for hid, data in blocks:
        if hid == ZIP64_EXTRA_ID:
            if index is None:
                index = len(kept)
            continue
        kept.append((hid, data))
    return (build_extra(kept) if index is not None else extra), index, kept


def _with_zip64(extra: bytes, payload: bytes) -> bytes:
    """Put a ZIP64 block with ``payload`` into ``extra`` (where an old one was, else first)."""
    stripped, index, kept = _without_zip64(extra)
    block = (ZIP64_EXTRA_ID, payload)
    if kept is None:  # opaque extra field: append, readers scan all blocks
        return stripped + build_extra([block])
    kept.insert(0 if index is None else index, block)
    return build_extra(kept)


def _has_zip64(extra: bytes) -> bool:
    blocks = parse_extra(extra) or []
    return any(hid == ZIP64_EXTRA_ID for hid, _ in blocks)


def _describe_method(method: int) -> str:
    name = METHOD_NAMES.get(method)
    return f"{method} ({name})" if name else str(method)


# --------------------------------------------------------------------------- reading


def pread_fn(fd: int) -> Callable[[int, int], bytes]:
    """A positional read that several threads may use at once (pread where available)."""
    if hasattr(os, "pread"):
        return lambda offset, n: os.pread(fd, n, offset)
    lock = threading.Lock()

    def read_at(offset: int, n: int) -> bytes:
        with lock:
            os.lseek(fd, offset, os.SEEK_SET)
            return os.read(fd, n)

    return read_at


def read_fully(read_at: Callable[[int, int], bytes], offset: int, n: int) -> bytes:
    """pread may return short counts for big reads; loop until EOF or ``n`` bytes."""
    first = read_at(offset, n)
    if len(first) == n or not first:
        return first
    parts = [first]
    got = len(first)
    while got < n:
        chunk = read_at(offset + got, n - got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


@dataclass(slots=True, frozen=True)
class EndRecord:
    """Where the central directory is, as found from the end of the file."""

    cd_start: int  # absolute file position of the central directory
    cd_size: int
    total: int  # entry count declared by the end record
    shift: int  # add to stored local header offsets to get file positions
    comment: bytes
    end_pos: int  # position of the (ZIP64) end record, where the central directory must end


def find_end_record(
    path: str, read_at: Callable[[int, int], bytes], size: int, *, required: bool = True
) -> EndRecord | None:
    """Locate and decode the end of central directory (and ZIP64) records.

    Like the JDK, accepts a comment whose length field matches the file end,
    or (for files with trailing junk) an end record whose central directory
    and first local header are where it says.  With ``required=False``
    returns None instead of raising when there is no end record at all (used
    to sniff a zip behind a preamble).
    """
    if size < _EOCD.size:
        if not required:
            return None
        raise ArchiveError(
            "truncated or corrupt zip: file too short for an end of central directory record", path=path, offset=0
        )
    tail_start = max(0, size - (_EOCD.size + _MAX_COMMENT))
    tail = read_fully(read_at, tail_start, size - tail_start)
    i = len(tail)
    while True:
        i = tail.rfind(EOCD_SIG, 0, i)
        if i < 0:
            if not required:
                return None
            raise ArchiveError("truncated or corrupt zip: no end of central directory record", path=path)
        if i + _EOCD.size > len(tail):
            continue
        _, disk, cd_disk, n_disk, total, cd_size, cd_offset, com_len = _EOCD.unpack_from(tail, i)
        end_pos = tail_start + i
        exact = end_pos + _EOCD.size + com_len == size
        if not exact:
            # Trailing bytes after the archive: accept only if the structures check out (JDK rule).
            cen, loc = end_pos - cd_size, end_pos - cd_size - cd_offset
            if cen < 0 or loc < 0 or (total and (read_at(cen, 4) != CENTRAL_SIG or read_at(loc, 4) != LOCAL_SIG)):
                continue
        comment = tail[i + _EOCD.size : i + _EOCD.size + com_len]
        break

    ref_pos = end_pos
    if end_pos >= _LOCATOR.size:
        loc = read_at(end_pos - _LOCATOR.size, _LOCATOR.size)
        if len(loc) == _LOCATOR.size and loc[:4] == LOCATOR_SIG:
            _, _, z64_offset, _ = _LOCATOR.unpack(loc)
            candidates = [end_pos - _LOCATOR.size - _EOCD64.size, z64_offset]
            for pos in candidates:
                if pos < 0:
                    continue
                rec = read_at(pos, _EOCD64.size)
                if len(rec) == _EOCD64.size and rec[:4] == EOCD64_SIG:
                    (_, _, _, _, disk, cd_disk, n_disk, total, cd_size, cd_offset) = _EOCD64.unpack(rec)
                    ref_pos = pos
                    break
            else:
                raise ArchiveError(
                    "corrupt zip: ZIP64 end of central directory record not found where the ZIP64 locator points",
                    path=path,
                    offset=end_pos - _LOCATOR.size,
                )
    if disk != 0 or cd_disk != 0:
        raise ArchiveError("multi-disk (split) zip archives are not supported", path=path, offset=end_pos)
    cd_start = ref_pos - cd_size
    shift = cd_start - cd_offset
    if cd_start < 0 or shift < 0:
        raise ArchiveError(
            f"corrupt zip: central directory (offset {cd_offset}, size {cd_size}) does not fit before the end record",
            path=path,
            offset=end_pos,
        )
    return EndRecord(cd_start, cd_size, total, shift, comment, ref_pos)


class ZipReader:
    """Read-only view of a zip file: central directory parsed at open, data read lazily.

    Owns ``fd`` (closes it on :meth:`close`, and on a failed open).  Safe to
    read entries from several threads.
    """

    def __init__(self, path: str, fd: int, size: int) -> None:
        self.path = path
        self._fd: int | None = fd
        self.size = size
        self._read_at = pread_fn(fd)
        try:
            end = find_end_record(path, self._checked_read, size)
            assert end is not None
            self.comment: bytes = end.comment
            self.cd_start = end.cd_start
            self.records: list[ZipRecord] = self._parse_central_directory(end)
        except BaseException:
            self.close()
            raise
        self.preamble_size = min((r.header_offset for r in self.records), default=self.cd_start)

    # -- low level

    def _checked_read(self, offset: int, n: int) -> bytes:
        if self._fd is None:
            raise ValueError(f"{self.path}: archive is closed")
        try:
            return read_fully(self._read_at, offset, n)
        except OSError as e:
            raise ArchiveError(f"read error: {e.strerror or e}", path=self.path, offset=offset) from None

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass

    @property
    def closed(self) -> bool:
        return self._fd is None

    def read_preamble(self) -> bytes:
        """Bytes before the first entry (e.g. a launcher script); b"" for ordinary jars."""
        return self._checked_read(0, self.preamble_size) if self.preamble_size else b""

    # -- central directory

    def _parse_central_directory(self, end: EndRecord) -> list[ZipRecord]:
        path, base, shift = self.path, end.cd_start, end.shift
        cd = self._checked_read(base, end.cd_size)
        if len(cd) < end.cd_size:
            raise ArchiveError("truncated zip: central directory extends past end of file", path=path, offset=base)
        unpack = _CENTRAL.unpack_from
        records: list[ZipRecord] = []
        pos, limit = 0, end.cd_size
        while pos < limit:
            if pos + _CENTRAL.size > limit:
                raise ArchiveError("corrupt zip: truncated central directory record", path=path, offset=base + pos)
            (
                sig,
                create_version,
                create_system,
                extract_version,
                flags,
                method,
                dos_time,
                dos_date,
                crc,
                csize,
                usize,
                nlen,
                elen,
                clen,
                disk,
                iattr,
                eattr,
                offset,
            ) = unpack(cd, pos)
            if sig != CENTRAL_SIG:
                raise ArchiveError("corrupt zip: bad central directory entry signature", path=path, offset=base + pos)
            name_end = pos + _CENTRAL.size + nlen
            extra_end = name_end + elen
            rec_end = extra_end + clen
            if rec_end > limit:
                raise ArchiveError(
                    "corrupt zip: central directory entry runs past the central directory", path=path, offset=base + pos
                )
            raw_name = cd[pos + _CENTRAL.size : name_end]
            name = _decode_name(raw_name, flags)
            extra = cd[name_end:extra_end]
            z64 = (usize == U32, csize == U32, offset == U32, disk == U16)
            if any(z64):
                usize, csize, offset, disk = _apply_zip64(
                    path, name, base + pos, extra, z64, (usize, csize, offset, disk)
                )
            rec = ZipRecord(
                name,
                raw_name,
                create_version,
                create_system,
                extract_version,
                flags,
                method,
                dos_time,
                dos_date,
                crc,
                csize,
                usize,
                extra,
                cd[extra_end:rec_end],
                disk,
                iattr,
                eattr,
                offset + shift,
                z64,
                base + pos,
            )
            if rec.header_offset + _LOCAL.size > base:
                raise ArchiveError(
                    f"corrupt zip: local header offset {offset} is outside the archive data",
                    path=path,
                    entry=name,
                    offset=base + pos,
                )
            records.append(rec)
            pos = rec_end
        n = len(records)
        if n != end.total and (n & 0xFFFF) != (end.total & 0xFFFF):
            raise ArchiveError(
                f"corrupt zip: end record declares {end.total} entries but the central directory has {n}",
                path=path,
                offset=end.end_pos,
            )
        return records

    # -- entries

    def local_header(self, rec: ZipRecord) -> LocalHeader:
        """Read and check the local header of ``rec``: signature, bounds, and that the name agrees."""
        off = rec.header_offset
        guess = _LOCAL.size + len(rec.raw_name) + len(rec.extra) + 32
        buf = self._checked_read(off, guess)
        if len(buf) < _LOCAL.size:
            raise ArchiveError("truncated zip: local file header cut off", path=self.path, entry=rec.name, offset=off)
        (sig, _, flags, _, _, _, _, _, _, nlen, elen) = _LOCAL.unpack_from(buf)
        if sig != LOCAL_SIG:
            raise ArchiveError(
                "corrupt zip: bad local file header signature", path=self.path, entry=rec.name, offset=off
            )
        total = _LOCAL.size + nlen + elen
        if len(buf) < total:
            buf += self._checked_read(off + len(buf), total - len(buf))
            if len(buf) < total:
                raise ArchiveError(
                    "truncated zip: local file header cut off", path=self.path, entry=rec.name, offset=off
                )
        if buf[_LOCAL.size : _LOCAL.size + nlen] != rec.raw_name:
            raise ArchiveError(
                "corrupt zip: local file header name differs from the central directory "
                f"name ({bytes(buf[_LOCAL.size : _LOCAL.size + nlen])!r})",
                path=self.path,
                entry=rec.name,
                offset=off,
            )
        data_offset = off + total
        if data_offset + rec.compress_size > self.cd_start:
            raise ArchiveError(
                "corrupt or truncated zip: entry data runs into the central directory",
                path=self.path,
                entry=rec.name,
                offset=data_offset,
            )
        return LocalHeader(bytes(buf[:total]), data_offset, bytes(buf[_LOCAL.size + nlen : total]), flags)

    def read_compressed(self, rec: ZipRecord, header: LocalHeader | None = None) -> bytes:
        """The entry's stored bytes, as in the file (no decompression, no CRC check)."""
        header = header or self.local_header(rec)
        data = self._checked_read(header.data_offset, rec.compress_size)
        if len(data) < rec.compress_size:
            raise ArchiveError(
                "truncated zip: entry data cut off", path=self.path, entry=rec.name, offset=header.data_offset
            )
        return data

    def read(self, rec: ZipRecord) -> bytes:
        """Decompressed entry bytes, checked against the declared size and CRC-32."""
        if rec.flag_bits & FLAG_ENCRYPTED:
            raise ArchiveError(
                "encrypted zip entries are not supported", path=self.path, entry=rec.name, offset=rec.header_offset
            )
        if rec.compress_type not in (STORED, DEFLATED):
            raise ArchiveError(
                f"unsupported compression method {_describe_method(rec.compress_type)} "
                "(the JVM reads only stored and deflated entries)",
                path=self.path,
                entry=rec.name,
                offset=rec.header_offset,
            )
        header = self.local_header(rec)
        data = self.read_compressed(rec, header)
        if rec.compress_type == STORED:
            if rec.compress_size != rec.file_size:
                raise ArchiveError(
                    f"corrupt zip: stored entry has compressed size {rec.compress_size} but size {rec.file_size}",
                    path=self.path,
                    entry=rec.name,
                    offset=rec.record_offset,
                )
            out = data
        else:
            inflater = zlib.decompressobj(-15)
            try:
                # Bound the output by the declared size: a lying header must not make us inflate a bomb.
                out = inflater.decompress(data, rec.file_size + 1)
            except zlib.error as e:
                raise ArchiveError(
                    f"corrupt deflate data: {e}", path=self.path, entry=rec.name, offset=header.data_offset
                ) from None
            if len(out) != rec.file_size or not inflater.eof:
                what = "longer than" if len(out) > rec.file_size else "shorter than"
                if len(out) == rec.file_size:
                    what = "truncated: deflate stream does not end within"
                raise ArchiveError(
                    f"corrupt zip: inflated data is {what} the declared size {rec.file_size}",
                    path=self.path,
                    entry=rec.name,
                    offset=header.data_offset,
                )
        crc = zlib.crc32(out)
        if crc != rec.crc:
            raise ArchiveError(
                f"CRC mismatch: entry data has CRC-32 {crc:08x}, the directory says {rec.crc:08x}",
                path=self.path,
                entry=rec.name,
                offset=header.data_offset,
            )
        return out

    def copy_compressed(self, rec: ZipRecord, header: LocalHeader, write: Callable[[bytes], object]) -> None:
        """Stream the entry's stored bytes to ``write`` in chunks (big entries need not fit in memory)."""
        pos, left = header.data_offset, rec.compress_size
        while left:
            chunk = self._checked_read(pos, min(left, _COPY_CHUNK))
            if not chunk:
                raise ArchiveError("truncated zip: entry data cut off", path=self.path, entry=rec.name, offset=pos)
            write(chunk)
            pos += len(chunk)
            left -= len(chunk)


def _decode_name(raw: bytes, flags: int) -> str:
    """Decode an entry name the way the JVM does (UTF-8), falling back to CP437 for old archivers."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        if flags & FLAG_UTF8:
            return raw.decode("utf-8", "replace")
        return raw.decode("cp437")


def _apply_zip64(
    path: str, name: str, offset: int, extra: bytes, z64: tuple[bool, ...], values: tuple[int, int, int, int]
) -> tuple[int, int, int, int]:
    """Replace the 0xFFFFFFFF placeholders by the values of the ZIP64 extra block (spec order)."""
    blocks = parse_extra(extra) or []
    for hid, data in blocks:
        if hid != ZIP64_EXTRA_ID:
            continue
        out = list(values)
        pos = 0
        for i, wanted in enumerate(z64):
            if not wanted:
                continue
            width = 4 if i == 3 else 8
            if pos + width > len(data):
                raise ArchiveError("corrupt zip: ZIP64 extra field too short", path=path, entry=name, offset=offset)
            out[i] = int.from_bytes(data[pos : pos + width], "little")
            pos += width
        return out[0], out[1], out[2], out[3]
    raise ArchiveError(
        "corrupt zip: sizes or offset say ZIP64 but the ZIP64 extra field is missing",
        path=path,
        entry=name,
        offset=offset,
    )


# --------------------------------------------------------------------------- writing


class ZipWriter:
    """Append entries to a binary file and finish with a central directory.

    The writer knows nothing about policy (duplicates, signatures, atomic
    replacement): :mod:`jprewrite.archive.jars` does that.  ``path`` is only
    used in error messages.
    """

    def __init__(self, fileobj: BinaryIO, path: str, *, preamble: bytes = b"") -> None:
        self._f = fileobj
        self.path = path
        self._pos = 0
        self._central: list[ZipRecord] = []
        if preamble:
            self._write(preamble)

    def _write(self, data: bytes) -> None:
        self._f.write(data)
        self._pos += len(data)

    @property
    def count(self) -> int:
        return len(self._central)

    def copy_raw(self, reader: ZipReader, rec: ZipRecord) -> None:
        """Copy an entry byte for byte: local header, compressed data, data descriptor.

        Only the local header offset in the central record changes.  A data
        descriptor is written fresh (with signature) from the central values
        rather than copied, which avoids guessing its exact original layout.
        """
        header = reader.local_header(rec)
        offset = self._pos
        self._write(header.raw)
        reader.copy_compressed(rec, header, self._write)
        if rec.flag_bits & FLAG_DATA_DESCRIPTOR:
            big = rec.compress_size >= U32 or rec.file_size >= U32 or _has_zip64(header.extra)
            dd = (
                _DD64.pack(DD_SIG, rec.crc, rec.compress_size, rec.file_size)
                if big
                else _DD32.pack(DD_SIG, rec.crc, rec.compress_size, rec.file_size)
            )
            self._write(dd)
        self._central.append(rec.evolve(header_offset=offset))

    def write_entry(
        self, template: ZipRecord, data: bytes, *, local_extra: bytes = b"", compresslevel: int = 6
    ) -> ZipRecord:
        """Write new content for an entry described by ``template``.

        Name, timestamps, method, comment, attributes, versions and extra
        fields come from the template; CRC and sizes are computed; the local
        header carries the sizes (no data descriptor), as STORED entries in
        jars require.  Methods other than STORED are written DEFLATED.
        """
        method = STORED if template.compress_type == STORED else DEFLATED
        crc = zlib.crc32(data)
        if method == DEFLATED:
            comp = zlib.compressobj(compresslevel, zlib.DEFLATED, -15)
            payload = comp.compress(data) + comp.flush()
        else:
            payload = data
        usize, csize, offset = len(data), len(payload), self._pos
        flags = template.flag_bits & FLAG_UTF8
        extract_version = template.extract_version
        big_sizes = usize >= U32 or csize >= U32
        local_extra = _without_zip64(local_extra)[0]
        if big_sizes:
            local_extra = _with_zip64(local_extra, struct.pack("<QQ", usize, csize))
        rec = template.evolve(
            flag_bits=flags,
            compress_type=method,
            crc=crc,
            compress_size=csize,
            file_size=usize,
            header_offset=offset,
            extra=_without_zip64(template.extra)[0],
            z64_fields=(False, False, False, False),
        )
        if big_sizes or offset >= U32:
            extract_version = (extract_version & 0xFF00) | max(extract_version & 0xFF, ZIP64_VERSION)
            rec.extract_version = extract_version
        self._write(
            _LOCAL.pack(
                LOCAL_SIG,
                extract_version,
                flags,
                method,
                template.dos_time,
                template.dos_date,
                crc,
                U32 if big_sizes else csize,
                U32 if big_sizes else usize,
                len(template.raw_name),
                len(local_extra),
            )
        )
        self._write(template.raw_name)
        self._write(local_extra)
        self._write(payload)
        self._central.append(rec)
        return rec

    def finish(self, comment: bytes = b"") -> None:
        """Write the central directory and end records (ZIP64 ones when counts/offsets need them)."""
        if len(comment) > _MAX_COMMENT:
            raise ArchiveError(
                f"archive comment too long ({len(comment)} bytes, at most {_MAX_COMMENT})", path=self.path
            )
        cd_offset = self._pos
        for rec in self._central:
            self._write(_central_bytes(rec))
        cd_size = self._pos - cd_offset
        n = len(self._central)
        if n >= ZIP64_COUNT_LIMIT or cd_size >= U32 or cd_offset >= U32:
            z64_pos = self._pos
            self._write(
                _EOCD64.pack(
                    EOCD64_SIG, _EOCD64.size - 12, ZIP64_VERSION, ZIP64_VERSION, 0, 0, n, n, cd_size, cd_offset
                )
            )
            self._write(_LOCATOR.pack(LOCATOR_SIG, 0, z64_pos, 1))
            self._write(
                _EOCD.pack(
                    EOCD_SIG, 0, 0, min(n, U16), min(n, U16), min(cd_size, U32), min(cd_offset, U32), len(comment)
                )
            )
        else:
            self._write(_EOCD.pack(EOCD_SIG, 0, 0, n, n, cd_size, cd_offset, len(comment)))
        self._write(comment)


def _central_bytes(rec: ZipRecord) -> bytes:
    """Serialize a central record; the extra field is kept as is unless ZIP64 values must change.

    A field goes into the ZIP64 block when it does not fit in 32 bits or when
    the input record had it there (so copies keep their layout).
    """
    sticky = rec.z64_fields
    values = [rec.file_size, rec.compress_size, rec.header_offset]
    in_z64 = [values[i] >= U32 or sticky[i] for i in range(3)]
    disk_in_z64 = sticky[3]
    extra = rec.extra
    extract_version = rec.extract_version
    if any(in_z64) or disk_in_z64:
        payload = b"".join(struct.pack("<Q", v) for v, used in zip(values, in_z64) if used)
        if disk_in_z64:
            payload += struct.pack("<I", rec.disk_start)
        extra = _with_zip64(extra, payload)
        extract_version = (extract_version & 0xFF00) | max(extract_version & 0xFF, ZIP64_VERSION)
    fields = [U32 if used else v for v, used in zip(values, in_z64)]
    head = _CENTRAL.pack(
        CENTRAL_SIG,
        rec.create_version,
        rec.create_system,
        extract_version,
        rec.flag_bits,
        rec.compress_type,
        rec.dos_time,
        rec.dos_date,
        rec.crc,
        fields[1],
        fields[0],
        len(rec.raw_name),
        len(extra),
        len(rec.comment),
        U16 if disk_in_z64 else rec.disk_start,
        rec.internal_attr,
        rec.external_attr,
        fields[2],
    )
    return head + rec.raw_name + extra + rec.comment
