"""A profile as one self-contained, interactive HTML flame graph.

The page inlines d3 and d3-flame-graph (vendored in ``web/``, with their licences) and the
profile's data, so it opens from disk with no network: zoom by clicking, search, reset,
switch the metric (every metric the profile has), and the hottest contexts as a table.

A browser cannot lay out millions of frames, and a frame narrower than a pixel is not
drawn anyway: the page carries the contexts whose inclusive value is at least
``min_percent`` of the total for some metric (at most ``max_nodes`` of them, the largest),
with their exact self and inclusive values; what is left out is still counted in its
callers' inclusive values.
"""

from __future__ import annotations

import heapq
import json
from importlib import resources

from .model import KINDS, Profile, Tree
from .names import display_names

__all__ = ["flamegraph_html", "select_rows", "ASSETS"]

ASSETS = ("d3.min.js", "d3-flamegraph.umd.min.js", "flamegraph.js", "flamegraph.html")


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("web", name).read_text(encoding="utf-8")


def select_rows(tree: Tree, metrics: list[str], min_percent: float, max_nodes: int) -> list[int]:
    """The rows to draw, in preorder: above ``min_percent`` of some metric's total, the largest
    ``max_nodes`` of those, and every ancestor of a chosen row (the root always)."""
    incs = [tree.inclusive(m) for m in metrics]
    keep: set[int] = {0}
    for inc in incs:
        if inc[0] > 0:
            limit = inc[0] * min_percent / 100.0
            keep.update(i for i in range(1, len(inc)) if inc[i] >= limit)
    if len(keep) > max_nodes:

        def score(i: int) -> float:
            return max(inc[i] / inc[0] for inc in incs if inc[0] > 0)

        keep = set(heapq.nlargest(max_nodes, keep, key=score)) | {0}
        par = tree.parent
        for i in list(keep):  # ties may have left an ancestor out
            p = par[i]
            while p >= 0 and p not in keep:
                keep.add(p)
                p = par[p]
    return sorted(keep)


def flamegraph_html(
    profile: Profile,
    tree: Tree,
    *,
    title: str,
    metric: str | None = None,
    min_percent: float = 0.01,
    max_nodes: int = 50_000,
    table_rows: int = 100,
    full: bool = False,
) -> str:
    """The whole page as one string."""
    metrics = [m for m in tree.metrics if tree.total(m)] or ["calls"]
    if metric not in metrics:
        metric = "bytecodes" if "bytecodes" in metrics else metrics[0]
    rows = select_rows(tree, metrics, min_percent, max_nodes)
    new_index = {r: k for k, r in enumerate(rows)}
    frames_used = sorted({tree.frame[r] for r in rows})
    frame_index = {f: k for k, f in enumerate(frames_used)}
    short = display_names(tree.frames.names, full)
    cols = [(tree.inclusive(m), tree.value(m)) for m in metrics]
    flat: list[int] = []
    for r in rows:
        flat.append(new_index[tree.parent[r]] if r else -1)
        flat.append(frame_index[tree.frame[r]])
        for inc, own in cols:
            flat.append(inc[r])
            flat.append(own[r])
    note = (
        f"{len(rows):,} of {len(tree):,} calling contexts drawn (those with at least {min_percent:g}% of a "
        f"metric's total, at most {max_nodes:,}); values are exact, counted by jprewrite."
    )
    data = {
        "metrics": metrics,
        "metric": metric,
        "table": table_rows,
        "note": note,
        "names": [short[f] for f in frames_used],
        "jvm": [tree.frames.names[f] for f in frames_used],
        "kinds": [KINDS[tree.frames.kinds[f]] for f in frames_used],
        "nodes": flat,
    }
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = _asset("flamegraph.html")
    esc = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("@", "&#64;")
    # each placeholder replaced once, data last: nothing inserted is scanned again
    for key, value in (
        ("@@D3@@", _script(_asset("d3.min.js"))),
        ("@@FLAMEGRAPH@@", _script(_asset("d3-flamegraph.umd.min.js"))),
        ("@@APP@@", _script(_asset("flamegraph.js"))),
        ("@@TITLE@@", esc),
    ):
        page = page.replace(key, value)
    head, _, tail = page.partition("@@DATA@@")
    return head + payload + tail


def _script(js: str) -> str:
    """Script text safe inside a <script> element."""
    return js.replace("</script", "<\\/script")
