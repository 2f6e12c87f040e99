"""Multi-release jars: the copy of a class that a JVM loads is the copy the profile must count.

``support/programs/multirelease`` is one program in four layers: the base (Java 8), release 9
(``Tool`` calls a method and a class the base copy lacks; ``Shapes`` returns a shape only that
layer has, called through the base's interface; ``Names`` overrides a JDK method that the base
copy inherits, which ``MoreNames`` calls as a super call; ``Worker`` hides a static method of the
JDK's), release 11 (``Version`` with a private method, a nestmate call) and release 18 (a
copy a JVM 17 never loads). Which copies run depends on the JVM, so the profile's exactness is
checked against the JDI oracle on the original jar in three ways this JVM runs it: versioned (17:
the 9 and 11 copies), with ``-Djdk.util.jar.enableMultiRelease=false`` (the base copies, as a
Java 8 JVM would load them) and with ``-Djdk.util.jar.version=9`` (as a JVM 9 or 10 would). A jar
rewritten once must run in all three, and the agent must plan with the copies the JVM loads.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from support.agent import agent_options, run_with_agent
from support.compilers import rewrite_cli
from support.jdk import tool
from support.oracle import diff_profiles, run_oracle
from support.profiling import methods as methods_of
from support.profiling import run_java
from test_cct_oracle import without_object_init

SOURCES = Path(__file__).resolve().parent / "support" / "programs" / "multirelease"
MAIN = "com.example.mr.Main"
#: what JVM 17 prints (the 9 and 11 copies)
VERSIONED = "work=89712\narea=33\nversion=v11+\nnames=102\nmore=202\ninterrupted=true\n"
#: with the versioned layers switched off
BASE = "work=89700\narea=30\nversion=base\nnames=2\nmore=2\ninterrupted=false\n"
BASE_ONLY = ("-Djdk.util.jar.enableMultiRelease=false",)
#: a JVM of release 9 or 10: the 9 copies
NINE = "work=89712\narea=33\nversion=base\nnames=102\nmore=202\ninterrupted=true\n"
AS_NINE = ("-Djdk.util.jar.version=9",)
#: the ways this JVM runs the jar, and what each prints
JVMS = (((), VERSIONED), (BASE_ONLY, BASE), (AS_NINE, NINE))
#: one release per layer; the release-18 copy is compiled for 17 (no javac 18 here): only its place counts
LAYERS = {"base": "8", "v9": "9", "v11": "11", "v18": "17"}


@pytest.fixture(scope="module")
def mr_jar(tmp_path_factory) -> Path:
    """The program as a multi-release jar, each layer compiled by javac against the layers below."""
    tmp = tmp_path_factory.mktemp("mr")
    root = tmp / "jar"
    below: list[Path] = []
    for layer, release in LAYERS.items():
        out = tmp / layer
        sources = sorted(str(p) for p in (SOURCES / layer).rglob("*.java"))
        cp = ":".join(str(p) for p in reversed(below))
        cmd = [tool("javac"), "-nowarn", "--release", release, "-d", str(out), *(["-cp", cp] if cp else []), *sources]
        subprocess.run(cmd, check=True, capture_output=True)
        below.append(out)
        target = root if layer == "base" else root / "META-INF" / "versions" / layer[1:]
        shutil.copytree(out, target, dirs_exist_ok=True)
    manifest = tmp / "MANIFEST.MF"
    manifest.write_text(f"Manifest-Version: 1.0\nMulti-Release: true\nMain-Class: {MAIN}\n")
    jar = tmp / "mr.jar"
    subprocess.run([tool("jar"), "cfm", str(jar), str(manifest), "-C", str(root), "."], check=True)
    for jvm, expected in JVMS:
        plain = run_java([jar], MAIN, jvm=("-Xverify:all", *jvm))
        assert plain.returncode == 0 and plain.stdout == expected, plain.stdout + plain.stderr[-2000:]
    return jar


@pytest.fixture(scope="module")
def oracles(mr_jar) -> dict[tuple[str, ...], dict]:
    """The JDI oracle's exact profile of the original jar, run each way."""
    out = {}
    for jvm, expected in JVMS:
        oracle = run_oracle([mr_jar], MAIN, app_patterns=("com.example.",), timeout=600, jvm_args=jvm)
        assert oracle.stdout == expected
        out[jvm] = {"root": without_object_init(oracle.profile["root"])}  # by design not in profiles
    return out


@pytest.mark.parametrize("counting", ["default", "precise"])
def test_rewritten_multi_release_jar_equals_the_oracle_on_every_layer(mr_jar, oracles, counting, tmp_path) -> None:
    """Every copy rewritten, none left uninstrumented; the versioned run has the methods only the
    versioned layers declare (``newHelper``, ``Extra.bonus``, ``Circle.area``, ``label``) with
    the oracle's calls and bytecodes; the base run equals the oracle too."""
    result = rewrite_cli([mr_jar], tmp_path / "out", counting)
    assert not result.failed, result.failed
    assert "left uninstrumented" not in result.stderr and "no ESI method" not in result.stderr, result.stderr
    rewritten = tmp_path / "out" / mr_jar.name
    for i, (jvm, expected) in enumerate(JVMS):
        profile = tmp_path / f"profile{i}.json"
        run = run_java([rewritten], MAIN, profile=profile, jvm=("-Xverify:all", *jvm))
        assert run.returncode == 0 and run.stdout == expected, run.stdout + run.stderr[-3000:]
        assert diff_profiles(oracles[jvm], run.profile) == [], jvm
    versioned = methods_of(json.loads((tmp_path / "profile0.json").read_text()))
    for m in ("Tool.newHelper(I)I", "Extra.bonus(I)I", "Extra$Circle.area()I", "Version.label("):
        assert any(m in x for x in versioned), (m, sorted(versioned))


@pytest.mark.parametrize("jvm, expected", JVMS, ids=["versioned", "base-only", "as-release-9"])
def test_multi_release_jar_under_the_agent_equals_the_oracle(mr_jar, oracles, jvm, expected, tmp_path) -> None:
    """The agent rewrites the copies the JVM hands it; what it plans from the class path (classes
    not loaded yet) must be those same copies, also when the JVM is told to load other ones
    (``Main`` calls ``Names.size()``, which only the release-9 copy declares: planned with the
    wrong copy, the call is a ``NoSuchMethodError``)."""
    profile = tmp_path / "agent.json"
    options = agent_options(tmp_path / "cache", profile, progress="false")
    run = run_with_agent([mr_jar], [MAIN], options, profile=profile, jvm=("-Xverify:all", *jvm))
    assert run.returncode == 0 and run.stdout == expected, run.stdout + run.stderr[-3000:]
    assert "jprewrite agent:" not in run.stderr, run.stderr[-3000:]
    assert diff_profiles(oracles[jvm], run.profile) == []
