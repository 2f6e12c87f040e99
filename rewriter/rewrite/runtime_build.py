"""The Java runtime that rewritten classes call, compiled from its sources on first use.

Rewritten jars embed the runtime (``jprewrite/runtime/*.class``) so that ``java -cp out.jar``
just works. We ship the Java *sources* rather than prebuilt class files: they stay reviewable in
the repository, and the JDK that is needed anyway to run the result builds them. Compiling takes
a second or two, so the classes are cached per content hash of the sources in
``$XDG_CACHE_HOME/jprewrite/runtime-<hash>/`` (``~/.cache`` by default): an edited source gets a
new directory, an unchanged one is never compiled twice.

``javac --release 8`` makes class files (version 52) that load into programs of any class version
from Java 8 on; ``-g`` keeps line numbers and locals so a stack trace through the runtime is
readable.

Several processes may build at once (pytest-xdist workers, parallel builds): each compiles into
its own temporary directory next to the cache entry and renames it into place. Whoever renames
first wins; the others discard their copy. A rename of a directory is atomic, so an entry that
exists is complete.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from ..analysis.hierarchy import default_cache_directory
from ..errors import JprewriteError
from .java_sources import java_source_root

#: Package of the runtime, as a jar-entry prefix.
RUNTIME_PACKAGE = "jprewrite/runtime/"
#: Bytecode level of the runtime: old enough for every program we may rewrite.
RELEASE = "8"

_lock = threading.Lock()
_memo: dict[str, dict[str, bytes]] = {}


def runtime_source_dir() -> Path:
    """The source root of the runtime (contains ``jprewrite/runtime/*.java``).

    ``JPREWRITE_RUNTIME_SOURCES`` overrides it (tests of a modified runtime); otherwise ``src`` of
    :func:`~jprewrite.rewrite.java_sources.java_source_root` (the checkout's ``runtime-java/src``, or the
    copy inside an installed package).
    """
    override = os.environ.get("JPREWRITE_RUNTIME_SOURCES")
    if override:
        return Path(override)
    return java_source_root() / "src"


def runtime_classes() -> dict[str, bytes]:
    """Jar entry name (``jprewrite/runtime/Node.class``...) -> class bytes of the compiled runtime.

    Raises :class:`JprewriteError` (one line) when the sources are missing, javac is not found or
    the sources do not compile.
    """
    src = runtime_source_dir()
    sources = _sources(src)
    digest = _digest(src, sources)
    with _lock:
        cached = _memo.get(digest)
        if cached is not None:
            return dict(cached)
        entry = cache_root() / f"runtime-{digest}"
        if not _complete(entry):
            _build(src, sources, entry)
        classes = _read_classes(entry)
        if not classes:
            raise JprewriteError(f"the runtime cache {entry} holds no class files; delete it and retry")
        _memo[digest] = classes
        return dict(classes)


def _sources(src: Path) -> list[Path]:
    files = sorted(p for p in src.rglob("*.java") if p.is_file())
    if not files:
        raise JprewriteError(f"no Java runtime sources under {src}")
    return files


def _digest(src: Path, sources: list[Path]) -> str:
    """16 hex digits of SHA-256 over the release level and every source (path and content)."""
    h = hashlib.sha256()
    h.update(f"release={RELEASE}\0".encode())
    for p in sources:
        h.update(p.relative_to(src).as_posix().encode("utf-8") + b"\0")
        data = p.read_bytes()
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()[:16]


def cache_root() -> Path:
    """The project's cache directory (shared with the hierarchy's JDK summaries)."""
    root = default_cache_directory()
    if root is None:  # no home directory to use
        raise JprewriteError("no cache directory for the compiled runtime: set XDG_CACHE_HOME or HOME")
    return root


def _complete(entry: Path) -> bool:
    return (entry / ".complete").is_file()


def find_javac() -> str:
    """javac of ``JAVA_HOME`` if set and present, else the one on ``PATH``."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / ("javac.exe" if os.name == "nt" else "javac")
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("javac")
    if found is None:
        raise JprewriteError(
            "javac not found (set JAVA_HOME or put a JDK 9+ on PATH): it is needed to build the jprewrite runtime"
        )
    return found


def _build(src: Path, sources: list[Path], entry: Path) -> None:
    """Compile into a private temporary directory, then rename it to ``entry`` (first one wins)."""
    javac = find_javac()
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{entry.name}.", dir=entry.parent))
    except OSError as e:
        raise JprewriteError(f"cannot create the runtime cache in {entry.parent}: {e.strerror or e}") from e
    try:
        cmd = [
            javac,
            "--release",
            RELEASE,
            "-g",
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-implicit:none",
            "-d",
            str(tmp),
            *map(str, sources),
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        except OSError as e:
            raise JprewriteError(f"cannot run {javac}: {e.strerror or e}") from e
        if proc.returncode != 0:
            detail = first_error_line(proc.stderr or proc.stdout)
            raise JprewriteError(f"javac failed to compile the runtime ({src}): {detail}")
        (tmp / ".complete").write_text("ok\n")
        try:
            os.rename(tmp, entry)
        except OSError:
            if not _complete(entry):
                # not a lost race but a damaged entry (files deleted by hand): replace it
                shutil.rmtree(entry, ignore_errors=True)
                try:
                    os.rename(tmp, entry)
                except OSError as e:
                    if not _complete(entry):
                        raise JprewriteError(f"cannot store the runtime in {entry}: {e.strerror or e}") from e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def first_error_line(output: str) -> str:
    """The first meaningful line of javac's output, so the error fits on one line."""
    for line in output.splitlines():
        line = line.strip()
        if line and not line.startswith(("Note:", "warning:")):
            return line
    return "exit status without a message"


def _read_classes(entry: Path) -> dict[str, bytes]:
    return {p.relative_to(entry).as_posix(): p.read_bytes() for p in sorted(entry.rglob("*.class")) if p.is_file()}
