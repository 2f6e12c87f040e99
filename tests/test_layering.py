"""Lower layers never import higher ones (nor their siblings), checked on the source with ``ast``.

Layers, lowest first, and what each package may import from jprewrite (itself
always included).  Apart from ``errors``, which every layer may use, these
are the strictest rules that hold today; relaxing one must be a deliberate
edit here, not an accident elsewhere.

=====================  =====  =================================================
package                layer  may import
=====================  =====  =================================================
jprewrite.errors       0      nothing
jprewrite.classfile    1      errors
jprewrite.archive      1      errors (not classfile: a container only moves
                              bytes; it sniffs the class magic itself)
jprewrite.editor       2      errors, classfile
jprewrite.analysis     3      errors, classfile, editor (not archive: the
                              hierarchy takes class sources by duck typing)
jprewrite.instrument   4      errors, classfile, editor, analysis (not archive)
jprewrite.rewrite      5      everything below (jars in, jars out: archive +
                              instrument, the embedded Java runtime)
jprewrite.agent        6      everything below (the -javaagent jar, the worker
                              process: rewriting one class at a time)
jprewrite.cli          7      everything
jprewrite (root)       --     nothing; only cli imports it (``__version__``)
=====================  =====  =================================================

Every import counts: top level, inside functions, under ``TYPE_CHECKING``,
and ``importlib.import_module("...")`` with a literal name.  Relative imports
are resolved against the importing module's package (``cli/`` is
``jprewrite.cli``, ``rewriter/`` is ``jprewrite``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# package directory -> dotted package name (as pyproject.toml's package-dir maps them)
SOURCE_ROOTS = {REPO / "rewriter": "jprewrite", REPO / "cli": "jprewrite.cli"}

ROOT = "jprewrite"
LAYERS: dict[str, int] = {
    "jprewrite.errors": 0,
    "jprewrite.classfile": 1,
    "jprewrite.archive": 1,
    "jprewrite.editor": 2,
    "jprewrite.analysis": 3,
    "jprewrite.instrument": 4,
    "jprewrite.rewrite": 5,
    "jprewrite.agent": 6,
    "jprewrite.cli": 7,
}
_ERRORS = "jprewrite.errors"
ALLOWED: dict[str, set[str]] = {
    ROOT: set(),
    "jprewrite.errors": set(),
    "jprewrite.classfile": {_ERRORS},
    "jprewrite.archive": {_ERRORS},
    "jprewrite.editor": {_ERRORS, "jprewrite.classfile"},
    "jprewrite.analysis": {_ERRORS, "jprewrite.classfile", "jprewrite.editor"},
    "jprewrite.instrument": {_ERRORS, "jprewrite.classfile", "jprewrite.editor", "jprewrite.analysis"},
    "jprewrite.rewrite": {_ERRORS, "jprewrite.classfile", "jprewrite.archive", "jprewrite.editor",
                          "jprewrite.analysis", "jprewrite.instrument"},
    "jprewrite.agent": {_ERRORS, "jprewrite.classfile", "jprewrite.archive", "jprewrite.editor",
                        "jprewrite.analysis", "jprewrite.instrument", "jprewrite.rewrite"},
    "jprewrite.cli": {ROOT, *LAYERS},
}


@dataclass(frozen=True)
class Import:
    source: Path
    line: int
    importer: str  # dotted module name of the importing file
    target: str    # absolute dotted name imported (a module, or a name inside one)
    statement: str = ""  # the import as written


# --------------------------------------------------------------------------- reading the sources


def module_name(path: Path) -> str:
    """Dotted module name of a source file (``rewriter/classfile/model.py`` -> ``jprewrite.classfile.model``)."""
    for root, package in SOURCE_ROOTS.items():
        if path.is_relative_to(root):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join([package, *parts])
    raise ValueError(f"{path} is not under a source root")


def resolve(importer: str, is_package: bool, module: str | None, level: int) -> str:
    """The absolute name a (possibly relative) ``from ... import`` refers to."""
    if level == 0:
        assert module is not None
        return module
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    if level - 1 > len(base) - 1:
        raise ValueError(f"relative import beyond the top-level package in {importer} (level {level})")
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(source: str, path: Path, importer: str, is_package: bool) -> list[Import]:
    found = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            found += [Import(path, node.lineno, importer, alias.name, ast.unparse(node)) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = resolve(importer, is_package, node.module, node.level)
            if node.module is None:  # from . import x, y: each name may be a submodule
                found += [Import(path, node.lineno, importer, f"{base}.{alias.name}", ast.unparse(node))
                          for alias in node.names]
            else:
                found.append(Import(path, node.lineno, importer, base, ast.unparse(node)))
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__")))):
            name = node.args[0].value
            if name.startswith("."):  # import_module(".x", package=__package__)
                level = len(name) - len(name.lstrip("."))
                name = resolve(importer, is_package, name[level:] or None, level)
            found.append(Import(path, node.lineno, importer, name, ast.unparse(node)))
    return found


def all_sources() -> list[Path]:
    return sorted(p for root in SOURCE_ROOTS for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def all_imports() -> list[Import]:
    out = []
    for path in all_sources():
        out += imports_of(path.read_text(encoding="utf-8"), path, module_name(path), path.name == "__init__.py")
    return out


# --------------------------------------------------------------------------- the rule


def package_of(name: str) -> str | None:
    """The layered package a jprewrite module belongs to (the root package itself is ROOT); None if outside."""
    parts = name.split(".")
    if parts[0] != ROOT:
        return None
    if len(parts) == 1 or parts[1].startswith("__"):  # the root package, or a name in it (__version__)
        return ROOT
    return ".".join(parts[:2])  # a layered package, or a new one without a rule (reported as such)


def violations(imports: list[Import]) -> list[str]:
    out = []
    for imp in imports:
        target = package_of(imp.target)
        if target is None:
            continue  # standard library
        importer = package_of(imp.importer)
        if target == importer:
            continue
        allowed = ALLOWED.get(importer, set())
        if target not in allowed:
            rel = imp.source.relative_to(REPO) if imp.source.is_relative_to(REPO) else imp.source
            why = (f"layer {LAYERS[target]} {target}" if target in LAYERS else f"unlayered {target}")
            out.append(f"{rel}:{imp.line}: `{imp.statement}`: {imp.importer} imports {imp.target} -- {importer} "
                       f"(layer {LAYERS.get(importer, '-')}) must not import {why}; it may import only: "
                       f"{', '.join(sorted(allowed)) or 'nothing from jprewrite'}")
    return out


# --------------------------------------------------------------------------- tests


def test_rules_never_allow_a_higher_layer():
    for package, allowed in ALLOWED.items():
        for target in allowed:
            if package in LAYERS and target in LAYERS:
                assert LAYERS[target] <= LAYERS[package], f"{package} is allowed to import higher {target}"


def test_every_module_belongs_to_a_layer():
    unlayered = [f"{p.relative_to(REPO)} ({module_name(p)})" for p in all_sources()
                 if package_of(module_name(p)) not in ALLOWED]
    assert not unlayered, ("modules outside every layer (add their package to LAYERS and ALLOWED in "
                           "tests/test_layering.py):\n  " + "\n  ".join(unlayered))


def test_lower_layers_never_import_higher_ones():
    bad = violations(all_imports())
    assert not bad, f"{len(bad)} layering violation(s):\n  " + "\n  ".join(bad)


def test_the_scan_sees_the_real_imports():
    """Guard against a scan that finds nothing and so passes vacuously."""
    edges = {(package_of(i.importer), package_of(i.target)) for i in all_imports()
             if package_of(i.target) is not None}
    for edge in [("jprewrite.cli", "jprewrite.archive"), ("jprewrite.cli", "jprewrite.classfile"),
                 ("jprewrite.cli", ROOT), ("jprewrite.analysis", "jprewrite.classfile"),
                 ("jprewrite.classfile", "jprewrite.errors"), ("jprewrite.archive", "jprewrite.errors"),
                 ("jprewrite.editor", "jprewrite.classfile")]:
        assert edge in edges, f"expected {edge[0]} to import {edge[1]}"
    names = {module_name(p) for p in all_sources()}
    assert {"jprewrite", "jprewrite.errors", "jprewrite.classfile.model", "jprewrite.archive.jars",
            "jprewrite.analysis.hierarchy", "jprewrite.cli.main"} <= names


@pytest.mark.parametrize("importer, is_package, module, level, expected", [
    ("jprewrite.classfile.model", False, "errors", 2, "jprewrite.errors"),
    ("jprewrite.classfile.model", False, "attributes", 1, "jprewrite.classfile.attributes"),
    ("jprewrite.classfile.model", False, None, 1, "jprewrite.classfile"),
    ("jprewrite.classfile", True, "model", 1, "jprewrite.classfile.model"),
    ("jprewrite.classfile", True, "errors", 2, "jprewrite.errors"),
    ("jprewrite.cli.main", False, None, 2, "jprewrite"),
    ("jprewrite.cli.main", False, "archive.jars", 2, "jprewrite.archive.jars"),
    ("jprewrite.archive.jdk_image", False, "jprewrite.errors", 0, "jprewrite.errors"),
])
def test_relative_imports_are_resolved(importer, is_package, module, level, expected):
    assert resolve(importer, is_package, module, level) == expected


def test_relative_import_beyond_the_top_is_an_error():
    with pytest.raises(ValueError):
        resolve("jprewrite.errors", False, "x", 3)


@pytest.mark.parametrize("file, source, offender", [
    ("rewriter/classfile/fake.py", "from ..cli import main\n", "jprewrite.cli"),
    ("rewriter/classfile/fake.py", "def f():\n    from ..archive.jars import open_container\n",
     "jprewrite.archive.jars"),
    ("rewriter/archive/fake.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                 "    from jprewrite.classfile.model import ClassFile\n", "jprewrite.classfile.model"),
    ("rewriter/analysis/fake.py", "import jprewrite.archive.jars\n", "jprewrite.archive.jars"),
    ("rewriter/analysis/fake.py", "from .. import __version__\n", "jprewrite.__version__"),
    ("rewriter/errors.py", "import importlib\nimportlib.import_module('jprewrite.classfile')\n",
     "jprewrite.classfile"),
    ("rewriter/editor/fake.py", "from ..analysis import hierarchy\n", "jprewrite.analysis"),
    ("rewriter/analysis/fake.py", "from ..instrument.exercise import x\n", "jprewrite.instrument.exercise"),
    ("rewriter/archive/fake.py", "from ..classfile import model\n", "jprewrite.classfile"),
    ("rewriter/newpackage/fake.py", "from ..errors import JprewriteError\n", "jprewrite.errors"),
])
def test_a_violation_is_reported_by_name(file, source, offender):
    path = REPO / file
    found = violations(imports_of(source, path, module_name(path), path.name == "__init__.py"))
    assert len(found) == 1, found
    assert f"{file}:" in found[0] and f"imports {offender} " in found[0], found[0]
