"""``jprewrite flamegraph PROFILE -o out.html``: an interactive flame graph in one HTML file.

The file needs no network to open (d3 and d3-flame-graph are inlined): click a frame to
zoom, search, reset, switch the metric (bytecodes, calls, allocations, samples... whatever
the profile counted), and read the hottest contexts in the table beside it.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import JprewriteError
from ..profile import METRICS
from ..profile.flamegraph import flamegraph_html
from .report_command import load_tree

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "flamegraph",
        help="write an interactive flame graph of a profile as one HTML file",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("profile", metavar="PROFILE", help="profile JSON written by jprewrite (.gz too)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    p.add_argument("--metric", choices=METRICS, help="the metric shown first (default: bytecodes, else calls)")
    p.add_argument("--thread", metavar="NAME", help="one thread's tree instead of the merged one")
    p.add_argument(
        "--min",
        dest="min_percent",
        type=float,
        default=0.01,
        metavar="PCT",
        help="leave out contexts below this share of every metric's total (default 0.01)",
    )
    p.add_argument("--max-nodes", type=int, default=50_000, help="at most this many contexts (default 50000)")
    p.add_argument("--title", help="the page's title (default: the profile's file name)")
    p.add_argument("--full", action="store_true", help="full JVM names on the frames")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.max_nodes < 1:
        raise JprewriteError("--max-nodes must be at least 1")
    profile, tree = load_tree(args.profile, args.thread)
    title = args.title or os.path.basename(args.profile) + (f" [{args.thread}]" if args.thread else "")
    page = flamegraph_html(
        profile,
        tree,
        title=title,
        metric=args.metric,
        min_percent=args.min_percent,
        max_nodes=args.max_nodes,
        full=args.full,
    )
    tmp = args.output + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, args.output)
    except OSError as e:
        raise JprewriteError(f"cannot write: {e.strerror or e}", path=args.output) from None
    print(f"jprewrite: wrote {args.output} ({len(page) // 1024:,} KB)", file=sys.stderr)
    return 0
