"""The sample programs of ``sample-classes/``: find, compile, jar and run them.

Each program lives in ``sample-classes/<name>/com/example/<name>/`` with a
``Main`` class (``com.example.<name>.Main``). Two kinds of folder are not
programs of their own:

* ``<name>-plugin/``: classes (package ``com.example.plugin``) compiled
  separately against ``<name>``'s classes, into their own class directory or
  jar, and loaded by ``<name>`` at run time by name -- so that a test can
  rewrite ``<name>`` and leave the plugin uninstrumented;
* a program folder with a ``build.sh`` (the JNI sample) also has native code:
  :func:`build_native` runs the script (it needs gcc) and the program must run
  with ``-Djava.library.path`` naming the result (:func:`sample_command` does).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from .jdk import java_home, run, tool

REPO = Path(__file__).resolve().parent.parent.parent
SAMPLES_DIR = REPO / "sample-classes"
PLUGIN_SUFFIX = "-plugin"
JAVAC_OPTIONS = ("--release", "17", "-g", "-encoding", "UTF-8", "-nowarn")


def sample_names() -> list[str]:
    """Every sample program (folders with ``com/example/<name>/Main.java``), sorted; no plugin folders."""
    return sorted(
        p.name
        for p in SAMPLES_DIR.iterdir()
        if p.is_dir()
        and not p.name.endswith(PLUGIN_SUFFIX)
        and (p / "com" / "example" / p.name / "Main.java").is_file()
    )


def sample_main(name: str) -> str:
    """Binary name of the program's main class."""
    return f"com.example.{name}.Main"


def plugin_of(name: str) -> str | None:
    """The name of ``name``'s separately compiled plugin folder, if it has one."""
    plugin = name + PLUGIN_SUFFIX
    return plugin if (SAMPLES_DIR / plugin).is_dir() else None


def sample_sources(name: str) -> list[Path]:
    """The Java sources of a sample folder (a program or a plugin), sorted."""
    root = SAMPLES_DIR / name
    if not root.is_dir():
        raise ValueError(f"no sample folder {root}")
    return sorted(root.rglob("*.java"))


def compile_sample(name: str, out_dir: Path | str) -> Path:
    """Compile one sample folder into ``out_dir`` (created); returns the class directory.

    A plugin folder (``<program>-plugin``) is compiled against its program's
    classes, which are compiled into a temporary directory and are not copied
    to ``out_dir``: ``out_dir`` receives the plugin's own classes only. A
    program's classes never include its plugin's.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sources = [str(p) for p in sample_sources(name)]
    if name.endswith(PLUGIN_SUFFIX):
        base = name[: -len(PLUGIN_SUFFIX)]
        with tempfile.TemporaryDirectory(prefix=f"{base}-classes-") as tmp:
            base_classes = compile_sample(base, tmp)
            run([tool("javac"), *JAVAC_OPTIONS, "-d", str(out), "-cp", str(base_classes), *sources])
    else:
        run([tool("javac"), *JAVAC_OPTIONS, "-d", str(out), *sources])
    return out


def jar_sample(name: str, out_jar: Path | str) -> Path:
    """Compile one sample folder and put its classes (only) into ``out_jar``; a program's jar
    names its main class in the manifest. Returns the jar's path."""
    out = Path(out_jar)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{name}-jar-") as tmp:
        classes = compile_sample(name, Path(tmp) / "classes")
        args = [tool("jar"), "--create", "--file", str(out)]
        if not name.endswith(PLUGIN_SUFFIX):
            args += ["--main-class", sample_main(name)]
        run([*args, "-C", str(classes), "."])
    return out


def needs_native(name: str) -> bool:
    """Whether the program has native code to build first (a ``build.sh``)."""
    return (SAMPLES_DIR / name / "build.sh").is_file()


def gcc_available() -> bool:
    return shutil.which("gcc") is not None


def build_native(name: str, out_dir: Path | str) -> Path:
    """Run the program's ``build.sh`` into ``out_dir``; returns the directory holding the library.

    Raises RuntimeError when gcc is missing (callers skip), CalledProcessError when the build fails.
    """
    if not gcc_available():
        raise RuntimeError("gcc not found: the JNI sample's native library cannot be built")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "JAVA_HOME": str(java_home())}
    subprocess.run(
        ["bash", str(SAMPLES_DIR / name / "build.sh"), str(out)], check=True, capture_output=True, text=True, env=env
    )
    return out


def sample_classpath(name: str, work_dir: Path | str) -> list[Path]:
    """Compile a program (and its plugin, separately) under ``work_dir``; the class path to run it."""
    work = Path(work_dir)
    cp = [compile_sample(name, work / name / "classes")]
    plugin = plugin_of(name)
    if plugin:
        cp.append(compile_sample(plugin, work / plugin / "classes"))
    return cp


def java_command(name: str, classpath: list[Path], *java_options: str, native_dir: Path | None = None) -> list[str]:
    """The ``java`` command line running program ``name`` from ``classpath``."""
    args = [tool("java"), *java_options]
    if native_dir is not None:
        args.append(f"-Djava.library.path={native_dir}")
    return [*args, "-cp", ":".join(str(p) for p in classpath), sample_main(name)]


def sample_command(name: str, work_dir: Path | str, *java_options: str) -> list[str]:
    """Compile (and build native code for) program ``name`` under ``work_dir``; its java command."""
    work = Path(work_dir)
    cp = sample_classpath(name, work)
    native = build_native(name, work / name / "native") if needs_native(name) else None
    return java_command(name, cp, *java_options, native_dir=native)
