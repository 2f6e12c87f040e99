"""Operations that make new trees from trees: merging, folding, focusing.

All of them are one :class:`TreeBuilder`, which adds counters along method paths and
merges equal paths (as the runtime merges threads): focusing on a method merges its
contexts' subtrees under one root, folding away non-application frames adds their
counters to the nearest kept caller, and comparing two profiles merges both into one
tree with a column for each.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Callable

from .model import Frames, Tree

__all__ = ["TreeBuilder", "fold", "focus", "frame_filter", "merge_trees"]

ROOT_NAME = "<root>"


class TreeBuilder:
    """A tree under construction: rows in order of creation, children found through one dict."""

    def __init__(self, frames: Frames, columns: tuple[str, ...] = ("calls", "bytecodes")) -> None:
        self.frames = frames
        self.parent = array("i", [-1])
        self.frame = array("i", [frames.intern(ROOT_NAME)])
        self.values: dict[str, array] = {c: array("q", [0]) for c in columns}
        self._child: dict[tuple[int, int], int] = {}
        self._allocs: dict[tuple[int, str], int] = {}

    def child(self, parent: int, frame: int) -> int:
        """The row of ``frame`` called from row ``parent``, created (with zero counters) if new."""
        key = (parent, frame)
        row = self._child.get(key)
        if row is None:
            row = self._child[key] = len(self.parent)
            self.parent.append(parent)
            self.frame.append(frame)
            for col in self.values.values():
                col.append(0)
        return row

    def merge(
        self,
        src: Tree,
        *,
        node: int = 0,
        under: int = 0,
        columns: dict[str, str] | list[tuple[str, str]] | None = None,
        frame_map: array | list[int] | None = None,
        keep: Callable[[int], bool] | None = None,
    ) -> None:
        """Add the subtree of ``src`` at row ``node`` into this tree at row ``under``.

        ``columns`` maps ``src``'s metrics to this tree's columns, as a dict or (src, dst) pairs
        (default: same names, those this tree has); ``frame_map`` translates ``src``'s frame numbers
        into this tree's (profiles with different :class:`Frames`); frames for which ``keep`` is
        false are folded into their caller.
        """
        pairs_named = (
            [(m, m) for m in src.values if m in self.values]
            if columns is None
            else (list(columns.items()) if isinstance(columns, dict) else list(columns))
        )
        pairs = [(src.values[s], self.values[d]) for s, d in pairs_named if s in src.values]
        par, frm = src.parent, src.frame
        stop = src.end[node]
        dst = array("i", bytes(4 * (stop - node)))  # src row - node -> row here
        dst[0] = under
        for i in range(node, stop):
            if i == node:
                row = under
            else:
                up = dst[par[i] - node]
                f = frm[i] if frame_map is None else frame_map[frm[i]]
                row = up if keep is not None and not keep(f) else self.child(up, f)
                dst[i - node] = row
            for s_col, d_col in pairs:
                v = s_col[i]
                if v:
                    d_col[row] += v
        if src.allocs is not None and ("allocations", "allocations") in pairs_named:
            nodes, types, counts = src.allocs
            for k in range(bisect_left(nodes, node), bisect_left(nodes, stop)):
                key = (dst[nodes[k] - node], src.alloc_types[types[k]])
                self._allocs[key] = self._allocs.get(key, 0) + counts[k]

    def build(self) -> Tree:
        """The finished tree, rows reordered into preorder (children in order of creation)."""
        n = len(self.parent)
        first = array("i", [-1]) * n
        last = array("i", [-1]) * n
        nxt = array("i", [-1]) * n
        par = self.parent
        for i in range(1, n):
            p = par[i]
            if first[p] < 0:
                first[p] = i
            else:
                nxt[last[p]] = i
            last[p] = i
        order = array("i")
        stack = [0]
        while stack:
            i = stack.pop()
            order.append(i)
            kids = []
            c = first[i]
            while c >= 0:
                kids.append(c)
                c = nxt[c]
            stack.extend(reversed(kids))
        new = array("i", bytes(4 * n))
        for pos, old in enumerate(order):
            new[old] = pos
        parent = array("i", (new[par[o]] if o else -1 for o in order))
        frame = array("i", (self.frame[o] for o in order))
        values = {c: array("q", (v[o] for o in order)) for c, v in self.values.items()}
        tree = Tree(self.frames, parent, frame, values)
        if self._allocs:
            _set_allocs(tree, {(new[r], t): c for (r, t), c in self._allocs.items()})
        return tree


def _set_allocs(tree: Tree, allocs: dict[tuple[int, str], int]) -> None:
    type_of: dict[str, int] = {}
    rows = sorted(allocs.items())
    nodes, types, counts = array("i"), array("i"), array("q")
    for (row, t), c in rows:
        ti = type_of.get(t)
        if ti is None:
            ti = type_of[t] = len(tree.alloc_types)
            tree.alloc_types.append(t)
        nodes.append(row)
        types.append(ti)
        counts.append(c)
    tree.allocs = (nodes, types, counts)
    total = array("q", bytes(8 * len(tree.parent)))
    for row, c in zip(nodes, counts):
        total[row] += c
    tree.values["allocations"] = total


def frame_filter(frames: Frames, pattern: str | None = None, prefixes: tuple[str, ...] = ()) -> Callable[[int], bool]:
    """A test on frame numbers: the name matches ``pattern`` (a regex, searched) or starts with a prefix."""
    rx = re.compile(pattern) if pattern else None
    cache: dict[int, bool] = {}

    def test(f: int) -> bool:
        hit = cache.get(f)
        if hit is None:
            name = frames.names[f]
            hit = cache[f] = bool(
                (rx is not None and rx.search(name)) or (prefixes and name.startswith(prefixes)) or name == ROOT_NAME
            )
        return hit

    return test


def fold(tree: Tree, keep: Callable[[int], bool]) -> Tree:
    """The tree with every frame ``keep`` rejects folded into its nearest kept caller (counters added)."""
    b = TreeBuilder(tree.frames, tuple(tree.values))
    b.merge(tree, keep=keep)
    return b.build()


def focus(tree: Tree, match: Callable[[int], bool]) -> Tree:
    """The subtrees of the outermost contexts of matching frames, merged under a new root.

    What runs beneath a method, whichever way it was called: a method called from ten places
    shows up once, its callees' counters added over the ten.
    """
    b = TreeBuilder(tree.frames, tuple(tree.values))
    end = tree.end
    frm = tree.frame
    i, n = 1, len(tree.parent)
    while i < n:
        if match(frm[i]):
            b.merge(tree, node=i, under=b.child(0, frm[i]))
            i = end[i]
        else:
            i += 1
    return b.build()


def merge_trees(trees: list[Tree], frames: Frames | None = None) -> Tree:
    """One tree adding the counters of ``trees`` over equal method paths (threads, runs, JVMs)."""
    frames = frames if frames is not None else (trees[0].frames if trees else Frames())
    cols: list[str] = []
    for t in trees:
        cols += [m for m in t.values if m not in cols and m != "allocations"]
    if any(t.allocs is not None for t in trees):
        cols.append("allocations")
    b = TreeBuilder(frames, tuple(cols))
    for t in trees:
        fmap = None if t.frames is frames else [frames.intern(n, k) for n, k in zip(t.frames.names, t.frames.kinds)]
        b.merge(t, frame_map=fmap)
    return b.build()
