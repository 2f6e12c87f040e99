"""Rewritten sample programs against the JDI oracle: the same CCT, calls and precise bytecode counts, exactly.

The oracle (tests/support/oracle.py, tests/support/oracle/CctOracle.java) runs
the *original* program under the JVM's debugger interface and builds the tree
from method-entry and single-step events; it shares no code with the rewriter.

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
    out = work / f"{name}-precise.jar"
    rewrite([jar], out, "--counting", "precise")
    main = sample_main(name)
    jvm = ("-Xss64m",) if name == "recursion" else ()
    rewritten = run_java([out], main, profile=work / "profile.json", jvm=("-Xverify:all", *jvm))
    assert rewritten.returncode == 0, rewritten.stderr
    oracle = run_oracle([jar], main, app_patterns=("com.example.",), timeout=600, jvm_args=jvm)
    assert oracle.returncode == 0, oracle.stderr
    assert rewritten.stdout == oracle.stdout
    expected = {**oracle.profile, "root": without_object_init(oracle.profile["root"])}
    differences = diff_profiles(expected, rewritten.profile)
    assert not differences, "\n".join(differences[:40])


CASES = Path(__file__).parent / "oracle_cases"
# the oracle's own test programs (tests/test_oracle.py checks the oracle on them): main class, arguments
ORACLE_CASES = [
    ("bytecodes", ()),
    ("callbacks", ()),
    ("clinit", ()),
    ("exceptions", ()),
    ("exits", ("exit",)),
    ("exits", ("fail",)),
    ("fig4", ()),
    ("lambdas", ()),
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
    out = tmp_path / f"{case}-precise.jar"
    rewrite([jar], out, "--counting", "precise")
    main = f"com.example.{case}.Main"
    rewritten = run_java([out], main, *args, profile=tmp_path / "profile.json")
    oracle = run_oracle([jar], main, args, app_patterns=(f"com.example.{case}.",), timeout=600)
    assert rewritten.stdout == oracle.stdout
    assert rewritten.returncode == oracle.returncode
    expected = {
        **oracle.profile,
        "root": without_object_init(oracle.profile["root"]),
        "threads": [{**t, "root": without_object_init(t["root"])} for t in oracle.profile["threads"]],
    }
    differences = diff_profiles(expected, rewritten.profile, threads=True)
    assert not differences, "\n".join(differences[:40])
