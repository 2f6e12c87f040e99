"""Real programs under the -javaagent: same output (checksums), the offline rewrite's CCT, and classes
generated at run time (Groovy compiles its script into classes while the program runs) covered.

The offline side rewrites exactly the workload's class path (the agent's world is the class path),
so both plan the same PENDING sites and the trees must be equal, node for node.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jprewrite.agent.build import agent_jar

from support.agent import agent_options
from support.corpus import package_jars
from support.oracle import diff_profiles
from support.profiling import rewrite
from support.workloads import plain_checksum, run_workload


def _agent_opts(cache: Path, profile: Path, **extra: str) -> str:
    return f"-Xverify:all -javaagent:{agent_jar()}={agent_options(cache, profile, progress='false', **extra)}"


@pytest.mark.corpus
def test_xalan_under_agent_equals_offline_rewrite_of_its_class_path(bench, tmp_path) -> None:
    package_jars("libxalan2-java")
    cp = run_workload(bench, "xalan", tmp_path / "cp", PRINT_CP="1")["_stdout"].split()
    plain = plain_checksum(bench, "xalan", tmp_path / "plain")
    out = tmp_path / "offline"
    rewrite([Path(p) for p in cp], out, output_dir=True)
    offline_profile = tmp_path / "offline.json"
    offline = run_workload(
        bench,
        "xalan",
        tmp_path / "run-offline",
        BENCH_CP=":".join(str(out / Path(p).name) for p in cp),
        JAVA_OPTS=f"-Djprewrite.output={offline_profile}",
    )
    agent_profile = tmp_path / "agent.json"
    agent = run_workload(
        bench, "xalan", tmp_path / "run-agent", JAVA_OPTS=_agent_opts(tmp_path / "cache", agent_profile)
    )
    assert plain == offline["CHECKSUM"] == agent["CHECKSUM"]
    a, b = json.loads(offline_profile.read_text()), json.loads(agent_profile.read_text())
    differences = diff_profiles(a, b)
    assert not differences, "\n".join(differences[:30])
    # warm: from the cache, same tree
    warm_profile = tmp_path / "warm.json"
    warm = run_workload(
        bench,
        "xalan",
        tmp_path / "run-warm",
        JAVA_OPTS=_agent_opts(tmp_path / "cache", warm_profile, python="/nonexistent/python"),
    )
    assert warm["CHECKSUM"] == plain
    assert not diff_profiles(a, json.loads(warm_profile.read_text()))


@pytest.mark.corpus
@pytest.mark.parametrize(
    "workload, package, generated",
    [
        # the script's classes (bench.groovy: Vec, Bin, Dyn...) are compiled and defined at run time, by a
        # compiler that reflects over the (instrumented) Groovy runtime: ESI methods must stay out of its way
        ("groovy", "groovy", ("Vec", "Num", "VarN", "Bin", "Dyn", "bench")),
        ("h2", "libh2-java", None),
    ],
)
def test_workload_under_agent_same_output(bench, tmp_path, workload, package, generated) -> None:
    package_jars(package)
    plain = plain_checksum(bench, workload, tmp_path / "plain")
    profile = tmp_path / "agent.json"
    run = run_workload(bench, workload, tmp_path / "agent", JAVA_OPTS=_agent_opts(tmp_path / "cache", profile))
    assert run["CHECKSUM"] == plain
    data = json.loads(profile.read_text())
    methods = set()
    stack = [data["root"]]
    while stack:
        n = stack.pop()
        if n.get("kind", "instrumented") == "instrumented":
            methods.add(n["method"])
        stack.extend(n.get("children", ()))
    assert len(methods) > 100
    if generated:
        # classes that exist only at run time (no .class file anywhere) are instrumented too
        classes = {m.split("(")[0].rpartition(".")[0] for m in methods}
        assert set(generated) <= classes, sorted(c for c in classes if "." not in c)
