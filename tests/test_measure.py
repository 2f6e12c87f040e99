"""``jprewrite.runtime.Measure``: exact counts of one piece of code, from rewritten code.

Real javac, real rewriting (offline and the agent), real JVMs: ``budget_cases/measure`` measures
the library of ``budget_cases/lib`` in several ways and prints ``name bytecodes calls`` lines.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from jprewrite.rewrite.runtime_build import runtime_classes

from support.agent import agent_options, run_with_agent
from support.jdk import tool
from support.profiling import rewrite, run_java

CASES = Path(__file__).parent / "budget_cases"
MAIN = "budgets.MeasureMain"
FIB = "budgets.Words.fib(I)I"


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    """The compiled program (against the runtime) in ``classes/``, the runtime in ``runtime/``."""
    work = tmp_path_factory.mktemp("measure")
    rt = work / "runtime"
    for name, data in runtime_classes().items():
        (rt / name).parent.mkdir(parents=True, exist_ok=True)
        (rt / name).write_bytes(data)
    sources = [CASES / "lib" / "budgets" / "Words.java", CASES / "measure" / "budgets" / "MeasureMain.java"]
    subprocess.run(
        [tool("javac"), "-g", "-nowarn", "-cp", str(rt), "-d", str(work / "classes"), *map(str, sources)],
        check=True,
        capture_output=True,
        text=True,
    )
    return work


@pytest.fixture(scope="module")
def offline(program) -> Path:
    jar = program / "offline.jar"
    rewrite([program / "classes"], jar)
    return jar


def lines(stdout: str) -> dict[str, str]:
    """``name rest`` per line -> {name: rest}."""
    return dict(line.split(" ", 1) for line in stdout.splitlines() if " " in line)


def node(profile: dict, *methods: str) -> dict:
    n = profile["root"]
    for m in methods:
        n = next(c for c in n["children"] if c["method"] == m)
    return n


def test_measurements_from_offline_rewritten_code(offline, tmp_path) -> None:
    run = run_java([offline], MAIN, profile=tmp_path / "p.json")
    assert run.returncode == 0, run.stderr
    out = lines(run.stdout)
    fib10 = [line.split()[1:] for line in run.stdout.splitlines() if line.startswith("fib10 ")]
    assert len(fib10) == 3 and fib10[0] == fib10[1] == fib10[2], fib10  # repeated: identical
    assert out["call"].split()[2:] == ["msrd", "cd"]  # Measure.call's value
    inner, outer = (int(out[k].split()[0]) for k in ("inner", "outer"))
    assert outer > inner > 600  # nested: the outer includes the inner
    assert out["thrown"] == "from the body"
    # the measured tree as profile JSON: its root's inclusive bytecodes are the measurement's
    measured = json.loads(out["json"])
    assert measured["format"] == "jprewrite-profile" and measured["threads"][0]["name"] == "main"
    lam = measured["root"]["children"][0]
    assert measured["root"]["inclusive_bytecodes"] == lam["inclusive_bytecodes"]
    assert int(out["within"]) == node(measured, lam["method"], FIB)["inclusive_bytecodes"]
    summary = out["toString"].split("|")
    assert summary[0].startswith(f"Measurement: {measured['root']['inclusive_bytecodes']:,} bytecodes, ")
    assert "MeasureMain.lambda$" in summary[2] and "Words.fib(int) > ... (" in summary[2], summary
    # the thread the body started is not counted (its fib(15) is in its own tree), an empty body is
    # its lambda's single return
    assert int(out["thread"].split()[0]) < 100
    helper = next(t for t in run.profile["threads"] if t["name"] == "helper")
    assert helper["root"]["inclusive_bytecodes"] > 10_000
    assert out["empty"] == "1 1"


def test_the_profile_keeps_what_was_measured(offline, tmp_path) -> None:
    """Measured counts are added back beneath the Measure.run call: the profile is as without Measure,
    including the counts of a body that threw."""
    run = run_java([offline], MAIN, profile=tmp_path / "p.json")
    assert run.returncode == 0, run.stderr
    out = lines(run.stdout)
    main = node(run.profile, "budgets.MeasureMain.main([Ljava/lang/String;)V")
    measure = node(
        run.profile,
        main["method"],
        "jprewrite.runtime.Measure.run(Ljava/lang/Runnable;)Ljprewrite/runtime/Measurement;",
    )
    fib10 = int(out["fib10"].split()[0])
    bodies = [c.get("inclusive_bytecodes", c["bytecodes"]) for c in measure["children"]]
    assert 3 * fib10 in bodies
    printed = 3 * fib10 + sum(int(out[k].split()[0]) for k in ("outer", "thread", "empty"))
    printed += json.loads(out["json"])["root"]["inclusive_bytecodes"]
    thrown = measure["inclusive_bytecodes"] - printed  # the body that threw printed nothing
    assert thrown > 0 and thrown in bodies, (thrown, bodies)


def test_the_agent_gives_the_offline_numbers(program, offline, tmp_path) -> None:
    plain = run_java([offline], MAIN, cwd=tmp_path)  # cwd: the profile it writes at exit goes there
    agent = run_with_agent(
        [program / "classes", program / "runtime"], [MAIN], agent_options(tmp_path / "cache", None, output="none")
    )
    assert agent.returncode == 0 and "jprewrite agent:" not in agent.stderr, agent.stderr
    assert agent.stdout == plain.stdout


def test_without_jprewrite_it_says_how_to_enable_it(program, tmp_path) -> None:
    run = run_java([program / "classes", program / "runtime"], MAIN, cwd=tmp_path)
    assert run.returncode == 1
    first = run.stderr.splitlines()[0]
    assert first.startswith('Exception in thread "main" java.lang.IllegalStateException: jprewrite is not enabled')
    assert "-javaagent:$(jprewrite agent-path)" in first and "jprewrite rewrite" in first


@pytest.mark.parametrize(
    "jvm",
    [
        ("-Xint",),
        ("-XX:TieredStopAtLevel=1",),
        ("-XX:-TieredCompilation", "-Xbatch"),
        ("-XX:+UseSerialGC", "-Xmx32m"),
        ("-XX:+UseParallelGC", "-Xmx1g"),
    ],
    ids=["interpreter", "c1", "c2", "serial-gc-small-heap", "parallel-gc-large-heap"],
)
def test_counts_do_not_depend_on_jit_gc_or_heap(offline, jvm, tmp_path) -> None:
    reference = run_java([offline], MAIN, profile=tmp_path / "a.json")
    other = run_java([offline], MAIN, profile=tmp_path / "b.json", jvm=jvm)
    assert reference.returncode == other.returncode == 0, other.stderr
    assert other.stdout == reference.stdout
    # the whole profile too, the helper thread's included (threads are listed in the order they were
    # folded, which depends on the garbage collector)
    assert other.profile["root"] == reference.profile["root"]
    assert {t["name"]: t["root"] for t in other.profile["threads"]} == {
        t["name"]: t["root"] for t in reference.profile["threads"]
    }
