"""Real programs from Debian packages, every jar of their class path rewritten: same output, and a profile.

The shared workloads (``../shared/bench``) print a checksum of the program's
output. All class-path jars of the six workloads (plus the drivers' class
directory) are rewritten in ONE run with ``--output-dir``, as a user
rewriting a whole application would; the workloads then run on the rewritten
copies with ``-Xverify:all`` and must print the plain run's checksum, and the
profile they write must hold the program's own methods with counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.corpus import package_jars
from support.profiling import rewrite
from support.workloads import plain_checksum, run_workload

WORKLOADS = {  # workload -> (Debian package, a method prefix of the program that must be in the profile)
    "xalan": ("libxalan2-java", "org.apache.xalan."),
    "h2": ("libh2-java", "org.h2."),
    "lucene": ("liblucene4.10-java", "org.apache.lucene."),
    "batik": ("libbatik-java", "org.apache.batik."),
    "fop": ("libfop-java", "org.apache.fop."),
    "sunflow": ("libsunflow-java", "org.sunflow."),
}


@pytest.fixture(scope="module")
def rewritten(bench, tmp_path_factory):
    """{workload: class path of rewritten copies}, from one jprewrite run over all their jars."""
    for package, _ in WORKLOADS.values():
        package_jars(package)
    tmp = tmp_path_factory.mktemp("cct-workloads")
    class_paths = {w: run_workload(bench, w, tmp / "cp", PRINT_CP="1")["_stdout"].split() for w in WORKLOADS}
    jars = sorted({e for cp in class_paths.values() for e in cp if e.endswith(".jar")})
    dirs = sorted({e for cp in class_paths.values() for e in cp if not e.endswith(".jar")})
    out = tmp / "rewritten"
    rewrite([Path(p) for p in jars + dirs], out, output_dir=True)
    mapping = {p: str(out / Path(p).name) for p in jars + dirs}
    return {w: [mapping[e] for e in cp] for w, cp in class_paths.items()}, tmp


@pytest.mark.corpus
@pytest.mark.parametrize("workload", sorted(WORKLOADS))
def test_rewritten_workload_same_output_and_profile(bench, rewritten, workload) -> None:
    class_paths, tmp = rewritten
    plain = plain_checksum(bench, workload, tmp / f"plain-{workload}")
    profile = tmp / f"{workload}.json"
    run = run_workload(
        bench,
        workload,
        tmp / f"rewritten-{workload}",
        BENCH_CP=":".join(class_paths[workload]),
        JAVA_OPTS=f"-Xverify:all -Djprewrite.output={profile}",
    )
    assert run["CHECKSUM"] == plain
    data = json.loads(profile.read_text())
    prefix = WORKLOADS[workload][1]
    calls = bytecodes = 0
    stack = [data["root"]]
    while stack:
        n = stack.pop()
        if n["method"].startswith(prefix):
            calls += n["calls"]
            bytecodes += n["bytecodes"]
        stack.extend(n.get("children", ()))
    assert calls > 1000 and bytecodes > 100_000, (calls, bytecodes)
