"""Bytecode budgets and baselines in real JUnit runs: Debian's junit5 console launcher, the jar of
``jprewrite junit-path``, the agent (and offline-rewritten classes), on ``budget_cases/``.

``WordsTest`` (JUnit 5) and ``WordsRuleTest`` (JUnit 4, through the vintage engine) each have a
test that exceeds its budget on purpose; ``budget_cases/regressed`` is the library with a
deliberate regression that the stored baseline must catch.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.errors import JprewriteError
from jprewrite.rewrite.junit_build import junit_compile_classpath, junit_jar

from support.agent import agent_options, run_with_agent
from support.jdk import tool
from support.profiling import rewrite

CASES = Path(__file__).parent / "budget_cases"
LAUNCHER = Path("/usr/share/java/junit-platform-console-standalone.jar")
#: JUnit itself stays uninstrumented (as docs/budgets.md recommends): faster, and assertions are not counted
EXCLUDES = "org.junit.*:junit.*:org.opentest4j.*:org.apiguardian.*:org.hamcrest.*"
BASELINES = Path("src/test/resources/jprewrite-baselines/budgets.WordsTest")


@dataclass
class Built:
    lib: Path
    regressed: Path
    tests: Path
    junit: Path
    cache: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Built:
    try:
        api = junit_compile_classpath()
    except JprewriteError as e:
        pytest.skip(f"JUNIT 5 MISSING: {e} (run tests/support/install_corpus.py as root)")
    if not LAUNCHER.is_file():
        pytest.skip(f"JUNIT 5 MISSING: no {LAUNCHER} (Debian package junit5)")
    work = tmp_path_factory.mktemp("junit")
    jar = junit_jar()
    for name in ("lib", "regressed"):
        javac(work / name, [CASES / name / "budgets" / "Words.java"])
    params = Path("/usr/share/java/junit-jupiter-params.jar")
    javac(
        work / "tests",
        sorted((CASES / "junit5").rglob("*.java")) + sorted((CASES / "junit4").rglob("*.java")),
        [work / "lib", jar, params, *api],
    )
    return Built(work / "lib", work / "regressed", work / "tests", jar, work / "agent-cache")


def javac(out: Path, sources: list[Path], classpath: list[Path] = ()) -> None:
    cmd = [tool("javac"), "-g", "-nowarn", "-d", str(out)]
    if classpath:
        cmd += ["-cp", ":".join(map(str, classpath))]
    subprocess.run([*cmd, *map(str, sources)], check=True, capture_output=True, text=True)


@dataclass
class Result:
    returncode: int
    output: str

    def status(self, test: str) -> str:
        """``✔`` or ``✘`` of a test in the tree output."""
        m = re.search(rf"─ {re.escape(test)} ([✔✘])", self.output)
        assert m, f"{test} not in the output:\n{self.output}"
        return m.group(1)

    def bytecodes(self, test: str) -> int:
        """The measured bytecodes of a test (its report entry, the line after its name)."""
        m = re.search(
            rf"─ {re.escape(test)} [✔✘][^\n]*\n(?:[^\n]*\n)*?[^\n]*jprewrite\.bytecodes = `(\d+)`", self.output
        )
        assert m, f"no report entry of {test}:\n{self.output}"
        return int(m.group(1))


def launch(
    built: Built,
    cwd: Path,
    classpath: list[Path],
    *,
    agent: bool = True,
    props: tuple[str, ...] = (),
    tests: Path | None = None,
    select: tuple[str, ...] = ("--select-class", "budgets.WordsTest", "--select-class", "budgets.WordsRuleTest"),
) -> Result:
    """The console launcher in ``cwd`` (baselines live beneath it), with the agent unless told otherwise."""
    cwd.mkdir(parents=True, exist_ok=True)
    args = [
        "-jar",
        str(LAUNCHER),
        "--disable-banner",
        "--disable-ansi-colors",
        "--details=tree",
        "-cp",
        ":".join(map(str, [*classpath, tests or built.tests, built.junit])),
        *select,
    ]
    jvm = ("-Xshare:auto", *props)
    if agent:
        run = run_with_agent(
            None,
            args,
            agent_options(built.cache, None, output="none", excludes=EXCLUDES),
            jvm=jvm,
            cwd=cwd,
            timeout=600,
        )
        return Result(run.returncode, run.stdout + run.stderr)
    p = subprocess.run([tool("java"), *jvm, *args], capture_output=True, text=True, cwd=cwd, timeout=600)
    return Result(p.returncode, p.stdout + p.stderr)


def test_budgets_and_baselines_under_the_agent(built, tmp_path) -> None:
    r = launch(built, tmp_path, [built.lib])
    assert r.returncode == 1, r.output  # the two deliberate failures
    for test in ("sortsSmallArrays()", "dropsVowels()", "classBudgetApplies()", "[1] 5", "[2] 10", "withinBudget"):
        assert r.status(test) == "✔", test
    assert r.status("overBudget()") == "✘" and r.status("tooMuch") == "✘"
    # the failure names the budget and the contexts that cost most, with their paths
    assert re.search(r"bytecode budget exceeded by WordsTest\.overBudget\(\): [\d,]+ bytecodes, max 100 \(\+", r.output)
    assert "WordsTest.overBudget() > Words.fib(int) > " in r.output
    assert "bytecode budget exceeded by WordsRuleTest.tooMuch()" in r.output
    # only the test method body is measured: @BeforeEach computes fib(20) (over 200,000 bytecodes)
    assert r.bytecodes("classBudgetApplies()") < 2_000
    # baselines were written: one per test, one per parameterized invocation
    written = sorted(p.name for p in (tmp_path / BASELINES).iterdir())
    assert written == ["dropsVowels.json", "fibonacci[1].json", "fibonacci[2].json"], written
    assert "wrote the bytecode baseline of WordsTest.dropsVowels()" in r.output


def test_a_regression_is_caught_by_the_baseline_and_accepted_with_update(built, tmp_path) -> None:
    first = launch(built, tmp_path, [built.lib], select=("--select-method", "budgets.WordsTest#dropsVowels"))
    assert first.returncode == 0, first.output
    stored = (tmp_path / BASELINES / "dropsVowels.json").read_bytes()
    regressed = launch(built, tmp_path, [built.regressed], select=("--select-method", "budgets.WordsTest#dropsVowels"))
    assert regressed.returncode == 1 and regressed.status("dropsVowels()") == "✘", regressed.output
    failures = regressed.output[regressed.output.index("Failures (1):") :]  # the message without the tree's margin
    message = failures[failures.index("=> java.lang.AssertionError: ") + 29 :]
    assert re.match(
        r"WordsTest\.dropsVowels\(\) grew beyond its bytecode baseline: [\d,]+ -> [\d,]+ bytecodes "
        r"\(\+[\d,]+, \+[\d.]+%\); tolerance 0%",
        message,
    ), message[:300]
    grown = message.split("contexts that grew most:")[1].strip().splitlines()
    # the context that grew most comes first: the vowel test called twice per consonant
    assert re.match(
        r"WordsTest\.dropsVowels\(\) > Words\.consonants\(String\) > Words\.isVowel\(char\): "
        r"[\d,]+ -> [\d,]+ bytecodes \(\+",
        grown[0],
    ), grown
    assert (tmp_path / BASELINES / "dropsVowels.json").read_bytes() == stored  # a failure never rewrites it
    update = launch(
        built,
        tmp_path,
        [built.regressed],
        props=("-Djprewrite.update=true",),
        select=("--select-method", "budgets.WordsTest#dropsVowels"),
    )
    assert update.returncode == 0, update.output
    again = launch(built, tmp_path, [built.regressed], select=("--select-method", "budgets.WordsTest#dropsVowels"))
    assert again.returncode == 0, again.output


def test_counts_are_the_same_every_run_offline_and_under_the_agent(built, tmp_path) -> None:
    select = ("--select-class", "budgets.WordsTest")
    one = launch(built, tmp_path / "1", [built.lib], select=select)
    two = launch(built, tmp_path / "2", [built.lib], select=select)
    # offline: the library and the tests rewritten together (one program), run without the agent
    rewrite(
        [built.lib, built.tests],
        tmp_path / "offline",
        "--classpath",
        ":".join(map(str, [built.junit, *junit_compile_classpath(), "/usr/share/java/junit-jupiter-params.jar"])),
        output_dir=True,
    )
    offline = launch(
        built,
        tmp_path / "3",
        [tmp_path / "offline" / "lib"],
        tests=tmp_path / "offline" / "tests",
        agent=False,
        select=select,
    )
    tests = ("sortsSmallArrays()", "dropsVowels()", "classBudgetApplies()", "[1] 5", "[2] 10", "overBudget()")
    counts = [[r.bytecodes(t) for t in tests] for r in (one, two, offline)]
    assert counts[0] == counts[1] == counts[2], counts
    for name in ("dropsVowels.json", "fibonacci[1].json", "fibonacci[2].json"):
        files = [(tmp_path / d / BASELINES / name).read_bytes() for d in ("1", "2", "3")]
        assert files[0] == files[1] == files[2], name


def test_automatic_detection_measures_once(built, tmp_path) -> None:
    plain = launch(built, tmp_path / "a", [built.lib], select=("--select-class", "budgets.WordsTest"))
    auto = launch(
        built,
        tmp_path / "b",
        [built.lib],
        props=("-Djunit.jupiter.extensions.autodetection.enabled=true",),
        select=("--select-class", "budgets.WordsTest"),
    )
    for test in ("sortsSmallArrays()", "dropsVowels()", "overBudget()"):
        assert auto.bytecodes(test) == plain.bytecodes(test)
    assert auto.output.count("bytecode budget exceeded by WordsTest.overBudget()") == plain.output.count(
        "bytecode budget exceeded by WordsTest.overBudget()"
    )


def test_without_jprewrite_the_test_fails_with_one_line_saying_how_to_enable_it(built, tmp_path) -> None:
    r = launch(built, tmp_path, [built.lib], agent=False, select=("--select-method", "budgets.WordsTest#dropsVowels"))
    assert r.returncode == 1
    assert "java.lang.IllegalStateException: jprewrite is not enabled in this JVM" in r.output
    assert "-javaagent:$(jprewrite agent-path)" in r.output


def test_junit_path_command(built, capsys, monkeypatch) -> None:
    assert jprewrite_main(["junit-path"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path == built.junit and path.is_file()
    monkeypatch.setenv("JPREWRITE_JUNIT_CLASSPATH", "/nonexistent/junit.jar")
    assert jprewrite_main(["junit-path"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "JPREWRITE_JUNIT_CLASSPATH lists jars that do not exist" in err
