"""Programs written in Kotlin and Scala, compiled by their own compilers, against the JDI oracle.

The compilers' own jars are in the corpus (rewritten and run as workloads); these are *user
programs* in the shapes those compilers give the language's features, with the language's
standard library rewritten beside them (precise counting, offline and under the agent), each
checked node for node against the oracle's run of the original program:

* ``support/programs/languages/Main.kt`` (Debian's kotlinc 1.3): a ``sequence {}`` builder (a
  suspend lambda compiled to a state machine, resumed from the standard library), an inline class
  with an extension function, a sealed hierarchy in ``when``, a data class with a default interface
  method (``DefaultImpls``), an ``object``, a reified inline function and a ``lazy`` delegate
  whose initialiser runs kotlin's reflection fallback (a ``ClassNotFoundException`` caught in a
  class initialiser).
* ``support/programs/languages/Main.scala`` (Debian's scalac 2.11): a trait with a concrete method
  (static forwarders to ``Shape$class``), case classes in a pattern match with guards, a
  ``@specialized`` class, a ``lazy val``, closures over a ``var`` (``IntRef``), iterators and
  an exception caught by type.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jprewrite.cli.report_command import load_profile

from support.agent import agent_options, run_with_agent
from support.compilers import rewrite_cli
from support.corpus import package_jars
from support.oracle import diff_profiles, run_oracle
from support.profiling import run_java
from test_cct_oracle import without_object_init

pytestmark = pytest.mark.corpus

SOURCES = Path(__file__).resolve().parent / "support" / "programs" / "languages"

LANGUAGES = {
    # language: (compile command before the output jar, the library's jar, main class, patterns, stdout)
    "kotlin": (
        ["kotlinc", "-nowarn", str(SOURCES / "Main.kt"), "-d"],
        "/usr/share/java/kotlin-stdlib.jar",
        "com.example.kt.MainKt",
        ("com.example.", "kotlin."),
        "total=70\nhi kt Point(x=3, y=9)\neval=12\n"
        "fib=0,1,1,2,3,5,8,13,21,34,55,89,144,233,377,610,987,1597,2584,4181\n"
        "count=2\nmeters=42\nlazy=5050\nmap=21 Point(x=0, y=0)\n",
    ),
    "scala": (
        ["scalac", "-nowarn", str(SOURCES / "Main.scala"), "-d"],
        "/usr/share/scala/lib/scala-library.jar",
        "com.example.sc.Main",
        ("com.example.", "scala."),
        "Sq(4),circle,Sq(9)\narea=16.0\nsmall big str:x sq4 other\ntable=v7 10\nbox=42\nacc=1683\n"
        "pow=1,2,4,8,16,32,64,128,256,512\ncaught boom\n",
    ),
}


@pytest.fixture(scope="module", params=sorted(LANGUAGES))
def program(request, tmp_path_factory):
    """(language, program jar, library jar, the oracle's tree) for one language."""
    language = request.param
    command, library, main, patterns, expected = LANGUAGES[language]
    package_jars(language)
    tmp = tmp_path_factory.mktemp(language)
    jar = tmp / f"{language}-program.jar"
    subprocess.run([*command, str(jar)], check=True, capture_output=True, timeout=600)
    oracle = run_oracle([jar, Path(library)], main, app_patterns=patterns, timeout=900)
    assert oracle.stdout == expected, oracle.stdout
    return language, jar, Path(library), {"root": without_object_init(oracle.profile["root"])}


def test_program_and_its_library_rewritten_offline_equal_the_oracle(program, tmp_path) -> None:
    language, jar, library, expected = program
    _, _, main, _, stdout = LANGUAGES[language]
    result = rewrite_cli([jar, library], tmp_path / "out", "precise")
    assert not result.failed, result.failed
    run = run_java([tmp_path / "out" / jar.name, tmp_path / "out" / library.name], main, profile=tmp_path / "p.json")
    assert run.returncode == 0 and run.stdout == stdout, run.stdout + run.stderr[-3000:]
    differences = diff_profiles(expected, run.profile)
    assert not differences, "\n".join(differences[:30])


def test_program_and_its_library_under_the_agent_equal_the_oracle(program, tmp_path) -> None:
    language, jar, library, expected = program
    _, _, main, _, stdout = LANGUAGES[language]
    profile = tmp_path / "agent.json"
    options = agent_options(tmp_path / "cache", profile, progress="false", counting="precise")
    run = run_with_agent([jar, library], [main], options, profile=profile)
    assert run.returncode == 0 and run.stdout == stdout, run.stdout + run.stderr[-3000:]
    assert "jprewrite agent:" not in run.stderr, run.stderr[-3000:]
    differences = diff_profiles(expected, load_profile(str(profile)))
    assert not differences, "\n".join(differences[:30])
