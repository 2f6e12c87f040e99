"""The verification gate: a transform that writes a broken method never reaches the JVM.

A fault is injected on purpose (``JPREWRITE_BREAK_METHOD``: the instrumented ESI of one method
gets ``max_stack`` 0, as a faulty transform would write it). Without the gate HotSpot rejects
the class and the program does not start; with it the method is kept as it was (reached through
a delegating ESI, its node marked ``counted: false``), reported once, and the program runs
unchanged under ``-Xverify:all`` offline and under the agent. The rest of the class stays
instrumented.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jprewrite.cli.main import main as jprewrite_main

from support.agent import agent_options, run_with_agent
from support.jdk import javac
from support.profiling import find, make_jar, run_java

SOURCES = {
    "com/example/gate/Main.java": """
package com.example.gate;
public class Main {
  static int g(int i) { int s = 0; for (int j = 0; j < i; j++) s += h(j); return s; }
  static int h(int j) { return j * 2; }
  public static void main(String[] args) {
    int t = 0;
    for (int i = 0; i < 5; i++) t += g(i);
    System.out.println("t=" + t);
  }
}
"""
}
MAIN = "com.example.gate.Main"
BROKEN = "com.example.gate.Main.g"


@pytest.fixture(scope="module")
def jar(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("gate")
    return make_jar(javac(SOURCES, tmp / "classes"), tmp / "gate.jar")


def _rewrite(jar: Path, out: Path, *options: str) -> int:
    return jprewrite_main([str(jar), str(out), "--quiet", *options])


def test_without_the_gate_the_fault_reaches_the_jvm(jar, tmp_path, monkeypatch) -> None:
    """The injected fault is real: HotSpot rejects what the broken transform wrote."""
    monkeypatch.setenv("JPREWRITE_BREAK_METHOD", BROKEN)
    out = tmp_path / "out.jar"
    assert _rewrite(jar, out, "--no-verify") == 0
    r = run_java([out], MAIN)
    assert r.returncode != 0 and "VerifyError" in r.stderr


def test_the_gate_keeps_the_method_as_it_was_offline(jar, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("JPREWRITE_BREAK_METHOD", BROKEN)
    out = tmp_path / "out.jar"
    assert jprewrite_main([str(jar), str(out), "--verify", "-v"]) == 0
    err = capsys.readouterr().err
    assert "verification gate rejected 1 instrumented methods" in err
    rejected = "com.example.gate.Main.g(I)I: rejected by the verification gate"
    assert [line for line in err.splitlines() if rejected in line]
    plain = run_java([jar], MAIN)
    r = run_java([out], MAIN, profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout == "t=20\n"
    main = "com.example.gate.Main.main([Ljava/lang/String;)V"
    g = find(r.profile, main, "Main.g(I)I")
    assert g["calls"] == 5 and g["kind"] == "uninstrumented" and g["counted"] is False
    # h is still instrumented and counted, called (uninstrumented g -> N2B) beneath g's node
    h = find(r.profile, main, "Main.g(I)I", "Main.h(I)I")
    assert h["calls"] == 10 and h["bytecodes"] == 40 and "kind" not in h


def test_the_gate_keeps_the_method_as_it_was_under_the_agent(jar, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("JPREWRITE_BREAK_METHOD", BROKEN)  # the worker inherits it
    profile = tmp_path / "p.json"
    r = run_with_agent([jar], [MAIN], agent_options(None, profile, verify="true"), profile=profile)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "t=20\n"
    reports = [line for line in r.stderr.splitlines() if "verification gate" in line]
    assert len(reports) == 1 and "Main.g" in reports[0], r.stderr
    main = "com.example.gate.Main.main([Ljava/lang/String;)V"
    g = find(r.profile, main, "Main.g(I)I")
    assert g["calls"] == 5 and g["kind"] == "uninstrumented" and g["counted"] is False
    assert find(r.profile, main, "Main.g(I)I", "Main.h(I)I")["calls"] == 10
