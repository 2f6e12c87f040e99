"""An independent oracle for jprewrite profiles: the ORIGINAL program run under the JVM debugger.

``tests/support/oracle/CctOracle.java`` (JDI, no code shared with the rewriter; its header
comment states the exact semantics and what it relies on) launches the program under JDWP,
follows it with breakpoints at the basic blocks of application methods plus method entry, exit
and exception events, and rebuilds the calling context tree with per-context calls and executed
bytecodes, in the same JSON shape as the profiler's output. Typical use::

    from support.oracle import run_oracle, diff_profiles, paths

    expected = run_oracle([classes], "com.example.demo.Main", app_patterns=("com.example.",))
    assert expected.stdout == rewritten_run.stdout
    assert diff_profiles(expected.profile, rewritten_run.profile) == []

The Java source is compiled once with javac into a cache directory keyed by its hash
(``$XDG_CACHE_HOME/jprewrite/oracle-<hash>`` or ``~/.cache/...``; a temporary directory when
that is not writable). The program runs interpreted under the debugger: about 40,000 block
events, 150,000-200,000 application bytecodes per second, plus ~0.3 s to start; keep programs
small (the sample programs take 0.5-5 s each).

Per-method bytecode counts were checked against a plain JDI single-step count on the sample
programs: identical, except in class initialisers run by getstatic/putstatic/invokestatic,
where HotSpot hides single steps (and the oracle, which uses breakpoints, does count them).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

try:
    from .jdk import cache_root, java_home
except ImportError:  # imported as a top-level module (tests/support on sys.path)
    from jdk import cache_root, java_home  # type: ignore[no-redef]

SOURCE = Path(__file__).parent / "oracle" / "CctOracle.java"

__all__ = [
    "OracleResult",
    "OracleError",
    "run_oracle",
    "paths",
    "diff_profiles",
    "oracle_classes",
    "load_json",
    "node_at",
]


class OracleError(RuntimeError):
    """The oracle itself failed: javac, the debugger, a timeout, or an inconsistent event stream."""


@dataclass
class OracleResult:
    profile: dict  # {"root": node, "threads": [{"name", "root"}]}
    stdout: str  # the program's output, unchanged by the debugger
    stderr: str
    returncode: int  # the program's exit code
    stats: dict = field(default_factory=dict)  # seconds, bytecodes, blockEvents, suspendedSets, ...
    warnings: list[str] = field(default_factory=list)
    log: str = ""  # the oracle's own stderr (the event trace with trace=True)

    @property
    def bytecodes_per_second(self) -> float:
        """Application bytecodes executed per second of the debugged run (launch included)."""
        s = self.stats.get("seconds") or 0.0
        return self.stats.get("bytecodes", 0) / s if s else 0.0

    @property
    def events_per_second(self) -> float:
        """Breakpoint events (one per executed block) per second of the debugged run."""
        s = self.stats.get("seconds") or 0.0
        return self.stats.get("blockEvents", 0) / s if s else 0.0


def _cache_root() -> Path:
    return cache_root("jprewrite")


@cache
def oracle_classes() -> Path:
    """The compiled CctOracle (compiled on first use; safe with concurrent test workers)."""
    h = hashlib.sha256(SOURCE.read_bytes())
    h.update(str(java_home().resolve()).encode())
    out = _cache_root() / f"oracle-{h.hexdigest()[:16]}"
    if (out / "CctOracle.class").exists():
        return out
    tmp = Path(tempfile.mkdtemp(prefix=".oracle-build-", dir=out.parent))
    try:
        r = subprocess.run(
            [
                str(java_home() / "bin" / "javac"),
                "-nowarn",
                "-encoding",
                "UTF-8",
                "--add-modules",
                "jdk.jdi",
                "-d",
                str(tmp),
                str(SOURCE),
            ],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise OracleError(f"javac failed on {SOURCE}:\n{r.stdout}{r.stderr}")
        try:
            os.rename(tmp, out)  # atomic; loses harmlessly to a concurrent worker
        except OSError:
            if not (out / "CctOracle.class").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def run_oracle(
    classpath: Sequence[Path | str],
    main: str,
    args: Iterable[str] = (),
    app_patterns: Iterable[str] = ("com.example.",),
    count_bytecodes: bool = True,
    timeout: float = 120,
    jvm_args: Iterable[str] = (),
    *,
    strict: bool = True,
    granularity: str = "block",
    breakpoint_budget: int | None = None,
    trace: bool = False,
) -> OracleResult:
    """Run ``main`` from ``classpath`` under the debugger and return its exact CCT.

    ``app_patterns``: the classes the rewriter instruments: "com.acme." / "com.acme.*" (prefix)
    or an exact binary class name (hidden classes such as lambda proxies never are). ``jvm_args``
    go to the program's JVM (e.g. ``-Xss64m`` for deep recursion). With ``count_bytecodes``
    False every bytecode count is 0. With ``strict`` (the default) an event stream the oracle
    could not follow exactly (its warnings) raises OracleError instead of returning a doubtful
    profile. ``granularity="instruction"`` (one breakpoint per instruction instead of per
    block) and ``breakpoint_budget`` (live block breakpoints before methods are evicted; 0 for
    no limit) exist to cross-check the oracle itself; with ``trace`` the oracle logs every event
    (``OracleResult.log``, or in the OracleError).
    """
    if isinstance(classpath, (str, Path)):
        raise TypeError("classpath must be a list of paths")
    patterns = list(app_patterns)
    if not patterns:
        raise ValueError("app_patterns is empty")
    classes = oracle_classes()
    work = Path(tempfile.mkdtemp(prefix="jprewrite-oracle-"))
    try:
        out, so, se = work / "profile.json", work / "stdout", work / "stderr"
        cmd = [
            str(java_home() / "bin" / "java"),
            "--add-modules",
            "jdk.jdi",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xshare:auto",
            "-cp",
            str(classes),
            "CctOracle",
            "--out",
            str(out),
            "--stdout",
            str(so),
            "--stderr",
            str(se),
            "--java",
            str(java_home() / "bin" / "java"),
        ]
        for p in patterns:
            cmd += ["--app", p]
        if not count_bytecodes:
            cmd.append("--no-bytecodes")
        if granularity not in ("block", "instruction"):
            raise ValueError("granularity must be 'block' or 'instruction'")
        cmd += ["--granularity", granularity]
        if breakpoint_budget is not None:
            cmd += ["--breakpoint-budget", str(int(breakpoint_budget))]
        if trace:
            cmd.append("--trace")
        for a in jvm_args:
            cmd += ["--jvm-arg", str(a)]
        cmd += ["--cp", os.pathsep.join(str(Path(p).resolve()) for p in classpath), main, *map(str, args)]
        # own session: on timeout the whole group (oracle + debuggee) is killed
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            o_out, o_err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.communicate()
            raise OracleError(f"oracle timed out after {timeout}s running {main}") from None
        if proc.returncode != 0 or not out.exists():
            raise OracleError(f"oracle failed (exit {proc.returncode}) running {main}:\n{o_out}{o_err}")
        data = load_json(out.read_text(encoding="utf-8"))
        stdout = so.read_bytes().decode("utf-8", errors="replace")
        stderr = se.read_bytes().decode("utf-8", errors="replace")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    meta = data.pop("oracle", {})
    warnings = list(meta.pop("warnings", []))
    returncode = int(meta.pop("exitCode", -1))
    if strict and warnings:
        raise OracleError(f"oracle could not follow {main} exactly:\n  " + "\n  ".join(warnings[:20]))
    return OracleResult(data, stdout, stderr, returncode, meta, warnings, o_err)


# ------------------------------------------------------------------------------ helpers
def load_json(text: str):
    """json.loads for profiles of deep recursion: the decoder recurses once per tree level, so it
    runs on a thread with a large stack and a raised recursion limit."""
    if text.count("{") < 500:
        return json.loads(text)
    result: list = []
    error: list = []

    def work() -> None:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * text.count("{") + 1000))
        try:
            result.append(json.loads(text))
        except BaseException as e:  # re-raised in the caller
            error.append(e)
        finally:
            sys.setrecursionlimit(limit)

    old = threading.stack_size()
    threading.stack_size(1 << 30)
    try:
        t = threading.Thread(target=work, name="oracle-json")
        t.start()
    finally:
        threading.stack_size(old)
    t.join()
    if error:
        raise error[0]
    return result[0]


def _tree(profile: dict, key: str) -> dict:
    if key == "root":
        return profile["root"]
    for t in profile.get("threads", ()):
        if t.get("name") == key:
            return t["root"]
    raise KeyError(f"no thread named {key!r} (threads: {[t.get('name') for t in profile.get('threads', ())]})")


def paths(profile: dict, key: str = "root") -> dict[tuple[str, ...], tuple[int, int]]:
    """{method path (root excluded): (calls, bytecodes)} of the merged tree (``key="root"``) or
    of the first thread named ``key``. Nodes with the same path (which only differ by kind) add up."""
    out: dict[tuple[str, ...], tuple[int, int]] = {}
    stack = [((), _tree(profile, key))]
    while stack:
        prefix, node = stack.pop()
        for child in node.get("children", ()):
            p = prefix + (child["method"],)
            calls, bc = out.get(p, (0, 0))
            out[p] = (calls + child["calls"], bc + child["bytecodes"])
            stack.append((p, child))
    return out


def node_at(profile: dict, path: Sequence[str], key: str = "root") -> dict | None:
    """The node at ``path`` (methods below the root) of the merged tree or of thread ``key``;
    None when there is none. With two nodes of one method (kinds differ) the first is returned."""
    node = _tree(profile, key)
    for m in path:
        node = next((c for c in node.get("children", ()) if c["method"] == m), None)
        if node is None:
            return None
    return node


def _flat(root: dict) -> dict[tuple[str, ...], tuple[int, int, str | None]]:
    out: dict[tuple[str, ...], tuple[int, int, str | None]] = {}
    stack = [((), root)]
    while stack:
        prefix, node = stack.pop()
        for child in node.get("children", ()):
            p = prefix + (child["method"],)
            calls, bc, kind = out.get(p, (0, 0, child.get("kind")))
            if kind != child.get("kind"):
                kind = f"{kind}+{child.get('kind')}"
            out[p] = (calls + child["calls"], bc + child["bytecodes"], kind)
            stack.append((p, child))
    return out


def _merged_by_thread_name(profile: dict) -> dict[str, dict]:
    merged: dict[str, dict] = {}
    for t in profile.get("threads", ()):
        m = merged.setdefault(t.get("name"), {"method": "<root>", "children": []})
        m["children"].extend(t["root"].get("children", ()))
    return merged


def _show(path: tuple[str, ...]) -> str:
    return " > ".join(path) if path else "<root>"


def _diff_trees(expected: dict, actual: dict, where: str, limit: int) -> list[str]:
    e, a = _flat(expected), _flat(actual)
    out = []
    for p in sorted(e.keys() | a.keys()):
        if p not in a:
            out.append(f"{where}missing: {_show(p)} (expected calls={e[p][0]} bytecodes={e[p][1]})")
        elif p not in e:
            out.append(f"{where}unexpected: {_show(p)} (calls={a[p][0]} bytecodes={a[p][1]})")
        else:
            (ec, eb, ek), (ac, ab, ak) = e[p], a[p]
            bits = []
            if ec != ac:
                bits.append(f"calls {ac} != expected {ec}")
            if eb != ab:
                bits.append(f"bytecodes {ab} != expected {eb}")
            if ek != ak:
                bits.append(f"kind {ak!r} != expected {ek!r}")
            if bits:
                out.append(f"{where}{_show(p)}: " + ", ".join(bits))
        if len(out) >= limit:
            out.append("... (more differences left out)")
            break
    return out


def diff_profiles(expected: dict, actual: dict, *, threads: bool = False, limit: int = 200) -> list[str]:
    """Human-readable differences between two profiles (empty when equal): every method path of
    the merged trees with its calls, bytecodes and kind. With ``threads``, the trees of threads of
    the same name (merged when several threads share a name) are compared as well."""
    out = _diff_trees(expected["root"], actual["root"], "", limit)
    if threads:
        e, a = _merged_by_thread_name(expected), _merged_by_thread_name(actual)
        for name in sorted(e.keys() | a.keys(), key=str):
            if name not in a:
                out.append(f"thread {name!r}: missing")
            elif name not in e:
                out.append(f"thread {name!r}: unexpected")
            else:
                out += _diff_trees(e[name], a[name], f"thread {name!r}: ", limit)
    return out
