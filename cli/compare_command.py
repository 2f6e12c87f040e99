"""``jprewrite compare A B``: how alike two calling-context trees are, as the sampling papers measure it.

Degree of overlap and hot-edge coverage (Gnedt's thesis, Figures 5.5 and 5.6), Whaley's
correlation over contexts and over methods, and the agreement of the top-N hot methods: a
sampler against JFR (``import-jfr``), against another sampler, against itself in another
run, or sampled time against exact counts. Definitions: :mod:`jprewrite.profile.similarity`
and ``docs/profiles.md``. Exit 0, or 2 on bad input; ``diff`` is the command for regressions.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from ..errors import JprewriteError
from ..profile import Profile, load
from ..profile.names import short_names
from ..profile.similarity import Similarity, similarity

__all__ = ["add_parser", "run", "format_text", "to_json"]

COMPARE_METRICS = ("samples", "calls", "bytecodes")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="degree of overlap, hot-edge coverage and correlation of two profiles",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("a", metavar="A", help="a profile (JSON written by jprewrite or import-jfr, .gz too)")
    p.add_argument("b", metavar="B", help="the profile to compare it with")
    p.add_argument(
        "--metric",
        choices=COMPARE_METRICS,
        help="the edge weights (default: samples when both have samples, else bytecodes, else calls)",
    )
    p.add_argument(
        "--metric-b",
        choices=COMPARE_METRICS,
        metavar="METRIC",
        help="B's edge weights when they differ from A's: a hybrid profile's samples against its "
        "own bytecodes is 'compare P P --metric samples --metric-b bytecodes'",
    )
    p.add_argument(
        "--app-only",
        nargs="+",
        default=(),
        metavar="PREFIX",
        help="keep only frames whose JVM name starts with a PREFIX (com.acme.); the others are "
        "dropped and their callees attached to their callers",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=0.1,
        metavar="T",
        help="hot edges: weight at least T times the hottest edge's (default 0.1, as in the papers)",
    )
    p.add_argument("--top", type=int, default=10, metavar="N", help="hot methods compared (default 10)")
    p.add_argument("--thread", metavar="NAME", help="compare this thread's trees instead of the merged ones")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="hot edges listed (default 20)")
    p.add_argument("--full", action="store_true", help="full JVM names in the list of hot edges")
    p.add_argument("--json", action="store_true", help="everything as JSON (fractions, full names)")
    p.set_defaults(run=run)


def _load(path: str, thread: str | None) -> Profile:
    p = load(path, threads=False if thread is None else [thread], merged=thread is None)
    try:
        p.tree(thread)
    except KeyError:
        names = ", ".join(sorted(set(p.thread_names))) or "none"
        what = f"no thread named {thread!r} (threads: {names})" if thread else "no merged tree"
        raise JprewriteError(what, path=path) from None
    return p


def _default_metric(a: Profile, b: Profile, thread: str | None) -> str:
    for metric in ("samples", "bytecodes", "calls"):
        if a.tree(thread).total(metric) and b.tree(thread).total(metric):
            return metric
    return "samples"


def run(args: argparse.Namespace) -> int:
    if not 0.0 <= args.threshold <= 1.0:
        raise JprewriteError("--threshold must be between 0 and 1 (a share of the hottest edge's weight)")
    if args.top < 1 or args.limit < 0:
        raise JprewriteError("--top must be at least 1 and --limit not negative")
    a, b = _load(args.a, args.thread), _load(args.b, args.thread)
    metric = args.metric or _default_metric(a, b, args.thread)
    metric_b = args.metric_b or metric
    for path, p, m in ((args.a, a, metric), (args.b, b, metric_b)):
        if not p.tree(args.thread).total(m):
            have = [x for x in p.metrics if p.tree(args.thread).total(x)]
            raise JprewriteError(f"the profile has no {m} (it has: {', '.join(have) or 'nothing'})", path=path)
    sim = similarity(
        a,
        b,
        metric=metric,
        metric_b=metric_b,
        threshold=args.threshold,
        app_only=args.app_only,
        top=args.top,
        thread=args.thread,
        edges=args.limit,
    )
    for path, top in ((args.a, sim.top_a), (args.b, sim.top_b)):
        if not top:  # everything folded into the root: nothing left to compare
            where = (
                f"in the application frames (--app-only {' '.join(args.app_only)})"
                if args.app_only
                else "in any method"
            )
            raise JprewriteError(f"no {metric} left {where}", path=path)
    sys.stdout.write(
        to_json(sim, args.a, args.b) if args.json else format_text(sim, args.a, args.b, args.limit, args.full)
    )
    return 0


def _pct(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{100.0 * x:.{digits}f}%"


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _context(path: tuple[str, ...], names: dict[str, str], keep: int = 4) -> str:
    if not path:
        return "<root>"
    shown = " > ".join(names.get(p, p) for p in path[-keep:])
    return (f"…({len(path) - keep}) > " if len(path) > keep else "") + shown


def format_text(sim: Similarity, a: str, b: str, limit: int = 20, full: bool = False) -> str:
    """The measures, then the hot edges (hot in either profile), heaviest first."""
    what = "self values and fresh counts" if sim.correlation_uses_fresh else "self values"
    agree = round((sim.top_agreement or 0) * max(len(sim.top_a), len(sim.top_b)))
    lines = [
        f"A: {a}  {sim.total_a:,.0f} {sim.metric} in {sim.contexts_a:,} contexts",
        f"B: {b}  {sim.total_b:,.0f} {sim.metric_b} in {sim.contexts_b:,} contexts ({sim.shared_contexts:,} in both)",
        f"degree of overlap            {_pct(sim.overlap):>7}",
        f"hot-edge coverage A over B   {_pct(sim.coverage_a_over_b):>7}   ({sim.hot_both:,} of B's {sim.hot_b:,} hot "
        f"edges are hot in A; T = {sim.threshold:g})",
        f"hot-edge coverage B over A   {_pct(sim.coverage_b_over_a):>7}   ({sim.hot_both:,} of A's {sim.hot_a:,} hot "
        f"edges are hot in B)",
        f"correlation, contexts        {_num(sim.correlation):>7}   (Pearson, {what} per context)",
        f"correlation, methods         {_num(sim.method_correlation):>7}   (Pearson, hot-method counters)",
        f"top-{sim.top} hot methods agree    {_pct(sim.top_agreement):>7}   ({agree} of "
        f"{max(len(sim.top_a), len(sim.top_b))})",
    ]
    shown = sim.hot_edges[:limit]
    if shown:
        every = sorted({p for e in shown for p in e.path})
        names = dict(zip(every, every if full else short_names(every)))
        lines += ["", "hot edges (weight in A and B; ! hot in one only):", f"{'A':>7} {'B':>7}    context"]
        for e in shown:
            mark = " " if e.hot_in_a and e.hot_in_b else "!"
            lines.append(f"{_pct(e.weight_a, 2):>7} {_pct(e.weight_b, 2):>7} {mark}  {_context(e.path, names)}")
        if sim.hot_either > len(shown):
            lines.append(f"... {sim.hot_either - len(shown):,} more hot edges")
    return "\n".join(lines) + "\n"


def to_json(sim: Similarity, a: str, b: str) -> str:
    """Every measure as a fraction (null: undefined), the hot edges with full JVM names."""
    doc = {"a": a, "b": b, **asdict(sim)}
    doc["hot_edges"] = [dict(asdict(e), path=list(e.path)) for e in sim.hot_edges]
    return json.dumps(doc, indent=1) + "\n"
