"""Source rules the compiled build (mypyc, see setup.py) needs and mypy does not check.

mypyc gives a local variable one native type, the type of its first binding. mypy lets two
``except`` clauses of one function bind the same name to different exception types, so the
compiled code raises ``TypeError: X object expected; got Y`` in the second clause, exactly when
the rewriter should have recovered from an error (CI found one in ``ClassPipeline.run``: an
injected failure became a TypeError).

A compiled dataclass leaves a field declared ``field(init=False, default=...)`` unset: reading it
raises ``AttributeError: attribute ... undefined`` (found in ``ClassContext``: every class whose
rewriting read the field fell back to uninstrumented). Such a field must be set in ``__post_init__``.

These tests run without a compiled build too: the rules are about the sources.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jprewrite

SOURCE = Path(jprewrite.__file__).parent
SETUP = Path(__file__).resolve().parent.parent / "setup.py"


def _compiled_packages() -> tuple[str, ...]:
    """``COMPILED_PACKAGES`` as setup.py states it (read, not imported: importing runs setup())."""
    for node in ast.parse(SETUP.read_text()).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "COMPILED_PACKAGES" for t in targets):
                assert node.value is not None
                value = ast.literal_eval(node.value)
                assert isinstance(value, tuple)
                return value
    raise AssertionError("setup.py no longer defines COMPILED_PACKAGES")


def _compiled_sources() -> list[Path]:
    return sorted(p for pkg in _compiled_packages() for p in (SOURCE / pkg).glob("*.py"))


def _except_names_with_two_types(tree: ast.AST) -> list[str]:
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        bound: dict[str, set[str]] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.ExceptHandler) and node.name:
                kind = ast.unparse(node.type) if node.type is not None else "BaseException"
                bound.setdefault(node.name, set()).add(kind)
        found += [f"line {fn.lineno} {fn.name}(): {n!r} bound to {sorted(k)}" for n, k in bound.items() if len(k) > 1]
    return found


def test_the_rule_finds_what_it_looks_for() -> None:
    bad = "def f():\n try:\n  pass\n except KeyError as e:\n  pass\n except Exception as e:\n  pass\n"
    good = bad.replace("Exception as e", "Exception as other")
    assert len(_except_names_with_two_types(ast.parse(bad))) == 1
    assert _except_names_with_two_types(ast.parse(good)) == []


def test_no_except_variable_is_bound_to_two_exception_types() -> None:
    sources = _compiled_sources()
    assert len(sources) > 40, "the compiled packages were not found"
    problems = [
        f"{p.relative_to(SOURCE)}: {problem}"
        for p in sources
        for problem in _except_names_with_two_types(ast.parse(p.read_text(), str(p)))
    ]
    assert not problems, "give each except clause its own name:\n" + "\n".join(problems)


def _defaulted_fields_not_in_init(tree: ast.AST) -> list[str]:
    """Fields of dataclasses declared ``field(init=False, default=...)`` (or ``default_factory``)."""
    found = []
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        decorators = [d.func if isinstance(d, ast.Call) else d for d in cls.decorator_list]
        if not any(isinstance(d, ast.Name) and d.id == "dataclass" for d in decorators):
            continue
        for node in cls.body:
            if not (isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Call)):
                continue
            call = node.value
            if not (isinstance(call.func, ast.Name) and call.func.id == "field"):
                continue
            kw = {k.arg: k.value for k in call.keywords}
            init = kw.get("init")
            if isinstance(init, ast.Constant) and init.value is False and ("default" in kw or "default_factory" in kw):
                found.append(f"line {node.lineno} {cls.name}.{ast.unparse(node.target)}")
    return found


def test_the_dataclass_rule_finds_what_it_looks_for() -> None:
    bad = "@dataclass\nclass C:\n    x: int | None = field(default=None, init=False)\n"
    good = "@dataclass\nclass C:\n    x: int | None = field(init=False)\n    y: int = field(default=0)\n"
    assert len(_defaulted_fields_not_in_init(ast.parse(bad))) == 1
    assert _defaulted_fields_not_in_init(ast.parse(good)) == []


def test_no_compiled_dataclass_field_has_a_default_it_does_not_take_in_init() -> None:
    problems = [
        f"{p.relative_to(SOURCE)}: {problem}"
        for p in _compiled_sources()
        for problem in _defaulted_fields_not_in_init(ast.parse(p.read_text(), str(p)))
    ]
    assert not problems, "set these fields in __post_init__ (compiled, their default is never stored):\n" + "\n".join(
        problems
    )
