"""jprewrite installed as a package (``pip install .``, not editable), run outside the checkout.

jprewrite compiles its Java runtime, agent and JUnit extension from their sources on first use.
An editable install finds them in the checkout's ``runtime-java/``; an installed copy must carry
them (``setup.py`` copies them into ``jprewrite/java``). Before that copy, every command that
rewrites failed in an installed jprewrite ("no Java runtime sources under .../site-packages/
runtime-java/src"), while the whole suite, run from the checkout, passed.

One fresh virtual environment, the package installed into it without its dependencies and without
the compiled build (``JPREWRITE_NO_COMPILE=1``: seconds, not minutes; the layout is the same), then:
the Java sources come from site-packages, a jar is rewritten and runs with its profile written, and
the agent jar builds and profiles a program.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from support.jdk import javac, run, tool

REPO = Path(__file__).resolve().parent.parent

MAIN = """package com.acme;
public class Main {
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    public static void main(String[] args) { System.out.println("fib " + fib(15)); }
}
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with jprewrite installed from this checkout (not editable)."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    env = _clean_env(JPREWRITE_NO_COMPILE="1")
    r = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(REPO)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return env_dir


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that points jprewrite at the checkout."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("JPREWRITE_") and k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    }
    env.update(extra)
    return env


def _jprewrite(env_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(env_dir / "bin" / "jprewrite"), *args],
        env=_clean_env(),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_installed_package_carries_the_java_sources(installed: Path, tmp_path: Path) -> None:
    code = "from jprewrite.rewrite.java_sources import java_source_root as r; import jprewrite; print(r()); print(jprewrite.__file__)"
    r = subprocess.run(
        [str(installed / "bin" / "python"), "-c", code], env=_clean_env(), cwd=tmp_path, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    root, package = (Path(line) for line in r.stdout.split())
    assert installed in package.parents, f"imported from {package}, not the installed copy"
    assert root == package.parent / "java"
    for part in ("src/jprewrite/runtime/Node.java", "agent/jprewrite/agent/Agent.java"):
        assert (root / part).is_file(), part
    assert (root / "junit" / "META-INF" / "services" / "org.junit.jupiter.api.extension.Extension").is_file()


def test_installed_jprewrite_rewrites_and_the_program_runs(installed: Path, tmp_path: Path) -> None:
    classes = javac({"com/acme/Main.java": MAIN}, tmp_path / "classes")
    jar = tmp_path / "app.jar"
    run([tool("jar"), "cf", str(jar), "-C", str(classes), "."])
    out = tmp_path / "app-profiled.jar"
    r = _jprewrite(installed, "rewrite", str(jar), str(out), "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    profile = tmp_path / "profile.json"
    p = run([tool("java"), f"-Djprewrite.output={profile}", "-cp", str(out), "com.acme.Main"], cwd=tmp_path)
    assert p.stdout == "fib 610\n"
    tree = json.loads(profile.read_text())
    main = tree["root"]["children"][0]
    assert main["method"] == "com.acme.Main.main([Ljava/lang/String;)V"
    fib = next(c for c in main["children"] if c["method"] == "com.acme.Main.fib(I)I")
    assert fib["calls"] == 1


def test_installed_jprewrite_builds_the_agent(installed: Path, tmp_path: Path) -> None:
    r = _jprewrite(installed, "agent-path", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    agent = Path(r.stdout.strip())
    assert agent.is_file()
    classes = javac({"com/acme/Main.java": MAIN}, tmp_path / "classes")
    profile = tmp_path / "agent-profile.json"
    python = installed / "bin" / "python"
    p = run(
        [tool("java"), f"-javaagent:{agent}=output={profile},python={python}", "-cp", str(classes), "com.acme.Main"],
        cwd=tmp_path,
        env=_clean_env(),
    )
    assert p.stdout == "fib 610\n"
    main = json.loads(profile.read_text())["root"]["children"][0]
    assert main["method"] == "com.acme.Main.main([Ljava/lang/String;)V"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
