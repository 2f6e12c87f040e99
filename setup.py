"""Build script: the metadata is in ``pyproject.toml``; this adds the compiled build of the rewriter.

Why: the rewriter is pure Python, and most of its time goes to small objects (instructions, labels,
constants) and the loops over them. mypyc compiles the hot packages (``COMPILED_PACKAGES``) to C
extensions from the same annotated sources, about as ``black`` ships. The pure-Python modules stay
beside the extensions and are the fallback:

* no compiler, no mypyc, or anything else failing in the compiled build: a warning, and the package
  is installed as pure Python (extensions a previous build left in the source tree are removed);
* ``JPREWRITE_NO_COMPILE=1`` at install time: pure Python, by request;
* at run time (``rewriter/__init__.py``): a manifest written next to the extensions
  (``jprewrite/_native.json``) holds the hash of every source the extensions were built from; when
  one differs (a developer edited a module of an editable install), or ``JPREWRITE_PURE=1`` is set,
  every compiled module is bypassed in favour of its source.

mypyc needs the package under its installed name (``jprewrite.classfile...``), but the sources live
in ``rewriter/`` (see ``package-dir`` in pyproject.toml); so it reads them through a tree of
symbolic links in ``build/mypyc-src``, as ``tests/support/typecheck.py`` does for mypy.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SOURCE = ROOT / "rewriter"
#: the packages (directories of ``rewriter/``) whose modules are compiled, their ``__init__`` aside
COMPILED_PACKAGES = ("classfile", "editor", "analysis", "analysis/typeflow", "instrument")
#: modules of those packages left interpreted (cold, or dynamic in ways mypyc does not allow)
INTERPRETED: frozenset[str] = frozenset({"instrument/pool_cache", "classfile/native"})
#: the shared library holding the compiled code (one group: modules call each other natively)
GROUP = "jprewrite._native"
MANIFEST = "_native.json"
BUILD = ROOT / "build"
#: the Java parts jprewrite compiles on first use (runtime, agent, JUnit extension): an installed
#: package carries their sources as ``jprewrite/java/<part>`` (``rewriter/rewrite/java_sources.py``)
JAVA_SOURCES = ROOT / "runtime-java"
JAVA_PARTS = ("src", "agent", "junit")


def _say(message: str) -> None:
    print(f"jprewrite build: {message}", file=sys.stderr)


def _first_line(e: BaseException, limit: int = 160) -> str:
    text = (str(e).splitlines() or [type(e).__name__])[0]
    return text if len(text) <= limit else text[: limit - 3] + "..."


def compiled_sources() -> list[Path]:
    """The source files mypyc compiles, under ``rewriter/``."""
    out = []
    for package in COMPILED_PACKAGES:
        for path in sorted((SOURCE / package).glob("*.py")):
            module = f"{package}/{path.stem}"
            if path.name != "__init__.py" and module not in INTERPRETED:
                out.append(path)
    return out


def depended_sources() -> list[Path]:
    """Every source the compiled code was built against: the compiled packages whole (their
    ``__init__`` re-exports included) and ``errors.py``, which by the layering rule is all they import."""
    paths = {SOURCE / "errors.py"}
    for package in COMPILED_PACKAGES:
        paths.update((SOURCE / package).glob("*.py"))
    return sorted(paths)


def module_name(path: Path) -> str:
    return "jprewrite." + ".".join(path.relative_to(SOURCE).with_suffix("").parts)


def link_tree() -> Path:
    """``build/mypyc-src/jprewrite`` linking to the entries of ``rewriter/``; the tree's root."""
    tree = BUILD / "mypyc-src"
    package = tree / "jprewrite"
    if package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    for entry in sorted(SOURCE.iterdir()):
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    return tree


def mypyc_extensions() -> list:
    """mypycify's extensions for the compiled build; [] when it cannot or should not be made."""
    if os.environ.get("JPREWRITE_NO_COMPILE", "") not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypyc is not installed; installing the pure-Python build")
        return []
    tree = link_tree()
    paths = [str(Path("jprewrite", p.relative_to(SOURCE))) for p in compiled_sources()]
    cwd = os.getcwd()
    os.chdir(tree)  # mypy finds jprewrite here, and reads no configuration of the repository
    try:
        extensions = mypycify(
            paths,
            opt_level=os.environ.get("JPREWRITE_COMPILE_OPT", "3"),  # 0: a quicker build for trying things
            group_name=GROUP,
            target_dir=str(BUILD / "mypyc-c"),
            # one C file per module instead of one 32 MB file: gcc then needs less work in all, and
            # BuildExt compiles the files on every core (measured: 247 s -> 79 s wall, 220 -> 127 s
            # CPU on 2 cores); the extension runs as fast (bench/RESULTS.md)
            multi_file=True,
        )
        for ext in extensions:  # multi_file's C files include the group's header without its package
            ext.include_dirs.append(str(BUILD / "mypyc-c" / "jprewrite"))
        return extensions
    except (Exception, SystemExit) as e:  # mypyc reports its errors by exiting
        _say(f"mypyc failed ({_first_line(e)}); installing the pure-Python build")
        return []
    finally:
        os.chdir(cwd)


def source_hashes() -> dict[str, str]:
    return {str(p.relative_to(SOURCE)): hashlib.sha256(p.read_bytes()).hexdigest() for p in depended_sources()}


class BuildExt(build_ext):
    """build_ext that falls back to pure Python when the compiled build fails, and writes the manifest."""

    def run(self) -> None:
        target = self._package_dir()
        _remove_compiled(target)  # whatever an earlier build left (editable installs build in place)
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as e:  # no compiler, missing headers, a compiler error...
            _say(f"compiling failed ({_first_line(e)}); installing the pure-Python build")
            _remove_compiled(target)
            self.extensions = []
            return
        manifest = {
            "builder": "mypyc",
            "suffix": EXTENSION_SUFFIXES[0],
            "modules": [module_name(p) for p in compiled_sources()],
            "library": GROUP,
            "sources": source_hashes(),
        }
        (target / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")

    def build_extension(self, ext) -> None:
        """Compile the extension's C files in parallel (setuptools compiles one extension's files in turn)."""
        compile_serially = self.compiler.compile

        def compile_in_parallel(sources, *args, **kwargs):
            if len(sources) < 2:
                return compile_serially(sources, *args, **kwargs)
            with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
                parts = list(pool.map(lambda s: compile_serially([s], *args, **kwargs), sources))
            return [o for part in parts for o in part]

        self.compiler.compile = compile_in_parallel
        try:
            super().build_extension(ext)
        finally:
            del self.compiler.compile

    def _package_dir(self) -> Path:
        """Where the ``jprewrite`` package's extensions go: the source tree (in place) or build_lib."""
        if self.inplace:
            return Path(self.get_finalized_command("build_py").get_package_dir("jprewrite")).resolve()
        return Path(self.build_lib, "jprewrite")

    def get_outputs(self) -> list[str]:
        outputs = super().get_outputs()
        if self.extensions:
            outputs.append(str(self._package_dir() / MANIFEST))
        return outputs


class BuildPy(build_py):
    """build_py that also copies the Java sources into the package as ``jprewrite/java``.

    Why: jprewrite compiles its Java runtime, agent and JUnit extension from their sources on first
    use, and a package directory cannot reach ``runtime-java/`` outside it; without the copy an
    installed jprewrite (``pip install .``, a wheel) cannot rewrite anything. An editable install
    runs from the checkout and finds ``runtime-java/`` there.
    """

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = self._java_dir()
        if target.exists():
            shutil.rmtree(target)
        for part in JAVA_PARTS:
            shutil.copytree(JAVA_SOURCES / part, target / part, ignore=shutil.ignore_patterns("*.class"))

    def _java_dir(self) -> Path:
        return Path(self.build_lib, "jprewrite", "java")

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        target = self._java_dir()
        if target.is_dir():
            outputs += [str(p) for p in sorted(target.rglob("*")) if p.is_file()]
        return outputs


def _remove_compiled(package_dir: Path) -> None:
    """Delete the manifest and every extension of the compiled build below ``package_dir``."""
    if not package_dir.is_dir():
        return
    (package_dir / MANIFEST).unlink(missing_ok=True)
    names = [module_name(p).split(".")[1:] for p in compiled_sources()] + [(GROUP + "__mypyc").split(".")[1:]]
    for parts in names:
        for found in (package_dir / Path(*parts[:-1])).glob(parts[-1] + ".*"):
            if found.suffix in (".so", ".pyd"):
                found.unlink()


def main() -> None:
    extensions = mypyc_extensions()
    if not extensions and "editable_wheel" in sys.argv:
        # build_ext does not run without extensions, and an editable install uses the source tree
        # itself: the extensions an earlier build put there would shadow the sources
        _remove_compiled(SOURCE)
    setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt, "build_py": BuildPy})


main()
