"""The compact profile format (``.jpprof``): the same trees as the JSON, a tenth of the bytes.

Why a second format: the kotlin compiler's profile is 1.3 GB of JSON, mostly method names and
key names repeated on every context; gzip shrinks it but costs the JVM more CPU than the
writing itself. Here a method name is written once and a context is a few varints. The JSON
stays the format every tool reads; this one is read by jprewrite's tools (told by its magic
number, not the file name) and written by the runtime for an output name ending in ``.jpprof``.

Layout (docs/profiles.md "The compact format"): ``JPPROF\\0`` and a version byte; the
top-level fields as one JSON object (varint length, UTF-8); records, each a tag byte: ``R``
the merged tree, ``T`` a thread (name, then 0 = name only, 1 = same tree as the merged one,
2 = its tree follows), ``Z`` the end. A tree is chunks (``C``) of at most 65,536 contexts in
pre-order, then ``E`` and its context count. A chunk: its context count, the methods it uses
first (kind byte, name) and the allocation types it uses first (names), then its columns as
one protobuf message of packed varints, one value per context: parent distance (row less the
parent's row), method, calls, own bytecodes, weighted, samples, fresh (counters zig-zag), and
the allocations as (row in chunk, type, count). A column of zeros is left out. After a tree's
``E``, the subtree size of each context (field 11, chunks of 65,536): the model's ``end``; and
field 12 of a chunk, inclusive bytecodes (when any were counted): what ``report`` sorts by.

Reading decodes each column with the ``protobuf`` package's C parser into the node tables'
``array`` columns (:mod:`.model`): no Python object per context.
"""

from __future__ import annotations

import json
import operator
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Collection
from itertools import repeat
from typing import IO, BinaryIO

from ..errors import JprewriteError
from .model import KINDS, METRICS, Frames, Profile, Tree

__all__ = ["MAGIC", "VERSION", "CHUNK", "is_compact", "is_compact_name", "read_compact", "write_compact"]

MAGIC = b"JPPROF\x00"
VERSION = 2  # written; since 2 a thread may be a selection of the merged tree (tag 3)
READABLE = (1, 2)  # version 1 is the same without tag 3
CHUNK = 1 << 16
# the chunk message's fields 1.., in order; the first two and the allocation rows/types are unsigned
_COLUMNS = (
    "parent",
    "method",
    "calls",
    "bytecodes",
    "weighted",
    "samples",
    "fresh",
    "alloc_row",
    "alloc_type",
    "alloc_count",
    "size",
    "inclusive",
)
_UNSIGNED = {"parent", "method", "alloc_row", "alloc_type", "size"}
_OPTIONAL = ("weighted", "samples", "fresh")
_chunk_class: type | None = None


def _chunk() -> type:
    """The chunk message class, built once from a descriptor (no generated module, no protoc)."""
    global _chunk_class
    if _chunk_class is None:
        try:
            from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
        except ImportError:  # pragma: no cover - depends on the installation
            raise JprewriteError("reading .jpprof profiles needs the 'protobuf' package") from None
        fdp = descriptor_pb2.FileDescriptorProto(name="jprewrite/jpprof.proto", package="jprewrite", syntax="proto3")
        m = fdp.message_type.add(name="Chunk")
        t = descriptor_pb2.FieldDescriptorProto
        for number, name in enumerate(_COLUMNS, 1):
            ftype = t.TYPE_UINT64 if name in _UNSIGNED else t.TYPE_SINT64
            m.field.add(name=name, number=number, type=ftype, label=t.LABEL_REPEATED)
        pool = descriptor_pool.DescriptorPool()
        pool.Add(fdp)
        _chunk_class = message_factory.GetMessageClass(pool.FindMessageTypeByName("jprewrite.Chunk"))
    return _chunk_class


def is_compact(head: bytes) -> bool:
    """Whether a file's first bytes are this format's magic number."""
    return head[: len(MAGIC)] == MAGIC


def is_compact_name(path: str) -> bool:
    """Whether an output name asks for this format (``.jpprof``, or ``.jpprof.gz`` gzipped)."""
    return path.endswith((".jpprof", ".jpprof.gz"))


# --------------------------------------------------------------------------- reading


class _In:
    """Bytes of the file with the offset, for one-line errors; truncation is an error, not EOF."""

    def __init__(self, stream: BinaryIO, path: str) -> None:
        self.stream = stream
        self.path = path
        self.offset = 0

    def fail(self, what: str) -> JprewriteError:
        return JprewriteError(what, path=self.path, offset=self.offset)

    def read(self, n: int) -> bytes:
        try:
            data = self.stream.read(n)
        except (EOFError, OSError, zlib.error) as e:  # a truncated or corrupt .gz
            raise JprewriteError(f"cannot read the compressed profile: {e}", path=self.path) from None
        if len(data) != n:
            raise self.fail("truncated profile (the file ends early)")
        self.offset += n
        return data

    def byte(self) -> int:
        return self.read(1)[0]

    def varint(self) -> int:
        v = shift = 0
        while shift < 64:
            b = self.byte()
            v |= (b & 0x7F) << shift
            if b < 0x80:
                return v
            shift += 7
        raise self.fail("malformed varint")

    def blob(self, limit: int = 1 << 28) -> bytes:  # a chunk is a few MB: a bigger length is damage
        n = self.varint()
        if n > limit:
            raise self.fail(f"malformed length {n}")
        return self.read(n)

    def text(self) -> str:
        try:
            return self.blob(1 << 24).decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise self.fail("malformed name (not UTF-8)") from None


class _Reader:
    """The file's records in order; method names and allocation types accumulate across trees."""

    def __init__(self, src: _In) -> None:
        self.src = src
        self.frames = Frames()
        self.fmap: list[int] = []  # file's method number -> frame number
        self.identity = True  # fmap[i] == i (always, unless a file lists a method twice)
        self.types: list[str] = []
        self.stored_inclusive = False  # the last tree read carried inclusive bytecodes

    def profile(self, merged: bool, threads: bool | Collection[str]) -> tuple[Profile, bool]:
        """The profile, and whether a wanted thread is the merged tree but that was not read."""
        src = self.src
        if src.read(len(MAGIC)) != MAGIC:
            raise src.fail("not a compact profile")
        version = src.byte()
        if version not in READABLE:
            raise src.fail(f"compact profile version {version}; this jprewrite reads versions 1 and {VERSION}")
        try:
            header = json.loads(src.blob(1 << 26))
        except ValueError:
            raise src.fail("malformed header of the compact profile") from None
        if not isinstance(header, dict) or header.get("format", "jprewrite-profile") != "jprewrite-profile":
            raise JprewriteError("not a jprewrite profile (header)", path=src.path)
        result = Profile(self.frames, None, header=header, source=src.path)
        if src.byte() != ord("R"):
            raise src.fail("expected the merged tree")
        # read on when only the merged tree is wanted (report): the threads' trees are passed over
        # undecoded, but a file cut in them must not pass for a whole one
        result.merged = self.tree(merged)
        missing = False
        while True:
            tag = src.byte()
            if tag == ord("Z"):
                break
            if tag != ord("T"):
                raise src.fail("expected a thread or the end")
            name = src.text()
            what = src.byte()
            result.thread_names.append(name)
            wanted = threads is True or (threads is not False and name in threads)
            if what == 2:
                tree = self.tree(wanted)
                if tree is not None:
                    result.threads.append((name, tree))
            elif what == 1 and wanted:
                if result.merged is None:
                    missing = True
                else:
                    result.threads.append((name, result.merged))
            elif what == 3:  # its root, and which of the merged tree's top-level subtrees are its own
                root = self.tree(wanted and result.merged is not None)
                picks = self.picks()
                if wanted and result.merged is None:
                    missing = True
                elif root is not None and result.merged is not None:
                    result.threads.append((name, self.selection(result.merged, root, picks)))
            elif what not in (0, 1):
                raise src.fail("malformed thread entry")
        if src.stream.read(1):
            raise src.fail("unexpected bytes after the profile")
        return result, missing

    def picks(self) -> list[int]:
        """The ascending positions of a thread's top-level subtrees among the merged root's children."""
        src = self.src
        picks = [src.varint() for _ in range(src.varint())]
        if any(b <= a for a, b in zip(picks, picks[1:])):
            raise src.fail("malformed thread entry")
        return picks

    def selection(self, merged: Tree, root: Tree, picks: list[int]) -> Tree:
        """A thread's tree from its root (a tree of one context) and the subtrees of the merged tree's
        top-level contexts at ``picks``: rows copied in their order, parents and ends shifted."""
        src = self.src
        end = merged.end
        tops = []
        c = 1
        while c < len(merged):
            tops.append(c)
            c = end[c]
        if len(root) != 1 or (picks and picks[-1] >= len(tops)):
            raise src.fail("malformed thread entry")
        spans = [(tops[p], end[tops[p]]) for p in picks]
        rows = 1 + sum(e - s for s, e in spans)
        parent, frame, ends = array("i", [-1]), array("i", root.frame), array("i", [rows])
        for s, e in spans:
            at = len(parent)  # the subtree's top goes here; its rows keep their distances
            parent.append(0)
            parent.extend(map(operator.add, merged.parent[s + 1 : e], repeat(at - s)))
            frame.extend(merged.frame[s:e])
            ends.extend(map(operator.add, end[s:e], repeat(at - s)))

        def column(mine: array | None, theirs: array | None) -> array:
            out = array("q", mine if mine is not None else [0])
            for s, e in spans:
                out.extend(theirs[s:e] if theirs is not None else bytes(8 * (e - s)))
            return out

        def nonzero(theirs: array | None) -> bool:
            return theirs is not None and any(theirs[s:e].tobytes().strip(b"\0") for s, e in spans)

        # a column as a full write of the thread would have it: there when any of its values is not 0
        names = [
            m
            for m in METRICS
            if m in ("calls", "bytecodes") or m != "allocations" and (m in root.values or nonzero(merged.values.get(m)))
        ]
        values = {m: column(root.values.get(m), merged.values.get(m)) for m in names}
        tree = Tree(root.frames, parent, frame, values, end=ends)
        if self.stored_inclusive:  # the file's inclusive bytecodes (of every tree, or none): no pass
            tree.set_inclusive("bytecodes", column(root.inclusive("bytecodes"), merged.inclusive("bytecodes")))
        if root.allocs is not None or merged.allocs is not None:
            an, at_, ac = array("i"), array("i"), array("q")
            if root.allocs is not None:
                an.extend(root.allocs[0])
                at_.extend(root.allocs[1])
                ac.extend(root.allocs[2])
            if merged.allocs is not None:
                man, mat, mac = merged.allocs
                k = 0
                base = 1
                for s, e in spans:
                    k = bisect_left(man, s, k)
                    while k < len(man) and man[k] < e:
                        an.append(man[k] - s + base)
                        at_.append(mat[k])
                        ac.append(mac[k])
                        k += 1
                    base += e - s
            if an:
                tree.allocs = (an, at_, ac)
                tree.alloc_types = list(self.types)
                values["allocations"] = _per_row(an, ac, rows)
        return tree

    def names(self) -> None:
        """A chunk's new methods and allocation types."""
        src, frames = self.src, self.frames
        for _ in range(src.varint()):
            kind = src.byte()
            if kind >= len(KINDS):
                raise src.fail(f"unknown method kind {kind}")
            f = frames.intern(src.text(), kind)
            if f != len(self.fmap):
                self.identity = False
            self.fmap.append(f)
        for _ in range(src.varint()):
            self.types.append(src.text())

    def tree(self, keep: bool) -> Tree | None:
        """One tree, chunk by chunk (or only its names, when not wanted)."""
        src = self.src
        cols = _Columns() if keep else None
        rows = 0
        while True:
            tag = src.byte()
            if tag == ord("E"):
                if src.varint() != rows or rows == 0:
                    raise src.fail("the tree's context count does not match its chunks")
                for base in range(0, rows, CHUNK):  # the subtree sizes
                    data = src.blob()
                    if cols is not None:
                        cols.sizes(src, data, base, min(CHUNK, rows - base), rows)
                break
            if tag != ord("C"):
                raise src.fail("expected a chunk of contexts")
            n = src.varint()
            if not 0 < n <= CHUNK:
                raise src.fail(f"malformed chunk of {n} contexts")
            self.names()
            data = src.blob()
            if cols is not None:
                cols.add(self, data, rows, n)
            rows += n
        if cols is None:
            return None
        self.stored_inclusive = cols.inclusive is not None
        return cols.tree(self.frames, list(self.types), rows)


class _Columns:
    """The node tables of one tree, grown chunk by chunk."""

    def __init__(self) -> None:
        self.parent, self.frame = array("i"), array("i")
        self.values = {"calls": array("q"), "bytecodes": array("q")}
        self.an, self.at, self.ac = array("i"), array("i"), array("q")
        self.end = array("i")
        self.inclusive: array | None = None

    def add(self, r: _Reader, data: bytes, base: int, n: int) -> None:
        src = r.src
        msg = _chunk()()
        try:
            msg.ParseFromString(data)
        except Exception:  # protobuf's DecodeError (its module path differs between backends)
            raise src.fail("malformed chunk of contexts") from None
        # columns come out of protobuf's container as lists (C), the fastest way into an array
        up = msg.parent[:]
        pc = array("i", map(operator.sub, range(base, base + n), up))
        rest = pc[1:] if base == 0 else pc
        if len(pc) != n or min(up) < 1 or (base == 0 and pc[0] != -1) or (rest and min(rest) < 0):
            raise src.fail("malformed parents in a chunk of contexts")
        self.parent.extend(pc)
        methods = msg.method[:]
        if not methods:
            self.frame.frombytes(bytes(4 * n))
        elif len(methods) != n or max(methods) >= len(r.fmap):
            raise src.fail("malformed methods in a chunk of contexts")
        elif r.identity:
            self.frame.fromlist(methods)
        else:
            self.frame.extend(map(r.fmap.__getitem__, methods))
        for name in ("calls", "bytecodes", *_OPTIONAL):
            col = getattr(msg, name)
            have = self.values.get(name)
            if not col and have is None:
                continue
            if have is None:
                have = self.values[name] = array("q", bytes(8 * base))
            if not col:
                have.frombytes(bytes(8 * n))
            elif len(col) != n:
                raise src.fail(f"malformed {name} in a chunk of contexts")
            else:
                have.fromlist(col[:])
        if msg.alloc_count:
            self.allocations(r, msg, base, n)
        inc = msg.inclusive
        if inc or self.inclusive is not None:  # inclusive bytecodes, when the writer stored them
            if self.inclusive is None:
                self.inclusive = array("q", bytes(8 * base))
            if not inc:
                self.inclusive.frombytes(bytes(8 * n))
            elif len(inc) != n:
                raise src.fail("malformed inclusive bytecodes in a chunk of contexts")
            else:
                self.inclusive.fromlist(inc[:])

    def sizes(self, src: _In, data: bytes, base: int, n: int, rows: int) -> None:
        """Subtree sizes into ``end`` (the row after each subtree): the model's ``end`` without a pass."""
        msg = _chunk()()
        try:
            msg.ParseFromString(data)
        except Exception:  # protobuf's DecodeError
            raise src.fail("malformed subtree sizes") from None
        size = msg.size[:]
        if len(size) != n or min(size) < 1:
            raise src.fail("malformed subtree sizes")
        ends = array("i", map(operator.add, range(base, base + n), size))
        if max(ends) > rows:
            raise src.fail("malformed subtree sizes")
        self.end.extend(ends)

    def allocations(self, r: _Reader, msg, base: int, n: int) -> None:
        k = len(msg.alloc_count)
        rows = msg.alloc_row or [0] * k
        types = msg.alloc_type or [0] * k
        if len(rows) != k or len(types) != k or max(rows) >= n or max(types) >= len(r.types):
            raise r.src.fail("malformed allocations in a chunk of contexts")
        self.an.extend(base + x for x in rows)
        self.at.extend(types)
        self.ac.extend(msg.alloc_count)

    def tree(self, frames: Frames, types: list[str], rows: int) -> Tree:
        values = self.values
        for col in values.values():
            if len(col) < rows:
                col.frombytes(bytes(8 * (rows - len(col))))
        tree = Tree(frames, self.parent, self.frame, values, end=self.end)
        if self.inclusive is not None:
            if len(self.inclusive) < rows:
                self.inclusive.frombytes(bytes(8 * (rows - len(self.inclusive))))
            tree.set_inclusive("bytecodes", self.inclusive)
        if self.an:
            tree.allocs = (self.an, self.at, self.ac)
            tree.alloc_types = types
            values["allocations"] = _per_row(self.an, self.ac, rows)
        return tree


def _per_row(nodes: array, counts: array, rows: int) -> array:
    """The allocations of each row: the sparse (node, count) entries added up."""
    total = array("q", bytes(8 * rows))
    for node, count in zip(nodes, counts):
        total[node] += count
    return total


def read_compact(
    stream: BinaryIO, path: str, *, merged: bool = True, threads: bool | Collection[str] = True
) -> tuple[Profile, bool]:
    """Read a compact profile from ``stream`` (at its first byte) into node tables.

    Returns the profile and whether a wanted thread's tree is the merged tree, which was not
    read (``merged=False``): the caller reads the file again with it.
    """
    src = _In(stream, path)
    try:
        return _Reader(src).profile(merged, threads)
    except (ValueError, IndexError, OverflowError) as e:  # damage the checks above did not name
        raise src.fail(f"malformed compact profile ({e})") from None


# --------------------------------------------------------------------------- writing


def _varint(v: int) -> bytes:
    out = bytearray()
    while v > 0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _blob(b: bytes) -> bytes:
    return _varint(len(b)) + b


class _Writer:
    def __init__(self, profile: Profile, out: IO[bytes]) -> None:
        self.out = out
        self.pending_names: list[tuple[str, int]] = list(zip(profile.frames.names, profile.frames.kinds))
        self.type_of: dict[str, int] = {}
        self.pending_types: list[str] = []

    def tree(self, tree: Tree) -> None:
        """The rows in their order (pre-order, as every tree of the model)."""
        out, chunk = self.out, _chunk()
        par, frm = tree.parent, tree.frame
        rows = len(par)
        tmap = []
        for t in tree.alloc_types:
            if t not in self.type_of:
                self.type_of[t] = len(self.type_of)
                self.pending_types.append(t)
            tmap.append(self.type_of[t])
        an, at, ac = tree.allocs if tree.allocs is not None else (array("i"), array("i"), array("q"))
        inc = tree.inclusive("bytecodes") if tree.total("bytecodes") else None
        a = 0
        for base in range(0, rows, CHUNK):
            n = min(CHUNK, rows - base)
            msg = chunk()
            msg.parent.extend(map(operator.sub, range(base, base + n), par[base : base + n]))
            msg.method.extend(frm[base : base + n])
            for name in ("calls", "bytecodes", *_OPTIONAL):
                col = tree.values.get(name)
                if col is not None and any(col[base : base + n]):
                    getattr(msg, name).extend(col[base : base + n])
            if inc is not None:
                msg.inclusive.extend(inc[base : base + n])
            while a < len(an) and an[a] < base + n:
                msg.alloc_row.append(an[a] - base)
                msg.alloc_type.append(tmap[at[a]])
                msg.alloc_count.append(ac[a])
                a += 1
            head = bytearray(b"C" + _varint(n) + _varint(len(self.pending_names)))
            for name, kind in self.pending_names:
                head += bytes([kind]) + _blob(name.encode("utf-8", "surrogatepass"))
            head += _varint(len(self.pending_types))
            for t in self.pending_types:
                head += _blob(t.encode("utf-8", "surrogatepass"))
            self.pending_names, self.pending_types = [], []
            out.write(bytes(head))
            out.write(_blob(msg.SerializeToString()))
        out.write(b"E" + _varint(rows))
        end = tree.end
        for base in range(0, rows, CHUNK):
            msg = chunk()
            msg.size.extend(map(operator.sub, end[base : base + CHUNK], range(base, base + CHUNK)))
            out.write(_blob(msg.SerializeToString()))


def write_compact(profile: Profile, out: IO[bytes]) -> None:
    """The whole profile in the compact format (what the runtime writes for ``.jpprof``)."""
    header = {"format": "jprewrite-profile", "version": 1}
    header.update({k: v for k, v in profile.header.items() if k not in ("format", "version")})
    out.write(MAGIC + bytes([VERSION]))
    out.write(_blob(json.dumps(header, ensure_ascii=True, separators=(",", ":")).encode()))
    w = _Writer(profile, out)
    out.write(b"R")
    merged = profile.merged
    if merged is None:
        frames = profile.frames
        root = frames.intern("<root>")
        w.pending_names = list(zip(frames.names, frames.kinds))
        zero = array("q", [0])
        merged = Tree(frames, array("i", [-1]), array("i", [root]), {"calls": zero, "bytecodes": zero})
    w.tree(merged)
    with_tree = set()
    for name, tree in profile.threads:
        with_tree.add(name)
        out.write(b"T" + _blob(name.encode("utf-8", "surrogatepass")))
        if tree is profile.merged:  # the only thread name's tree is the merged tree: not written twice
            out.write(b"\x01")
        else:
            out.write(b"\x02")
            w.tree(tree)
    for name in dict.fromkeys(profile.thread_names):  # names listed without a tree (threads=merged-only)
        if name not in with_tree:
            out.write(b"T" + _blob(name.encode("utf-8", "surrogatepass")) + b"\x00")
    out.write(b"Z")
