"""Rewrite compiled programs with ``jprewrite`` (in process), run them, read their profiles."""

from __future__ import annotations

import difflib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.cli.report_command import load_profile

from support.jdk import run, tool, with_test_jvm
from support.oracle import paths  # one reading of a profile's method paths, shared with the oracle tests

__all__ = ["Run", "make_jar", "rewrite", "run_java", "run_rewritten", "assert_same_output", "paths", "find", "methods"]


@dataclass
class Run:
    stdout: str
    stderr: str
    returncode: int
    profile: dict | None


def make_jar(classes: Path, jar: Path) -> Path:
    run([tool("jar"), "cf", str(jar), "-C", str(classes), "."])
    return jar


def rewrite(inputs: list[Path], output: Path, *options: str, output_dir: bool = False) -> None:
    args = [str(p) for p in inputs]
    args += ["--output-dir", str(output)] if output_dir else [str(output)]
    code = jprewrite_main([*args, *options, "--quiet"])
    assert code == 0, f"jprewrite exited {code}"


def run_java(
    classpath: list[Path],
    main: str,
    *args: str,
    profile: Path | None = None,
    jvm: tuple[str, ...] = ("-Xverify:all",),
    timeout: int = 300,
    cwd: Path | None = None,
) -> Run:
    cmd = [tool("java"), *with_test_jvm(jvm)]
    if profile is not None:
        cmd.append(f"-Djprewrite.output={profile}")
    cmd += ["-cp", ":".join(str(p) for p in classpath), main, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    data = None
    if profile is not None and profile.exists():
        data = load_profile(str(profile))
    return Run(p.stdout, p.stderr, p.returncode, data)


def run_rewritten(jar: Path, main: str, work: Path, *options: str, agent: bool = False) -> Any:
    """``main`` of ``jar`` rewritten offline with ``options`` (its profile in ``work``), or run
    under the agent (its cache and profile in ``work``; ``options`` then none)."""
    if agent:
        from support.agent import agent_options, run_with_agent  # (the agent's helpers build on these)

        return run_with_agent([jar], [main], agent_options(work / "cache", work / "agent.json", progress="false"))
    out = work / (jar.stem + "-out.jar")
    rewrite([jar], out, *options)
    return run_java([out], main, profile=work / "p.json")


def assert_same_output(run: Any, original: Any) -> None:
    """``run`` (a :class:`Run`, an agent's run) printed byte for byte what ``original`` printed, on
    stdout and stderr, and exited as it did; else a diff of the first stream that differs."""
    for stream in ("stdout", "stderr"):
        got, want = getattr(run, stream), getattr(original, stream)
        if got != want:
            diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "original", "run"))
            raise AssertionError(f"{stream} is not the original's:\n{diff[:6000]}")
    assert run.returncode == original.returncode, f"exit status {run.returncode}, the original's {original.returncode}"


def find(profile: dict, *methods: str) -> dict:
    """The node reached from the merged root through children whose method ends with each of ``methods``."""
    node = profile["root"]
    for m in methods:
        matches = [c for c in node.get("children", ()) if c["method"].endswith(m)]
        assert matches, (
            f"no child ending with {m!r} under {node['method']}: {[c['method'] for c in node.get('children', ())]}"
        )
        assert len(matches) == 1, f"several children end with {m!r}: {[c['method'] for c in matches]}"
        node = matches[0]
    return node


def methods(profile: dict) -> set[str]:
    """Every method named anywhere in the merged tree of ``profile``."""
    out, stack = set(), [profile["root"]]
    while stack:
        n = stack.pop()
        out.add(n["method"])
        stack.extend(n.get("children", ()))
    return out
