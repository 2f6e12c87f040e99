"""The JUnit jar: bytecode budgets and baselines for JUnit tests, built from ``runtime-java/`` on first use.

``jprewrite junit-path`` prints its path. It holds the Java runtime (so tests compile against
``jprewrite.runtime.Measure`` and, without jprewrite enabled, fail with a one-line
``IllegalStateException`` rather than ``NoClassDefFoundError``) and ``jprewrite.junit``: the
annotations ``@BytecodeBudget`` and ``@BytecodeBaseline``, the JUnit 5 ``BytecodeExtension``
(also registered for JUnit's automatic detection) and the JUnit 4 ``BytecodeRule``.

It is compiled against the JUnit jars Debian's ``junit5`` package installs (``/usr/share/java``),
or those listed in ``JPREWRITE_JUNIT_CLASSPATH``; only the API is needed at compile time, and the
bytecode level (``--release 8``) is JUnit 5's own minimum. Like the agent jar it is cached under
a digest of its sources and of the compile class path, so an edited source gets a new jar and an
unchanged one is never compiled twice; concurrent builders each write a private temporary file and
rename it into place.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import threading
import zipfile
from pathlib import Path

from ..analysis.hierarchy import default_cache_directory
from ..archive.jdk_image import find_java_home
from ..errors import JprewriteError
from .java_sources import java_source_root
from .runtime_build import runtime_classes, runtime_source_dir

__all__ = ["JUNIT_RELEASE", "junit_jar", "junit_compile_classpath", "junit_source_dir"]

#: Bytecode level of the JUnit jar (JUnit 5 runs on Java 8).
JUNIT_RELEASE = "8"
#: The jars of Debian's junit5 (and junit4) packages that the sources compile against.
DEBIAN_JARS = (
    "junit-jupiter-api.jar",
    "junit-platform-commons.jar",
    "apiguardian-api.jar",
    "opentest4j.jar",
    "junit4.jar",
)
_DEBIAN_DIR = Path("/usr/share/java")
#: The one source that needs JUnit 4 (left out when no JUnit 4 jar is on the compile class path).
_JUNIT4_SOURCE = "jprewrite/junit/BytecodeRule.java"

_lock = threading.Lock()


def junit_source_dir() -> Path:
    """``runtime-java/junit`` or its installed copy (``JPREWRITE_JUNIT_SOURCES`` overrides it)."""
    override = os.environ.get("JPREWRITE_JUNIT_SOURCES")
    if override:
        return Path(override)
    return java_source_root() / "junit"


def junit_compile_classpath() -> list[Path]:
    """The JUnit jars to compile against: ``JPREWRITE_JUNIT_CLASSPATH``, else Debian's.

    Raises :class:`JprewriteError` (one line) when the JUnit 5 API is not among them.
    """
    listed = os.environ.get("JPREWRITE_JUNIT_CLASSPATH")
    if listed:
        jars = [Path(p) for p in listed.split(os.pathsep) if p]
        missing = [str(j) for j in jars if not j.is_file()]
        if missing:
            raise JprewriteError(f"JPREWRITE_JUNIT_CLASSPATH lists jars that do not exist: {', '.join(missing)}")
    else:
        jars = [_DEBIAN_DIR / name for name in DEBIAN_JARS if (_DEBIAN_DIR / name).is_file()]
    if not any(_has_entry(j, "org/junit/jupiter/api/extension/InvocationInterceptor.class") for j in jars):
        raise JprewriteError(
            "the JUnit 5 API (junit-jupiter-api.jar, 5.5 or later) was not found: install "
            "Debian's junit5 package (apt-get install junit5) or list the JUnit jars in "
            "JPREWRITE_JUNIT_CLASSPATH"
        )
    return jars


def junit_jar() -> Path:
    """The path of the JUnit jar for this checkout, building it on first use."""
    classpath = junit_compile_classpath()
    sources = _files(junit_source_dir())
    digest = _digest(sources, classpath)
    cache = default_cache_directory()
    if cache is None:
        raise JprewriteError("no cache directory for the JUnit jar: set XDG_CACHE_HOME or HOME")
    path = cache / f"junit-{digest}.jar"
    with _lock:
        if not path.is_file():
            _build(path, sources, classpath)
    return path


def _files(root: Path) -> list[Path]:
    files = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    if not any(p.suffix == ".java" for p in files):
        raise JprewriteError(f"no JUnit integration sources under {root}")
    return files


def _digest(sources: list[Path], classpath: list[Path]) -> str:
    """16 hex digits over the release, the runtime's and our sources, and the compile class path."""
    h = hashlib.sha256(f"junit-release={JUNIT_RELEASE}\0".encode())
    rt = runtime_source_dir()
    for root, files in ((rt, sorted(rt.rglob("*.java"))), (junit_source_dir(), sources)):
        for p in files:
            data = p.read_bytes()
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    for jar in classpath:
        h.update(f"{jar.resolve()}\0{jar.stat().st_size}\0".encode())
    return h.hexdigest()[:16]


def _has_entry(jar: Path, name: str) -> bool:
    try:
        with zipfile.ZipFile(jar) as z:
            return name in z.NameToInfo
    except (OSError, zipfile.BadZipFile):
        return False


def _build(path: Path, sources: list[Path], classpath: list[Path]) -> None:
    """Compile against the runtime and JUnit, then write the jar through a temporary file."""
    root = junit_source_dir()
    java = [p for p in sources if p.suffix == ".java"]
    if not any(_has_entry(j, "org/junit/rules/TestRule.class") for j in classpath):
        java = [p for p in java if p.relative_to(root).as_posix() != _JUNIT4_SOURCE]
    runtime = runtime_classes()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".junit-build-", dir=path.parent) as tmp:
        rt_dir, out_dir = Path(tmp, "runtime"), Path(tmp, "classes")
        for name, data in runtime.items():
            (rt_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (rt_dir / name).write_bytes(data)
        out_dir.mkdir()
        _javac(
            [
                str(find_java_home() / "bin" / "javac"),
                "--release",
                JUNIT_RELEASE,
                "-g",
                "-nowarn",
                "-encoding",
                "UTF-8",
                "-implicit:none",
                "-cp",
                os.pathsep.join([str(rt_dir), *map(str, classpath)]),
                "-d",
                str(out_dir),
                *map(str, java),
            ]
        )
        entries = dict(runtime)
        entries.update({p.relative_to(out_dir).as_posix(): p.read_bytes() for p in sorted(out_dir.rglob("*.class"))})
        entries.update({p.relative_to(root).as_posix(): p.read_bytes() for p in sources if p.suffix != ".java"})
        manifest = "Manifest-Version: 1.0\r\nImplementation-Title: jprewrite JUnit integration\r\n\r\n"
        partial = Path(tmp, "junit.jar")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", manifest)
            for name in sorted(entries):
                jar.writestr(name, entries[name])
        os.replace(partial, path)


def _javac(cmd: list[str]) -> None:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except OSError as e:
        raise JprewriteError(f"cannot run {cmd[0]}: {e.strerror or e}") from e
    if proc.returncode != 0:
        first = next(
            (
                line.strip()
                for line in (proc.stderr or proc.stdout).splitlines()
                if line.strip() and not line.startswith(("Note:", "warning:"))
            ),
            "no message",
        )
        raise JprewriteError(f"javac failed to compile the JUnit integration: {first}")
