#!/usr/bin/env python3
"""Wall time under the load-time agent, cold and warm cache, beside plain runs and JaCoCo's agent.

A short program (the bundled demo sample) and large ones from the shared workloads (default:
the Kotlin compiler, 7.7k classes loaded; ``fop`` 1.6k), each run in rounds; in every round the
configurations run back to back:

* ``plain``  -- no agent;
* ``jacoco`` -- JaCoCo's agent (coverage, the anchor);
* ``cold``   -- ``-javaagent:$(jprewrite agent-path)`` with an empty cache (deleted before the run:
  every class goes through the Python worker);
* ``warm``   -- the same with the cache of an earlier run (no Python is started), the profile
  written at exit as JSON (the default), with the runtime's own timing line
  (``-Djprewrite.timing=true``: wall and CPU time of the write);
* ``warm-run`` -- ``warm`` with ``output=none``: the run without writing the profile. The issue
  puts the writing in the profiles issue and asks for it separately: ``warm-run`` against JaCoCo
  is the warm goal, ``warm`` and its write time are reported beside it;
* ``cold-pure`` (with ``--pure``) -- ``cold`` with the worker on the pure-Python build
  (``JPREWRITE_PURE=1``), beside the compiled one (setup.py, mypyc) when that is installed.

    python bench/agent_startup.py                    # demo + kotlinc + fop, 3 rounds
    python bench/agent_startup.py -n 2 demo fop

Prints medians of wall and CPU time and the ratios to plain and to JaCoCo. Goals (issue 15): warm
within 1.3x of JaCoCo's run (the profile's writing reported separately), cold within 5x. Results go to bench/RESULTS.md by hand.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cct_overhead import prepare_shared_bench  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CONFIGS = ["plain", "jacoco", "cold", "warm", "warm-run"]


def agent_jar() -> str:
    return subprocess.run(
        [sys.executable, "-m", "jprewrite.cli.main", "agent-path"], check=True, capture_output=True, text=True
    ).stdout.strip()


def build_demo(work: Path) -> Path:
    classes = work / "demo-classes"
    sources = [str(p) for p in (REPO / "sample-classes" / "demo").rglob("*.java")]
    subprocess.run(["javac", "-d", str(classes), *sources], check=True)
    jar = work / "demo.jar"
    subprocess.run(["jar", "cfe", str(jar), "com.example.demo.Main", "-C", str(classes), "."], check=True)
    return jar


def java_opts(config: str, work: Path, bench: Path, agent: str, name: str) -> str:
    if config == "plain":
        return ""
    if config == "jacoco":
        return f"-javaagent:{bench}/build/jacocoagent.jar=destfile={work}/{name}.exec,output=file,append=false"
    cache = work / f"cache-{'warm' if config == 'warm-run' else config}-{name}"
    if config in ("cold", "cold-pure") and cache.exists():
        shutil.rmtree(cache)
    output = "none" if config == "warm-run" else f"{work}/profile-{config}-{name}.json"
    return (
        f"-Djprewrite.timing=true -javaagent:{agent}=cache={cache},python={sys.executable},progress=false,"
        f"output={output}"
    )


def write_time(stderr: str) -> tuple[float, float] | None:
    """(wall s, CPU s) of the profile's writing from the runtime's timing line, if there is one."""
    for line in stderr.splitlines():
        m = re.search(r"profile written in ([0-9.]+) s \(CPU ([0-9.]+) s\)", line)
        if m:
            return float(m.group(1)), float(m.group(2))
    return None


def worker_env(config: str) -> dict[str, str]:
    """The JVM's environment, which the agent's Python worker inherits."""
    env = {k: v for k, v in os.environ.items() if k != "JPREWRITE_PURE"}
    if config == "cold-pure":
        env["JPREWRITE_PURE"] = "1"
    return env


def run_demo(jar: Path, opts: str, config: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.run(
        ["java", *opts.split(), "-jar", str(jar)], capture_output=True, text=True, env=worker_env(config)
    )
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rec = {"rc": p.returncode, "wall": wall, "cpu": cpu, "checksum": hash(p.stdout)}
    return with_write_time(rec, p.stderr)


def with_write_time(rec: dict, stderr: str) -> dict:
    w = write_time(stderr)
    if w is not None:
        rec["write_wall"], rec["write_cpu"] = w
    return rec


def run_workload(bench: Path, name: str, opts: str, config: str) -> dict:
    bench_work = bench.parent / "bench-work"
    env = dict(worker_env(config), JAVA_OPTS=opts, BENCH_WORK=str(bench_work))
    env.pop("BENCH_CP", None)
    t = time.monotonic()
    p = subprocess.run(["bash", str(bench / "workloads" / f"{name}.sh")], capture_output=True, text=True, env=env)
    wall = time.monotonic() - t
    rec = {"rc": p.returncode, "wall": wall}
    for line in p.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key == "RC":
            rec["rc"] = int(value)
        elif key == "ELAPSED":
            rec["wall"] = float(value)  # the JVM's own wall time (without the shell script)
        elif key == "CPU":
            rec["cpu"] = float(value)
        elif key == "CHECKSUM":
            rec["checksum"] = value
    stderr = bench_work / name / "stderr.txt"
    return with_write_time(rec, stderr.read_text(errors="replace") if stderr.exists() else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", default=["demo", "kotlinc", "fop"])
    ap.add_argument("-n", type=int, default=3, help="rounds")
    ap.add_argument("--work", default=None, help="scratch directory (default: a temporary one)")
    ap.add_argument("--pure", action="store_true", help="also a cold run with the worker as pure Python")
    args = ap.parse_args()
    if args.pure:
        CONFIGS.append("cold-pure")
    work = Path(args.work or tempfile.mkdtemp(prefix="jpr-agent-bench-"))
    bench = prepare_shared_bench(work)
    agent = agent_jar()
    demo = build_demo(work)

    def run(name: str, config: str) -> dict:
        opts = java_opts(config, work, bench, agent, name)
        return run_demo(demo, opts, config) if name == "demo" else run_workload(bench, name, opts, config)

    results: dict[tuple[str, str], list[dict]] = {}
    for name in args.programs:
        run(name, "warm")  # fills the warm cache (not measured)
        for r in range(args.n):
            for config in CONFIGS:
                rec = run(name, config)
                results.setdefault((name, config), []).append(rec)
                print(
                    f"# {name} round {r + 1} {config}: rc {rec['rc']} wall {rec['wall']:.2f} s "
                    f"cpu {rec.get('cpu', float('nan')):.2f} s",
                    file=sys.stderr,
                    flush=True,
                )
    report(results, args.programs)
    print(f"\n(scratch: {work})")
    return 0


def report(results: dict, programs: list[str]) -> None:
    def med(name: str, config: str, key: str) -> float | None:
        vals = [r[key] for r in results.get((name, config), []) if r.get("rc") == 0 and key in r]
        return statistics.median(vals) if vals else None

    print(
        "| program | plain | JaCoCo | cold | warm | warm, profile not written | profile write (CPU) "
        "| cold/JaCoCo | warm/JaCoCo | warm run/JaCoCo | cold/plain | warm run/plain | JaCoCo/plain | output |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for name in programs:
        walls = {c: med(name, c, "wall") for c in CONFIGS}
        sums = {r.get("checksum") for c in CONFIGS for r in results.get((name, c), [])}
        same = (
            "same"
            if len(sums) == 1 and all(r.get("rc") == 0 for c in CONFIGS for r in results.get((name, c), []))
            else "DIFFERS"
        )

        def ratio(a: str, b: str) -> str:
            return f"{walls[a] / walls[b]:.2f}x" if walls[a] and walls[b] else "-"

        cells = [f"{walls[c]:.2f} s" if walls[c] else "-" for c in ("plain", "jacoco", "cold", "warm", "warm-run")]
        ww, wc = med(name, "warm", "write_wall"), med(name, "warm", "write_cpu")
        write = f"{ww:.2f} s ({wc:.2f} s)" if ww is not None and wc is not None else "-"
        print(
            f"| {name} | " + " | ".join(cells) + f" | {write} | {ratio('cold', 'jacoco')} | "
            f"{ratio('warm', 'jacoco')} | **{ratio('warm-run', 'jacoco')}** | {ratio('cold', 'plain')} | "
            f"{ratio('warm-run', 'plain')} | {ratio('jacoco', 'plain')} | {same} |"
        )
        if "cold-pure" in walls and walls["cold-pure"]:
            cpu = {c: med(name, c, "cpu") for c in ("cold", "cold-pure")}
            print(
                f"|   {name}, worker as pure Python | cold {walls['cold-pure']:.2f} s wall "
                f"(CPU {cpu['cold-pure'] or float('nan'):.1f} s) against compiled {walls['cold']:.2f} s "
                f"(CPU {cpu['cold'] or float('nan'):.1f} s): {ratio('cold-pure', 'cold')} |"
            )
    print(
        "\nwarm run/JaCoCo is the warm goal (<= 1.3x): the profile's writing belongs to the profiles "
        "issue and is the 'profile write' column (the runtime's own timing of the warm runs' write)."
    )


if __name__ == "__main__":
    sys.exit(main())
