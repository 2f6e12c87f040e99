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
import warnings
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
    "jprewrite.profile": 1,
    "jprewrite.editor": 2,
    "jprewrite.analysis": 3,
    "jprewrite.instrument": 4,
    "jprewrite.rewrite": 5,
    "jprewrite.agent": 6,
    "jprewrite.cli": 7,
    "jprewrite.pytest_plugin": 7,
}
_ERRORS = "jprewrite.errors"
ALLOWED: dict[str, set[str]] = {
    ROOT: set(),
    "jprewrite.errors": set(),
    "jprewrite.classfile": {_ERRORS},
    "jprewrite.archive": {_ERRORS},
    "jprewrite.profile": {_ERRORS},
    "jprewrite.editor": {_ERRORS, "jprewrite.classfile"},
    "jprewrite.analysis": {_ERRORS, "jprewrite.classfile", "jprewrite.editor"},
    "jprewrite.instrument": {_ERRORS, "jprewrite.classfile", "jprewrite.editor", "jprewrite.analysis"},
    "jprewrite.rewrite": {
        _ERRORS,
        "jprewrite.classfile",
        "jprewrite.archive",
        "jprewrite.editor",
        "jprewrite.analysis",
        "jprewrite.instrument",
    },
    "jprewrite.agent": {
        _ERRORS,
        "jprewrite.classfile",
        "jprewrite.archive",
        "jprewrite.editor",
        "jprewrite.analysis",
        "jprewrite.instrument",
        "jprewrite.rewrite",
    },
    "jprewrite.cli": {ROOT, *LAYERS},
    "jprewrite.pytest_plugin": {_ERRORS, "jprewrite.agent", "jprewrite.profile"},
}


@dataclass(frozen=True)
class Import:
    source: Path
    line: int
    importer: str  # dotted module name of the importing file
    target: str  # absolute dotted name imported (a module, or a name inside one)
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
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(source: str, path: Path, importer: str, is_package: bool) -> list[Import]:
    found = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            found += [Import(path, node.lineno, importer, alias.name, ast.unparse(node)) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = resolve(importer, is_package, node.module, node.level)
            if node.module is None:  # from . import x, y: each name may be a submodule
                found += [
                    Import(path, node.lineno, importer, f"{base}.{alias.name}", ast.unparse(node))
                    for alias in node.names
                ]
            else:
                found.append(Import(path, node.lineno, importer, base, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__"))
            )
        ):
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
            why = f"layer {LAYERS[target]} {target}" if target in LAYERS else f"unlayered {target}"
            out.append(
                f"{rel}:{imp.line}: `{imp.statement}`: {imp.importer} imports {imp.target} -- {importer} "
                f"(layer {LAYERS.get(importer, '-')}) must not import {why}; it may import only: "
                f"{', '.join(sorted(allowed)) or 'nothing from jprewrite'}"
            )
    return out


# --------------------------------------------------------------------------- tests


def test_rules_never_allow_a_higher_layer():
    for package, allowed in ALLOWED.items():
        for target in allowed:
            if package in LAYERS and target in LAYERS:
                assert LAYERS[target] <= LAYERS[package], f"{package} is allowed to import higher {target}"


def test_every_module_belongs_to_a_layer():
    unlayered = [
        f"{p.relative_to(REPO)} ({module_name(p)})" for p in all_sources() if package_of(module_name(p)) not in ALLOWED
    ]
    assert not unlayered, (
        "modules outside every layer (add their package to LAYERS and ALLOWED in "
        "tests/test_layering.py):\n  " + "\n  ".join(unlayered)
    )


def test_lower_layers_never_import_higher_ones():
    bad = violations(all_imports())
    assert not bad, f"{len(bad)} layering violation(s):\n  " + "\n  ".join(bad)


def test_the_scan_sees_the_real_imports():
    """Guard against a scan that finds nothing and so passes vacuously."""
    edges = {(package_of(i.importer), package_of(i.target)) for i in all_imports() if package_of(i.target) is not None}
    for edge in [
        ("jprewrite.cli", "jprewrite.archive"),
        ("jprewrite.cli", "jprewrite.classfile"),
        ("jprewrite.cli", ROOT),
        ("jprewrite.analysis", "jprewrite.classfile"),
        ("jprewrite.classfile", "jprewrite.errors"),
        ("jprewrite.archive", "jprewrite.errors"),
        ("jprewrite.editor", "jprewrite.classfile"),
    ]:
        assert edge in edges, f"expected {edge[0]} to import {edge[1]}"
    names = {module_name(p) for p in all_sources()}
    assert {
        "jprewrite",
        "jprewrite.errors",
        "jprewrite.classfile.model",
        "jprewrite.archive.jars",
        "jprewrite.analysis.hierarchy",
        "jprewrite.cli.main",
    } <= names


@pytest.mark.parametrize(
    "importer, is_package, module, level, expected",
    [
        ("jprewrite.classfile.model", False, "errors", 2, "jprewrite.errors"),
        ("jprewrite.classfile.model", False, "attributes", 1, "jprewrite.classfile.attributes"),
        ("jprewrite.classfile.model", False, None, 1, "jprewrite.classfile"),
        ("jprewrite.classfile", True, "model", 1, "jprewrite.classfile.model"),
        ("jprewrite.classfile", True, "errors", 2, "jprewrite.errors"),
        ("jprewrite.cli.main", False, None, 2, "jprewrite"),
        ("jprewrite.cli.main", False, "archive.jars", 2, "jprewrite.archive.jars"),
        ("jprewrite.archive.jdk_image", False, "jprewrite.errors", 0, "jprewrite.errors"),
    ],
)
def test_relative_imports_are_resolved(importer, is_package, module, level, expected):
    assert resolve(importer, is_package, module, level) == expected


def test_relative_import_beyond_the_top_is_an_error():
    with pytest.raises(ValueError):
        resolve("jprewrite.errors", False, "x", 3)


@pytest.mark.parametrize(
    "file, source, offender",
    [
        ("rewriter/classfile/fake.py", "from ..cli import main\n", "jprewrite.cli"),
        (
            "rewriter/classfile/fake.py",
            "def f():\n    from ..archive.jars import open_container\n",
            "jprewrite.archive.jars",
        ),
        (
            "rewriter/archive/fake.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from jprewrite.classfile.model import ClassFile\n",
            "jprewrite.classfile.model",
        ),
        ("rewriter/analysis/fake.py", "import jprewrite.archive.jars\n", "jprewrite.archive.jars"),
        ("rewriter/analysis/fake.py", "from .. import __version__\n", "jprewrite.__version__"),
        (
            "rewriter/errors.py",
            "import importlib\nimportlib.import_module('jprewrite.classfile')\n",
            "jprewrite.classfile",
        ),
        ("rewriter/editor/fake.py", "from ..analysis import hierarchy\n", "jprewrite.analysis"),
        ("rewriter/analysis/fake.py", "from ..instrument.exercise import x\n", "jprewrite.instrument.exercise"),
        ("rewriter/archive/fake.py", "from ..classfile import model\n", "jprewrite.classfile"),
        ("rewriter/newpackage/fake.py", "from ..errors import JprewriteError\n", "jprewrite.errors"),
    ],
)
def test_a_violation_is_reported_by_name(file, source, offender):
    path = REPO / file
    found = violations(imports_of(source, path, module_name(path), path.name == "__init__.py"))
    assert len(found) == 1, found
    assert f"{file}:" in found[0] and f"imports {offender} " in found[0], found[0]


# --------------------------------------------------------------------------- private names and __all__
#
# A name with a leading underscore is its module's own business: no other jprewrite module imports it
# (``from .x import _y``) or reaches it through a module (``x._y`` after ``from . import x`` or
# ``import jprewrite.x``). Objects' private attributes (``obj._x`` on another class's object) cannot be
# told apart on the source without types; reviews catch those. Every package ``__init__.py`` states its
# public API in ``__all__``, and every name there exists (or is a submodule).

#: Known offenders, being fixed by the agents that own these packages (issue 11). This list only
#: shrinks: an entry that no longer occurs is reported as a warning so it can be deleted; the lead
#: empties it at the end. (importing module, "imported.module:name")
KNOWN_PRIVATE_NAMES: set[tuple[str, str]] = set()
#: Packages whose ``__init__.py`` has no ``__all__`` yet (same rules as above).
KNOWN_WITHOUT_ALL: set[str] = set()


@dataclass(frozen=True)
class PrivateUse:
    source: Path
    line: int
    importer: str
    target: str  # "module:name"
    statement: str


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_names() -> set[str]:
    return {module_name(p) for p in all_sources()}


def private_uses(source: str, path: Path, importer: str, is_package: bool, modules: set[str]) -> list[PrivateUse]:
    """Private names of other jprewrite modules that ``source`` imports or reads through a module."""
    tree = ast.parse(source, filename=str(path))
    found: list[PrivateUse] = []
    bound: dict[str, str] = {}  # local name -> jprewrite module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = resolve(importer, is_package, node.module, node.level)
            if package_of(base) is None:
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(PrivateUse(path, node.lineno, importer, f"{base}:{alias.name}", ast.unparse(node)))
                elif f"{base}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if package_of(alias.name) is None:
                    continue
                if alias.asname:
                    bound[alias.asname] = alias.name
                for prefix in (".".join(alias.name.split(".")[: i + 1]) for i in range(alias.name.count(".") + 1)):
                    bound.setdefault(prefix, prefix)  # import a.b.c binds a; a.b.c._x is read as written
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            target = bound.get(ast.unparse(node.value))
            if target is not None and target != importer:
                found.append(PrivateUse(path, node.lineno, importer, f"{target}:{node.attr}", ast.unparse(node)))
    return found


def all_private_uses() -> list[PrivateUse]:
    modules = _module_names()
    out: list[PrivateUse] = []
    for path in all_sources():
        out += private_uses(
            path.read_text(encoding="utf-8"), path, module_name(path), path.name == "__init__.py", modules
        )
    return out


def _defined_names(tree: ast.Module) -> set[str]:
    """Names a module binds at its top level (assignments, imports, functions, classes)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def package_all(path: Path) -> tuple[list[str] | None, set[str]]:
    """(the names of ``__all__`` when it is a literal list or tuple of strings, names the module binds)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    listed = None
    for node in tree.body:
        target = (
            node.targets[0]
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            else (node.target if isinstance(node, ast.AnnAssign) else None)
        )
        if isinstance(target, ast.Name) and target.id == "__all__" and node.value is not None:
            value = node.value
            if isinstance(value, (ast.List, ast.Tuple)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
            ):
                listed = [e.value for e in value.elts]
            else:
                listed = []
    return listed, _defined_names(tree)


def packages() -> list[Path]:
    return [p for p in all_sources() if p.name == "__init__.py"]


def test_no_private_name_crosses_a_module():
    found = all_private_uses()
    new = [u for u in found if (u.importer, u.target) not in KNOWN_PRIVATE_NAMES]
    stale = KNOWN_PRIVATE_NAMES - {(u.importer, u.target) for u in found}
    if stale:
        warnings.warn(f"KNOWN_PRIVATE_NAMES lists fixed entries, delete them: {sorted(stale)}", stacklevel=1)
    assert not new, (
        f"{len(new)} private name(s) used across modules (make the name public, or move the code "
        "that needs it):\n  "
        + "\n  ".join(f"{u.source.relative_to(REPO)}:{u.line}: `{u.statement}` reads {u.target}" for u in new)
    )


def test_every_package_states_its_api():
    missing: list[str] = []
    unknown: list[str] = []
    modules = _module_names()
    for path in packages():
        name = module_name(path)
        listed, defined = package_all(path)
        if listed is None:
            if name not in KNOWN_WITHOUT_ALL:
                missing.append(f"{path.relative_to(REPO)} ({name})")
            continue
        unknown += [
            f"{path.relative_to(REPO)}: {n!r}" for n in listed if n not in defined and f"{name}.{n}" not in modules
        ]  # a name, or a submodule
    stale = {n for n in KNOWN_WITHOUT_ALL if package_all(_package_path(n))[0] is not None}
    if stale:
        warnings.warn(f"KNOWN_WITHOUT_ALL lists fixed packages, delete them: {sorted(stale)}", stacklevel=1)
    assert not missing, "packages without __all__ (a literal list of the public names):\n  " + "\n  ".join(missing)
    assert not unknown, "__all__ names what the package does not define:\n  " + "\n  ".join(unknown)


def _package_path(name: str) -> Path:
    return next(p for p in packages() if module_name(p) == name)


def test_the_private_name_scan_sees_the_real_packages():
    """Guard against a scan that finds no package or no module and so passes vacuously."""
    assert {module_name(p) for p in packages()} >= {
        "jprewrite",
        "jprewrite.classfile",
        "jprewrite.cli",
        "jprewrite.agent",
        "jprewrite.rewrite",
        "jprewrite.archive",
    }
    listed, defined = package_all(REPO / "rewriter" / "instrument" / "pipeline.py")
    assert listed and "ClassPipeline" in listed and set(listed) <= defined


@pytest.mark.parametrize(
    "file, source, offender",
    [
        (
            "rewriter/agent/fake.py",
            "from ..rewrite.runtime_build import _javac\n",
            "jprewrite.rewrite.runtime_build:_javac",
        ),
        ("cli/fake.py", "from .rewrite_command import x, _split\n", "jprewrite.cli.rewrite_command:_split"),
        (
            "rewriter/agent/fake.py",
            "from ..rewrite import runtime_build\nruntime_build._memo.clear()\n",
            "jprewrite.rewrite.runtime_build:_memo",
        ),
        (
            "rewriter/agent/fake.py",
            "from ..rewrite import runtime_build as rb\nrb._memo\n",
            "jprewrite.rewrite.runtime_build:_memo",
        ),
        (
            "rewriter/agent/fake.py",
            "import jprewrite.rewrite.runtime_build\njprewrite.rewrite.runtime_build._memo\n",
            "jprewrite.rewrite.runtime_build:_memo",
        ),
        (
            "rewriter/instrument/fake.py",
            "def f():\n    from . import plan\n    return plan._FIXED\n",
            "jprewrite.instrument.plan:_FIXED",
        ),
    ],
)
def test_a_private_name_across_modules_is_reported(file, source, offender):
    path = REPO / file
    found = private_uses(source, path, module_name(path), False, _module_names())
    assert [u.target for u in found] == [offender]


@pytest.mark.parametrize(
    "source",
    [
        "from .. import __version__\n",  # dunder names are public
        "import os\nos._exit(0)\n",  # not a jprewrite module
        "from ..rewrite.runtime_build import runtime_classes\n",
        "class A:\n    def f(self):\n        return self._x\n",  # its own attributes
        "from ..classfile.model import ClassFile\nClassFile._cache\n",  # a class, not a module (not decidable here)
    ],
)
def test_public_names_and_own_attributes_are_not_reported(source):
    path = REPO / "rewriter/agent/fake.py"
    assert private_uses(source, path, module_name(path), False, _module_names()) == []
