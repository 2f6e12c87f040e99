"""The compiled build (mypyc, see setup.py) writes exactly what the pure-Python build writes, and is
bypassed when its sources changed.

The compiled and the pure build run from the same installation: ``JPREWRITE_PURE=1`` makes
``import jprewrite`` use the sources. Both run in subprocesses, because one process can hold only
one of them. Without a compiled build (no compiler at install time, ``JPREWRITE_NO_COMPILE=1``,
or a source edited since the build) the tests skip and say why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import jprewrite

from support.corpus import package_jars

PACKAGE = Path(jprewrite.__file__).parent
MANIFEST = PACKAGE / "_native.json"

pytestmark = pytest.mark.skipif(
    not jprewrite.__build__.startswith("compiled"),
    reason=f"no compiled build in use (jprewrite.__build__ = {jprewrite.__build__!r}): "
    "reinstall with a C compiler (pip install -e .) to test it",
)


def _env(pure: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JPREWRITE_PURE", "PYTHONPATH")}
    if pure:
        env["JPREWRITE_PURE"] = "1"
    return env


def _run(args: list[str], *, pure: bool, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = _env(pure)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=600)


def _build_of(pure: bool, pythonpath: Path | None = None) -> tuple[str, str, str]:
    """(``__build__``, where jprewrite.classfile.model was loaded from, stderr) of a fresh process."""
    code = "import jprewrite, jprewrite.classfile.model as m; print(jprewrite.__build__); print(m.__file__)"
    r = _run(["-c", code], pure=pure, pythonpath=pythonpath)
    assert r.returncode == 0, r.stderr
    build, module_file = r.stdout.splitlines()
    return build, module_file, r.stderr


def _entries(jar: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(jar) as z:
        return {info.filename: z.read(info) for info in z.infolist()}


def test_pure_on_request_and_version(tmp_path):
    build, module_file, err = _build_of(pure=False)
    assert build == "compiled by mypyc" and not module_file.endswith(".py") and err == ""
    build, module_file, err = _build_of(pure=True)
    assert build.startswith("pure Python") and module_file.endswith(".py")
    assert err == ""  # pure by request: nothing to say
    r = _run(["-m", "jprewrite.cli.main", "--version"], pure=False)
    assert "compiled by mypyc" in r.stdout, r.stdout + r.stderr


def test_compiled_and_pure_write_the_same_bytes(tmp_path):
    jars = [*package_jars("libsunflow-java"), *package_jars("librhino-java")]
    math = Path("/usr/share/java/commons-math3.jar")
    jars += [math] if math.exists() else []
    outputs = {}
    for pure in (False, True):
        out = tmp_path / ("pure" if pure else "compiled")
        args = ["-m", "jprewrite.cli.main", "rewrite", *map(str, jars), "--output-dir", str(out), "--jobs", "1"]
        r = _run([*args, "--quiet"], pure=pure)
        assert r.returncode == 0, r.stderr
        outputs[pure] = out
    for jar in jars:
        compiled, pure = _entries(outputs[False] / jar.name), _entries(outputs[True] / jar.name)
        assert list(compiled) == list(pure), jar.name
        differ = [name for name in compiled if compiled[name] != pure[name]]
        assert not differ, f"{jar.name}: {len(differ)} entries differ between the builds, e.g. {differ[:5]}"


def test_an_edited_source_bypasses_every_compiled_module(tmp_path):
    """A copy of the installed package with one source changed: the sources run, and stderr says so."""
    copy = tmp_path / "site" / "jprewrite"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"), symlinks=False)
    build, module_file, err = _build_of(pure=False, pythonpath=copy.parent)
    assert build == "compiled by mypyc" and module_file.startswith(str(copy)) and not module_file.endswith(".py")
    edited = copy / "editor" / "stack.py"
    edited.write_text(edited.read_text() + "\n# edited after the build\n")
    build, module_file, err = _build_of(pure=False, pythonpath=copy.parent)
    assert build.startswith("pure Python") and "editor/stack.py" in build
    assert module_file == str(copy / "classfile" / "model.py")  # not the edited module only: all of them
    assert "changed since the compiled build" in err and err.count("\n") == 1
