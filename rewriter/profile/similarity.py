"""How alike two calling-context trees are: degree of overlap, hot-edge coverage, correlation.

The measures by which the sampling papers judge a profiler's accuracy, so that jprewrite's
samplers can be judged the same way: against each other, against JDK Flight Recorder
(``import-jfr``), against themselves over runs (stability), and sampled time against exact
counts (hybrid mode).

**Edges.** A CCT's edge is the call that enters a calling context, so edges are named by
contexts: the method path from the root, matched between profiles by JVM method names (as
the runtime merges threads). The *weight* of an edge is the self value of the context it
enters (samples whose innermost frame is that context; or calls, or bytecodes) divided by
the tree's total, so the weights of a tree add up to 1. The root is entered by no call, but
with ``app_only`` the samples of stacks without an application frame fold into it: it counts
as one more edge when it carries weight (so the weights still add up to 1), not otherwise.

**Degree of overlap** (Gnedt's thesis, §5.3 "Accuracy", Figure 5.5; Hofer et al. §7.3)::

    overlap(CCT1, CCT2) = Σ_{e ∈ CCT1 ∩ CCT2} min(weight(e, CCT1), weight(e, CCT2))

1 for equal trees, symmetric, 0 when no edge carries weight in both.

**Hot-edge coverage** (Gnedt's thesis, §5.3, Figure 5.6; threshold T = 0.1 there)::

    hotcover(CCT1, CCT2, T) = |hotset(CCT1, T) ∩ hotset(CCT2, T)| / |hotset(CCT2, T)|
    hotset(CCT, T)          = { e ∈ CCT : weight(e, CCT) ≥ T · hottest(CCT) }
    hottest(CCT)            = max_{e ∈ CCT} weight(e, CCT)

"Coverage of CCT1 over CCT2": the share of CCT2's hot edges that are hot in CCT1 too. Not
symmetric; both directions are reported. With T = 0 every edge of a tree is hot, including
contexts with no self weight (callers).

**Correlation** (Whaley §6.1, §6.5, §6.6): the Pearson correlation coefficient ("the
covariance divided by the product of the standard deviations", -1 … 1) of two data sets
matched by context. *Contexts*: the self values of every context present in either tree
(Whaley's node counts); for samples, when both profiles record ``fresh``, the fresh counts
follow as a second set (Whaley's edge counts: the PCCT adds a sample to an edge when the
frame it enters is new since the thread's previous sample, which is what ``fresh`` counts).
*Methods*: per method, the self values summed over its contexts (the hot-method counters
of §6.5, which count the method the sampled program counter is in). Undefined (None) when a
side has no variance.

**Top-N hot-method agreement**: the methods ranked by self value (ties by name), the share
of the N hottest of one profile that are among the N hottest of the other,
``|top_N(A) ∩ top_N(B)| / max(|top_N(A)|, |top_N(B)|)``: symmetric.

Every measure uses relative weights, a ranking, or a correlation, so it does not change
when one profile's values are all multiplied by the same factor (a longer run, a shorter
interval).
"""

from __future__ import annotations

import heapq
import math
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from .jfr import TRUNCATED
from .model import Frames, Profile, Tree
from .ops import TreeBuilder, frame_filter

__all__ = [
    "ContextSpace",
    "Side",
    "Similarity",
    "HotEdge",
    "overlap",
    "hot_edge_coverage",
    "hotset",
    "correlation",
    "method_correlation",
    "method_values",
    "top_methods",
    "hot_method_agreement",
    "similarity",
]


class ContextSpace:
    """The calling contexts of several trees in one numbering, rows made as paths are met.

    Frames are matched by JVM name only (a method's kind may differ between an agent run and
    an imported recording). With ``app_only`` prefixes, every frame whose name starts with
    none of them is dropped and its children attached to its nearest kept caller (the
    ``<truncated>`` context of an imported recording is kept).
    """

    def __init__(self, app_only: Sequence[str] = ()) -> None:
        self.frames = Frames()
        self.app_only = tuple(app_only)
        self._builder = TreeBuilder(self.frames, ())
        # an imported recording's <truncated> context stays: its stacks lack their outer frames, and
        # attached to the root they would pose as top-level contexts
        self._keep = (
            frame_filter(self.frames, pattern=f"^{re.escape(TRUNCATED)}$", prefixes=self.app_only)
            if self.app_only
            else None
        )

    def __len__(self) -> int:
        return len(self._builder.parent)

    @property
    def parent(self) -> array:
        return self._builder.parent

    @property
    def frame(self) -> array:
        return self._builder.frame

    def path(self, row: int) -> tuple[str, ...]:
        """The JVM method names from the root's child down to ``row`` (empty for the root)."""
        out = []
        par, frm, names = self.parent, self.frame, self.frames.names
        while row > 0:
            out.append(names[frm[row]])
            row = par[row]
        return tuple(reversed(out))

    def rows_of(self, tree: Tree) -> array:
        """Each row of ``tree`` mapped to its row here (a dropped frame: its kept caller's row)."""
        fmap = [self._frame(name, kind) for name, kind in zip(tree.frames.names, tree.frames.kinds)]
        keep, child = self._keep, self._builder.child
        par, frm = tree.parent, tree.frame
        rows = array("i", bytes(4 * len(par)))
        for i in range(1, len(par)):
            up, f = rows[par[i]], fmap[frm[i]]
            rows[i] = up if keep is not None and not keep(f) else child(up, f)
        return rows

    def _frame(self, name: str, kind: int) -> int:
        f = self.frames.find(name)
        return f if f is not None else self.frames.intern(name, kind)

    def side(self, tree: Tree, metric: str) -> Side:
        """``tree``'s self values of ``metric`` (and its ``fresh`` counts) on this space's rows."""
        rows = self.rows_of(tree)
        n = len(self)
        values = array("d", bytes(8 * n))
        present = bytearray(n)
        src = tree.value(metric)
        for i, r in enumerate(rows):
            present[r] = 1
            v = src[i]
            if v:
                values[r] += v
        present[0] = values[0] > 0  # the root is no call: an edge only as the bucket of folded samples
        fresh = None
        if metric == "samples" and tree.total("fresh"):
            fresh = array("d", bytes(8 * n))
            fsrc, par = tree.value("fresh"), tree.parent
            for i, r in enumerate(rows):
                # a dropped frame (its row is its caller's) takes its edge with it: its fresh
                # count is not its caller's
                if fsrc[i] and (i == 0 or r != rows[par[i]]):
                    fresh[r] += fsrc[i]
        return Side(self, values, present, fresh)

    def average(self, sides: Sequence[Side]) -> Side:
        """Hofer et al.'s averaged CCT (§7.3): every edge of any run, weighted by the sum of its
        relative weights over the runs (divided by their number, which no measure notices)."""
        n = len(self)
        values = array("d", bytes(8 * n))
        present = bytearray(n)
        have_fresh = all(s.fresh is not None for s in sides) and bool(sides)
        fresh = array("d", bytes(8 * n)) if have_fresh else None
        for s in sides:
            w = s.weights()
            total_f = s.fresh_total()
            for r in range(len(s.values)):
                values[r] += w[r] / len(sides)
                present[r] |= s.present[r]
                if fresh is not None and s.fresh is not None and total_f:
                    fresh[r] += s.fresh[r] / total_f / len(sides)
        return Side(self, values, present, fresh)


@dataclass
class Side:
    """One tree's values on a :class:`ContextSpace` (rows beyond the arrays: absent, zero)."""

    space: ContextSpace
    values: array
    present: bytearray
    fresh: array | None = None

    @property
    def total(self) -> float:
        return math.fsum(self.values)

    def fresh_total(self) -> float:
        return math.fsum(self.fresh) if self.fresh is not None else 0.0

    def padded(self) -> Side:
        """The same with arrays as long as the space (rows made after this side was taken)."""
        extra = len(self.space) - len(self.values)
        if extra <= 0:
            return self
        fresh = None if self.fresh is None else self.fresh + array("d", bytes(8 * extra))
        return Side(self.space, self.values + array("d", bytes(8 * extra)), self.present + bytearray(extra), fresh)

    def weights(self) -> list[float]:
        """Relative weights (self value / total); all zero for an empty tree."""
        t = self.total
        return [v / t for v in self.values] if t else [0.0] * len(self.values)


def _pair(a: Side, b: Side) -> tuple[Side, Side]:
    if a.space is not b.space:
        raise ValueError("the two sides belong to different ContextSpaces")
    return a.padded(), b.padded()


def overlap(a: Side, b: Side) -> float:
    """Degree of overlap (Gnedt, Figure 5.5): Σ over shared edges of the smaller relative weight; 0 … 1."""
    a, b = _pair(a, b)
    wa, wb = a.weights(), b.weights()
    return math.fsum(min(x, y) for x, y in zip(wa, wb) if x and y)


def hotset(side: Side, threshold: float) -> set[int]:
    """The rows whose weight is at least ``threshold`` times the hottest one's (Gnedt, Figure 5.6)."""
    side = side.padded()
    vals = side.values
    hottest = max(vals, default=0.0)
    if hottest <= 0:
        return set()
    # v / hottest, not v >= T * hottest: a quotient of the same real ratio rounds the same, so the
    # set does not change when a tree's values are all scaled
    return {r for r, v in enumerate(vals) if side.present[r] and v / hottest >= threshold}


def hot_edge_coverage(a: Side, b: Side, threshold: float = 0.1) -> float | None:
    """Hot-edge coverage of ``a`` over ``b`` (Gnedt, Figure 5.6): the share of ``b``'s hot edges hot
    in ``a`` too; None when ``b`` has no weight (no hot edges)."""
    a, b = _pair(a, b)
    hot_b = hotset(b, threshold)
    if not hot_b:
        return None
    return len(hotset(a, threshold) & hot_b) / len(hot_b)


def _pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    n = len(xs)
    if n < 2:
        return None
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    sxy = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    syy = math.fsum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    r = sxy / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, r))


def correlation(a: Side, b: Side) -> float | None:
    """Whaley's precision over contexts (§6.6): Pearson's r of the self values of the contexts present
    in either tree, followed by their fresh counts when both sides have them (Whaley's edge counts).
    Values are relative weights, so the node and edge sets are on one scale."""
    a, b = _pair(a, b)
    rows = [r for r in range(len(a.values)) if a.present[r] or b.present[r]]
    wa, wb = a.weights(), b.weights()
    xs, ys = [wa[r] for r in rows], [wb[r] for r in rows]
    if a.fresh is not None and b.fresh is not None and a.fresh_total() and b.fresh_total():
        fa, fb = a.fresh_total(), b.fresh_total()
        xs += [a.fresh[r] / fa for r in rows]
        ys += [b.fresh[r] / fb for r in rows]
    return _pearson(xs, ys)


def method_values(side: Side) -> dict[str, float]:
    """Per method, the self values summed over its contexts (Whaley's hot-method counters); the
    root is not a method and is left out."""
    side = side.padded()
    out: dict[str, float] = {}
    names, frm = side.space.frames.names, side.space.frame
    for r in range(1, len(side.values)):
        v = side.values[r]
        if v:
            name = names[frm[r]]
            out[name] = out.get(name, 0.0) + v
    return out


def method_correlation(a: Side, b: Side) -> float | None:
    """Whaley's precision of hot-method counters (§6.5): Pearson's r over the methods either side saw."""
    return _method_correlation(method_values(a), method_values(b))


def _method_correlation(ma: dict[str, float], mb: dict[str, float]) -> float | None:
    keys = sorted(set(ma) | set(mb))
    return _pearson([ma.get(k, 0.0) for k in keys], [mb.get(k, 0.0) for k in keys])


def top_methods(side: Side, n: int) -> list[str]:
    """The ``n`` hottest methods by self value (ties by name), only methods with a value."""
    return _top(method_values(side), n)


def _top(mv: dict[str, float], n: int) -> list[str]:
    return [k for k, _ in heapq.nsmallest(n, mv.items(), key=lambda kv: (-kv[1], kv[0]))]


def hot_method_agreement(a: Side, b: Side, n: int = 10) -> float | None:
    """``|top_n(A) ∩ top_n(B)| / max(|top_n(A)|, |top_n(B)|)``; None when neither has a method."""
    return _agreement(top_methods(a, n), top_methods(b, n))


def _agreement(ta: list[str], tb: list[str]) -> float | None:
    most = max(len(ta), len(tb))
    return len(set(ta) & set(tb)) / most if most else None


@dataclass
class HotEdge:
    """One edge hot in one tree, with its weight in both (for the report of what differs)."""

    path: tuple[str, ...]
    weight_a: float
    weight_b: float
    hot_in_a: bool
    hot_in_b: bool


@dataclass
class Similarity:
    """Everything :func:`similarity` measures; values are fractions (0.87 = 87 %), None = undefined."""

    metric: str
    metric_b: str
    threshold: float
    top: int
    total_a: float
    total_b: float
    contexts_a: int
    contexts_b: int
    shared_contexts: int
    overlap: float
    coverage_a_over_b: float | None
    coverage_b_over_a: float | None
    hot_a: int
    hot_b: int
    hot_both: int
    hot_either: int
    correlation: float | None
    correlation_uses_fresh: bool
    method_correlation: float | None
    top_agreement: float | None
    top_a: list[str] = field(default_factory=list)
    top_b: list[str] = field(default_factory=list)
    hot_edges: list[HotEdge] = field(default_factory=list)  # the heaviest of the hot_either, heaviest first


def _tree(p: Profile | Tree, thread: str | None) -> Tree:
    return p if isinstance(p, Tree) else p.tree(thread)


def similarity(
    a: Profile | Tree,
    b: Profile | Tree,
    *,
    metric: str = "samples",
    threshold: float = 0.1,
    app_only: Sequence[str] = (),
    top: int = 10,
    thread: str | None = None,
    metric_b: str | None = None,
    edges: int | None = 100,
) -> Similarity:
    """All the measures of the module for two profiles (merged trees, or ``thread``'s: KeyError if absent).

    ``metric_b``: ``b``'s metric when it differs from ``a``'s: a hybrid profile's samples against
    its own exact bytecodes (``similarity(p, p, metric="samples", metric_b="bytecodes")``).
    ``edges``: how many of the hot edges (of either tree, heaviest first) to list (None: all).
    """
    space = ContextSpace(app_only)
    sa = space.side(_tree(a, thread), metric)
    sb = space.side(_tree(b, thread), metric_b or metric).padded()
    sa = sa.padded()
    ha, hb = hotset(sa, threshold), hotset(sb, threshold)
    both = len(ha & hb)
    wa, wb = sa.weights(), sb.weights()
    union = ha | hb
    heaviest = list(union) if edges is None else heapq.nlargest(edges, union, key=lambda r: max(wa[r], wb[r]))
    listed = [HotEdge(space.path(r), wa[r], wb[r], r in ha, r in hb) for r in heaviest]
    listed.sort(key=lambda e: (-max(e.weight_a, e.weight_b), e.path))
    fresh_used = sa.fresh is not None and sb.fresh is not None and bool(sa.fresh_total()) and bool(sb.fresh_total())
    ma, mb = method_values(sa), method_values(sb)
    top_a, top_b = _top(ma, top), _top(mb, top)
    return Similarity(
        metric=metric,
        metric_b=metric_b or metric,
        threshold=threshold,
        top=top,
        total_a=sa.total,
        total_b=sb.total,
        contexts_a=sum(sa.present),
        contexts_b=sum(sb.present),
        shared_contexts=sum(1 for x, y in zip(sa.present, sb.present) if x and y),
        overlap=math.fsum(min(x, y) for x, y in zip(wa, wb) if x and y),
        coverage_a_over_b=both / len(hb) if hb else None,
        coverage_b_over_a=both / len(ha) if ha else None,
        hot_a=len(ha),
        hot_b=len(hb),
        hot_both=both,
        hot_either=len(union),
        correlation=correlation(sa, sb),
        correlation_uses_fresh=fresh_used,
        method_correlation=_method_correlation(ma, mb),
        top_agreement=_agreement(top_a, top_b),
        top_a=top_a,
        top_b=top_b,
        hot_edges=listed,
    )
