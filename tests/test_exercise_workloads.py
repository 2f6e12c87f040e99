"""Real programs from Debian packages, every jar on their class path exercised, same output.

Uses the shared workload scripts (``../shared/bench``): each runs a real program on
generated input and prints a checksum of its output. The scripts' directory is
read-only, so it is copied and built in a temporary directory. Every jar of the
workload's class path is rewritten with the behaviour-preserving exercise
transformation; the checksum must equal the plain run's.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support.corpus import package_jars
from support.workloads import run_workload
from test_exercise import exercise_jar

SHARED_BENCH = Path(__file__).resolve().parent.parent.parent / "shared" / "bench"


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    if not (SHARED_BENCH / "build.sh").exists():
        pytest.skip(f"SHARED WORKLOADS MISSING: {SHARED_BENCH} not found")
    if shutil.which("/usr/bin/time") is None and not Path("/usr/bin/time").exists():
        pytest.skip("SHARED WORKLOADS NEED /usr/bin/time (Debian package `time`)")
    dst = tmp_path_factory.mktemp("bench") / "bench"
    shutil.copytree(SHARED_BENCH, dst, ignore=shutil.ignore_patterns("build", "data", "results"))
    for p in dst.rglob("*"):
        if p.is_dir() or p.suffix in (".sh", ".py"):
            p.chmod(0o755)
        else:
            p.chmod(0o644)
    r = subprocess.run(["bash", str(dst / "build.sh")], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(f"shared bench build failed: {r.stderr[-2000:]}")
    return dst


@pytest.mark.corpus
@pytest.mark.parametrize("workload, package", [("xalan", "libxalan2-java"), ("h2", "libh2-java")])
def test_workload_output_unchanged_after_exercise(bench, tmp_path, workload, package) -> None:
    package_jars(package)
    cp = run_workload(bench, workload, tmp_path / "cp", PRINT_CP="1")["_stdout"].split()
    plain = run_workload(bench, workload, tmp_path / "plain")
    rewritten = []
    total = 0
    for entry in cp:
        p = Path(entry)
        if p.is_file():
            out = tmp_path / "rewritten" / p.name
            out.parent.mkdir(parents=True, exist_ok=True)
            others = [Path(x) for x in cp if x != entry and Path(x).is_file()]
            stats = exercise_jar(p, out, twins=True, classpath=others)
            assert stats.methods > 0, (p, stats.methods)
            total += stats.methods
            rewritten.append(str(out))
        else:
            rewritten.append(entry)  # the workload's own driver classes
    assert total > 1000, total
    exercised = run_workload(
        bench, workload, tmp_path / "exercised", BENCH_CP=":".join(rewritten), JAVA_OPTS="-Xverify:all"
    )
    assert exercised["CHECKSUM"] == plain["CHECKSUM"]
