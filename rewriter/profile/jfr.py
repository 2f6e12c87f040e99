"""JDK Flight Recorder recordings as jprewrite profiles: the reference users already have.

A recording's ``jdk.ExecutionSample`` events (a thread and its stack, every sampling period)
become a *sampled* calling-context tree, Whaley's PCCT: one context per distinct stack path,
``samples`` on the context that was innermost, one tree per thread name and their merge as
the root. Then ``report``, ``flamegraph``, ``export``, ``diff`` and ``compare`` work on it as on
any profile jprewrite wrote.

The binary format is not read here: the JDK's own ``jfr`` tool (``jfr print --json``), a
maintained parser of every recording version its JDK can read, prints the events, and this
module decodes that text event by event as it streams from the tool's pipe, so a large
recording costs the tree, not its JSON (about 1.8 KB per frame, mostly the class loader of
every frame's class, printed again for each frame).

Frames are named as the runtime names methods, ``<binary class name>.<name><descriptor>``
(JFR gives the internal class name, the method name and its descriptor). Frames of JDK
modules get kind ``jdk``, native frames kind ``native``. *Hidden* frames, those JFR marks
``hidden`` (lambda proxy classes, ``LambdaForm``, method-handle adapters: code the JVM
generates, which the runtime's own profiles never show and whose names change between runs)
are dropped by default, their callees attached to their callers. A stack that JFR cut at its
depth limit (``truncated``; 64 frames unless the recording set
``-XX:FlightRecorderOptions:stackdepth=N``) lacks its outermost frames: it is kept, under a
``<truncated>`` context of the root, so the contexts it would otherwise fake at the top level
do not exist.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import IO

from ..errors import JprewriteError
from .model import KIND_APP, KIND_JDK, KIND_NATIVE, Frames, Profile
from .ops import ROOT_NAME, TreeBuilder, merge_trees

__all__ = ["EVENT", "TRUNCATED", "JfrStats", "find_jfr_tool", "jfr_events", "import_jfr"]

EVENT = "jdk.ExecutionSample"
TRUNCATED = "<truncated>"
_STACK_DEPTH = 65536  # jfr print cuts stacks at 5 frames unless told; recordings keep at most 2048
_CHUNK = 1 << 20  # characters read from the tool at a time
_JDK_MODULES = ("java.", "jdk.")


def find_jfr_tool(java_home: str | None = None) -> str:
    """The ``jfr`` executable: in ``$JAVA_HOME/bin``, next to the ``java`` on PATH (links resolved:
    Debian's ``/usr/bin/java`` is a link into the JDK), or on PATH itself."""
    home = java_home if java_home is not None else os.environ.get("JAVA_HOME")
    candidates = []
    if home:
        candidates.append(os.path.join(home, "bin", "jfr"))
    java = shutil.which("java")
    if java:
        candidates.append(os.path.join(os.path.dirname(os.path.realpath(java)), "jfr"))
    on_path = shutil.which("jfr")
    if on_path:
        candidates.append(on_path)
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise JprewriteError(
        "cannot find the JDK's jfr tool (looked in $JAVA_HOME/bin, next to java on PATH "
        "and on PATH): install a JDK 11 or later, or set JAVA_HOME"
    )


def _events(stream: IO[str], path: str) -> Iterator[dict]:
    """The objects of ``{"recording": {"events": [...]}}`` one at a time, as the text arrives."""
    dec = json.JSONDecoder()
    buf = ""
    while True:  # the text before the array: a few lines
        more = stream.read(_CHUNK)
        buf += more
        start = buf.find('"events"')
        if start >= 0 and buf.find("[", start) >= 0:
            pos = buf.find("[", start) + 1
            break
        if not more:
            raise JprewriteError("jfr print wrote no list of events", path=path)
    eof = False
    while True:
        while pos < len(buf) and buf[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(buf) or buf[pos] == "{":
            try:
                if pos >= len(buf):
                    raise ValueError
                event, pos = dec.raw_decode(buf, pos)
            except ValueError:  # the event goes on past the text read so far
                if eof:
                    raise JprewriteError("jfr print's output ends within an event", path=path) from None
                more = stream.read(max(_CHUNK, len(buf) - pos))
                eof = not more
                buf, pos = buf[pos:] + more, 0
                continue
            if isinstance(event, dict):
                yield event
            if pos > _CHUNK:
                buf, pos = buf[pos:], 0
            continue
        if buf[pos] == "]":
            return
        raise JprewriteError(f"unexpected text in jfr print's output: {buf[pos : pos + 40]!r}", path=path)


def jfr_events(path: str, *, tool: str | None = None, event: str = EVENT) -> Iterator[dict]:
    """The ``event`` events of a recording, decoded from ``jfr print --json`` as it prints them.

    One error line when the tool is missing or the file is not a recording (the tool's own words).
    """
    if not os.path.isfile(path):
        raise JprewriteError("cannot read: no such file", path=path)
    exe = tool or find_jfr_tool()
    # C1 only: the tool runs for seconds, formatting JSON; C2 compiling it costs more than it gains
    cmd = [
        exe,
        "-J-XX:+IgnoreUnrecognizedVMOptions",
        "-J-XX:TieredStopAtLevel=1",
        "-J-Dfile.encoding=UTF-8",
        "-J-Dsun.stdout.encoding=UTF-8",
        "-J-Dstdout.encoding=UTF-8",
        "print",
        "--json",
        "--stack-depth",
        str(_STACK_DEPTH),
        "--events",
        event,
        path,
    ]
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
        except OSError as e:
            raise JprewriteError(f"cannot run {exe}: {e.strerror or e}", path=path) from None
        assert proc.stdout is not None
        text = open(proc.stdout.fileno(), encoding="utf-8", errors="replace", closefd=False)
        finished = False
        try:
            try:
                yield from _events(text, path)
            except JprewriteError:
                if proc.wait() != 0:  # the tool failed: its message says why, not the half-read text
                    raise _tool_error(err, path, proc.returncode) from None
                raise
            finished = True
        finally:
            if not finished and proc.poll() is None:
                proc.kill()
            text.close()
            proc.stdout.close()
            code = proc.wait()
        if code != 0:
            raise _tool_error(err, path, code)


def _tool_error(err: IO[bytes], path: str, code: int) -> JprewriteError:
    err.seek(0)
    lines = [ln.strip() for ln in err.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    msg = lines[-1] if lines else f"exit status {code}"
    for prefix in ("jfr print: ", "jfr: "):
        msg = msg.removeprefix(prefix)
    msg = msg.replace(f" at {os.path.abspath(path)}", "").replace(f" {os.path.abspath(path)}", "")
    return JprewriteError(f"jfr print failed: {msg}", path=path)


@dataclass
class JfrStats:
    """What an import met: samples, threads, frames dropped as hidden, stacks JFR truncated."""

    samples: int = 0
    hidden_frames: int = 0
    truncated: int = 0
    threads: list[str] = field(default_factory=list)
    median_gap_ns: int | None = None

    def header(self, source: str) -> dict:
        """The profile's ``sampling`` object."""
        out: dict = {
            "sampler": "jfr",
            "source": os.path.basename(source),
            "samples": self.samples,
            "threads": len(self.threads),
            "hidden_frames_dropped": self.hidden_frames,
            "truncated": self.truncated,
        }
        if self.median_gap_ns is not None:
            out["median_gap_ns"] = self.median_gap_ns
        return out


def _time_ns(stamp: object) -> int | None:
    """``2026-11-24T04:37:05.115365030Z`` as nanoseconds (for gaps between samples); None if unreadable."""
    if not isinstance(stamp, str) or len(stamp) < 20 or stamp[10] != "T":
        return None
    try:
        days = date.fromisoformat(stamp[:10]).toordinal()
        hh, mm, rest = stamp[11:13], stamp[14:16], stamp[17:].rstrip("Z")
        sec, _, frac = rest.partition(".")
        seconds = ((days * 24 + int(hh)) * 60 + int(mm)) * 60 + int(sec)
        return seconds * 1_000_000_000 + int((frac + "000000000")[:9])
    except ValueError:
        return None


class _Naming:
    """JFR frames to frame numbers (-1: a hidden frame, dropped), each distinct method converted once."""

    def __init__(self, frames: Frames, drop_hidden: bool) -> None:
        self.frames = frames
        self.drop_hidden = drop_hidden
        self.cache: dict[tuple, int] = {}

    def frame(self, f: dict) -> int:
        m = f.get("method") or {}
        t = m.get("type") or {}
        key = (t.get("name"), m.get("name"), m.get("descriptor"), f.get("type") == "Native")
        hit = self.cache.get(key)
        if hit is None:
            hit = self.cache[key] = self._convert(m, t, key[3])
        return hit

    def _convert(self, m: dict, t: dict, native: bool) -> int:
        internal = str(t.get("name") or "?")
        hidden = bool(m.get("hidden") or t.get("hidden"))
        if hidden and self.drop_hidden:
            return -1
        if hidden and "/" in internal:  # a hidden class's name ends in "/<suffix>": keep that slash
            head, _, suffix = internal.rpartition("/")
            cls = head.replace("/", ".") + "/" + suffix
        else:
            cls = internal.replace("/", ".")
        pkg = t.get("package") or {}
        module = str(((pkg.get("module") or {}) if isinstance(pkg, dict) else {}).get("name") or "")
        kind = KIND_NATIVE if native else KIND_JDK if module.startswith(_JDK_MODULES) else KIND_APP
        name = f"{cls}.{m.get('name') or '?'}{m.get('descriptor') or ''}"
        return self.frames.intern(name, kind)


def import_jfr(path: str, *, drop_hidden: bool = True, tool: str | None = None) -> tuple[Profile, JfrStats]:
    """The recording's execution samples as a profile (not written; see :mod:`.writer`)."""
    frames = Frames()
    naming = _Naming(frames, drop_hidden)
    frames.intern(ROOT_NAME)  # frame 0, as in every profile read from a file
    cut = -1
    builders: dict[str, TreeBuilder] = {}
    last: dict[str, int] = {}
    gaps = array("q")
    stats = JfrStats()
    for ev in jfr_events(path, tool=tool):
        if ev.get("type") not in (EVENT, None):
            continue
        v = ev.get("values") or {}
        th = v.get("sampledThread") or {}
        thread = str(th.get("javaName") or th.get("osName") or "<unknown>") if isinstance(th, dict) else "<unknown>"
        b = builders.get(thread)
        if b is None:
            b = builders[thread] = TreeBuilder(frames, ("calls", "bytecodes", "samples"))
            stats.threads.append(thread)
        st = v.get("stackTrace") or {}
        row = 0
        if st.get("truncated"):
            stats.truncated += 1
            if cut < 0:
                cut = frames.intern(TRUNCATED)
            row = b.child(0, cut)
        for f in reversed(st.get("frames") or ()):  # JFR lists the innermost frame first
            fr = naming.frame(f)
            if fr < 0:
                stats.hidden_frames += 1
                continue
            row = b.child(row, fr)
        b.values["samples"][row] += 1
        stats.samples += 1
        t = _time_ns(v.get("startTime"))
        if t is not None:
            prev = last.get(thread)
            if prev is not None and t > prev:
                gaps.append(t - prev)
            last[thread] = t
    if not stats.samples:
        raise JprewriteError(
            f"the recording has no {EVENT} events (record with settings=profile, or {EVENT}#enabled=true)", path=path
        )
    if gaps:
        stats.median_gap_ns = sorted(gaps)[len(gaps) // 2]
    threads = [(name, builders[name].build()) for name in stats.threads]
    merged = merge_trees([t for _, t in threads], frames)
    profile = Profile(
        frames, merged, threads, header={"sampling": stats.header(path)}, source=path, thread_names=list(stats.threads)
    )
    return profile, stats
