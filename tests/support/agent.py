"""Run programs under the jprewrite ``-javaagent`` (the real jar, the real Python worker)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from jprewrite.agent.build import agent_jar
from jprewrite.cli.report_command import load_profile

from support.jdk import tool, with_test_jvm

__all__ = ["AgentRun", "agent_options", "run_with_agent"]


@dataclass
class AgentRun:
    stdout: str
    stderr: str
    returncode: int
    profile: dict | None


def agent_options(cache: Path | str | None, profile: Path | None, **extra: str) -> str:
    """The agent's option string: our Python, a private cache (or ``none``), the profile path."""
    opts = {"python": sys.executable, "cache": str(cache) if cache is not None else "none"}
    if profile is not None:
        opts["output"] = str(profile)
    opts.update(extra)
    return ",".join(f"{k}={v}" for k, v in opts.items())


def run_with_agent(
    classpath: list[Path] | None,
    main_and_args: list[str],
    options: str,
    *,
    profile: Path | None = None,
    jvm: tuple[str, ...] = ("-Xverify:all",),
    timeout: int = 600,
    cwd: Path | None = None,
    wait: bool = True,
):
    """``java -javaagent:<jar>=<options> [-cp CP] MAIN ARGS``; a Popen when ``wait`` is False."""
    cmd = [tool("java"), *with_test_jvm(jvm), f"-javaagent:{agent_jar()}={options}"]
    if classpath:
        cmd += ["-cp", ":".join(str(p) for p in classpath)]
    cmd += main_and_args
    if not wait:
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    data = load_profile(str(profile)) if profile is not None and profile.exists() else None
    return AgentRun(p.stdout, p.stderr, p.returncode, data)
