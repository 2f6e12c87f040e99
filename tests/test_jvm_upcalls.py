"""Application code the JVM calls without a call instruction, against the JDI oracle.

The debugger sees such code beneath the frame whose instruction made the JVM run it. Rewritten code
passes nodes along calls, so an up-call's N2B wrapper can only attach beneath the node that was
published last; each kind of up-call needs that node published before the instruction:

* ``<clinit>``: ``new``/static accesses/``invokestatic`` publish (covered by ``oracle_cases/clinit``);
* bootstrap methods of ``invokedynamic``: the call site is a boundary call, the bootstrap runs beneath
  its node;
* bootstrap methods of dynamic constants (``ldc`` of a ``CONSTANT_Dynamic``): the node is published
  before the ``ldc`` (``support/programs/generators/GenCondy.java``, since javac writes none);
* ``loadClass`` of a class loader written in the program, called by the JVM to resolve a class name
  in a class that loader defined (``support/programs/loaders``): the agent rewrites the classes of
  such loaders (``ProgramLoaders``) so that each first resolution publishes the node of the method
  that makes it, and so does the offline command with ``--program-loader``; without it the
  loader's work lands beneath the node published last. The oracle sees blocks, not instructions:
  it puts such up-calls beneath the block's last instruction (``CctOracle.java``'s limits), so
  the program resolves its classes with ``new`` and static accesses, which end blocks.
  Independently, the loader's work is counted exactly as often as the program does it: rewritten
  code names jprewrite's runtime and holder classes, which the JVM asks the same loader for; those
  requests run beneath a quiet node (``ThreadRoot.n2bEnterLoader``) and are counted nowhere.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jprewrite.cli.report_command import load_profile

from support.agent import agent_options, run_with_agent
from support.compilers import asm_jars, rewrite_cli
from support.jdk import tool
from support.oracle import diff_profiles, run_oracle
from support.profiling import make_jar, run_java
from test_cct_oracle import without_object_init

PROGRAMS = Path(__file__).resolve().parent / "support" / "programs"
CONDY_OUTPUT = "const-hello\n42\nconst-const-arg\n" * 2
LOADERS_OUTPUT = "sum=18\nsum=36\n"


@pytest.fixture(scope="module")
def condy_jar(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("condy")
    asm = str(asm_jars()[0])
    source = PROGRAMS / "generators" / "GenCondy.java"
    subprocess.run([tool("javac"), "-d", str(tmp), "-cp", asm, str(source)], check=True, capture_output=True)
    jar = tmp / "condy.jar"
    subprocess.run([tool("java"), "-cp", f"{tmp}:{asm}", "generators.GenCondy", str(jar)], check=True)
    return jar


@pytest.fixture(scope="module")
def loaders_jar(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("loaders")
    sources = sorted(str(p) for p in (PROGRAMS / "loaders").rglob("*.java"))
    subprocess.run([tool("javac"), "-d", str(tmp / "classes"), *sources], check=True, capture_output=True)
    (tmp / "classes" / "com" / "example" / "cl" / "plugin" / "Missing.class").unlink()  # named, never loaded
    return make_jar(tmp / "classes", tmp / "loaders.jar")


def _expected(jar: Path, main: str, stdout: str) -> dict:
    oracle = run_oracle([jar], main, app_patterns=(main.rpartition(".")[0] + ".",), timeout=600)
    assert oracle.stdout == stdout
    return {"root": without_object_init(oracle.profile["root"])}


def _offline(jar: Path, main: str, stdout: str, tmp: Path) -> dict:
    """The profile of ``jar`` rewritten offline (precise counting)."""
    rewrite_cli([jar], tmp / "out", "precise")
    run = run_java([tmp / "out" / jar.name], main, profile=tmp / "offline.json")
    assert run.returncode == 0 and run.stdout == stdout, run.stderr[-3000:]
    return run.profile


def _agent(jar: Path, main: str, stdout: str, tmp: Path) -> dict:
    """The profile of ``jar`` run under the agent (precise counting)."""
    profile = tmp / "agent.json"
    options = agent_options(tmp / "cache", profile, progress="false", counting="precise")
    run = run_with_agent([jar], [main], options, profile=profile)
    assert run.returncode == 0 and run.stdout == stdout, run.stderr[-3000:]
    return load_profile(str(profile))


def _offline_and_agent(jar: Path, main: str, stdout: str, tmp: Path) -> dict[str, dict]:
    return {"offline": _offline(jar, main, stdout, tmp), "agent": _agent(jar, main, stdout, tmp)}


def test_bootstrap_methods_of_dynamic_constants_run_beneath_the_method_that_loads_them(condy_jar, tmp_path) -> None:
    """``bsmStr`` beneath ``text()``, ``bsmLong`` beneath ``num()`` (it landed beneath the
    ``println`` call before it, the boundary published last, and ``bsmStr`` at the thread's root);
    the invokedynamic's bootstrap and its dynamic-constant argument beneath the call site's node."""
    expected = _expected(condy_jar, "condy.Main", CONDY_OUTPUT)
    for how, profile in _offline_and_agent(condy_jar, "condy.Main", CONDY_OUTPUT, tmp_path).items():
        differences = diff_profiles(expected, profile)
        assert not differences, how + ":\n" + "\n".join(differences[:30])


def _totals(node: dict, method: str) -> tuple[int, int]:
    """Calls and bytecodes of every context of ``method`` (a name ending), wherever it hangs."""
    calls = bytecodes = 0
    stack = [node]
    while stack:
        n = stack.pop()
        if n["method"].split("(")[0].endswith(method):
            calls, bytecodes = calls + n["calls"], bytecodes + n["bytecodes"]
        stack.extend(n.get("children", ()))
    return calls, bytecodes


def test_a_loader_of_the_program_is_counted_only_for_the_program_s_own_requests(loaders_jar, tmp_path) -> None:
    """``ChildFirst.loadClass`` and ``define`` run as often, and execute as many bytecodes, as in
    the oracle's run of the original program: the requests for jprewrite's classes that rewritten
    code makes (the runtime, and offline the holders; under the agent also its probe of the
    loader) are not counted. Before ``n2bEnterLoader`` offline counted 3 ``define`` calls more."""
    expected = _expected(loaders_jar, "com.example.cl.Main", LOADERS_OUTPUT)["root"]
    for how, profile in _offline_and_agent(loaders_jar, "com.example.cl.Main", LOADERS_OUTPUT, tmp_path).items():
        for method in ("ChildFirst.loadClass", "ChildFirst.define"):
            assert _totals(profile["root"], method) == _totals(expected, method), (how, method)


def test_class_loads_by_a_loader_of_the_program_run_beneath_the_resolving_method_under_the_agent(
    loaders_jar, tmp_path
) -> None:
    """The agent rewrites the classes of a loader that runs the program's code (``ProgramLoaders``)
    so that each first resolution of a class name publishes the node: ``ChildFirst.loadClass`` for
    ``B`` beneath ``A.applyAsInt``, whose ``new B`` resolves it, and for ``C`` beneath its
    ``getstatic`` (without: beneath the boundary call published last). The whole tree equals the
    oracle's; the program's shape keeps to instructions the oracle attributes exactly (it sees
    blocks: ``new`` and static accesses end one)."""
    expected = _expected(loaders_jar, "com.example.cl.Main", LOADERS_OUTPUT)
    differences = diff_profiles(expected, _agent(loaders_jar, "com.example.cl.Main", LOADERS_OUTPUT, tmp_path))
    assert not differences, "\n".join(differences[:30])


def test_class_loads_by_a_loader_of_the_program_offline(loaders_jar, tmp_path) -> None:
    """Offline nothing says which loader will define a class: rewritten as usual, the loader's work
    for ``new B`` lands beneath the node published last (the known gap); with ``--program-loader``
    the tree equals the oracle's, as under the agent."""
    expected = _expected(loaders_jar, "com.example.cl.Main", LOADERS_OUTPUT)
    assert diff_profiles(expected, _offline(loaders_jar, "com.example.cl.Main", LOADERS_OUTPUT, tmp_path / "plain"))
    rewrite_cli([loaders_jar], tmp_path / "out", "precise", extra=["--program-loader"])
    run = run_java([tmp_path / "out" / loaders_jar.name], "com.example.cl.Main", profile=tmp_path / "p.json")
    assert run.returncode == 0 and run.stdout == LOADERS_OUTPUT, run.stderr[-3000:]
    differences = diff_profiles(expected, run.profile)
    assert not differences, "\n".join(differences[:30])
