"""Real programs from Debian packages, every jar on their class path exercised, same output.

Uses the shared workload scripts (``../shared/bench``): each runs a real program on
generated input and prints a checksum of its output. The scripts' directory is
read-only, so it is copied and built in a temporary directory. Every jar of the
workload's class path is rewritten with the behaviour-preserving exercise
transformation; the checksum must equal the plain run's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.corpus import package_jars
from support.workloads import plain_checksum, run_workload
from test_exercise import exercise_jar


@pytest.mark.corpus
@pytest.mark.parametrize("workload, package", [("xalan", "libxalan2-java"), ("h2", "libh2-java")])
def test_workload_output_unchanged_after_exercise(bench, tmp_path, workload, package) -> None:
    package_jars(package)
    cp = run_workload(bench, workload, tmp_path / "cp", PRINT_CP="1")["_stdout"].split()
    plain = plain_checksum(bench, workload, tmp_path / "plain")
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
    assert exercised["CHECKSUM"] == plain
