"""Rewritten sample programs against the JDI oracle: the same CCT, calls and precise bytecode counts, exactly.

The oracle (tests/support/oracle.py, tests/support/oracle/CctOracle.java) runs
the *original* program under the JVM's debugger interface and builds the tree
from method-entry and single-step events; it shares no code with the rewriter.

Each program is rewritten twice and both runs are held against the same oracle run: in exact mode,
and in hybrid mode with sampling on at 0.1 ms (issue 12: the samples it takes on the tree's nodes
must not change one call or bytecode of the tree, nor the program's output).

One convention differs by design and is applied to the oracle's tree here:
``java.lang.Object.<init>()`` gets no node in jprewrite's profiles (it runs no
code, cannot call back, and every allocation calls it), so the oracle's leaf
nodes for it are dropped before comparing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.oracle import diff_profiles, run_oracle
from support.profiling import make_jar, rewrite, run_java
from support.samples import compile_sample, sample_main, sample_names

OBJECT_INIT = "java.lang.Object.<init>()V"
# jni needs a C compiler, uninstrumented needs its plugin jar: both have their own tests
NAMES = [n for n in sample_names() if n not in ("jni", "uninstrumented")]


def without_object_init(node: dict) -> dict:
    """The oracle's tree as jprewrite reports it: childless ``Object.<init>`` boundary nodes dropped
    (iteratively: trees are deep). Methods near 64 KB are split and counted like any other
    (the bigmethod sample)."""
    copy = dict(node)
    stack = [copy]
    while stack:
        n = stack.pop()
        kids = [dict(c) for c in n.get("children", ()) if not (c["method"] == OBJECT_INIT and not c.get("children"))]
        n["children"] = kids
        stack.extend(kids)
    return copy


def as_jprewrite_counts(profile: dict) -> dict:
    """The oracle's profile, merged tree and every thread's, without the nodes jprewrite does not
    make (:func:`without_object_init`)."""
    return {
        **profile,
        "root": without_object_init(profile["root"]),
        "threads": [{**t, "root": without_object_init(t["root"])} for t in profile["threads"]],
    }


MODES = ("exact", "hybrid")
#: hybrid mode samples often, so that rounds fall inside even the short programs
HYBRID_PROPS = ("-Djprewrite.interval=100us", "-Djprewrite.sampler=incremental")


def rewrite_both(jar: Path, work: Path, name: str) -> dict[str, Path]:
    """``jar`` rewritten with precise counting in exact and in hybrid mode."""
    outs = {}
    for mode in MODES:
        outs[mode] = work / f"{name}-precise-{mode}.jar"
        rewrite([jar], outs[mode], "--counting", "precise", "--mode", mode)
    return outs


def check_hybrid_sampled(profile: dict) -> None:
    """The hybrid run's profile says how it sampled (a short program may end before its first round)."""
    sampling = profile.get("sampling")
    assert sampling is not None and sampling["mode"] == "hybrid", sampling
    assert sampling["interval_ns"] == 100_000, sampling


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("oracle-samples")

    def get(name: str) -> tuple[Path, Path]:
        classes = compile_sample(name, root / name / "classes")
        return root / name, make_jar(classes, root / name / f"{name}.jar")

    return get


@pytest.mark.parametrize("name", NAMES)
def test_sample_matches_oracle(built, name: str) -> None:
    work, jar = built(name)
    jars = rewrite_both(jar, work, name)
    main = sample_main(name)
    jvm = ("-Xss64m",) if name == "recursion" else ()
    oracle = run_oracle([jar], main, app_patterns=("com.example.",), timeout=600, jvm_args=jvm)
    assert oracle.returncode == 0, oracle.stderr
    expected = {**oracle.profile, "root": without_object_init(oracle.profile["root"])}
    for mode in MODES:
        props = HYBRID_PROPS if mode == "hybrid" else ()
        rewritten = run_java(
            [jars[mode]], main, profile=work / f"profile-{mode}.json", jvm=("-Xverify:all", *jvm, *props)
        )
        assert rewritten.returncode == 0, (mode, rewritten.stderr)
        assert rewritten.stdout == oracle.stdout, mode
        differences = diff_profiles(expected, rewritten.profile)
        assert not differences, f"{mode} mode:\n" + "\n".join(differences[:40])
        if mode == "hybrid":
            check_hybrid_sampled(rewritten.profile)


CASES = Path(__file__).parent / "oracle_cases"
# the oracle's own test programs (tests/test_oracle.py checks the oracle on them): main class, arguments
ORACLE_CASES = [
    ("appleaves", ()),
    ("bytecodes", ()),
    ("callbacks", ()),
    ("clinit", ()),
    ("exceptions", ()),
    ("exits", ("exit",)),
    ("exits", ("fail",)),
    ("fig4", ()),
    ("lambdas", ()),
    ("leaves", ()),
    ("mixed", ()),
    ("recursion", ("3000",)),
    ("reflection", ()),
    ("threads", ()),
]


@pytest.mark.parametrize("case, args", ORACLE_CASES, ids=[f"{c}-{'-'.join(a) or 'plain'}" for c, a in ORACLE_CASES])
def test_oracle_case_matches(tmp_path, case: str, args: tuple[str, ...]) -> None:
    """System.exit, uncaught exceptions in main, clinit chains, threads: the same tree as the oracle."""
    from support.jdk import javac

    sources = {str(p.relative_to(CASES / case)): p.read_text() for p in sorted((CASES / case).rglob("*.java"))}
    jar = make_jar(javac(sources, tmp_path / "classes"), tmp_path / f"{case}.jar")
    jars = rewrite_both(jar, tmp_path, case)
    main = f"com.example.{case}.Main"
    oracle = run_oracle([jar], main, args, app_patterns=(f"com.example.{case}.",), timeout=600)
    expected = as_jprewrite_counts(oracle.profile)
    for mode in MODES:
        jvm = ("-Xverify:all", *HYBRID_PROPS) if mode == "hybrid" else ("-Xverify:all",)
        rewritten = run_java([jars[mode]], main, *args, profile=tmp_path / f"profile-{mode}.json", jvm=jvm)
        assert rewritten.stdout == oracle.stdout, mode
        assert rewritten.returncode == oracle.returncode, (mode, rewritten.stderr)
        differences = diff_profiles(expected, rewritten.profile, threads=True)
        assert not differences, f"{mode} mode:\n" + "\n".join(differences[:40])
        if mode == "hybrid":
            check_hybrid_sampled(rewritten.profile)
