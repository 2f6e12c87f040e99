"""``jprewrite merge A.json B.json ... -o OUT.json``: the profiles of several JVMs added into one.

Test forks and executors each write their own profile (``output=target/jprewrite-%p.json``);
this adds them up as the runtime's ``append=true`` does: merged trees path by path, threads
kept apart by name, every counter summed, ``runs`` counting the runs. ``-o`` ending in ``.gz``
writes gzip. A bad input is one error line (exit 2) and nothing is written.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from ..errors import JprewriteError
from ..profile.compact import is_compact_name, write_compact
from ..profile.export import open_output
from ..profile.merge import merge_profiles
from ..profile.writer import write_profile

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "merge",
        help="add the profiles of several runs (test forks, executors) into one",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("profiles", nargs="+", metavar="PROFILE", help="profiles written by jprewrite (.gz too)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="merged profile (.gz, .jpprof)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    profile = merge_profiles(args.profiles)  # every input is read before anything is written
    out_dir = os.path.dirname(os.path.abspath(args.output))
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(args.output) + ".", suffix=".tmp", dir=out_dir)
        os.close(fd)
    except OSError as e:
        raise JprewriteError(f"cannot write: {e.strerror or e}", path=args.output) from None
    try:
        compact = is_compact_name(args.output)  # .jpprof(.gz): the compact format
        with open_output(tmp, binary=compact, compress=args.output.endswith(".gz")) as out:
            (write_compact if compact else write_profile)(profile, out)
        os.replace(tmp, args.output)  # readers never see a half-written profile
    except OSError as e:
        raise JprewriteError(f"cannot write: {e.strerror or e}", path=args.output) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    contexts = len(profile.merged) - 1 if profile.merged is not None else 0
    print(
        f"jprewrite: wrote {args.output} ({len(args.profiles)} profiles, {profile.header.get('runs', 1)} runs, "
        f"{contexts:,} contexts, {len(profile.threads)} thread trees) in {time.perf_counter() - start:.1f} s",
        file=sys.stderr,
    )
    return 0
