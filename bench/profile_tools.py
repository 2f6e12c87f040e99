#!/usr/bin/env python3
"""Time and peak memory of the profile tools on a big profile, beside plain ``json.load``.

Every step runs in a process of its own (peak RSS from ``wait4``, so one step's memory does not
hide another's), in this order, side by side:

* ``json.load``         -- the baseline: the whole file as dicts (under a memory cap; past it the
  step is reported as failed, as it would be for a user with less memory);
* ``load merged``       -- ``jprewrite.profile.load(threads=False)``: the node tables of the merged
  tree (what ``report``, ``flamegraph`` and ``diff`` read);
* ``load all``          -- every tree (what ``export`` reads);
* ``report``, ``report --by method``, ``flamegraph``, ``export collapsed|speedscope|pprof``,
  ``diff`` (the profile against itself) -- the commands as a user runs them.

    python bench/profile_tools.py PROFILE.json [--skip json,pprof] [--cap-gb 8]

Profiles of the shared workloads: run ``../shared/bench/workloads/kotlinc.sh`` with
``JAVA_OPTS="-javaagent:$(jprewrite agent-path)=output=/path/kotlinc.json"``. Results go to
bench/RESULTS.md by hand.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
JPREWRITE = [sys.executable, "-m", "jprewrite.cli.main"]

JSON_LOAD = """
import json, sys
sys.setrecursionlimit(1_000_000)
with open(sys.argv[1], 'rb') as f:
    data = json.load(f)
"""

LOAD = """
import sys
from jprewrite.profile import load
p = load(sys.argv[1], threads=sys.argv[2] == 'all')
print(len(p.merged), sum(len(t) for _, t in p.threads), len(p.frames))
"""


def run(cmd: list[str], cap_bytes: int | None = None) -> tuple[float, float, int, str]:
    """(wall s, CPU s, peak RSS KB, first output line) of one child process."""

    def limit() -> None:
        if cap_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, preexec_fn=limit, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage: its peak RSS
        wall = time.monotonic() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = (out.read().decode(errors="replace").strip().splitlines() or [""])[0]
        if code:
            last = (err.read().decode(errors="replace").strip().splitlines() or ["?"])[-1]
            text = f"FAILED (exit {code}): {last[:120]}"
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, text


def steps(profile: str, tmp: Path) -> list[tuple[str, list[str]]]:
    py = [sys.executable, "-c"]
    return [
        ("json.load", [*py, JSON_LOAD, profile]),
        ("load merged", [*py, LOAD, profile, "merged"]),
        ("load all", [*py, LOAD, profile, "all"]),
        ("report", [*JPREWRITE, "report", profile, "--color", "never"]),
        ("report --by method", [*JPREWRITE, "report", profile, "--by", "method", "--color", "never"]),
        ("flamegraph", [*JPREWRITE, "flamegraph", profile, "-o", str(tmp / "f.html")]),
        ("export collapsed", [*JPREWRITE, "export", profile, "--format", "collapsed", "-o", str(tmp / "c.txt")]),
        ("export speedscope", [*JPREWRITE, "export", profile, "--format", "speedscope", "-o", str(tmp / "s.json")]),
        ("export pprof", [*JPREWRITE, "export", profile, "--format", "pprof", "-o", str(tmp / "p.pb.gz")]),
        ("diff", [*JPREWRITE, "diff", profile, profile]),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("profile")
    ap.add_argument("--skip", default="", help="comma-separated step names (or prefixes) to leave out")
    ap.add_argument("--cap-gb", type=float, default=8.0, help="address-space cap of json.load (default 8 GB)")
    args = ap.parse_args()
    size = os.path.getsize(args.profile)
    print(
        f"{args.profile}: {size / 1e6:,.0f} MB; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    skip = [s for s in args.skip.split(",") if s]
    with tempfile.TemporaryDirectory(prefix="jprewrite-bench-") as tmp:
        print(f"{'step':22} {'wall s':>8} {'CPU s':>8} {'peak MB':>9}  output")
        for name, cmd in steps(args.profile, Path(tmp)):
            if any(name.startswith(s) for s in skip):
                continue
            cap = int(args.cap_gb * (1 << 30)) if name == "json.load" else None
            wall, cpu, rss, text = run(cmd, cap)
            if name.startswith("export") or name == "flamegraph":
                out = next(
                    Path(tmp).glob(
                        {
                            "flamegraph": "f.html",
                            "export collapsed": "c.txt",
                            "export speedscope": "s.json",
                            "export pprof": "p.pb.gz",
                        }[name]
                    )
                )
                text = f"{out.stat().st_size / 1e6:,.1f} MB written " + text
            print(f"{name:22} {wall:8.1f} {cpu:8.1f} {rss / 1024:9,.0f}  {text[:90]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
