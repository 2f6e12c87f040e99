#!/usr/bin/env python3
"""Two rewritings of the same workloads run side by side, one core each (issue 15's A/B runs).

Why side by side: on this machine two runs of one configuration, one after the other, differ by
up to 20-25 % (the host's other tenants), so a 5-10 % change needs many alternating rounds and is
still a guess. Here the two configurations run *at the same time*, each pinned to its own core
(``taskset``) and told it has one (``-XX:ActiveProcessorCount=1``: one JIT thread per compiler,
one GC thread, one render thread), so that what slows the host slows both; the cores swap every
round. Each pair's CPU-time ratio is one measurement, and the summary gives their median. Measured
(``bench/RESULTS.md``, leaf calls): single pairs still spread over +-20 %, about as much as runs one
after the other, so this halves the time a number of pairs takes rather than the pairs needed. A
run on one core is not the workload's usual run (no parallel JIT or GC threads), so the ratios say
which configuration is faster and by about how much, not what ``bench/cct_overhead.py`` measures.

    python bench/paired.py --work W -n 4 --a=--no-leaf-calls sunflow groovy kotlinc scalac
    python bench/paired.py --work W --reuse -n 6 --a=--counting=none --b=--counting=default h2

``--a`` and ``--b`` are ``jprewrite`` options (repeatable); each configuration's jars go to
``W/paired-a`` and ``W/paired-b`` (``--reuse`` keeps what an earlier run wrote there). The profile is
not written (``-Djprewrite.output=none``: its writing is the profiles issue's part). Checksums must
agree between the two in every round, or the script says so and exits 1.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cct_overhead as co  # noqa: E402  (the shared workloads' preparation and the rewriting)

JVM = "-Djprewrite.output=none -XX:ActiveProcessorCount=1"


def rewrite(work: Path, cps: dict[str, list[str]], name: str, options: list[str], reuse: bool) -> Path:
    """Every workload's class path rewritten with ``options`` into ``work/paired-<name>``."""
    out = work / f"paired-{name}"
    if not reuse and out.exists():
        shutil.rmtree(out)
    for group in co.cp_groups(cps):
        co.rewrite_group(group, out, "default", 1, extra=options)
    return out


def run_pair(bench: Path, workload: str, cps: list[str], outs: tuple[Path, Path], cores: tuple[int, int]) -> list[dict]:
    """Both configurations of ``workload`` at once, configuration i on core ``cores[i]``."""
    procs = []
    with tempfile.TemporaryDirectory(prefix="paired-") as tmp:
        for i, (out, core) in enumerate(zip(outs, cores)):
            env = dict(
                os.environ,
                BENCH_WORK=str(Path(tmp) / str(i)),
                BENCH_CP=co.rewritten_class_path(out, cps),
                JAVA_OPTS=JVM,
            )
            cmd = ["taskset", "-c", str(core), "bash", str(bench / "workloads" / f"{workload}.sh")]
            procs.append(subprocess.Popen(cmd, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        results = []
        for p in procs:
            stdout, stderr = p.communicate()
            fields = dict(line.split(" ", 1) for line in stdout.splitlines() if " " in line)
            if p.returncode or "CPU" not in fields:
                sys.exit(f"paired: {workload} failed: {stderr.strip()[-2000:]}")
            results.append({"cpu": float(fields["CPU"]), "checksum": fields.get("CHECKSUM", "")})
        return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workloads", nargs="+")
    ap.add_argument("--work", required=True, help="directory for the shared workloads and the rewritten jars")
    ap.add_argument("--reuse", action="store_true", help="keep jars an earlier run rewrote in --work")
    ap.add_argument("-n", "--rounds", type=int, default=4)
    ap.add_argument("--a", action="append", default=[], metavar="OPTION", help="jprewrite option of configuration a")
    ap.add_argument("--b", action="append", default=[], metavar="OPTION", help="jprewrite option of configuration b")
    args = ap.parse_args()
    if shutil.which("taskset") is None or len(os.sched_getaffinity(0)) < 2:
        sys.exit("paired: needs taskset and two cores")
    cores = sorted(os.sched_getaffinity(0))[:2]
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    bench = co.prepare_shared_bench(work)
    cps = {w: co.class_path(bench, w) for w in args.workloads}
    outs = (rewrite(work, cps, "a", args.a, args.reuse), rewrite(work, cps, "b", args.b, args.reuse))
    print(f"a: {' '.join(args.a) or '(defaults)'}   b: {' '.join(args.b) or '(defaults)'}   {JVM}", flush=True)
    cpu: dict[str, tuple[list[float], list[float]]] = {w: ([], []) for w in args.workloads}
    bad = False
    for r in range(args.rounds):
        for w in args.workloads:
            order = (cores[0], cores[1]) if r % 2 == 0 else (cores[1], cores[0])
            a, b = run_pair(bench, w, cps[w], outs, order)
            if a["checksum"] != b["checksum"]:
                print(f"paired: {w} round {r + 1}: checksums differ ({a['checksum'][:8]} / {b['checksum'][:8]})")
                bad = True
            cpu[w][0].append(a["cpu"])
            cpu[w][1].append(b["cpu"])
            print(
                f"round {r + 1} {w:8} a {a['cpu']:7.2f}  b {b['cpu']:7.2f}  b/a {b['cpu'] / a['cpu']:.3f}", flush=True
            )
    print(f"\n{'workload':10} {'a CPU s':>8} {'b CPU s':>8} {'b/a (median of pairs)':>22}  pairs")
    ratios = []
    for w in args.workloads:
        a, b = cpu[w]
        pairs = [y / x for x, y in zip(a, b)]
        ratios.append(statistics.median(pairs))
        shown = " ".join(f"{p:.2f}" for p in pairs)
        print(
            f"{w:10} {statistics.median(a):8.2f} {statistics.median(b):8.2f} {statistics.median(pairs):22.3f}  {shown}"
        )
    print(f"{'geomean':10} {'':8} {'':8} {statistics.geometric_mean(ratios):22.3f}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
