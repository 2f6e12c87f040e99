"""The pytest plugin (``jprewrite.pytest_plugin``, entry point ``pytest11``) in real pytest runs.

Each run is a separate ``python -m pytest`` process (JPype starts one JVM per process) on a copy of
``budget_cases/pytest/words_budgets.py``, with the library of ``budget_cases/lib`` (or the deliberately
regressed one) on the JVM's class path, under the real agent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.jdk import tool

CASES = Path(__file__).parent / "budget_cases"
SNAPSHOTS = Path("__bytecodes__/test_words")

pytest.importorskip("jpype", reason="JPYPE MISSING: pip install jpype1 (a dependency of jprewrite)")


@pytest.fixture(scope="module")
def libs(tmp_path_factory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("libs")
    for name in ("lib", "regressed"):
        subprocess.run(
            [tool("javac"), "-g", "-nowarn", "-d", str(work / name), str(CASES / name / "budgets" / "Words.java")],
            check=True,
            capture_output=True,
            text=True,
        )
    return {"lib": work / "lib", "regressed": work / "regressed", "cache": work / "agent-cache"}


def project(tmp_path: Path, libs: dict[str, Path], lib: str = "lib", conftest: str = "") -> Path:
    """A test project: the example tests and a pytest.ini pointing the plugin at ``lib``."""
    shutil.copy(CASES / "pytest" / "words_budgets.py", tmp_path / "test_words.py")
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\njprewrite_classpath = {libs[lib]}\njprewrite_agent_options = cache={libs['cache']}\n"
    )
    if conftest:
        (tmp_path / "conftest.py").write_text(conftest)
    return tmp_path


def pytest_run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def snapshots(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / SNAPSHOTS).iterdir())}


def test_snapshots_written_then_compared_and_a_budget_fails(tmp_path, libs) -> None:
    root = project(tmp_path, libs)
    first = pytest_run(root)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "1 failed, 3 passed" in first.stdout, first.stdout
    assert "jprewrite: wrote 4 bytecode snapshot(s)" in first.stdout
    written = snapshots(root)
    assert sorted(written) == [
        "test_consonants_snapshot.json",
        "test_sorting_stays_cheap.json",
        "test_two_measurements-fib10.json",
        "test_two_measurements-fib5.json",
    ]
    # the deliberate failure: the budget, the hottest contexts, and the test's line
    assert "bytecode budget exceeded: " in first.stdout and ", max 100 (+" in first.stdout
    assert "Words.fib(int) > Words.fib(int) > " in first.stdout
    assert "bytecodes(lambda: words.fib(12), max=100, snapshot=False)" in first.stdout
    # a second run compares with the snapshots: same counts, nothing rewritten
    second = pytest_run(root)
    assert "1 failed, 3 passed" in second.stdout and "wrote" not in second.stdout, second.stdout
    assert snapshots(root) == written
    # identical numbers every run: an update run writes byte-identical files
    update = pytest_run(root, "--bytecodes-update")
    assert "jprewrite: wrote 4 bytecode snapshot(s)" in update.stdout
    assert snapshots(root) == written


def test_a_regression_is_caught_and_accepted_with_update(tmp_path, libs) -> None:
    root = project(tmp_path, libs)
    pytest_run(root, "-k", "consonants")
    stored = snapshots(root)
    (root / "pytest.ini").write_text(
        (root / "pytest.ini").read_text().replace(str(libs["lib"]), str(libs["regressed"]))
    )
    caught = pytest_run(root, "-k", "consonants")
    assert caught.returncode == 1 and "1 failed" in caught.stdout, caught.stdout
    lines = caught.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if "grew beyond its bytecode snapshot" in line)
    assert "snapshot __bytecodes__/test_words/test_consonants_snapshot.json" in lines[head]
    assert "--bytecodes-update" in lines[head]
    assert lines[head + 1].endswith("contexts that grew most:")
    # the context that grew most first: the vowel test is called twice per consonant
    assert "Words.consonants(String) > Words.isVowel(char): " in lines[head + 2], lines[head : head + 4]
    assert snapshots(root) == stored  # a failure never rewrites the snapshot
    # a tolerance (percent of the snapshot's total, for the total and for each context) lets it pass:
    # the total grew by about 45 %, the context that grew most by about 36 % of the total
    assert pytest_run(root, "-k", "consonants", "-o", "bytecodes_tolerance=50").returncode == 0
    assert pytest_run(root, "-k", "consonants", "-o", "bytecodes_tolerance=40").returncode == 1
    assert pytest_run(root, "-k", "consonants", "--bytecodes-update").returncode == 0
    assert snapshots(root) != stored
    assert pytest_run(root, "-k", "consonants").returncode == 0


def test_a_jvm_started_by_someone_else_is_an_error(tmp_path, libs) -> None:
    root = project(tmp_path, libs, conftest="import jpype\njpype.startJVM()\n")
    r = pytest_run(root, "-k", "consonants")
    assert r.returncode == 1
    assert "jprewrite: the JVM was already started (jpype.startJVM called by something else)" in r.stdout, r.stdout


def test_a_bad_agent_option_is_one_line(tmp_path, libs) -> None:
    root = project(tmp_path, libs)
    r = pytest_run(root, "-k", "consonants", "--jprewrite-agent-options", "colour=blue")
    assert r.returncode == 1
    assert "jprewrite: unknown agent option 'colour'" in r.stdout, r.stdout


def test_inert_unless_used(tmp_path) -> None:
    """Loaded into every pytest run, the plugin imports no JPype and starts no JVM for tests that do not ask."""
    (tmp_path / "test_plain.py").write_text(
        "import sys\n\ndef test_nothing_java():\n    assert 'jpype' not in sys.modules\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    r = pytest_run(tmp_path)
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr
    assert not (tmp_path / "__bytecodes__").exists() and not (tmp_path / "jprewrite-profile.json").exists()
