"""Application leaves counted in their callers' slots (``analysis/leaves.py``, ``instrument/shape_slot.py``).

A call of a short statically bound method that calls nothing goes to its *slot twin*
``m$jp(args…, LeafNode, int)``, which counts into two slots of the caller's context instead of
entering a context of its own. The JDI oracle case ``oracle_cases/appleaves`` checks the counts in
exact and hybrid mode (``test_cct_oracle.py``); here: that the slot twins are there and used, that
the agent builds the same profile, and that a caller and a callee rewritten from different versions
of the callee (a leaf once, not any more) still run and count exactly: the callee's slot twin
then delegates to its ESI method.
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

from jprewrite.analysis.hierarchy import summarize
from jprewrite.analysis.leaves import ACC_JP_LEAF

from support.agent import agent_options, run_with_agent
from support.jdk import javac, tool
from support.oracle import diff_profiles, run_oracle
from support.profiling import make_jar, rewrite, run_java
from test_cct_oracle import as_jprewrite_counts

CASE = Path(__file__).parent / "oracle_cases" / "appleaves"
PKG = "com/example/appleaves/"
SLOT = "Ljprewrite/runtime/LeafNode;I)"

UTIL_LEAF = """package com.example.mix;
public final class Util {
    static int f(int v) { return v < 0 ? -v : v + 1; }
    static int g(int v) { return v * 3; }
}
"""
UTIL_CALLS = """package com.example.mix;
public final class Util {
    static int f(int v) { return g(v) + 1; }
    static int g(int v) { return v * 3; }
}
"""
MAIN = """package com.example.mix;
public class Main {
    public static void main(String[] args) {
        int s = 0;
        for (int i = 0; i < 100; i++) { s += Util.f(i) + Util.g(i); }
        System.out.println(s);
    }
}
"""


def _javap(classes: Path, name: str) -> str:
    return subprocess.run([tool("javap"), "-p", "-c", "-cp", str(classes), name], capture_output=True, text=True).stdout


def test_summaries_mark_statically_bound_short_methods_that_call_nothing(tmp_path) -> None:
    sources = {str(p.relative_to(CASE)): p.read_text() for p in CASE.rglob("*.java")}
    classes = javac(sources, tmp_path / "classes")
    leaves = {}
    for cls in ("Vec", "Geo", "Main"):
        info = summarize((classes / f"{PKG}{cls}.class").read_bytes())
        leaves[cls] = {m.name for m in info.methods if m.access & ACC_JP_LEAF}
    assert leaves["Vec"] == {"getX", "dot", "setY", "at"}  # final class: its methods are bound
    assert leaves["Geo"] == {"clamp", "kind", "sum", "div"}  # notLeaf calls; <clinit> is no method to call
    assert leaves["Main"] == {"inc"}  # twice calls Geo.clamp; the others call too


def test_callers_use_slot_twins_and_every_bound_method_has_one(tmp_path) -> None:
    sources = {str(p.relative_to(CASE)): p.read_text() for p in CASE.rglob("*.java")}
    jar = make_jar(javac(sources, tmp_path / "classes"), tmp_path / "a.jar")
    out = tmp_path / "out.jar"
    rewrite([jar], out)
    x = tmp_path / "x"
    with zipfile.ZipFile(out) as z:
        z.extractall(x)
    geo = _javap(x, "com.example.appleaves.Geo")
    for m in ("clamp", "kind", "sum", "div", "notLeaf"):
        assert f"{m}$jp(" in geo and geo.count(f" {m}$jp(") == 2, m  # the ESI twin and the slot twin
    main = _javap(x, "com.example.appleaves.Main")
    assert "Method com/example/appleaves/Geo.clamp$jp:(III" + SLOT in main
    assert "Method com/example/appleaves/Vec.dot$jp:(Lcom/example/appleaves/Vec;" + SLOT in main
    assert "Method com/example/appleaves/Geo.notLeaf$jp:(ILjprewrite/runtime/Node;I)" in main  # not a leaf
    # the slot twin of a method that is not a leaf delegates to its ESI twin with an unknown site
    body = geo[geo.index("static int notLeaf$jp(int, jprewrite.runtime.LeafNode, int)") :]
    body = body[: body.index("\n\n")]
    assert "iconst_m1" in body and "notLeaf$jp:(ILjprewrite/runtime/Node;I)I" in body
    run = run_java([out], "com.example.appleaves.Main", profile=tmp_path / "p.json", jvm=("-Xverify:all",))
    plain = subprocess.run(
        [tool("java"), "-cp", str(jar), "com.example.appleaves.Main"], capture_output=True, text=True
    )
    assert run.stdout == plain.stdout and run.returncode == 0, run.stderr


def test_agent_counts_leaves_as_the_oracle_does(tmp_path) -> None:
    classes = tmp_path / "classes"
    subprocess.run([tool("javac"), "-d", str(classes), *map(str, CASE.rglob("*.java"))], check=True)
    main = "com.example.appleaves.Main"
    run = run_with_agent(
        [classes],
        [main],
        agent_options(tmp_path / "cache", tmp_path / "p.json", counting="precise"),
        profile=tmp_path / "p.json",
    )
    assert run.returncode == 0, run.stderr
    oracle = run_oracle([classes], main, app_patterns=("com.example.",), timeout=600)
    assert run.stdout == oracle.stdout
    assert not diff_profiles(as_jprewrite_counts(oracle.profile), run.profile, threads=True)


def test_a_callee_that_is_no_leaf_any_more_still_counts_exactly(tmp_path) -> None:
    """Main rewritten against a Util whose ``f`` is a leaf; Util rewritten later from a version whose
    ``f`` calls ``g``. Main calls ``f``'s slot twin, which now delegates: the program runs, and the
    profile is the oracle's for the new version."""
    old = javac({"com/example/mix/Util.java": UTIL_LEAF, "com/example/mix/Main.java": MAIN}, tmp_path / "old")
    new = javac({"com/example/mix/Util.java": UTIL_CALLS}, tmp_path / "new")
    old_out, new_out = tmp_path / "old-rw.jar", tmp_path / "new-rw.jar"
    rewrite([make_jar(old, tmp_path / "old.jar")], old_out, "--counting", "precise")
    rewrite([make_jar(new, tmp_path / "new.jar")], new_out, "--counting", "precise")
    assert "com/example/mix/Util.f$jp:(I" + SLOT in _javap_jar(tmp_path, old_out, "com.example.mix.Main")
    # the new Util first: Main from the old rewriting, Util from the new one
    run = run_java([new_out, old_out], "com.example.mix.Main", profile=tmp_path / "p.json", jvm=("-Xverify:all",))
    oracle = run_oracle([new, old], "com.example.mix.Main", app_patterns=("com.example.",))
    assert run.returncode == 0, run.stderr
    assert run.stdout == oracle.stdout
    assert not diff_profiles(as_jprewrite_counts(oracle.profile), run.profile, threads=True)


def _javap_jar(tmp_path: Path, jar: Path, name: str) -> str:
    x = tmp_path / f"x-{jar.stem}"
    with zipfile.ZipFile(jar) as z:
        z.extractall(x)
    return _javap(x, name)
