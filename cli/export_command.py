"""``jprewrite export PROFILE --format speedscope|pprof|collapsed -o FILE``: a profile for other viewers.

speedscope (https://www.speedscope.app, its JSON file format: one weighted ``sampled``
profile per thread), pprof (``profile.proto``, gzip-compressed: ``go tool pprof``, Pyroscope,
Grafana; a sample type per metric, samples labelled by thread) and collapsed stacks
(``a;b;c N``: flamegraph.pl, inferno, many others). Each calling context is one stack
weighted by its self value. ``-o`` ending in ``.gz`` writes speedscope or collapsed gzipped.
"""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from ..errors import JprewriteError
from ..profile import METRICS, load
from ..profile.export import export_trees, open_output, write_collapsed, write_pprof, write_speedscope

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="convert a profile for speedscope, pprof or flame-graph tools",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("profile", metavar="PROFILE", help="profile JSON written by jprewrite (.gz too)")
    p.add_argument("--format", required=True, choices=("speedscope", "pprof", "collapsed"))
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="file to write ('-': stdout, not pprof)")
    p.add_argument(
        "--metric",
        choices=METRICS,
        help="weight of each stack (default: bytecodes, or calls when none were counted); "
        "pprof carries every metric and makes this the default one",
    )
    p.add_argument("--thread", metavar="NAME", help="only this thread's tree")
    p.add_argument("--full", action="store_true", help="full JVM names instead of short ones")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    one_tree = args.format == "collapsed" and args.thread is None  # collapsed stacks: the merged tree only
    profile = load(args.profile, threads=False if one_tree else True if args.thread is None else [args.thread])
    try:
        trees = (
            [("all threads", profile.tree())]
            if one_tree
            else export_trees(profile, args.thread, merged=args.format == "speedscope")
        )
    except KeyError:
        names = ", ".join(sorted(set(profile.thread_names))) or "none"
        raise JprewriteError(f"no thread named {args.thread!r} (threads: {names})", path=args.profile) from None
    metric = args.metric or profile.default_metric()
    if args.format == "pprof":
        if args.output == "-":
            raise JprewriteError("pprof output is binary: give a file with -o")
        with open_output(args.output, binary=True, compress=False) as out:  # pprof gzips itself
            write_pprof(
                profile,
                trees,
                out,
                default_metric=metric,
                full_names=args.full,
                comment=f"jprewrite {__version__}: exact counts of {args.profile}",
            )
        print(f"jprewrite: wrote {args.output} (pprof, {len(trees)} tree(s))", file=sys.stderr)
        return 0
    out = sys.stdout if args.output == "-" else open_output(args.output)
    try:
        if args.format == "collapsed":
            for _, tree in trees:
                write_collapsed(tree, metric, out, full=args.full)
        else:
            write_speedscope(profile, trees, metric, out, full=args.full, exporter=f"jprewrite {__version__}")
    finally:
        if out is not sys.stdout:
            out.close()
    if args.output != "-":
        print(f"jprewrite: wrote {args.output} ({args.format}, {metric}, {len(trees)} tree(s))", file=sys.stderr)
    return 0
