"""Summaries of a tree that tools print: hot methods, hottest contexts, children in order.

The flat per-method view is Whaley's hot-method counters read off the CCT: a method's
*self* value is the sum over its contexts, its *inclusive* value sums only the outermost
context on each path, so recursion is not counted twice.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from .model import Tree

__all__ = ["MethodStat", "by_method", "top_contexts", "sorted_children"]


@dataclass
class MethodStat:
    """One method's totals over all its calling contexts."""

    frame: int
    self_value: int = 0
    inclusive: int = 0
    calls: int = 0
    contexts: int = 0


def by_method(tree: Tree, metric: str) -> list[MethodStat]:
    """Per-method self and inclusive ``metric``, calls and contexts, hottest (self) first."""
    val, inc, calls = tree.value(metric), tree.inclusive(metric), tree.value("calls")
    par, frm = tree.parent, tree.frame
    nf = len(tree.frames)
    self_v, incl, ncalls, ctx = [0] * nf, [0] * nf, [0] * nf, [0] * nf
    active = [0] * nf  # how many times each frame is on the current path
    path: list[int] = []
    for i in range(1, len(par)):
        p = par[i]
        while path and path[-1] != p:
            active[frm[path.pop()]] -= 1
        f = frm[i]
        if not active[f]:
            incl[f] += inc[i]
        active[f] += 1
        path.append(i)
        self_v[f] += val[i]
        ncalls[f] += calls[i]
        ctx[f] += 1
    stats = [MethodStat(f, self_v[f], incl[f], ncalls[f], ctx[f]) for f in range(nf) if ctx[f]]
    stats.sort(key=lambda s: (-s.self_value, -s.inclusive, tree.frames.names[s.frame]))
    return stats


def top_contexts(tree: Tree, metric: str, n: int, *, inclusive: bool = False) -> list[int]:
    """The rows of the ``n`` contexts with the largest self (or inclusive) ``metric``, largest first."""
    values = tree.inclusive(metric) if inclusive else tree.value(metric)
    rows = heapq.nlargest(n, range(1, len(values)), key=values.__getitem__)
    return [r for r in rows if values[r]]


def sorted_children(tree: Tree, i: int, metric: str) -> list[int]:
    """Row ``i``'s children, largest inclusive ``metric`` first, then most calls, then by name."""
    inc, calls, names, frm = tree.inclusive(metric), tree.value("calls"), tree.frames.names, tree.frame
    return sorted(tree.children(i), key=lambda c: (-inc[c], -calls[c], names[frm[c]]))
