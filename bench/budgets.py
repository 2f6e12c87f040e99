#!/usr/bin/env python3
"""What bytecode budgets cost: a budgeted JUnit run beside the same tests without jprewrite, and
``Measure.run`` on an empty ``Runnable``.

1. JUnit (Debian's junit5 console launcher, ``jprewrite junit-path``): a generated test class of
   ``--tests`` tests, each running a little of ``tests/budget_cases/lib``'s library, in rounds of
   * ``plain``    -- the same tests without the budget annotations, no agent;
   * ``budgeted`` -- with ``@BytecodeBudget``, under the agent with a warm cache, JUnit excluded
     (the configuration docs/budgets.md recommends);
   * ``budgeted-junit`` -- the same with JUnit's own classes instrumented too (warm cache).
2. ``Measure.run(EMPTY)`` in a loop, in offline-rewritten code (the agent runs the same code), beside
   a plain call of the same instrumented ``Runnable``: nanoseconds per call after warm-up.

    python bench/budgets.py              # 5 rounds, 40 tests
    python bench/budgets.py -n 3 --tests 100

Prints medians; results go to bench/RESULTS.md by hand.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LAUNCHER = "/usr/share/java/junit-platform-console-standalone.jar"
API = ["/usr/share/java/junit-jupiter-api.jar", "/usr/share/java/apiguardian-api.jar"]
EXCLUDES = "org.junit.*:junit.*:org.opentest4j.*:org.apiguardian.*:org.hamcrest.*"

TEST_CLASS = """package budgets;
import jprewrite.junit.BytecodeBudget;
import org.junit.jupiter.api.Test;
class BenchTest {
%s
}
"""
TEST = """    @Test %s void t%d() { Words.sorted(new int[] {%d, 3, 1, 4, 2}); Words.consonants("Bench %d"); Words.fib(%d); }
"""

LOOP = """package budgets;
import jprewrite.runtime.Measure;
public final class MeasureLoop {
    static final Runnable EMPTY = () -> { };
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        long sink = 0;
        for (int round = 0; round < 7; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += Measure.run(EMPTY).bytecodes();
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                EMPTY.run();
            }
            long t2 = System.nanoTime();
            System.out.println("measure " + (double) (t1 - t0) / n + " plain " + (double) (t2 - t1) / n);
        }
        System.out.println("sink " + sink);
    }
}
"""


def jprewrite(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "jprewrite.cli.main", *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def javac(out: Path, sources: list[Path], classpath: list[str]) -> None:
    subprocess.run(
        ["javac", "-g", "-nowarn", "-d", str(out), "-cp", ":".join(classpath), *map(str, sources)], check=True
    )


def build_tests(work: Path, junit: str, tests: int) -> dict[str, Path]:
    lib = work / "lib"
    javac(lib, [REPO / "tests/budget_cases/lib/budgets/Words.java"], [])
    out = {}
    for name, annotation in (("plain", ""), ("budgeted", "@BytecodeBudget(max = 1_000_000)")):
        src = work / f"src-{name}" / "budgets" / "BenchTest.java"
        src.parent.mkdir(parents=True)
        body = "".join(TEST % (annotation, i, i, i, 5 + i % 10) for i in range(tests))
        src.write_text(TEST_CLASS % body)
        javac(work / f"tests-{name}", [src], [str(lib), junit, *API])
        out[name] = work / f"tests-{name}"
    out["lib"] = lib
    return out


def junit_run(classes: dict[str, Path], junit: str, config: str, agent: str, work: Path) -> float:
    tests = classes["plain" if config == "plain" else "budgeted"]
    jvm = []
    if config != "plain":
        opts = f"cache={work}/cache-{config},python={sys.executable},progress=false,output=none"
        if config == "budgeted":
            opts += f",excludes={EXCLUDES}"
        jvm = [f"-javaagent:{agent}={opts}"]
    cmd = [
        "java",
        *jvm,
        "-jar",
        LAUNCHER,
        "--disable-banner",
        "--details=none",
        "-cp",
        f"{classes['lib']}:{tests}:{junit}",
        "--select-class",
        "budgets.BenchTest",
    ]
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t
    if p.returncode != 0:
        raise SystemExit(f"{config}: the JUnit run failed:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return wall


def measure_loop(work: Path, calls: int) -> tuple[float, float]:
    rt = work / "loop-src"
    src = rt / "budgets" / "MeasureLoop.java"
    src.parent.mkdir(parents=True)
    src.write_text(LOOP)
    junit = jprewrite("junit-path")  # holds the runtime: compile against it
    javac(work / "loop", [src], [junit])
    jprewrite("rewrite", str(work / "loop"), str(work / "loop.jar"), "--quiet")
    p = subprocess.run(
        ["java", "-Djprewrite.output=none", "-cp", str(work / "loop.jar"), "budgets.MeasureLoop", str(calls)],
        check=True,
        capture_output=True,
        text=True,
    )
    rows = [line.split() for line in p.stdout.splitlines() if line.startswith("measure ")]
    tail = rows[2:]  # after warm-up
    return statistics.median(float(r[1]) for r in tail), statistics.median(float(r[3]) for r in tail)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--rounds", type=int, default=5)
    ap.add_argument("--tests", type=int, default=40)
    ap.add_argument("--calls", type=int, default=2_000_000, help="Measure.run calls per timed round")
    args = ap.parse_args()
    if not Path(LAUNCHER).is_file():
        print(f"needs Debian's junit5 ({LAUNCHER})", file=sys.stderr)
        return 2
    agent, junit = jprewrite("agent-path"), jprewrite("junit-path")
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
        f"{args.tests} tests, {args.rounds} rounds"
    )
    with tempfile.TemporaryDirectory(prefix="bench-budgets-") as tmp:
        work = Path(tmp)
        classes = build_tests(work, junit, args.tests)
        configs = ["plain", "budgeted", "budgeted-junit"]
        for config in configs[1:]:  # fill the agent caches: the runs below are warm
            junit_run(classes, junit, config, agent, work)
        times: dict[str, list[float]] = {c: [] for c in configs}
        for r in range(args.rounds):
            for config in configs:
                times[config].append(junit_run(classes, junit, config, agent, work))
            print(f"  round {r + 1}: " + ", ".join(f"{c} {times[c][-1]:.2f}s" for c in configs))
        plain = statistics.median(times["plain"])
        for config in configs:
            m = statistics.median(times[config])
            print(f"{config:15s} median {m:6.2f}s  ({m / plain:.2f}x plain, +{m - plain:.2f}s)")
        measure, call = measure_loop(work, args.calls)
        print(
            f"Measure.run(EMPTY): {measure:.0f} ns per call (a plain call of the same instrumented Runnable: "
            f"{call:.1f} ns)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
