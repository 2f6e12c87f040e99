"""Two profiles, context by context: what grew, what shrank, what is new, what vanished.

Counts are exact and the same on every machine, so a comparison can fail a build on any
growth at all. Contexts are matched by their method path from the root (as the runtime
merges threads). The rule: with a threshold of T percent, the *allowance* is T% of the
base total; the comparison *regressed* when the total or any context's self value grew by
more than the allowance (T = 0: any growth). Listed are the contexts whose self value
changed, and those only one side has (new, vanished), largest change first: the context
where the extra work is done, not its callers, whose inclusive values grew with it (they
are shown as the listed contexts' inclusive change).

``--app-only`` prefixes fold every other frame (the JDK, libraries) into its nearest
application caller first: its counters are added there, so a JDK update that changes the
JDK's own call structure does not show up as changed application contexts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from .model import Frames, Profile, Tree
from .names import short_names
from .ops import TreeBuilder, frame_filter

__all__ = ["ContextChange", "Comparison", "compare", "format_text", "format_markdown", "to_json"]


@dataclass
class ContextChange:
    """One calling context in both profiles (``path``: JVM method names from the root's child down)."""

    path: tuple[str, ...]
    status: str  # "changed", "new" or "vanished"
    base_self: int
    new_self: int
    base_inclusive: int
    new_inclusive: int
    regressed: bool = False

    @property
    def delta(self) -> int:
        """Change of the self value."""
        return self.new_self - self.base_self

    @property
    def inclusive_delta(self) -> int:
        return self.new_inclusive - self.base_inclusive


@dataclass
class Comparison:
    """The result of :func:`compare`; ``changes`` sorted by absolute self change, largest first."""

    metric: str
    threshold: float
    base_total: int
    new_total: int
    allowance: float
    contexts: int
    changes: list[ContextChange] = field(default_factory=list)

    @property
    def regressions(self) -> list[ContextChange]:
        """The contexts that grew beyond the allowance, in the order of :attr:`changes`."""
        return [c for c in self.changes if c.regressed]

    @property
    def total_regressed(self) -> bool:
        return self.new_total - self.base_total > self.allowance

    @property
    def regressed(self) -> bool:
        return self.total_regressed or any(c.regressed for c in self.changes)

    def count(self, status: str) -> int:
        return sum(1 for c in self.changes if c.status == status)


def _tree(p: Profile | Tree, thread: str | None) -> Tree:
    return p if isinstance(p, Tree) else p.tree(thread)


def compare(
    base: Profile | Tree,
    new: Profile | Tree,
    *,
    metric: str = "bytecodes",
    threshold: float = 0.0,
    app_only: Sequence[str] = (),
    thread: str | None = None,
) -> Comparison:
    """Compare ``new`` with ``base`` on ``metric`` (see the module's rule for ``threshold``, in percent).

    ``app_only``: prefixes of JVM names (``com.acme.``) to keep, all other frames folded into their
    callers; ``thread``: compare that thread's trees instead of the merged ones (KeyError if absent).
    """
    a, b = _tree(base, thread), _tree(new, thread)
    frames = Frames()
    maps = [_frame_map(frames, t.frames) for t in (a, b)]
    keep = frame_filter(frames, prefixes=tuple(app_only)) if app_only else None
    builder = TreeBuilder(frames, ("base", "new", "base_calls", "new_calls"))
    for t, fmap, side in ((a, maps[0], "base"), (b, maps[1], "new")):
        builder.merge(t, columns=[(metric, side), ("calls", f"{side}_calls")], frame_map=fmap, keep=keep)
    tree = builder.build()
    base_inc, new_inc = tree.inclusive("base"), tree.inclusive("new")
    base_seen, new_seen = tree.inclusive("base_calls"), tree.inclusive("new_calls")
    base_self, new_self = tree.value("base"), tree.value("new")
    result = Comparison(metric, threshold, base_inc[0], new_inc[0], base_inc[0] * threshold / 100.0, len(tree) - 1)
    for i in range(1, len(tree)):
        in_base = base_seen[i] > 0 or base_inc[i] > 0
        in_new = new_seen[i] > 0 or new_inc[i] > 0
        if in_base and in_new and base_self[i] == new_self[i]:
            continue  # a caller whose inclusive value changed with its callees': they are listed
        status = "changed" if in_base and in_new else "new" if in_new else "vanished"
        change = ContextChange(
            tuple(frames.names[f] for f in tree.path(i)), status, base_self[i], new_self[i], base_inc[i], new_inc[i]
        )
        change.regressed = change.delta > result.allowance
        result.changes.append(change)
    result.changes.sort(key=lambda c: (-abs(c.delta), -abs(c.inclusive_delta), c.path))
    return result


def _frame_map(into: Frames, src: Frames) -> list[int]:
    """Frames matched by name only: a method's kind may differ between runs (agent, offline)."""
    out = []
    for name, kind in zip(src.names, src.kinds):
        f = into.find(name)
        out.append(f if f is not None else into.intern(name, kind))
    return out


# --------------------------------------------------------------------------- output


def _pct(delta: int, base: int) -> str:
    return f"{100.0 * delta / base:+.2f}%" if base else "new"


def _path_text(path: tuple[str, ...], names: dict[str, str], keep: int = 4, sep: str = " > ") -> str:
    shown = [names.get(p, p) for p in path[-keep:]]
    return ("… > " if len(path) > keep else "") + sep.join(shown) if path else "<root>"


def _names(cmp: Comparison, changes: list[ContextChange], full: bool) -> dict[str, str]:
    every = sorted({p for c in changes for p in c.path})
    return dict(zip(every, every if full else short_names(every)))


def _verdict(cmp: Comparison) -> str:
    if not cmp.regressed:
        return f"OK: nothing grew by more than {cmp.threshold:g}% of the base total"
    n = len(cmp.regressions)
    what = f"{n} context{'s' if n != 1 else ''}" + (" and the total" if cmp.total_regressed else "")
    if not n:
        what = "the total"
    return (
        f"REGRESSED: {what} grew by more than {cmp.threshold:g}% of the base total ({cmp.allowance:,.0f} {cmp.metric})"
    )


def format_text(cmp: Comparison, limit: int = 20, full: bool = False) -> str:
    """A plain-text report: totals, the verdict, then the ``limit`` largest changes."""
    shown = cmp.changes[:limit]
    names = _names(cmp, shown, full)
    d = cmp.new_total - cmp.base_total
    lines = [
        f"{cmp.metric}: {cmp.base_total:,} -> {cmp.new_total:,} ({d:+,}, {_pct(d, cmp.base_total)})",
        f"contexts: {cmp.contexts:,} compared, {cmp.count('changed'):,} changed, {cmp.count('new'):,} new, "
        f"{cmp.count('vanished'):,} vanished",
        _verdict(cmp),
    ]
    if shown:
        lines.append(f"{'self change':>14} {'self before':>14} {'self after':>14} {'inclusive change':>17}  context")
    for c in shown:
        mark = "!" if c.regressed else " "
        tag = f" [{c.status}]" if c.status != "changed" else ""
        lines.append(
            f"{c.delta:>+14,} {c.base_self:>14,} {c.new_self:>14,} {c.inclusive_delta:>+17,}{mark} "
            f"{_path_text(c.path, names)}{tag}"
        )
    if len(cmp.changes) > limit:
        lines.append(f"... {len(cmp.changes) - limit:,} more changed contexts")
    return "\n".join(lines) + "\n"


def format_markdown(cmp: Comparison, limit: int = 20, full: bool = False) -> str:
    """The same as a Markdown table, ready for a pull-request comment."""
    shown = cmp.changes[:limit]
    names = _names(cmp, shown, full)
    d = cmp.new_total - cmp.base_total
    icon = ":x:" if cmp.regressed else ":white_check_mark:"
    out = [
        f"### {icon} jprewrite diff: {cmp.metric} {d:+,} ({_pct(d, cmp.base_total)})",
        "",
        f"**{_verdict(cmp)}**",
        "",
        f"Total {cmp.metric}: {cmp.base_total:,} → {cmp.new_total:,}. Contexts: {cmp.contexts:,} compared, "
        f"{cmp.count('changed'):,} changed, {cmp.count('new'):,} new, {cmp.count('vanished'):,} vanished.",
        "",
    ]
    if shown:
        out += ["| | self change | self before → after | inclusive change | context |", "|---|---:|---:|---:|---|"]
        for c in shown:
            mark = (
                ":x:"
                if c.regressed
                else ":new:"
                if c.status == "new"
                else ":wastebasket:"
                if c.status == "vanished"
                else ""
            )
            ctx = _path_text(c.path, names).replace("|", "\\|")
            out.append(
                f"| {mark} | {c.delta:+,} | {c.base_self:,} → {c.new_self:,} | {c.inclusive_delta:+,} | `{ctx}` |"
            )
    if len(cmp.changes) > limit:
        out += ["", f"<sub>{len(cmp.changes) - limit:,} more changed contexts not shown</sub>"]
    return "\n".join(out) + "\n"


def to_json(cmp: Comparison, limit: int | None = None) -> str:
    """Everything as JSON (full JVM names), for scripts."""
    changes = cmp.changes if limit is None else cmp.changes[:limit]
    doc = {
        "metric": cmp.metric,
        "threshold_percent": cmp.threshold,
        "allowance": cmp.allowance,
        "base_total": cmp.base_total,
        "new_total": cmp.new_total,
        "regressed": cmp.regressed,
        "total_regressed": cmp.total_regressed,
        "contexts": cmp.contexts,
        "changed": cmp.count("changed"),
        "new": cmp.count("new"),
        "vanished": cmp.count("vanished"),
        "changes": [
            dict(asdict(c), path=list(c.path), delta=c.delta, inclusive_delta=c.inclusive_delta) for c in changes
        ],
    }
    return json.dumps(doc, indent=1) + "\n"
