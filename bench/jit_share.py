#!/usr/bin/env python3
"""How much of a rewritten program's extra CPU time is the JIT compiling (issue 15: where the time goes).

Runs each workload plain and rewritten (CCT, default counting or ``--modes``, ``-Djprewrite.output=none``: the
profile's writing is the profiles issue's part), alternating, with HotSpot's own compile
statistics (``-XX:+UnlockDiagnosticVMOptions -XX:+CITime``), and prints per workload the medians
of: the whole JVM's CPU time, C1 and C2 compile time, methods and bytecode compiled by C2, the
share of the extra CPU time that is extra compilation, C2's register allocation (the phase that
grows most: every call left in compiled code splits the live ranges around it), and from the JVM's
own performance counters (``-XX:+PerfDataSaveToFile``, read with ``jstat -snap``) the time spent
loading classes and the collector's pause time, with the number of classes loaded.

    python bench/jit_share.py                          # scalac kotlinc groovy xalan h2 sunflow, 2 rounds
    python bench/jit_share.py -n 3 scalac kotlinc
    python bench/jit_share.py --work W --reuse scalac  # W: a --work directory of bench/cct_overhead.py
    python bench/jit_share.py --modes none,default h2  # what the counters add to the JIT's work

Why it matters: on the compiler workloads C2 compiles 2.5-3.4x the bytecode of the plain run and
its one thread is busy for nearly the whole run, so what the rewriting adds to every method (bytes
the JIT must parse, inline and compile) costs CPU time twice: running it, and compiling it.
Compile time is CPU time of the JIT threads, which the CPU figure includes; on two cores C1 and C2
each have one thread.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cct_overhead as co  # noqa: E402  (the shared workloads' preparation and the rewriting)

DEFAULT = ["scalac", "kotlinc", "groovy", "xalan", "h2", "sunflow"]
CI_OPTS = "-XX:+UnlockDiagnosticVMOptions -XX:+CITime -XX:+PerfDataSaveToFile"
_TIER = re.compile(r"^\s*(C[12]) \{speed: [^;]*; standard:\s+([0-9.]+) s,\s+(\d+) bytes,\s+(\d+) methods", re.M)
_TOTAL = re.compile(r"Total compilation time\s*:\s*([0-9.]+) s")
_REGALLOC = re.compile(r"C2 Compile Time:.*?^\s*Regalloc:\s+([0-9.]+) s", re.M | re.S)
#: what this script reports of the saved perf data: its key -> (counter, a timer in ticks of sun.os.hrt.frequency)
_COUNTERS = {
    "classload": ("sun.cls.time", True),
    "gc": ("sun.gc.collector.0.time", True),
    "classes": ("java.cls.loadedClasses", False),
}


def perf_counters(path: Path) -> dict[str, float]:
    """The counters of :data:`_COUNTERS` in a JVM's saved perf data (``jstat -snap``), by this script's
    keys, times in seconds."""
    r = subprocess.run(
        [shutil.which("jstat") or "jstat", "-J-Djstat.showUnsupported=true", "-snap", f"file://{path}"],
        text=True,
        capture_output=True,
    )
    values = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    freq = float(values.get("sun.os.hrt.frequency", "1e9"))
    out = {}
    for key, (name, timer) in _COUNTERS.items():
        if name not in values:
            sys.exit(f"no {name} in the JVM's perf data ({path}): {r.stderr[-500:]}")
        out[key] = float(values[name]) / (freq if timer else 1.0)
    return out


def run_once(bench: Path, workload: str, cp: str | None, scratch: Path) -> dict:
    """One run: CPU s, checksum and the compile statistics of ``workload`` (``cp``: None = plain)."""
    perf = scratch / "perf.data"
    perf.unlink(missing_ok=True)
    env = dict(
        os.environ,
        JAVA_OPTS=f"{CI_OPTS} -XX:PerfDataSaveFile={perf} -Djprewrite.output=none",
        BENCH_WORK=str(scratch),
    )
    env.pop("BENCH_CP", None)
    if cp is not None:
        env["BENCH_CP"] = cp
    r = subprocess.run(["bash", str(bench / "workloads" / f"{workload}.sh")], env=env, text=True, capture_output=True)
    lines = dict(line.split(None, 1) for line in r.stdout.splitlines() if " " in line)
    if lines.get("RC", "1").strip() != "0":
        sys.exit(f"{workload} failed ({'rewritten' if cp else 'plain'}): {r.stdout[-1500:]}{r.stderr[-1500:]}")
    jvm_out = (scratch / workload / "stdout.txt").read_text(errors="replace")
    out = {"cpu": float(lines["CPU"]), "checksum": lines.get("CHECKSUM", "").strip()}
    for tier, secs, size, methods in _TIER.findall(jvm_out):
        out[tier] = (float(secs), int(size), int(methods))
    total = _TOTAL.search(jvm_out)
    if "C1" not in out or "C2" not in out or total is None:
        sys.exit(f"{workload}: no -XX:+CITime statistics in the JVM's output ({scratch / workload / 'stdout.txt'})")
    out["compile"] = float(total.group(1))
    regalloc = _REGALLOC.search(jvm_out)
    out["regalloc"] = float(regalloc.group(1)) if regalloc else float("nan")
    out.update(perf_counters(perf))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    co.add_run_arguments(ap, DEFAULT, "one plain run and one per counting mode")
    ap.add_argument("--modes", default="default", help="counting modes to rewrite with (comma-separated)")
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="jpr-jit-"))
    bench = co.prepare_shared_bench(work)
    cps = {w: co.class_path(bench, w) for w in args.workloads}
    modes = args.modes.split(",")
    co.rewrite_modes(work, cps, modes, args.jobs, reuse=args.reuse)

    print(f"JIT compile time beside CPU time, plain and rewritten (counting {args.modes}), {args.n} rounds, medians")
    print(
        f"{'workload':16} {'CPU plain':>9} {'rewritten':>9} {'compile':>15} {'C1 s':>11} {'C2 s':>11}"
        f" {'C2 methods':>11} {'C2 KB':>11} {'extra CPU that is compiling':>28}"
        f" {'C2 regalloc s':>13} {'class load s':>12} {'classes':>11} {'GC pauses s':>11}"
    )
    scratch = Path(tempfile.mkdtemp(prefix="jpr-jit-runs-"))
    try:
        for w in args.workloads:
            kinds: list[tuple[str, str | None]] = [("plain", None)]
            kinds += [(mode, co.rewritten_class_path(work / f"jpr-{mode}", cps[w])) for mode in modes]
            runs: dict[str, list[dict]] = {name: [] for name, _ in kinds}
            for r in range(args.n):
                for name, cp in kinds[r % len(kinds) :] + kinds[: r % len(kinds)]:
                    runs[name].append(run_once(bench, w, cp, scratch))
            sums = {run["checksum"] for kind in runs.values() for run in kind}
            if len(sums) != 1:
                sys.exit(f"{w}: checksums differ between plain and rewritten runs: {sorted(sums)}")

            def med(kind: str, key: str, part: int | None = None) -> float:
                return statistics.median(r[key] if part is None else r[key][part] for r in runs[kind])

            cpu_p, comp_p = med("plain", "cpu"), med("plain", "compile")
            for mode in modes:
                cpu_r, comp_r = med(mode, "cpu"), med(mode, "compile")
                share = (comp_r - comp_p) / (cpu_r - cpu_p) if cpu_r > cpu_p else float("nan")
                label = w if len(modes) == 1 else f"{w} {mode}"
                print(
                    f"{label:16} {cpu_p:9.2f} {cpu_r:9.2f} {comp_p:6.2f} -> {comp_r:5.2f}"
                    f" {med('plain', 'C1', 0):4.2f}/{med(mode, 'C1', 0):<5.2f}"
                    f" {med('plain', 'C2', 0):4.2f}/{med(mode, 'C2', 0):<5.2f}"
                    f" {med('plain', 'C2', 2):5.0f}/{med(mode, 'C2', 2):<5.0f}"
                    f" {med('plain', 'C2', 1) / 1024:5.0f}/{med(mode, 'C2', 1) / 1024:<5.0f}"
                    f" {share:27.0%}"
                    f" {med('plain', 'regalloc'):5.2f}/{med(mode, 'regalloc'):<5.2f}"
                    f" {med('plain', 'classload'):4.2f}/{med(mode, 'classload'):<5.2f}"
                    f" {med('plain', 'classes'):5.0f}/{med(mode, 'classes'):<5.0f}"
                    f" {med('plain', 'gc'):4.2f}/{med(mode, 'gc'):<5.2f}"
                )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(
        "(compile: HotSpot's total compilation time, s; C1, C2 and the columns after them: plain/rewritten;"
        " class load: sun.cls.time; GC pauses: the young collector's time; checksums equal in every run)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
