"""Rewrite compiled programs with ``jprewrite`` (in process), run them, read their profiles."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.cli.report_command import load_profile

from support.jdk import run, tool, with_test_jvm
from support.oracle import paths  # one reading of a profile's method paths, shared with the oracle tests

__all__ = ["Run", "make_jar", "rewrite", "run_java", "paths", "find", "methods"]


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
