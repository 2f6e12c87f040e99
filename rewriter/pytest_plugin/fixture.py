"""The ``bytecodes`` fixture: measure Java code, check a budget, compare with the stored snapshot."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import JprewriteError
from .jvm import Jvm
from .snapshots import change_text, compare_profiles, grown_most, read_snapshot, snapshot_path, write_snapshot

__all__ = ["BytecodeResult", "Bytecodes", "BytecodesFailure"]


class BytecodesFailure(AssertionError):
    """A budget or snapshot check failed; the message names the contexts that grew most."""


@dataclass
class BytecodeResult:
    """One measurement: totals, what the measured code returned, and its tree (profile format)."""

    bytecodes: int
    calls: int
    allocations: int
    value: Any
    profile: dict
    measurement: Any = field(repr=False)  # the Java jprewrite.runtime.Measurement

    def __str__(self) -> str:
        return str(self.measurement.toString())


@dataclass
class Settings:
    """Where snapshots go and what the checks allow, from the test item, its marker and the options."""

    test_file: Path
    nodeid: str
    update: bool = False
    tolerance: float = 0.0
    max: int | None = None
    max_allocations: int | None = None


class Bytecodes:
    """``bytecodes(java_callable, name=..., max=..., tolerance=..., max_allocations=..., snapshot=True)``.

    ``java_callable`` is a Java ``Runnable`` or ``Callable`` (a JPype object), or a Python
    callable that calls Java: everything the calling thread executes in instrumented Java code
    while it runs is counted. Returns a :class:`BytecodeResult`; raises :class:`BytecodesFailure`.
    """

    def __init__(self, jvm: Jvm, settings: Settings) -> None:
        self.jvm = jvm
        self.settings = settings
        self.written: list[Path] = []
        self._names: dict[str | None, int] = {}

    def __call__(
        self,
        java_callable: Any,
        *,
        name: str | None = None,
        max: int | None = None,
        tolerance: float | None = None,
        max_allocations: int | None = None,
        snapshot: bool = True,
    ) -> BytecodeResult:
        __tracebackhide__ = True  # a failure points at the test's call, not at the plugin
        s = self.settings
        result = self.measure(java_callable)
        failures = self._budget(
            result, s.max if max is None else max, s.max_allocations if max_allocations is None else max_allocations
        )
        if snapshot:
            failure = self._snapshot(result, self._snapshot_name(name), s.tolerance if tolerance is None else tolerance)
            if failure:
                failures.append(failure)
        if failures:
            raise BytecodesFailure("\n".join(failures))
        return result

    def measure(self, java_callable: Any) -> BytecodeResult:
        """Run it under ``jprewrite.runtime.Measure``; its own exception is raised as it was."""
        jp = self.jvm.jpype
        value: list[Any] = [None]
        failure: list[BaseException] = []
        if isinstance(java_callable, jp.JClass("java.util.concurrent.Callable")):
            run, body = self.jvm.measure.call, java_callable
        elif isinstance(java_callable, jp.JClass("java.lang.Runnable")):
            run, body = self.jvm.measure.run, java_callable
        elif callable(java_callable):
            run, body = (
                self.jvm.measure.run,
                jp.JProxy("java.lang.Runnable", dict={"run": _python_body(java_callable, value, failure)}),
            )
        else:
            raise TypeError(
                f"bytecodes() measures a Java Runnable/Callable or a Python callable, "
                f"not {type(java_callable).__name__}"
            )
        try:
            m = run(body)
        except jp.JException as e:
            if str(e.getClass().getName()) == "java.lang.IllegalStateException" and "jprewrite" in str(e.getMessage()):
                raise BytecodesFailure(f"jprewrite: {e.getMessage()}") from None
            raise
        if failure:
            raise failure[0]
        if value[0] is None and isinstance(java_callable, jp.JClass("java.util.concurrent.Callable")):
            value[0] = m.value()
        profile = json.loads(str(m.toJson()))
        return BytecodeResult(int(m.bytecodes()), int(m.calls()), int(m.allocations()), value[0], profile, m)

    def _snapshot_name(self, name: str | None) -> str | None:
        """Calls without a name in one test are told apart by a counter (``-2``, ``-3``...)."""
        n = self._names[name] = self._names.get(name, 0) + 1
        return name if n == 1 else f"{name or ''}-{n}".lstrip("-")

    def _budget(self, r: BytecodeResult, limit: int | None, alloc_limit: int | None) -> list[str]:
        out = []
        if limit is not None and r.bytecodes > limit:
            out.append(
                f"bytecode budget exceeded: {r.bytecodes:,} bytecodes, max {limit:,} "
                f"({change_text(limit, r.bytecodes)})"
            )
        if alloc_limit is not None and r.allocations > alloc_limit:
            out.append(
                f"allocation budget exceeded: {r.allocations:,} allocations, max {alloc_limit:,} "
                f"({change_text(alloc_limit, r.allocations)})"
            )
        if out:  # the hottest contexts, once
            out.append(str(r.measurement.summary(8)))
        return out

    def _snapshot(self, r: BytecodeResult, name: str | None, tolerance: float) -> str | None:
        path = snapshot_path(self.settings.test_file, self.settings.nodeid, name)
        if self.settings.update or not path.is_file():
            write_snapshot(path, str(r.measurement.toJson()))
            self.written.append(path)
            return None
        try:
            v = compare_profiles(read_snapshot(path), r.profile, tolerance)
        except JprewriteError as e:
            return f"cannot compare with the bytecode snapshot: {e} (rerun with --bytecodes-update to write it again)"
        if not v.regressed:
            return None
        (b0, b1), (a0, a1) = v.bytecodes, v.allocations
        text = f"grew beyond its bytecode snapshot: {b0:,} -> {b1:,} bytecodes ({change_text(b0, b1)})"
        if a0 or a1:
            text += f", {a0:,} -> {a1:,} allocations ({change_text(a0, a1)})"
        text += (
            f"; tolerance {tolerance:g}% of the total, for it and for each context; snapshot {_relative(path)} "
            f"(after an intended change, rerun with --bytecodes-update)\ncontexts that grew most:"
        )
        return "\n  ".join([text, *grown_most(v)])


def _python_body(fn: Callable[[], Any], value: list[Any], failure: list[BaseException]) -> Callable[[], None]:
    """The Runnable's ``run``: call ``fn``, keep its value, keep (not throw) its exception."""

    def run() -> None:
        try:
            value[0] = fn()
        except BaseException as e:  # re-raised by measure() once the measurement is over
            failure.append(e)

    return run


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
