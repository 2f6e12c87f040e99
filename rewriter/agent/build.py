"""The ``-javaagent`` jar: the Java runtime and the agent, compiled from ``runtime-java/`` and cached.

The jar's identity (its *build id*) is a digest of everything that decides what a rewritten class
looks like: the Python rewriter's sources, the runtime's and the agent's. The agent puts it in the
key of its class cache, so editing the rewriter never serves stale classes. The jar also records
the interpreter that built it: the agent starts its worker with that Python unless told otherwise.

The agent is compiled with ``--release 11`` (it uses ``Instrumentation.redefineModule``); the
runtime inside stays at ``--release 8`` like the copy embedded in offline-rewritten jars.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

from ..errors import JprewriteError
from ..rewrite.java_sources import java_source_root
from ..rewrite.runtime_build import cache_root, find_javac, first_error_line, runtime_classes, runtime_source_dir

AGENT_RELEASE = "11"
PREMAIN_CLASS = "jprewrite.agent.Agent"
PROPERTIES = "jprewrite/agent/build.properties"

_lock = threading.Lock()


def agent_source_dir() -> Path:
    """``runtime-java/agent``, or its copy in an installed package (``JPREWRITE_AGENT_SOURCES`` overrides it)."""
    override = os.environ.get("JPREWRITE_AGENT_SOURCES")
    if override:
        return Path(override)
    return java_source_root() / "agent"


def _python_sources() -> list[Path]:
    root = Path(__file__).resolve().parents[1]  # the jprewrite package
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def build_id() -> str:
    """24 hex digits over the rewriter's, the runtime's and the agent's sources."""
    h = hashlib.sha256(f"agent-release={AGENT_RELEASE}\0".encode())
    roots = [
        (Path(__file__).resolve().parents[1], _python_sources()),
        (runtime_source_dir(), sorted(runtime_source_dir().rglob("*.java"))),
        (agent_source_dir(), sorted(agent_source_dir().rglob("*.java"))),
    ]
    for root, files in roots:
        for p in files:
            h.update(p.relative_to(root).as_posix().encode() + b"\0")
            data = p.read_bytes()
            h.update(len(data).to_bytes(8, "big"))
            h.update(data)
    return h.hexdigest()[:24]


def agent_jar() -> Path:
    """The path of the agent jar for this checkout and this Python, building it on first use."""
    ident = build_id()
    python = sys.executable or "python3"
    tag = hashlib.sha256(python.encode()).hexdigest()[:8]
    path = cache_root() / f"agent-{ident}-{tag}.jar"
    with _lock:
        if not path.is_file():
            _build(path, ident, python)
    return path


def _build(path: Path, ident: str, python: str) -> None:
    sources = sorted(agent_source_dir().rglob("*.java"))
    if not sources:
        raise JprewriteError(f"no agent sources under {agent_source_dir()}")
    runtime = runtime_classes()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".agent-build-", dir=path.parent) as tmp:
        rt_dir, out_dir = Path(tmp, "runtime"), Path(tmp, "classes")
        for name, data in runtime.items():
            target = rt_dir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        out_dir.mkdir()
        cmd = [
            find_javac(),
            "--release",
            AGENT_RELEASE,
            "-g",
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-implicit:none",
            "-cp",
            str(rt_dir),
            "-d",
            str(out_dir),
            *map(str, sources),
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        except OSError as e:
            raise JprewriteError(f"cannot run javac: {e.strerror or e}") from e
        if proc.returncode != 0:
            raise JprewriteError(f"javac failed to compile the agent: {first_error_line(proc.stderr or proc.stdout)}")
        entries = dict(runtime)
        entries.update({p.relative_to(out_dir).as_posix(): p.read_bytes() for p in sorted(out_dir.rglob("*.class"))})
        props = f"build={ident}\npython={_escape(python)}\n"
        manifest = (
            "Manifest-Version: 1.0\r\n"
            f"Premain-Class: {PREMAIN_CLASS}\r\n"
            # on the boot class path from the start: appending it at run time would make
            # HotSpot warn that class sharing is limited to boot classes
            f"Boot-Class-Path: {path.name}\r\n"
            "Can-Redefine-Classes: false\r\n"
            "Can-Retransform-Classes: false\r\n"
            f"Implementation-Title: jprewrite agent {ident}\r\n\r\n"
        )
        partial = Path(tmp, "agent.jar")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", manifest)
            jar.writestr(PROPERTIES, props)
            for name in sorted(entries):
                jar.writestr(name, entries[name])
        os.replace(partial, path)


def _escape(value: str) -> str:
    """java.util.Properties escaping for a value (backslashes, and ':'/'=' are harmless in values)."""
    return value.replace("\\", "\\\\")
