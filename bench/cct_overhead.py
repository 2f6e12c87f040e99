#!/usr/bin/env python3
"""Slowdown of programs rewritten by ``jprewrite`` (CCT + counting none/default/precise), beside JaCoCo.

Uses the shared workloads (``../shared/bench``): every jar of the selected
workloads' class paths (and the drivers' class directory) is rewritten by
``jprewrite --output-dir`` once per counting mode, one run for each group of
workloads that share class-path entries (a program's classes are planned with
its own class path, as a user would rewrite it; the compilers' jars do not
join the XML tools' run), which also gives the rewriting throughput. Each workload then runs plain, under JaCoCo's agent and
on the three rewritten class paths, back to back in rounds
(``lib/measure.py``: medians of clean runs, checksums compared with plain).

    python bench/cct_overhead.py                    # xalan h2 lucene batik fop sunflow math scalac kotlinc groovy rhino
    python bench/cct_overhead.py -n 2 h2 sunflow    # fewer rounds / workloads
    python bench/cct_overhead.py --work W --baseline OLD   # also run OLD's rewritten jars ("before")

Workloads of this repository's ``bench/workloads`` (rhino: an interpreter-style program whose
classes override JDK methods and are called back from JDK collections) are installed beside the
shared ones. ``--baseline`` takes the ``--work`` directory of an earlier run (another build of
jprewrite) and measures its rewritten class paths as configurations ``old<mode>`` in the same
rounds, so before and after are compared side by side. ``--without-write`` also runs each
rewritten class path with ``-Djprewrite.output=none`` (configurations ``jprnw<mode>``): the same
run without the profile's write at exit, which is the profile format's cost and not the
instrumented program's (for big trees, several seconds: see bench/RESULTS.md).

Prints per workload the CPU-time ratios to plain and their geometric means,
peak RSS ratios, and the rewriting throughput. Goal (issue): CCT + default
counting <= 2.0x geometric mean.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = next(
    (p for p in (REPO.parent / "shared" / "bench", Path("/work/shared/bench")) if (p / "build.sh").exists()),
    REPO.parent / "shared" / "bench",
)
OWN_WORKLOADS = REPO / "bench" / "workloads"
DEFAULT_WORKLOADS = ["xalan", "h2", "lucene", "batik", "fop", "sunflow", "math", "scalac", "kotlinc", "groovy", "rhino"]
MODES = ["none", "default", "precise"]
#: the workloads of the issue's goal (<= 2.0x geometric mean, none above 3.0x): all but rhino
GOAL_WORKLOADS = ["xalan", "h2", "lucene", "batik", "fop", "sunflow", "math", "scalac", "kotlinc", "groovy"]
GOAL_GEOMEAN, GOAL_MAX = 2.0, 3.0


def sh(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, check=True, text=True, capture_output=True, **kw)


def prepare_shared_bench(work: Path) -> Path:
    """A private copy of the shared workloads under ``work/bench``, built (data, drivers, JaCoCo agent)."""
    if not (SHARED / "build.sh").exists():
        sys.exit(f"shared workloads not found at {SHARED}")
    bench = work / "bench"
    if not bench.exists():
        shutil.copytree(SHARED, bench, ignore=shutil.ignore_patterns("build", "data", "results"))
    for f in OWN_WORKLOADS.iterdir():
        shutil.copy(f, bench / "workloads" / f.name)
    for p in bench.rglob("*"):
        p.chmod(0o755 if p.is_dir() or p.suffix in (".sh", ".py") else 0o644)
    sh(["bash", str(bench / "build.sh")])
    return bench


def class_path(bench: Path, workload: str) -> list[str]:
    env = dict(os.environ, PRINT_CP="1")
    out = sh(["bash", str(bench / "workloads" / f"{workload}.sh")], env=env).stdout
    return out.split()


def cp_groups(cps: dict[str, list[str]]) -> list[list[str]]:
    """The class-path entries of workloads linked by shared entries, one list per group (sorted)."""
    groups: list[set[str]] = []
    for cp in cps.values():
        linked = [g for g in groups if g & set(cp)]
        merged = set(cp).union(*linked)
        groups = [g for g in groups if not g & set(cp)] + [merged]
    return sorted(sorted(g) for g in groups)


def rewrite_group(entries: list[str], out: Path, mode: str, jobs: int, extra: list[str] | None = None) -> bool:
    """One ``jprewrite --output-dir`` run over ``entries`` (``extra``: more options); False (skipped)
    when every output exists (``--reuse``)."""
    if all((out / Path(e).name).exists() for e in entries):
        return False
    for e in entries:
        dest = out / Path(e).name
        if dest.is_dir():
            shutil.rmtree(dest)
        elif dest.exists():
            dest.unlink()
    cmd = [sys.executable, "-m", "jprewrite.cli.main", *entries, "--output-dir", str(out)]
    r = subprocess.run(
        [*cmd, "--counting", mode, "--jobs", str(jobs), "-q", *(extra or [])], text=True, capture_output=True
    )
    if r.returncode:
        sys.exit(f"jprewrite failed ({mode}, {Path(entries[0]).name}...): {r.stderr[-2000:]}")
    return True


def rewrite_modes(
    work: Path, cps: dict[str, list[str]], modes: list[str], jobs: int, *, reuse: bool
) -> tuple[dict[str, float], set[str]]:
    """Rewrite every workload's class path once per counting mode into ``work/jpr-<mode>``
    (``reuse``: keep what an earlier run wrote there): the seconds each mode's rewriting took, and
    the entries rewritten (not reused)."""
    throughput: dict[str, float] = {}
    rewritten: set[str] = set()
    for mode in modes:
        out = work / f"jpr-{mode}"
        if not reuse and out.exists():
            shutil.rmtree(out)
        t = time.monotonic()
        done = [group for group in cp_groups(cps) if rewrite_group(group, out, mode, jobs)]
        if done:
            throughput[mode] = time.monotonic() - t
            rewritten.update(e for group in done for e in group)
    return throughput, rewritten


def rewritten_class_path(out: Path, entries: list[str]) -> str:
    """The rewritten copies in ``out`` of class path ``entries``, in the plain class path's order."""
    return ":".join(str(out / Path(e).name) for e in entries)


def add_run_arguments(ap: argparse.ArgumentParser, default: list[str], rounds: str) -> None:
    """The arguments the benchmarks built on this one share (``jit_share``, ``cpu_by_thread``): the
    workloads, the rounds (``rounds``: what one round runs), the scratch directory, its reuse, and
    the rewriting's workers."""
    ap.add_argument("workloads", nargs="*", default=default)
    ap.add_argument("-n", type=int, default=2, help=f"rounds (each: {rounds})")
    ap.add_argument("--work", default=None, help="scratch directory (default: a temporary one)")
    ap.add_argument("--reuse", action="store_true", help="keep the class paths rewritten by an earlier run in --work")
    ap.add_argument("--jobs", type=int, default=2, help="jprewrite worker processes for the rewriting")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workloads", nargs="*", default=DEFAULT_WORKLOADS)
    ap.add_argument("-n", type=int, default=3, help="minimum rounds (lib/measure.py)")
    ap.add_argument("--max-rounds", type=int, default=6)
    ap.add_argument("--work", default=None, help="scratch directory (default: a temporary one)")
    ap.add_argument("--no-jacoco", action="store_true")
    ap.add_argument("--modes", default=",".join(MODES), help="counting modes to measure (comma-separated)")
    ap.add_argument("--reuse", action="store_true", help="keep the rewritten class paths of an earlier --work run")
    ap.add_argument("--rewrite-only", action="store_true", help="rewrite the class paths, measure nothing")
    ap.add_argument("--jobs", type=int, default=2, help="jprewrite worker processes per rewrite run")
    ap.add_argument(
        "--profile-format", default="jpprof", help="profile file suffix: jpprof (compact), json, json.gz, jpprof.gz"
    )
    ap.add_argument("--baseline", default=None, help="the --work directory of an earlier build, run side by side")
    ap.add_argument(
        "--without-write",
        action="store_true",
        help="also run each rewritten class path without writing the profile (configurations jprnw<mode>)",
    )
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="jpr-bench-"))
    bench = prepare_shared_bench(work)

    cps = {w: class_path(bench, w) for w in args.workloads}
    inputs = sorted({e for cp in cps.values() for e in cp})
    names = [Path(e).name for e in inputs]
    if len(set(names)) != len(names):
        sys.exit("two class-path entries share a file name; cannot use --output-dir")
    modes = args.modes.split(",")
    throughput, rewritten = rewrite_modes(work, cps, modes, args.jobs, reuse=args.reuse)
    classes = 0
    for e in sorted(rewritten):
        p = Path(e)
        if p.is_dir():
            classes += sum(1 for _ in p.rglob("*.class"))
        else:
            with zipfile.ZipFile(p) as z:
                classes += sum(1 for n in z.namelist() if n.endswith(".class"))

    if args.rewrite_only:
        print(", ".join(f"{m} {classes / t:.0f} classes/s ({t:.0f} s)" for m, t in throughput.items()))
        return 0
    configs = ["plain"] + ([] if args.no_jacoco else ["jacoco"])
    runs_of = [("jpr", work)] + ([("old", Path(args.baseline))] if args.baseline else [])
    named = {f"{prefix}{mode}": where / f"jpr-{mode}" for mode in modes for prefix, where in runs_of}
    unwritten = {f"jprnw{mode}": named[f"jpr{mode}"] for mode in modes} if args.without_write else {}
    configs += list(named) + list(unwritten)
    raw = work / "runs.jsonl"
    if raw.exists():
        raw.unlink()
    for w in args.workloads:  # one measure.py per workload: each has its own explicit class path
        env = dict(os.environ)
        for name, out in {**named, **unwritten}.items():
            # the rewritten jars in the plain class path's order (not a manifest-only jar: scalac's
            # -usejavacp reads java.class.path and does not follow manifest Class-Path entries)
            env[f"BENCH_CP_{name.upper()}"] = rewritten_class_path(out, cps[w])
            output = "none" if name in unwritten else f"{work}/profile-{name}-<w>.{args.profile_format}"
            env[f"BENCH_OPTS_{name.upper()}"] = f"-Djprewrite.output={output}"
        cmd = [sys.executable, str(bench / "lib" / "measure.py"), "-n", str(args.n), "--max-rounds"]
        cmd += [str(args.max_rounds), "-c", ",".join(configs), "-o", str(work / f"runs-{w}.jsonl"), w]
        r = subprocess.run(cmd, env=env, text=True, capture_output=True)
        if r.returncode:
            sys.exit(f"measure.py failed: {r.stderr[-3000:]}")
        with raw.open("a") as f:
            f.write((work / f"runs-{w}.jsonl").read_text())
    runs = [json.loads(line) for line in raw.read_text().splitlines() if line.strip()]
    report(runs, args.workloads, configs, throughput, classes)
    print(f"\n(raw runs: {raw})")
    return 0


def report(runs: list[dict], workloads: list[str], configs: list[str], throughput: dict, classes: int) -> None:
    def med(w: str, c: str, key: str) -> float | None:
        rs = [r for r in runs if r["workload"] == w and r["config"] == c and key in r and r.get("rc") == 0]
        clean = [r for r in rs if r.get("contention", 0) < 0.10]
        use = clean if len(clean) >= 2 else rs
        vals = [float(r[key]) for r in use]
        return statistics.median(vals) if vals else None

    plain_sums = {r["workload"]: r.get("checksum") for r in runs if r["config"] == "plain" and r.get("rc") == 0}
    bad = sorted(
        {
            (r["workload"], r["config"])
            for r in runs
            if r.get("rc") != 0 or r.get("checksum") != plain_sums.get(r["workload"])
        }
    )
    print("CPU time ratio to plain (median of clean runs; 2 cores):")
    cw = max(12, 2 + max(len(c) for c in configs[1:]))  # a column per configuration, names apart
    print(f"{'workload':10}" + "".join(f"{c:>{cw}}" for c in configs[1:]) + f"{'plain CPU s':>14}")
    ratios: dict[str, dict[str, float]] = {c: {} for c in configs[1:]}
    for w in workloads:
        base = med(w, "plain", "cpu")
        row = f"{w:10}"
        for c in configs[1:]:
            v = med(w, c, "cpu")
            if base and v:
                ratios[c][w] = v / base
                row += f"{v / base:{cw}.2f}"
            else:
                row += f"{'-':>{cw}}"
        print(row + f"{base or 0:14.2f}")

    def geomean(vals: list[float]) -> str:
        return f"{math.exp(sum(map(math.log, vals)) / len(vals)):{cw}.2f}" if vals else f"{'-':>{cw}}"

    print(f"{'geomean':10}" + "".join(geomean(list(r.values())) for r in ratios.values()))
    goal = [w for w in GOAL_WORKLOADS if w in workloads]
    if goal and goal != list(workloads):
        print(f"{'goal set':10}" + "".join(geomean([r[w] for w in goal if w in r]) for r in ratios.values()))
    for c, r in ratios.items():
        if c.endswith("default") and all(w in r for w in GOAL_WORKLOADS):
            g = math.exp(sum(math.log(r[w]) for w in GOAL_WORKLOADS) / len(GOAL_WORKLOADS))
            over = [f"{w} {r[w]:.2f}x" for w in GOAL_WORKLOADS if r[w] > GOAL_MAX]
            met = g <= GOAL_GEOMEAN and not over
            print(
                f"goal ({c}): geomean {g:.2f}x of the issue's {len(GOAL_WORKLOADS)} (<= {GOAL_GEOMEAN}), "
                f"above {GOAL_MAX}x: {', '.join(over) or 'none'} -> {'met' if met else 'NOT met'}"
            )
    print("\npeak RSS ratio to plain:")
    for w in workloads:
        base = med(w, "plain", "maxrss_kb")
        cells = []
        for c in configs[1:]:
            v = med(w, c, "maxrss_kb")
            cells.append(f"{v / base:{cw}.2f}" if base and v else f"{'-':>{cw}}")
        print(f"{w:10}" + "".join(cells))
    print(
        f"\nrewriting {classes} classes (one run per mode, all CPUs): "
        + ", ".join(f"{m} {classes / t:.0f} classes/s ({t:.0f} s)" for m, t in throughput.items())
    )
    if bad:
        print("CHECKSUM MISMATCH:", bad)


if __name__ == "__main__":
    sys.exit(main())
