"""Bytecode snapshots kept in the repository, and the per-context comparison failure messages show.

A snapshot is the measured calling context tree in the runtime's profile format (so
``jprewrite report`` and ``jprewrite diff`` read it too), stored beside the test module as
``__bytecodes__/<module>/<test>[-<name>].json``.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import JprewriteError
from ..profile import from_dict
from ..profile.compare import ContextChange, compare

__all__ = [
    "Verdict",
    "change_text",
    "compare_profiles",
    "describe_path",
    "grown_most",
    "read_snapshot",
    "short_name",
    "snapshot_path",
    "write_snapshot",
]

SNAPSHOT_DIR = "__bytecodes__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\[\]-]")


def snapshot_path(test_file: Path, nodeid: str, name: str | None) -> Path:
    """``<dir of test file>/__bytecodes__/<module stem>/<Class.test[params]>[-name].json``."""
    test = nodeid.split("::", 1)[1] if "::" in nodeid else nodeid
    stem = _UNSAFE.sub("_", test.replace("::", "."))
    if name:
        stem += "-" + _UNSAFE.sub("_", name)
    return test_file.parent / SNAPSHOT_DIR / test_file.stem / f"{stem}.json"


def read_snapshot(path: Path) -> dict:
    """A stored snapshot as dicts; JprewriteError (one line) when it is not a profile."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 200_000))  # deep recursion makes deeply nested JSON
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise JprewriteError(f"cannot read: {e.strerror or e}", path=str(path)) from None
    except (ValueError, RecursionError) as e:
        raise JprewriteError(f"not a JSON profile: {e}", path=str(path)) from None
    finally:
        sys.setrecursionlimit(limit)
    if not isinstance(data, dict) or not isinstance(data.get("root"), dict):
        raise JprewriteError("not a jprewrite profile (no 'root' object)", path=str(path))
    return data


def write_snapshot(path: Path, text: str) -> None:
    """Write through a temporary file and a rename: a crash never leaves half a snapshot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class Verdict:
    """Whether ``after`` grew beyond the allowance over ``before``: totals and the grown contexts."""

    bytecodes: tuple[int, int]
    allocations: tuple[int, int]
    regressed: bool
    changes: list[tuple[str, ContextChange]] = field(default_factory=list)  # (metric, change), growth first


def compare_profiles(before: dict, after: dict, tolerance: float) -> Verdict:
    """Compare two profiles (dicts as ``json.load`` reads them) the way ``jprewrite diff`` does.

    :func:`jprewrite.profile.compare.compare` on bytecodes, and on allocations when either side
    counted some: contexts matched by method path, regressed when the total or any context's own
    value grew by more than ``tolerance`` percent of the base total (0: any growth).
    """
    a, b = from_dict(before), from_dict(after)
    result = compare(a, b, metric="bytecodes", threshold=tolerance)
    verdict = Verdict(
        (result.base_total, result.new_total), (0, 0), result.regressed, [("bytecodes", c) for c in result.changes]
    )
    if _has_allocations(before["root"]) or _has_allocations(after["root"]):
        allocs = compare(a, b, metric="allocations", threshold=tolerance)
        verdict.allocations = (allocs.base_total, allocs.new_total)
        verdict.regressed = verdict.regressed or allocs.regressed
        if allocs.regressed:
            verdict.changes += [("allocations", c) for c in allocs.regressions]
    verdict.changes.sort(key=lambda mc: (mc[1].delta <= 0, -abs(mc[1].delta), mc[1].path))
    return verdict


def _has_allocations(root: dict) -> bool:
    stack = [root]
    while stack:
        n = stack.pop()
        if n.get("allocations"):
            return True
        stack.extend(n.get("children", ()))
    return False


_PRIMITIVES = {
    "Z": "boolean",
    "B": "byte",
    "C": "char",
    "S": "short",
    "I": "int",
    "J": "long",
    "F": "float",
    "D": "double",
}
_PARAM = re.compile(r"(\[*)(L[^;]*;|[ZBCSIJFD])")


def short_name(method: str) -> str:
    """``com.acme.Lib.sort([II)V`` -> ``Lib.sort(int[], int)`` (as the Java side writes messages)."""
    owner, paren, rest = method.partition("(")
    if not paren:
        return method
    parts = owner.split(".")
    params = []
    for dims, t in _PARAM.findall(rest.partition(")")[0]):
        name = t[1:-1].rsplit("/", 1)[-1] if t.startswith("L") else _PRIMITIVES[t]
        params.append(name + "[]" * len(dims))
    return f"{'.'.join(parts[-2:])}({', '.join(params)})"


def describe_path(path: tuple[str, ...]) -> str:
    """Short names joined by ``>``; a path longer than six frames keeps its first two and last three."""
    names = [short_name(m) for m in path]
    if len(names) > 6:
        names = [*names[:2], f"... ({len(names) - 5} more)", *names[-3:]]
    return " > ".join(names)


def change_text(before: int, after: int) -> str:
    """``+120, +25.0%`` (no percentage from zero)."""
    d = after - before
    return f"{d:+,}" if before == 0 else f"{d:+,}, {100.0 * d / before:+.1f}%"


def grown_most(verdict: Verdict, limit: int = 8) -> list[str]:
    """One line per changed context, ``path: before -> after bytecodes (change)``, growth first."""
    lines = []
    for metric, c in verdict.changes[:limit]:
        before = "new" if c.status == "new" else f"{c.base_self:,}"
        after = "gone" if c.status == "vanished" else f"{c.new_self:,}"
        lines.append(f"{describe_path(c.path)}: {before} -> {after} {metric} ({change_text(c.base_self, c.new_self)})")
    if len(verdict.changes) > limit:
        lines.append(f"... and {len(verdict.changes) - limit} more changed contexts")
    return lines
