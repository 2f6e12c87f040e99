#!/usr/bin/env python3
"""Writing the profile of big programs (issue 14): the runtime before and after, side by side.

The Kotlin and Scala compiler workloads (``../shared/bench``) run on their jars rewritten by
``jprewrite --output-dir`` (default counting), with the runtime's classes first on the class path:
the runtime of a git revision (``--before``, default ``HEAD``: the runtime as committed) or the
working tree's. In each round, back to back:

* ``plain``          -- the original jars (the checksum every run must reproduce);
* ``before-none``    -- old runtime, ``output=none`` (the run without writing);
* ``before-json``    -- old runtime, ``output=FILE.json``: the write time is the difference;
* ``after-none``, ``after-json``, ``after-gz`` (``.json.gz``), ``after-merged-gz``
  (``threads=merged-only``, ``.json.gz``), ``after-jpprof`` (the compact format, ``.jpprof``),
  ``after-jpprof-gz`` (``.jpprof.gz``) -- the new runtime, which also reports its own write time
  and CPU time (``-Djprewrite.timing=true``).

Every JVM runs at its default heap. Afterwards ``jprewrite report`` runs on the biggest profile
written and on each workload's ``.jpprof`` (wall, CPU, peak RSS). The machine is shared: compare runs of the same round, prefer CPU
time, and read the ``foreign`` column (CPU seconds other processes used during the run).

    python bench/profile_write.py                      # kotlinc and scalac, 1 round
    python bench/profile_write.py -n 2 kotlinc --jars /tmp/rw --work /tmp/pw
    python bench/profile_write.py kotlinc --configs plain,after-json,after-jpprof   # a subset

Goals: kotlinc's profile written in <= 2 s and <= 150 MB; scalac's written at the default heap;
``report`` on the biggest profile <= 10 s and <= 2 GB; program output unchanged.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cct_overhead import class_path, prepare_shared_bench  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CONFIGS = {
    "kotlinc": [
        "plain",
        "before-none",
        "before-json",
        "after-none",
        "after-json",
        "after-gz",
        "after-merged-gz",
        "after-jpprof",
        "after-jpprof-gz",
    ],
    "scalac": ["plain", "before-json", "after-json", "after-gz", "after-jpprof"],
}
SUFFIX = {"json": ".json", "gz": ".json.gz", "merged-gz": ".json.gz", "jpprof": ".jpprof", "jpprof-gz": ".jpprof.gz"}


def build_runtime(work: Path, revision: str | None) -> Path:
    """The runtime's classes: of a git revision, or (None) of the working tree."""
    out = work / f"runtime-{revision or 'worktree'}"
    if out.exists():
        shutil.rmtree(out)
    src = work / f"src-{revision or 'worktree'}"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    if revision is None:
        shutil.copytree(REPO / "runtime-java" / "src", src / "runtime-java" / "src")
    else:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", revision, "runtime-java/src"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    sources = [str(p) for p in (src / "runtime-java" / "src").rglob("*.java")]
    subprocess.run(["javac", "--release", "8", "-nowarn", "-d", str(out), *sources], check=True, capture_output=True)
    return out


def rewrite_jars(work: Path, inputs: list[str]) -> Path:
    out = work / "rewritten"
    if all((out / Path(e).name).exists() for e in inputs):
        return out
    r = subprocess.run(
        [sys.executable, "-m", "jprewrite.cli.main", *inputs, "--output-dir", str(out), "-q"],
        capture_output=True,
        text=True,
    )
    if r.returncode:
        sys.exit(f"jprewrite failed: {r.stderr[-2000:]}")
    return out


def run(bench: Path, workload: str, cp: str | None, opts: str, work: Path) -> dict:
    env = dict(os.environ, JAVA_OPTS=opts, BENCH_WORK=str(work / "bw"))
    env.pop("BENCH_CP", None)
    if cp is not None:
        env["BENCH_CP"] = cp
    out = subprocess.run(
        ["bash", str(bench / "workloads" / f"{workload}.sh")], env=env, capture_output=True, text=True
    ).stdout
    rec: dict = {}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        rec[key.lower()] = value
    stderr = (work / "bw" / workload / "stderr.txt").read_text(errors="replace")
    rec["stderr"] = [line for line in stderr.splitlines() if line.startswith("jprewrite:")]
    return rec


def config_opts(config: str, profile: Path) -> str:
    if config == "plain":
        return ""
    name = config.split("-", 1)[1]
    opts = ["-Djprewrite.timing=true"] if config.startswith("after") else []
    if name == "none":
        return " ".join([*opts, "-Djprewrite.output=none"])
    if name == "merged-gz":
        opts.append("-Djprewrite.threads=merged-only")
    return " ".join([*opts, f"-Djprewrite.output={profile}{SUFFIX[name]}"])


def measure_report(profile: Path) -> tuple[float, float, int, int]:
    """``jprewrite report PROFILE``: wall s, CPU s, peak RSS in MB, exit status."""
    t = time.monotonic()
    p = subprocess.Popen(
        [sys.executable, "-m", "jprewrite.cli.main", "report", str(profile), "--color", "never"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, os.waitstatus_to_exitcode(status)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workloads", nargs="*", default=list(CONFIGS))
    ap.add_argument("-n", type=int, default=1, help="rounds")
    ap.add_argument("--before", default="HEAD", help="git revision of the runtime before (default HEAD)")
    ap.add_argument("--jars", help="directory of jars already rewritten by jprewrite --output-dir")
    ap.add_argument("--work", help="scratch directory (default: a temporary one)")
    ap.add_argument("--configs", help="comma-separated subset of the configurations (default: all)")
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="jpr-pw-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    bench = prepare_shared_bench(work)
    runtimes = {"before": build_runtime(work, args.before), "after": build_runtime(work, None)}
    cps = {w: class_path(bench, w) for w in args.workloads}
    jars = Path(args.jars) if args.jars else rewrite_jars(work, sorted({e for cp in cps.values() for e in cp}))
    load = os.getloadavg()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, load average {load[0]:.1f} {load[1]:.1f}")
    print("workload config             wall s   CPU s  foreign  RSS MB  profile MB  write s (CPU)  output")
    biggest: tuple[int, Path] | None = None
    compact: dict[str, Path] = {}  # each workload's .jpprof, for report
    only = set(args.configs.split(",")) if args.configs else None
    for _ in range(args.n):
        for w in args.workloads:
            plain_sum = None
            for config in CONFIGS[w]:
                if only is not None and config not in only:
                    continue
                profile = work / f"{w}-{config}"
                for old in work.glob(f"{w}-{config}.*"):
                    old.unlink()
                side = config.split("-")[0]
                cp = (
                    None
                    if config == "plain"
                    else ":".join([str(runtimes[side])] + [str(jars / Path(e).name) for e in cps[w]])
                )
                r = run(bench, w, cp, config_opts(config, profile), work)
                files = list(work.glob(f"{w}-{config}.json*")) + list(work.glob(f"{w}-{config}.jpprof*"))
                size = sum(f.stat().st_size for f in files)
                if files and (biggest is None or size > biggest[0]):
                    biggest = (size, files[0])
                if config == "plain":
                    plain_sum = r.get("checksum")
                same = (
                    "same" if r.get("checksum") == plain_sum and r.get("rc") == "0" else f"DIFFERENT rc={r.get('rc')}"
                )
                timing = next((line for line in r["stderr"] if "profile written in" in line), "")
                write = ""
                if timing:
                    parts = timing.split()
                    write = f"{parts[4]} ({parts[7].rstrip('),')})"
                problems = [line[11:] for line in r["stderr"] if "profile written in" not in line]
                print(
                    f"{w:8} {config:16} {float(r.get('elapsed', 0)):8.2f} {float(r.get('cpu', 0)):7.2f} "
                    f"{float(r.get('foreign_cpu', 0)):8.1f} {int(r.get('maxrss_kb', 0)) // 1024:7d} "
                    f"{size / 1e6:11.1f}  {write:13}  {same}{'; ' + '; '.join(problems)[:120] if problems else ''}",
                    flush=True,
                )
                if config == "after-jpprof" and files:
                    compact[w] = files[0]
                for f in files:
                    if (biggest is None or f != biggest[1]) and f not in compact.values():
                        f.unlink()
    for f in dict.fromkeys(([biggest[1]] if biggest is not None else []) + list(compact.values())):
        wall, cpu, rss, code = measure_report(f)
        print(
            f"report {f.name} ({f.stat().st_size / 1e6:.0f} MB): {wall:.1f} s wall, {cpu:.1f} s CPU, "
            f"{rss} MB peak RSS, exit {code}"
        )
    print(
        f"# load average after: {os.getloadavg()[0]:.1f}; self CPU {resource.getrusage(resource.RUSAGE_SELF).ru_utime:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
