"""``jprewrite diff BASE NEW``: compare two profiles context by context; exit 3 on a regression.

Per-context differences sorted by the size of the change of their self value, new and
vanished contexts, and the totals. Exit 0 when nothing grew by more than ``--threshold``
percent of the base total (0: no growth at all), 3 when something did (iai-callgrind's
convention), 2 on bad input. ``--format markdown`` is ready to paste into a pull-request
comment; ``json`` is for scripts.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import JprewriteError
from ..profile import METRICS, load
from ..profile.compare import compare, format_markdown, format_text, to_json

__all__ = ["add_parser", "run", "EXIT_REGRESSED"]

EXIT_REGRESSED = 3


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diff",
        help="compare two profiles context by context (exit 3 on a regression)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("base", metavar="BASE", help="the baseline profile (JSON, .gz too)")
    p.add_argument("new", metavar="NEW", help="the profile to check against it")
    p.add_argument("--metric", choices=METRICS, default="bytecodes", help="what to compare (default bytecodes)")
    p.add_argument(
        "--threshold",
        type=float,
        default=0.0,
        metavar="PCT",
        help="growth allowed, in percent of the base total, for the total and for each context "
        "(default 0: any growth is a regression)",
    )
    p.add_argument(
        "--app-only",
        nargs="+",
        default=(),
        metavar="PREFIX",
        help="keep only frames whose JVM name starts with a PREFIX (com.acme.); others are folded into their callers",
    )
    p.add_argument("--thread", metavar="NAME", help="compare this thread's trees instead of the merged ones")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.add_argument("--limit", type=int, default=20, help="changed contexts listed (default 20; json: all)")
    p.add_argument("--full", action="store_true", help="full JVM names in text and markdown")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.threshold < 0:
        raise JprewriteError("--threshold must not be negative")
    want = False if args.thread is None else [args.thread]
    base = load(args.base, threads=want, merged=args.thread is None)
    new = load(args.new, threads=want, merged=args.thread is None)
    for path, p in ((args.base, base), (args.new, new)):
        try:
            p.tree(args.thread)
        except KeyError:
            names = ", ".join(sorted(set(p.thread_names))) or "none"
            what = f"no thread named {args.thread!r} (threads: {names})" if args.thread else "no merged tree"
            raise JprewriteError(what, path=path) from None
    cmp = compare(base, new, metric=args.metric, threshold=args.threshold, app_only=args.app_only, thread=args.thread)
    if args.format == "json":
        sys.stdout.write(to_json(cmp))
    elif args.format == "markdown":
        sys.stdout.write(format_markdown(cmp, args.limit, args.full))
    else:
        sys.stdout.write(format_text(cmp, args.limit, args.full))
    return EXIT_REGRESSED if cmp.regressed else 0
