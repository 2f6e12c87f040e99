"""Running one of the shared workload scripts (``../shared/bench/workloads/NAME.sh``) and reading its report.

Shared by the exercise, CCT and agent workload tests: each script prints ``KEY value`` lines (the
checksum of the program's output, its exit status ``RC``...) and takes its settings from the
environment (``BENCH_WORK``, ``BENCH_CP``, ``JAVA_OPTS``, ``PRINT_CP=1`` to print the class path).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

try:
    from .jdk import with_test_jvm
except ImportError:  # imported as a top-level module (tests/support on sys.path)
    from jdk import with_test_jvm  # type: ignore[no-redef]

__all__ = ["SHARED_BENCH", "build_bench", "plain_checksum", "run_workload"]

SHARED_BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench"

_PLAIN: dict[tuple[str, str], str] = {}  # (bench directory, workload) -> checksum of its plain run


def build_bench(target: Path) -> Path | str:
    """A built copy of the shared workloads at ``target`` (their directory is read-only), or why not."""
    if not (SHARED_BENCH / "build.sh").exists():
        return f"SHARED WORKLOADS MISSING: {SHARED_BENCH} not found"
    if shutil.which("/usr/bin/time") is None and not Path("/usr/bin/time").exists():
        return "SHARED WORKLOADS NEED /usr/bin/time (Debian package `time`)"
    shutil.copytree(SHARED_BENCH, target, ignore=shutil.ignore_patterns("build", "data", "results"))
    for p in target.rglob("*"):
        p.chmod(0o755 if p.is_dir() or p.suffix in (".sh", ".py") else 0o644)
    r = subprocess.run(["bash", str(target / "build.sh")], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"shared bench build failed: {r.stderr[-2000:]}")
    return target


def plain_checksum(bench: Path, name: str, work: Path) -> str:
    """The checksum of workload ``name`` run as it is (once per process: the workloads are deterministic)."""
    key = (str(bench), name)
    if key not in _PLAIN:
        _PLAIN[key] = run_workload(bench, name, work)["CHECKSUM"]
    return _PLAIN[key]


def run_workload(bench: Path, name: str, work: Path, **env: str) -> dict[str, str]:
    """``KEY -> value`` of the report of workload ``name`` run in ``work``; ``_stdout`` is the whole output.

    Asserts the program exited 0 (unless only its class path was asked for, ``PRINT_CP=1``).
    """
    e = dict(os.environ, BENCH_WORK=str(work), **env)
    e["JAVA_OPTS"] = " ".join(with_test_jvm(e.get("JAVA_OPTS", "").split()))
    r = subprocess.run(
        ["bash", str(bench / "workloads" / f"{name}.sh")], capture_output=True, text=True, env=e, timeout=900
    )
    out = {}
    for line in r.stdout.splitlines():
        key, _, value = line.partition(" ")
        out[key] = value
    if e.get("PRINT_CP") != "1":
        assert out.get("RC") == "0", (r.stdout[-2000:], r.stderr[-3000:])
    out["_stdout"] = r.stdout
    return out
