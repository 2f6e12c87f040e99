"""``jprewrite report PROFILE``: where the work went, as a tree of contexts or a list of methods.

``--by context`` (the default) prints the hottest calling contexts as an indented tree:
inclusive and self values, calls, the method and its share of the total. Children below
``--min`` percent and beyond ``--top`` per parent are folded into one "... N more" line, so a
big profile stays readable. ``--by method`` prints the flat hot-method view: per method, self
and inclusive values over all its contexts (recursion counted once), calls and contexts.
Frames are short (``Foo$Bar.g``, arguments only for overloads) unless ``--full``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from ..errors import JprewriteError
from ..profile import KINDS, METRICS, Profile, Tree, load, load_json
from ..profile.names import display_names
from ..profile.ops import focus, frame_filter
from ..profile.views import by_method, sorted_children

__all__ = ["add_parser", "run", "load_profile", "load_tree"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="print the hottest contexts or methods of a profile", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("profile", metavar="PROFILE", help="profile JSON written by jprewrite (.gz too)")
    p.add_argument(
        "--by",
        choices=("context", "method"),
        default="context",
        help="a tree of calling contexts (default) or a flat list of methods",
    )
    p.add_argument(
        "--metric", choices=METRICS, help="what to rank by (default: bytecodes, or calls when none were counted)"
    )
    p.add_argument("--thread", metavar="NAME", help="one thread's tree instead of the merged one")
    p.add_argument(
        "--focus",
        metavar="REGEX",
        help="only what runs beneath methods whose JVM name matches REGEX, merged over their contexts",
    )
    p.add_argument("--top", type=int, help="children shown per context (default 10), methods listed (default 30)")
    p.add_argument(
        "--min",
        "--min-percent",
        dest="min_percent",
        type=float,
        default=0.5,
        metavar="PCT",
        help="hide contexts below this share of the total (default 0.5)",
    )
    p.add_argument("--depth", type=int, default=40, help="deepest level printed (default 40)")
    p.add_argument("--full", action="store_true", help="full JVM names (class with package, descriptor)")
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colours: on a terminal (auto, unless NO_COLOR is set), always or never",
    )
    p.set_defaults(run=run)


def load_profile(path: str) -> dict:
    """The profile as plain dicts (``json.load``; ``.gz`` too), for scripts and tests on small profiles."""
    return load_json(path)


def load_tree(path: str, thread: str | None, prune: float | None = None) -> tuple[Profile, Tree]:
    """The profile and the tree asked for; the threads' trees are passed over undecoded when no
    thread is wanted (a file cut in them is still "truncated"). ``prune``: see
    :func:`jprewrite.profile.load` (subtrees below that share of the bytecodes are passed over:
    exact for a tree of the contexts above it)."""
    if thread is None:
        profile = load(path, threads=False, prune=prune)
        if profile.merged is None:
            raise JprewriteError("the profile has no merged tree", path=path)
        return profile, profile.merged
    profile = load(path, merged=False, threads=[thread], prune=prune)
    try:
        return profile, profile.tree(thread)
    except KeyError:
        names = ", ".join(sorted(set(profile.thread_names))) or "none"
        raise JprewriteError(f"no thread named {thread!r} (threads: {names})", path=path) from None


class _Style:
    """ANSI colours when wanted, nothing otherwise."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on and code and text else text

    def pct(self, pct: float, text: str | None = None) -> str:
        """A share of the total, the hotter the louder."""
        code = "1;31" if pct >= 20 else "33" if pct >= 5 else "32" if pct >= 1 else "2"
        return self(f"({pct:.1f}%)" if text is None else text, code)


def _use_color(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def run(args: argparse.Namespace) -> int:
    # the tree of contexts above --min percent of the bytecodes needs only those contexts (and
    # how many children each has): the reader passes over smaller subtrees without parsing them
    prune = (
        args.min_percent / 100.0
        if args.by == "context" and args.focus is None and args.min_percent > 0 and args.metric in (None, "bytecodes")
        else None
    )
    profile, tree = load_tree(args.profile, args.thread, prune)
    if tree.pruned and not tree.total("bytecodes"):  # nothing counted: the report is of calls, read it all
        profile, tree = load_tree(args.profile, args.thread)
    metric = args.metric or profile.default_metric()
    out, style = sys.stdout, _Style(_use_color(args.color))
    if args.focus is not None:
        try:
            match = frame_filter(tree.frames, args.focus)
        except re.error as e:
            raise JprewriteError(f"--focus: not a regular expression: {e}") from None
        whole = tree.total(metric)
        tree = focus(tree, lambda f: match(f) and f != tree.frame[0])
        share = 100.0 * tree.total(metric) / whole if whole else 0.0
        out.write(
            style(
                f"focus /{args.focus}/: {len(tree) - 1:,} contexts, {tree.total(metric):,} "
                f"{metric} ({share:.1f}% of the profile)\n",
                "2",
            )
        )
    if args.by == "method":
        _methods(tree, metric, args, out, style)
    else:
        _contexts(tree, metric, args, out, style)
    return 0


def _kind(tree: Tree, frame: int) -> str:
    kind = tree.frames.kinds[frame]
    return f" [{KINDS[kind]}]" if kind else ""


def _names(tree: Tree, frames: set[int], full: bool) -> dict[int, str]:
    """Display names of the frames printed, unambiguous among them (not among all of the profile's:
    shorter, and the same whether the reader passed over small subtrees or not)."""
    shown = sorted(frames)
    return dict(zip(shown, display_names([tree.frames.names[f] for f in shown], full)))


def _contexts(tree: Tree, metric: str, args: argparse.Namespace, out, style: _Style) -> None:
    inc, own, calls = tree.inclusive(metric), tree.value(metric), tree.value("calls")
    grand = inc[0] or 1
    top = 10 if args.top is None else args.top
    threshold = grand * args.min_percent / 100.0
    lines: list[tuple[int, int, int]] = []  # (row or -1 for "more", depth, hidden), in print order
    stack: list[tuple[int, int, int]] = [(0, 0, 0)]
    while stack:
        i, depth, hidden = stack.pop()
        lines.append((i, depth, hidden))
        if i < 0 or depth >= args.depth:
            continue
        children = sorted_children(tree, i, metric)
        shown = [c for c in children[:top] if inc[c] >= threshold]
        if len(children) > len(shown):
            stack.append((-1, depth + 1, len(children) - len(shown)))
        stack.extend((c, depth + 1, 0) for c in reversed(shown))
    names = _names(tree, {tree.frame[i] for i, _, _ in lines if i >= 0}, args.full)
    out.write(f"{'inclusive':>14} {'self':>14} {'calls':>10}  context ({metric})\n")
    for i, depth, hidden in lines:
        if i < 0:
            out.write(f"{'':>14} {'':>14} {'':>10}  {'  ' * depth}{style(f'... {hidden} more', '2')}\n")
            continue
        pct = 100.0 * inc[i] / grand
        name = names[tree.frame[i]]
        out.write(
            f"{inc[i]:>14,} {own[i]:>14,} {calls[i]:>10,}  {'  ' * depth}{style(name, '1' if depth else '')}"
            f"{style(_kind(tree, tree.frame[i]), '2')} {style.pct(pct)}\n"
        )


def _methods(tree: Tree, metric: str, args: argparse.Namespace, out, style: _Style) -> None:
    grand = tree.total(metric) or 1
    top = 30 if args.top is None else args.top
    stats = [
        s
        for s in by_method(tree, metric)
        if max(s.self_value, s.inclusive) * 100.0 / grand >= args.min_percent or args.min_percent <= 0
    ]
    out.write(
        f"{'self':>14} {'self%':>6} {'inclusive':>14} {'incl%':>6} {'calls':>12} {'contexts':>8}  method ({metric})\n"
    )
    names = _names(tree, {s.frame for s in stats[:top]}, args.full)
    for s in stats[:top]:
        sp, ip = 100.0 * s.self_value / grand, 100.0 * s.inclusive / grand
        out.write(
            f"{s.self_value:>14,} {style.pct(sp, f'{sp:5.1f}%')} {s.inclusive:>14,} {ip:5.1f}% "
            f"{s.calls:>12,} {s.contexts:>8,}  {style(names[s.frame], '1')}{style(_kind(tree, s.frame), '2')}\n"
        )
    if len(stats) > top:
        out.write(style(f"... {len(stats) - top} more methods", "2") + "\n")
