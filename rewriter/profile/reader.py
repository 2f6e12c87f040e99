"""Reading profile JSON into node tables, streaming, without a Python object per node.

The runtime writes one calling context per line in a fixed layout
(``{"method":"…","calls":N,"bytecodes":N[,"kind":…][,…],"children":[`` followed by the
``]}`` that close it and its ancestors). :func:`load` scans that layout with one regular
expression per node over a sliding buffer, so memory stays at the node tables plus a few
megabytes of text however big the file is, and a 1 GB profile takes seconds, not the
minutes and tens of gigabytes of ``json.load`` and dicts. Files in any other JSON layout
(pretty-printed, keys reordered by another tool) are read with ``json.load`` instead:
same result, ordinary cost. ``.gz`` files (gzip magic) are decompressed on the fly, and files
in the compact format (:mod:`.compact`, ``.jpprof``) are told by their magic number and read
column by column.

Every problem with the input is one :class:`~jprewrite.errors.JprewriteError` line naming
the file and the byte offset (of the uncompressed text).
"""

from __future__ import annotations

import json
import re
import zlib
from array import array
from collections.abc import Collection
from typing import BinaryIO

from ..errors import JprewriteError
from .compact import MAGIC, is_compact, read_compact
from .model import KINDS, Frames, Profile, Tree
from .plain import from_dict, load_json, open_profile, store_fields

__all__ = ["load"]

_CHUNK = 1 << 22  # bytes read at a time
_MARGIN = 1 << 16  # a node's line is read whole when this much text is left in the buffer
_NEVER = 1 << 62  # "no refill": the end of the stream is in the buffer
_KIND = {k.encode(): i for i, k in enumerate(KINDS)}

# One calling context: its fields up to the opening of its children, then the ``]}`` that close
# nodes right after it (a leaf closes itself, the last child its parents). A comma separating it
# from its previous sibling may precede it. Groups: name, calls, bytecodes, kind, other fields
# before inclusive_bytecodes, inclusive_bytecodes, other fields after it, the closing run.
_NODE = re.compile(
    rb'\s*,?\s*\{"method":"([^"\\]*(?:\\.[^"\\]*)*)","calls":(-?\d+),"bytecodes":(-?\d+)'
    rb'(?:,"kind":"([a-z]+)"(?:,"counted":false)?)?'
    rb'(,"(?!inclusive_bytecodes"|children")[^\n]*?)?(?:,"inclusive_bytecodes":(-?\d+))?'
    rb'(,"(?!children")[^\n]*?)?,"children":\[((?:\]\})*)'
)
# The same from the end of the method name, for a node alone on its line (the common case).
_TAIL = re.compile(
    rb'","calls":(-?\d+),"bytecodes":(-?\d+)(?:,"kind":"([a-z]+)"(?:,"counted":false)?)?'
    rb'(,"(?!inclusive_bytecodes"|children")[^\n]*?)?(?:,"inclusive_bytecodes":(-?\d+))?'
    rb'(,"(?!children")[^\n]*?)?,"children":\[((?:\]\})*),?\n'
)
_CLOSES = re.compile(rb"(?:\]\})*")
_WS = re.compile(rb"\s*")
_STRING = re.compile(rb'"([^"\\]*(?:\\.[^"\\]*)*)"')
_COUNT = re.compile(rb',"(samples|fresh|weighted)":(-?\d+)')
_COUNTS = re.compile(rb'(?:,"(?:samples|fresh|weighted)":-?\d+)+')


class _Fallback(Exception):
    """The text is JSON, but not in the runtime's layout: read it with ``json.load``."""


class _Buffer:
    """A sliding window over a binary stream; ``base`` is the stream offset of ``buf[0]``."""

    def __init__(self, stream: BinaryIO, path: str) -> None:
        self.stream = stream
        self.path = path
        self.buf = b""
        self.base = 0
        self.eof = False

    def refill(self, pos: int, more: int = _CHUNK) -> int:
        """Drop text before ``pos``, read ``more`` bytes; returns the new position of ``pos``."""
        if self.eof:
            return pos
        try:
            data = self.stream.read(more)
        except (EOFError, OSError, zlib.error) as e:  # a truncated or corrupt .gz
            raise JprewriteError(
                f"cannot read the compressed profile: {e}", path=self.path, offset=self.base + len(self.buf)
            ) from None
        if not data:
            self.eof = True
        self.base += pos
        self.buf = self.buf[pos:] + data
        return 0

    def ensure(self, pos: int, n: int = _MARGIN) -> int:
        """Make at least ``n`` bytes after ``pos`` available (fewer at the end of the stream)."""
        while len(self.buf) - pos < n and not self.eof:
            pos = self.refill(pos)
        return pos

    def fail(self, pos: int, what: str) -> JprewriteError:
        # the text ends within this line, or within the next one where ``pos`` is at the separator
        # before it (the end of a line the reader took whole: ``,`` and the line break)
        if self.eof and b"\n" not in self.buf[pos:].lstrip(b" \t\r\n,").rstrip():
            what = "truncated profile (the file ends early)"
        return JprewriteError(what, path=self.path, offset=self.base + pos)


def _head(f: BinaryIO, path: str) -> bytes:
    """The first bytes of the (decompressed) profile, the stream rewound after them."""
    try:
        head = f.read(len(MAGIC))
        f.seek(0)
    except (EOFError, OSError, zlib.error) as e:
        raise JprewriteError(f"cannot read the compressed profile: {e}", path=path) from None
    return head


def load(
    path: str, *, merged: bool = True, threads: bool | Collection[str] = True, prune: float | None = None
) -> Profile:
    """Read a profile into node tables.

    ``merged=False`` skips the merged tree; ``threads`` is True (all), False (none: the threads'
    trees are passed over unparsed, line by line, which still finds a file cut in them) or the
    names of the threads wanted.

    ``prune`` (a fraction, for a report of the hottest contexts): a context whose inclusive
    bytecodes (written by the runtime) are below that share of its tree's total becomes a leaf
    holding them as its bytecodes, its subtree passed over unparsed; inclusive bytecodes stay
    exact everywhere, other counters and self values only in contexts at or above the share.
    Such trees say ``pruned``. Files in another layout are read whole.
    """
    with open_profile(path) as f:
        if is_compact(_head(f, path)):  # the compact format (.jpprof), told by its magic number
            compact, missing = read_compact(f, path, merged=merged, threads=threads)
            if missing:  # a wanted thread is the merged tree, which was not read: read it
                f.seek(0)
                compact, _ = read_compact(f, path, merged=True, threads=threads)
                compact.merged = None
            return compact
        try:
            result = _Scan(_Buffer(f, path), merged, threads, prune).profile()
        except _Fallback:
            result = None
    if result is None:
        data = load_json(path)
        return from_dict(data, path=path, merged=merged, threads=threads)
    if any(t is None for _, t in result.threads):  # "same_as_root": the thread's tree is the merged one
        if result.merged is None:  # not read: read the file again, with it
            again = load(path, merged=True, threads=threads, prune=prune)
            again.merged = None
            return again
        result.threads = [(n, result.merged if t is None else t) for n, t in result.threads]
    return result


# --------------------------------------------------------------------------- the streaming scanner


class _Scan:
    """The top level of the runtime's layout, key by key; trees go to :meth:`tree`."""

    def __init__(self, b: _Buffer, merged: bool, threads: bool | Collection[str], prune: float | None = None) -> None:
        self.b = b
        self.prune = prune
        self.want_merged = merged
        self.want_threads = threads
        self.frames = Frames()
        self.frame_of: dict[bytes, int] = {}
        self.nodes = 0  # nodes read so far: before the first one, a layout mismatch means "fall back"

    def profile(self) -> Profile:
        b = self.b
        pos = self.token(b.ensure(0), b"{", "not a JSON profile")
        result = Profile(self.frames, None, source=b.path)
        seen_root = False
        while True:
            pos = self.skip(pos)
            if b.buf[pos : pos + 1] == b"}":
                break
            key, pos = self.string(pos)
            pos = self.token(pos, b":", "expected ':'")
            if key == "root":
                seen_root = True
                result.merged, pos = self.tree(pos, self.want_merged)
            elif key == "threads":
                pos = self.threads(pos, result)
            else:
                result.header[key], pos = self.value(pos)
            pos = self.skip(pos)
            if b.buf[pos : pos + 1] == b",":
                pos += 1
        if not seen_root:
            raise JprewriteError("not a jprewrite profile (no 'root' object)", path=b.path)
        pos = self.skip(pos + 1)
        if b.buf[pos:].strip():
            raise b.fail(pos, "unexpected text after the profile")
        return self.checked(result)

    def checked(self, result: Profile) -> Profile:
        fmt = result.header.get("format", "jprewrite-profile")
        if fmt != "jprewrite-profile":
            raise JprewriteError(f"not a jprewrite profile (format {fmt!r})", path=self.b.path)
        return result

    def threads(self, pos: int, result: Profile) -> int:
        b = self.b
        pos = self.token(pos, b"[", "expected the list of threads")
        while True:
            pos = self.skip(pos)
            if b.buf[pos : pos + 1] == b"]":
                return pos + 1
            pos = self.token(pos, b"{", "expected a thread")
            name, tree, same = None, None, False
            while True:
                pos = self.skip(pos)
                if b.buf[pos : pos + 1] == b"}":
                    pos += 1
                    break
                key, pos = self.string(pos)
                pos = self.token(pos, b":", "expected ':'")
                if key == "root":
                    want = self.want_threads is True or (
                        self.want_threads is not False and (name is None or name in self.want_threads)
                    )
                    tree, pos = self.tree(pos, want)
                elif key == "name":
                    name, pos = self.value(pos)
                elif key == "same_as_root":
                    value, pos = self.value(pos)
                    same = value is True
                else:
                    _, pos = self.value(pos)
                pos = self.skip(pos)
                if b.buf[pos : pos + 1] == b",":
                    pos += 1
            if name is not None:
                result.thread_names.append(str(name))
                wanted = self.want_threads is True or (self.want_threads is not False and name in self.want_threads)
                if tree is not None and wanted:
                    result.threads.append((str(name), tree))
                elif same and tree is None and wanted:
                    result.threads.append((str(name), None))  # type: ignore[arg-type]  # load() resolves it
            pos = self.skip(pos)
            if b.buf[pos : pos + 1] == b",":
                pos += 1

    # ---- tokens

    def skip(self, pos: int) -> int:
        pos = self.b.ensure(pos, 1024)
        m = _WS.match(self.b.buf, pos)
        return m.end() if m else pos

    def token(self, pos: int, tok: bytes, what: str) -> int:
        pos = self.skip(pos)
        if self.b.buf[pos : pos + len(tok)] != tok:
            raise self.mismatch(pos, what)
        return pos + len(tok)

    def string(self, pos: int) -> tuple[str, int]:
        pos = self.skip(pos)
        m = _STRING.match(self.b.buf, pos)
        if m is None:
            raise self.mismatch(pos, "expected a key")
        return _decode(m.group(1)), m.end()

    def value(self, pos: int) -> tuple[object, int]:
        """Any small JSON value (header fields, thread names), read with the json module."""
        b = self.b
        pos = self.skip(pos)
        m = _STRING.match(b.buf, pos)
        if m is not None:
            return _decode(m.group(1)), m.end()
        dec = json.JSONDecoder()
        while True:
            try:
                text = b.buf[pos:].decode("utf-8", "surrogatepass")
                v, n = dec.raw_decode(text)
                return v, pos + len(text[:n].encode("utf-8", "surrogatepass"))
            except (ValueError, UnicodeDecodeError):
                if b.eof:
                    raise self.mismatch(pos, "malformed JSON value") from None
                pos = b.refill(pos, max(_CHUNK, 2 * len(b.buf)))

    def mismatch(self, pos: int, what: str) -> Exception:
        """Before the first node the layout may simply be another one (fall back); later it is an error."""
        if self.nodes == 0:
            return _Fallback()
        return self.b.fail(pos, what)

    # ---- trees

    def skip_subtree(self, pos: int) -> tuple[int, int]:
        """Pass over the lines of an open context's subtree without parsing them.

        Returns the position after the ``]}`` run that closes it and the number of contexts that
        run closes (it, and maybe ancestors). One line per context: depth +1 per line, -1 per ``]}``
        after the line's ``"children":[`` (a name may hold ``]}``; the text after that may not).
        """
        b = self.b
        depth = 1
        while True:
            buf = b.buf
            e = buf.find(b"\n", pos)
            if e < 0 and not b.eof:
                pos = b.refill(pos)
                continue
            if e < 0:
                e = len(buf)
            j = buf.rfind(b'"children":[', pos, e)
            if j < 0:
                if buf[pos:e].strip(b" \t\r,"):
                    raise b.fail(pos, "malformed calling context")
                if e >= len(buf):
                    raise b.fail(pos, "truncated profile (the file ends early)")
                pos = e + 1
                continue
            k = buf.count(b"]}", j + 12, e)
            if depth + 1 - k <= 0:  # the line that closes it: count exactly, top-level text may follow
                m = _CLOSES.match(buf, j + 12)
                assert m is not None
                k = (m.end() - j - 12) >> 1
                if depth + 1 - k > 0:
                    raise b.fail(pos, "malformed calling context")
                # the line's child and the open subtree take depth + 1 of the closes; the pruned
                # context is one more row of the caller's table, the rest close its ancestors
                return m.end(), k - depth
            depth += 1 - k
            pos = e + 1

    def tree(self, pos: int, keep: bool) -> tuple[Tree | None, int]:
        """One tree, node by node; the hot loop of the reader (keep it free of calls).

        With :attr:`prune` (a fraction), a context whose inclusive bytecodes are below that share
        of the root's is kept as a leaf holding them, its subtree skipped line by line unparsed.
        """
        b = self.b
        frames, frame_of = self.frames, self.frame_of
        parent, frame = array("i"), array("i")
        calls, bytecodes = array("q"), array("q")
        end = array("i")
        extras: list[tuple[int, bytes]] = []
        stack: list[int] = [-1]
        match, tail = _NODE.match, _TAIL.match
        n = 0
        prune, cut = self.prune, None
        buf, limit = b.buf, (_NEVER if b.eof else len(b.buf) - _MARGIN)
        while True:
            if pos > limit:
                pos = b.refill(pos)
                buf, limit = b.buf, (_NEVER if b.eof else len(b.buf) - _MARGIN)
            # fast path: a whole line of the runtime's layout; the name found by a C search, not the regex
            # (a name with a quote in it is not the name: the search ran past this node, or it is escaped)
            m = None
            if buf.startswith(b'{"method":"', pos):
                e = buf.find(b'","calls":', pos, pos + _MARGIN)
                raw = buf[pos + 11 : e]
                if e > 0 and b'"' not in raw:
                    m = tail(buf, e)
            if m is not None:
                c, bc, kind, rest, inc, more, closes = m.groups()
            else:
                m = match(buf, pos)
                if m is None:
                    if not b.eof:
                        pos = b.refill(pos, max(_CHUNK, 2 * len(buf)))  # a line longer than the margin
                        buf, limit = b.buf, (_NEVER if b.eof else len(b.buf) - _MARGIN)
                        continue
                    self.nodes += n
                    raise self.mismatch(pos, "malformed calling context")
                raw, c, bc, kind, rest, inc, more, closes = m.groups()
            pos = m.end()
            if keep:
                key = raw if kind is None else raw + b"\0" + kind
                f = frame_of.get(key)
                if f is None:
                    f = frame_of[key] = frames.intern(_decode(raw), _KIND.get(kind or b"", 0))
                parent.append(stack[-1])
                frame.append(f)
                calls.append(int(c))
                bytecodes.append(int(bc))
                if rest or more:  # fields beyond the counters: rare, parsed as JSON at the end
                    extras.append((n, (rest or b"") + (more or b"")))
                end.append(0)
            stack.append(n)
            n += 1
            k = len(closes) >> 1
            if not keep and n == 1 and not k:  # a tree nobody wants: pass over it unparsed
                pos, k = self.skip_subtree(pos)
                buf, limit = b.buf, (_NEVER if b.eof else len(b.buf) - _MARGIN)
            elif prune is not None:  # a small subtree becomes one leaf holding its inclusive bytecodes
                v = int(inc) if inc else int(bc) if k else None  # a leaf closes on its own line
                if n == 1:
                    cut = None if v is None else v * prune
                elif cut is not None and v is not None and v < cut:
                    if keep:
                        bytecodes[-1] = v
                    if not k:
                        pos, k = self.skip_subtree(pos)
                    buf, limit = b.buf, (_NEVER if b.eof else len(b.buf) - _MARGIN)
            if k:
                if k >= len(stack):
                    self.nodes += n
                    raise b.fail(pos, "unbalanced ']}'")
                if keep:
                    for j in stack[len(stack) - k :]:  # these subtrees end here
                        end[j] = n
                del stack[len(stack) - k :]
                if len(stack) == 1:
                    break
        self.nodes += n
        if not keep:
            return None, pos
        tree = Tree(frames, parent, frame, {"calls": calls, "bytecodes": bytecodes}, end=end)
        tree.pruned = cut is not None
        if extras:
            _add_extras(tree, extras, b)
        return tree, pos


def _decode(raw: bytes) -> str:
    if b"\\" in raw:
        return json.loads(b'"' + raw + b'"')
    return raw.decode("utf-8", "surrogateescape")


def _add_extras(tree: Tree, extras: list[tuple[int, bytes]], b: _Buffer) -> None:
    """Fields beyond calls and bytecodes (allocations, weighted, samples, …), rare enough to parse as JSON."""
    rows = []
    for i, rest in extras:
        if _COUNTS.fullmatch(rest):  # samples, fresh, weighted: every context of a sampled profile has them
            rows.append((i, {k.decode(): int(v) for k, v in _COUNT.findall(rest)}))
            continue
        try:
            fields = json.loads(b"{" + rest[1:] + b"}")
        except ValueError:
            raise JprewriteError(f"malformed fields of calling context {i}", path=b.path) from None
        rows.append((i, fields))
    store_fields(tree, rows)
