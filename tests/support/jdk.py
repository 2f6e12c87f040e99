"""Find and drive the real JDK tools (javac, java, javap, jar) the tests run."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

#: JVM options every program run of the tests starts with (a test's own options come after them and
#: win): the C1 compiler only and the serial collector. The programs run a few seconds at most, and
#: the C2 compiler's threads are most of their CPU (measured on the shared workloads: xalan 5.3 s ->
#: 2.5 s, h2 9.2 s -> 4.9 s CPU); what the tests check (output, exact profiles) does not depend on it.
TEST_JVM = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


def with_test_jvm(own: tuple[str, ...] | list[str]) -> list[str]:
    """``TEST_JVM`` then a test's ``own`` options; the collector only where ``own`` picks none (HotSpot
    refuses to start with two)."""
    picks_gc = any(o.startswith("-XX:+Use") and o.endswith("GC") for o in own)
    return [o for o in TEST_JVM if not (picks_gc and o.endswith("GC"))] + list(own)


def java_home() -> Path:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "javac").exists():
        return Path(home)
    javac = shutil.which("javac")
    if javac is None:
        raise RuntimeError("javac not found: the test suite needs a JDK 17+")
    return Path(os.path.realpath(javac)).parent.parent


def tool(name: str) -> str:
    return str(java_home() / "bin" / name)


def run(args: list[str], **kw) -> subprocess.CompletedProcess:
    kw.setdefault("check", True)
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    return subprocess.run(args, **kw)


def javac(sources: dict[str, str], out: Path, *options: str) -> Path:
    """Compile {relative path: source} into ``out``; returns ``out``."""
    src = out.parent / (out.name + "-src")
    files = []
    for rel, text in sources.items():
        p = src / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        files.append(str(p))
    out.mkdir(parents=True, exist_ok=True)
    run([tool("javac"), "-nowarn", "-d", str(out), *options, *files])
    return out


def javac_tree(sources: Path, out: Path, classpath: Path) -> Path:
    """Compile every ``.java`` file under ``sources`` (a case directory kept in the repository) with
    debug information against ``classpath`` into ``out``; returns ``out``."""
    files = sorted(str(p) for p in sources.rglob("*.java"))
    run([tool("javac"), "-nowarn", "-g", "-cp", str(classpath), "-d", str(out), *files])
    return out


def class_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.class"))


def cache_root(name: str) -> Path:
    """``$XDG_CACHE_HOME/<name>`` (``~/.cache/<name>``), or a per-user temporary directory when that
    cannot be written: where test tools compiled once (verifier, oracle) are kept."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    root = Path(base) / name
    try:
        root.mkdir(parents=True, exist_ok=True)
        if os.access(root, os.W_OK):
            return root
    except OSError:
        pass
    root = Path(tempfile.gettempdir()) / f"{name}-{os.getuid()}"
    root.mkdir(parents=True, exist_ok=True)
    return root
