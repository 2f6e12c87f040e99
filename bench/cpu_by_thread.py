#!/usr/bin/env python3
"""Where a rewritten program's extra CPU time goes, by JVM thread (issue 15: where the time goes).

Runs each workload plain and rewritten (CCT, default counting), alternating, and reads the CPU time
of every thread of the workload's JVM from ``/proc/<pid>/task/<tid>/stat`` while it runs (every
``--interval`` seconds; a thread's last reading counts, so a thread that ends early still counts).
Threads are grouped by their names (:func:`thread_group`): the program's own threads, C2, C1, the
collector's pause workers, its concurrent threads (marking, refinement), the VM thread (safepoint
operations, deoptimisation), jprewrite's profile writer (the shutdown hook) and the rest.

    python bench/cpu_by_thread.py                              # scalac kotlinc groovy sunflow, 2 rounds
    python bench/cpu_by_thread.py -n 3 --work W --reuse scalac  # W: a --work directory of bench/cct_overhead.py
    python bench/cpu_by_thread.py --output none kotlinc         # the run without the profile's write

Why: ``bench/jit_share.py`` has the JIT's own timers and the young collector's pauses, but not the
collector's concurrent threads, nor the pause workers' CPU (a pause of 0.1 s on two workers is 0.2 s
of CPU), nor the program's own threads apart; this splits the whole JVM's CPU time and says which
part the extra comes from. The JVM's CPU after the last reading (at most one interval per thread,
the exit) is missing from the groups: the ``unread`` column is the workload script's CPU figure less
the groups' sum.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cct_overhead as co  # noqa: E402  (the shared workloads' preparation and the rewriting)

DEFAULT = ["scalac", "kotlinc", "groovy", "sunflow"]
GROUPS = ["program", "C2", "C1", "GC pauses", "GC concurrent", "VM thread", "profile write", "other"]
_CLOCK = os.sysconf("SC_CLK_TCK")
#: HotSpot's own threads that are neither compilers nor the collector (names as /proc shows them: 15
#: chars). Not "java": the launcher's thread that runs ``main`` keeps the process's name.
_JVM_OTHER = (
    "VM Periodic Tas",
    "Reference Handl",
    "Finalizer",
    "Signal Dispatch",
    "Service Thread",
    "Monitor Deflati",
    "Common-Cleaner",
    "Notification Th",
    "Sweeper thread",
    "Attach Listener",
)


def thread_group(name: str) -> str:
    """The group of :data:`GROUPS` a JVM thread named ``name`` (its ``comm``) belongs to."""
    if name.startswith("C2 CompilerThre"):
        return "C2"
    if name.startswith("C1 CompilerThre"):
        return "C1"
    if name.startswith("GC Thread#"):
        return "GC pauses"
    if name.startswith(("G1 Conc#", "G1 Main Marker", "G1 Refine#", "G1 Service")):
        return "GC concurrent"
    if name == "VM Thread":
        return "VM thread"
    if name == "jprewrite-shutd":
        return "profile write"
    if name.startswith("jprewrite-") or name in _JVM_OTHER:
        return "other"
    return "program"


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (the workload script's JVM and whatever else it started)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out += kids
        todo += kids
    return out


def _read_threads(pid: int, seen: dict[tuple[int, int], tuple[str, float]]) -> None:
    """Record the name and CPU seconds (user + system) of every thread of JVM ``pid``."""
    try:
        if Path(f"/proc/{pid}/comm").read_text().strip() != "java":
            return
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        try:
            name = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        seen[(pid, int(tid))] = (name, (int(fields[11]) + int(fields[12])) / _CLOCK)


def run_once(bench: Path, workload: str, cp: str | None, output: str, interval: float, scratch: Path) -> dict:
    """One run of ``workload`` (``cp``: None = plain): CPU s, checksum, CPU s by thread group."""
    env = dict(os.environ, BENCH_WORK=str(scratch))
    env.pop("BENCH_CP", None)
    if cp is not None:
        env["BENCH_CP"] = cp
        env["JAVA_OPTS"] = f"-Djprewrite.output={scratch / 'profile.jpprof' if output == 'jpprof' else 'none'}"
    script = ["bash", str(bench / "workloads" / f"{workload}.sh")]
    p = subprocess.Popen(script, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen: dict[tuple[int, int], tuple[str, float]] = {}
    while p.poll() is None:
        for pid in _descendants(p.pid):  # (the script starts helpers and the JVM: looked for every time)
            _read_threads(pid, seen)
        time.sleep(interval)
    stdout, stderr = p.communicate()
    lines = dict(line.split(None, 1) for line in stdout.splitlines() if " " in line)
    if lines.get("RC", "1").strip() != "0":
        sys.exit(f"{workload} failed ({'rewritten' if cp else 'plain'}): {stdout[-1500:]}{stderr[-1500:]}")
    groups = dict.fromkeys(GROUPS, 0.0)
    for name, cpu in seen.values():
        groups[thread_group(name)] += cpu
    return {"cpu": float(lines["CPU"]), "checksum": lines.get("CHECKSUM", "").strip(), "groups": groups}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    co.add_run_arguments(ap, DEFAULT, "one plain run and one rewritten")
    ap.add_argument("--output", choices=("jpprof", "none"), default="jpprof", help="the profile written, or not")
    ap.add_argument("--interval", type=float, default=0.2, help="seconds between readings of the threads")
    args = ap.parse_args()
    if not Path("/proc/self/task").is_dir():
        sys.exit("cpu_by_thread: needs Linux's /proc (per-thread CPU times)")
    work = Path(args.work or tempfile.mkdtemp(prefix="jpr-threads-"))
    bench = co.prepare_shared_bench(work)
    cps = {w: co.class_path(bench, w) for w in args.workloads}
    co.rewrite_modes(work, cps, ["default"], args.jobs, reuse=args.reuse)

    print(
        f"CPU s by JVM thread group, plain / rewritten (default counting, profile: {args.output}), {args.n} rounds, medians"
    )
    scratch = Path(tempfile.mkdtemp(prefix="jpr-threads-runs-"))
    try:
        for w in args.workloads:
            kinds = [("plain", None), ("rewritten", co.rewritten_class_path(work / "jpr-default", cps[w]))]
            runs: dict[str, list[dict]] = {"plain": [], "rewritten": []}
            for r in range(args.n):
                for name, cp in kinds[r % 2 :] + kinds[: r % 2]:
                    runs[name].append(run_once(bench, w, cp, args.output, args.interval, scratch))
            sums = {run["checksum"] for kind in runs.values() for run in kind}
            if len(sums) != 1:
                sys.exit(f"{w}: checksums differ between plain and rewritten runs: {sorted(sums)}")

            def med(kind: str, group: str | None = None) -> float:
                return statistics.median(r["cpu"] if group is None else r["groups"][group] for r in runs[kind])

            extra = med("rewritten") - med("plain")
            print(f"\n{w}: CPU {med('plain'):.2f} / {med('rewritten'):.2f} s ({med('rewritten') / med('plain'):.2f}x)")
            print(f"  {'group':14} {'plain':>7} {'rewritten':>9} {'ratio':>6} {'share of the extra':>19}")
            for g in GROUPS + ["unread"]:
                if g == "unread":
                    plain = med("plain") - sum(med("plain", x) for x in GROUPS)
                    rewritten = med("rewritten") - sum(med("rewritten", x) for x in GROUPS)
                else:
                    plain, rewritten = med("plain", g), med("rewritten", g)
                ratio = f"{rewritten / plain:6.2f}" if plain >= 0.05 else f"{'-':>6}"
                share = (rewritten - plain) / extra if extra > 0 else float("nan")
                print(f"  {g:14} {plain:7.2f} {rewritten:9.2f} {ratio} {share:19.0%}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(
        "\n(CPU: the workload script's figure for the whole JVM; groups: medians of each group's CPU s; checksums equal)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
