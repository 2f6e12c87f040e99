"""Running one of the shared workload scripts (``../shared/bench/workloads/NAME.sh``) and reading its report.

Shared by the exercise, CCT and agent workload tests: each script prints ``KEY value`` lines (the
checksum of the program's output, its exit status ``RC``...) and takes its settings from the
environment (``BENCH_WORK``, ``BENCH_CP``, ``JAVA_OPTS``, ``PRINT_CP=1`` to print the class path).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["run_workload"]


def run_workload(bench: Path, name: str, work: Path, **env: str) -> dict[str, str]:
    """``KEY -> value`` of the report of workload ``name`` run in ``work``; ``_stdout`` is the whole output.

    Asserts the program exited 0 (unless only its class path was asked for, ``PRINT_CP=1``).
    """
    e = dict(os.environ, BENCH_WORK=str(work), **env)
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
