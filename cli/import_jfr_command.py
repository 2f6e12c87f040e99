"""``jprewrite import-jfr REC.jfr -o profile.json``: a JDK Flight Recorder recording as a jprewrite profile.

The recording's ``jdk.ExecutionSample`` events become a sampled calling-context tree
(``samples`` per context, one tree per thread and their merge), so ``report``,
``flamegraph``, ``export``, ``diff`` and ``compare`` work on it. The JDK's ``jfr`` tool
reads the recording (found in ``$JAVA_HOME/bin`` or next to ``java``). Hidden frames
(lambda proxies, ``LambdaForm``) are dropped unless ``--keep-hidden``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from ..errors import JprewriteError
from ..profile.export import open_output
from ..profile.jfr import TRUNCATED, import_jfr
from ..profile.writer import write_profile

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import-jfr",
        help="turn a JDK Flight Recorder recording's execution samples into a profile",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("recording", metavar="REC.jfr", help="a recording (java -XX:StartFlightRecording=filename=REC.jfr)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the profile to write (.gz: gzipped)")
    p.add_argument(
        "--keep-hidden",
        action="store_true",
        help="keep the frames JFR marks hidden (lambda proxies, LambdaForm, method-handle adapters)",
    )
    p.add_argument("--jfr", metavar="PATH", help="the jfr tool to use (default: $JAVA_HOME/bin/jfr, or next to java)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    if args.jfr is not None and not os.path.isfile(args.jfr):
        raise JprewriteError("no such jfr tool", path=args.jfr)
    profile, stats = import_jfr(args.recording, drop_hidden=not args.keep_hidden, tool=args.jfr)
    tmp = args.output + ".tmp"
    try:
        with open_output(tmp, compress=args.output.endswith(".gz")) as out:
            write_profile(profile, out)
        os.replace(tmp, args.output)
    except OSError as e:
        raise JprewriteError(f"cannot write: {e.strerror or e}", path=args.output) from None
    contexts = len(profile.merged) - 1 if profile.merged is not None else 0
    extra = [f"{stats.hidden_frames:,} hidden frames dropped"] if stats.hidden_frames else []
    if stats.truncated:
        extra.append(f"{stats.truncated:,} truncated stacks under {TRUNCATED}")
    threads = f"{len(stats.threads):,} thread{'s' if len(stats.threads) != 1 else ''}"
    print(
        f"jprewrite: wrote {args.output} ({stats.samples:,} samples, {threads}, "
        f"{contexts:,} contexts{''.join(', ' + e for e in extra)}) in {time.perf_counter() - start:.1f} s",
        file=sys.stderr,
    )
    return 0
