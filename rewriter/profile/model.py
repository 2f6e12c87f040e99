"""A profile as node tables: one row per calling context, columns in ``array`` objects.

Why not one Python object per node: the kotlin compiler's profile has millions of
contexts, and a dict per node (what ``json.load`` builds) costs hundreds of bytes each.
Here a context costs a few machine words: its parent's row, its frame (method) number
and its counters, each in a typed ``array``. Method names are stored once, in
:class:`Frames`, shared by every tree of a profile.

Rows are in *preorder*: a node's parent comes before it and a subtree is a contiguous
range of rows (``i`` up to ``end[i]``). Every algorithm here is an iterative loop over
rows, never recursion: profiles of deep recursions are tens of thousands of levels deep.
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = [
    "Frames",
    "Tree",
    "Profile",
    "METRICS",
    "KINDS",
    "KIND_APP",
    "KIND_JDK",
    "KIND_UNINSTRUMENTED",
    "KIND_NATIVE",
]

# What a node of the runtime's JSON can count, in the order tools offer them.
# ``allocations`` is the sum of a node's per-type allocation counts.
METRICS = ("bytecodes", "calls", "allocations", "samples", "fresh", "weighted")

# Frame kinds, as the JSON's ``kind`` field names them ("" = instrumented application code).
KIND_APP, KIND_JDK, KIND_UNINSTRUMENTED, KIND_NATIVE = 0, 1, 2, 3
KINDS = ("", "jdk", "uninstrumented", "native")


class Frames:
    """The methods of a profile, each once: its JVM name (``pkg.Cls.m(I)V``) and kind.

    A frame is a (method, kind) pair because that is what identifies a child in the
    runtime's trees; in practice a method has one kind.
    """

    def __init__(self) -> None:
        self.names: list[str] = []
        self.kinds = bytearray()
        self._index: dict[tuple[str, int], int] = {}

    def __len__(self) -> int:
        return len(self.names)

    def intern(self, name: str, kind: int = KIND_APP) -> int:
        """The number of frame (name, kind), added if new."""
        key = (name, kind)
        f = self._index.get(key)
        if f is None:
            f = self._index[key] = len(self.names)
            self.names.append(name)
            self.kinds.append(kind)
        return f

    def find(self, name: str, kind: int | None = None) -> int | None:
        """A frame's number by name (any kind unless ``kind`` is given), or None."""
        if kind is not None:
            return self._index.get((name, kind))
        for k in range(len(KINDS)):
            f = self._index.get((name, k))
            if f is not None:
                return f
        return None

    def counted(self, f: int) -> bool:
        """Whether the frame's bytecodes were counted (native and uninstrumented code: not)."""
        return self.kinds[f] not in (KIND_UNINSTRUMENTED, KIND_NATIVE)


class Tree:
    """One calling-context tree (the merged one, or one thread's) as parallel arrays in preorder.

    ``parent[i]`` (-1 for the root), ``frame[i]`` (into :attr:`frames`), and one ``array('q')``
    per metric in :attr:`values` (``calls`` and ``bytecodes`` always; the others only when the
    profile has them). ``allocs`` holds the per-type detail, sparse: ``(node, type, count)``
    rows sorted by node, types numbered in :attr:`alloc_types`.
    """

    def __init__(
        self,
        frames: Frames,
        parent: array,
        frame: array,
        values: dict[str, array],
        allocs: tuple[array, array, array] | None = None,
        alloc_types: list[str] | None = None,
        end: array | None = None,
    ) -> None:
        self.frames = frames
        self.parent = parent
        self.frame = frame
        self.values = values
        self.allocs = allocs
        self.alloc_types = alloc_types if alloc_types is not None else []
        self._end: array | None = end  # readers that see the subtrees close pass it
        # small subtrees folded into one leaf by the reader (load(prune=...)): only inclusive
        # bytecodes are exact below the cut
        self.pruned = False
        self._inclusive: dict[str, array] = {}

    def __len__(self) -> int:
        return len(self.parent)

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics this tree has, in :data:`METRICS` order."""
        return tuple(m for m in METRICS if m in self.values)

    def value(self, metric: str) -> array:
        """The exclusive (self) values of ``metric``, one per row (zeros if the tree has none)."""
        v = self.values.get(metric)
        if v is None:
            v = array("q", bytes(8 * len(self.parent)))
        return v

    def total(self, metric: str) -> int:
        """The sum of ``metric`` over the whole tree (the root's inclusive value)."""
        v = self.values.get(metric)
        return sum(v) if v is not None else 0

    def inclusive(self, metric: str) -> array:
        """Inclusive values of ``metric`` (self plus all descendants), computed once, bottom-up."""
        inc = self._inclusive.get(metric)
        if inc is None:
            inc = array("q", self.value(metric))
            par = self.parent
            for i in range(len(par) - 1, 0, -1):
                inc[par[i]] += inc[i]
            self._inclusive[metric] = inc
        return inc

    def set_inclusive(self, metric: str, values: array) -> None:
        """Inclusive values known from the file (the compact format stores inclusive bytecodes):
        :meth:`inclusive` then needs no pass over millions of rows. Rows must match the tree."""
        if len(values) != len(self.parent):
            raise ValueError(f"{len(values)} inclusive values for {len(self.parent)} rows")
        self._inclusive[metric] = values

    @property
    def end(self) -> array:
        """``end[i]``: the row after node ``i``'s subtree (its subtree is rows ``i .. end[i]-1``)."""
        if self._end is None:
            n = len(self.parent)
            size = array("i", b"\x01\x00\x00\x00" * n)
            par = self.parent
            for i in range(n - 1, 0, -1):
                size[par[i]] += size[i]
            self._end = array("i", map(operator.add, range(n), size))
        return self._end

    def children(self, i: int) -> Iterator[int]:
        """The rows of node ``i``'s children, in file order."""
        end = self.end
        j, stop = i + 1, end[i]
        while j < stop:
            yield j
            j = end[j]

    def depths(self) -> array:
        """Depth of each row (the root is 0)."""
        par = self.parent
        d = array("i", bytes(4 * len(par)))
        for i in range(1, len(par)):
            d[i] = d[par[i]] + 1
        return d

    def name(self, i: int) -> str:
        """The JVM method name of row ``i``."""
        return self.frames.names[self.frame[i]]

    def path(self, i: int) -> list[int]:
        """The frames from the root's child down to row ``i`` (the root itself excluded)."""
        out = []
        par, frame = self.parent, self.frame
        while i > 0:
            out.append(frame[i])
            i = par[i]
        out.reverse()
        return out

    def allocations_of(self, i: int) -> dict[str, int]:
        """The per-type allocation counts of row ``i`` (a binary search in the sparse table)."""
        if self.allocs is None:
            return {}
        nodes, types, counts = self.allocs
        lo, hi = 0, len(nodes)
        while lo < hi:
            mid = (lo + hi) // 2
            if nodes[mid] < i:
                lo = mid + 1
            else:
                hi = mid
        out = {}
        while lo < len(nodes) and nodes[lo] == i:
            out[self.alloc_types[types[lo]]] = counts[lo]
            lo += 1
        return out


@dataclass
class Profile:
    """A whole profile: the merged tree, one tree per thread name, and the file's other fields.

    ``threads`` may be empty when the file has none or the reader was asked to skip them;
    ``header`` keeps the top-level fields other than the trees (``format``, ``version``,
    ``sampling``...), so a tool can show or carry them on.
    """

    frames: Frames
    merged: Tree | None
    threads: list[tuple[str, Tree]] = field(default_factory=list)
    header: dict = field(default_factory=dict)
    source: str = ""
    thread_names: list[str] = field(default_factory=list)

    def tree(self, thread: str | None = None) -> Tree:
        """The merged tree, or the tree of the thread named ``thread`` (KeyError if absent)."""
        if thread is None:
            if self.merged is None:
                raise KeyError("<merged>")
            return self.merged
        for name, t in self.threads:
            if name == thread:
                return t
        raise KeyError(thread)

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics present in any tree of the profile, in :data:`METRICS` order."""
        have: set[str] = set()
        for t in ([self.merged] if self.merged is not None else []) + [t for _, t in self.threads]:
            have.update(t.values)
        return tuple(m for m in METRICS if m in have)

    def default_metric(self) -> str:
        """Bytecodes when any were counted, else calls, else samples (a profile of sample mode):
        what a reader of the profile wants first."""
        t = self.merged if self.merged is not None else (self.threads[0][1] if self.threads else None)
        for metric in ("bytecodes", "calls", "samples"):
            if t is not None and t.total(metric):
                return metric
        return "calls"
