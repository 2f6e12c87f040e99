"""Rewriting one class at a time as the JVM loads it, against a view of the program that grows.

The offline rewriter sees every class before it rewrites one; at load time classes arrive one by
one. The decisions that must agree between a caller and its callee (has the callee an ESI
method?) depend only on the callee's own class file and the include rules, so they come out the
same whichever is rewritten first. The class hierarchy behind them is answered, in this order,
from the classes the JVM has handed us, the program's class path (``java.class.path`` and the
``Class-Path`` of its jars, read here directly), the JDK image, and finally by asking the agent
to read the class from the defining loader of the class being rewritten (plugins, generated
classes). The class path also makes the *world* of the PENDING rule (which JDK methods an
instrumented class overrides), so a program gets the same plan as an offline rewrite of its
class path; classes that appear only at run time join the world when they are loaded.

A class whose full rewrite fails is rewritten in contract-only form (its bodies unchanged, with
delegating ESI methods), because classes rewritten before it may already pass it nodes.
"""

from __future__ import annotations

import os
from typing import Callable, Iterable

from ..analysis.hierarchy import ClassHierarchy, summarize
from ..archive.jars import Container, open_container
from ..archive.jdk_image import JdkImage
from ..classfile.model import read_class
from ..errors import JprewriteError
from ..instrument import serial_uid
from ..instrument.cct import AlreadyInstrumented, CctOptions, instrument_class
from ..instrument.plan import CctPlan, ClassPatterns, RUNTIME_PACKAGE, HOLDER_SUFFIX
from ..rewrite.offline import read_weights
from .options import AgentOptions
from .protocol import FAILED, REWRITTEN, UNCHANGED, Result

_PROXY = "java/lang/reflect/Proxy"
# failure injection for tests of the fallbacks: class-name globs whose full / contract-only rewrite raises
_FAIL_ENV, _FAIL_CONTRACT_ENV = "JPREWRITE_AGENT_FAIL", "JPREWRITE_AGENT_FAIL_CONTRACT"


class _SeenClasses:
    """Classes the JVM handed to the agent: what the program really loads comes first."""

    def __init__(self) -> None:
        self.classes: dict[str, bytes] = {}

    def find_class(self, name: str) -> bytes | None:
        return self.classes.get(name)


class _AskTheAgent:
    """Last resort: the agent reads ``name.class`` from the defining loader of the class in hand."""

    def __init__(self, query: Callable[[str], bytes | None] | None) -> None:
        self.query = query

    def find_class(self, name: str) -> bytes | None:
        if self.query is None or name.startswith("["):
            return None
        return self.query(name)


def class_path_containers(class_path: str, warn: Callable[[str], None] | None = None) -> list[Container]:
    """The containers of ``java.class.path``, each jar followed by its manifest ``Class-Path`` (as the JVM reads them)."""
    out: list[Container] = []
    seen: set[str] = set()

    def visit(path: str) -> None:
        real = os.path.realpath(path)
        if real in seen or not os.path.exists(real):
            return
        seen.add(real)
        try:
            container = open_container(real)
        except JprewriteError as e:
            if warn is not None:
                warn(f"class path entry {path} is ignored: {e}")
            return
        if container.kind == "class":
            container.close()
            return
        out.append(container)
        if container.kind == "jar":
            try:
                manifest = container.manifest()
            except JprewriteError:
                manifest = None
            if manifest is not None and "Class-Path" in manifest.main:
                base = os.path.dirname(real)
                for part in manifest.main["Class-Path"].split():
                    if part.startswith("file:"):
                        part = part[len("file:"):]
                    visit(os.path.join(base, part))

    for entry in class_path.split(os.pathsep):
        if entry:
            visit(entry)
    return out


def _class_names(containers: Iterable[Container]) -> set[str]:
    names = set()
    for c in containers:
        for e in c.entries():
            if e.is_dir or not e.name.endswith(".class") or e.is_module_info:
                continue
            name = e.name[:-len(".class")]
            if name.startswith("META-INF/versions/"):
                parts = name.split("/", 3)
                if len(parts) < 4:
                    continue
                name = parts[3]
            names.add(name)
    return names


class LoadTimeRewriter:
    """Rewrites classes one by one with the offline rules; ``query`` asks the agent for unknown classes."""

    def __init__(self, options: AgentOptions, java_home: str, class_path: str,
                 query: Callable[[str], bytes | None] | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        weights = read_weights(options.weights) if options.weights else None
        self.cct_options = CctOptions(counting=options.counting, allocations=options.allocations,
                                      weights=weights, activation=options.activation)
        self.patterns = ClassPatterns(options.includes, options.excludes)
        self.containers = class_path_containers(class_path, warn)
        self.seen = _SeenClasses()
        self.hierarchy = ClassHierarchy([self.seen, *self.containers, _AskTheAgent(query)], JdkImage(java_home))
        self.failed: dict[str, str] = {}
        self.plan = CctPlan(self.hierarchy, self._may_instrument)
        self.plan.set_world(n for n in _class_names(self.containers) if self.patterns(n))
        self.rewritten = 0

    def _may_instrument(self, name: str) -> bool:
        if name in self.failed or not self.patterns(name) or name.endswith(HOLDER_SUFFIX):
            return False
        info = self.hierarchy.info(name)
        # java.lang.reflect.Proxy classes are the JDK's dispatch plumbing, generated at run time:
        # left as the offline rewrite leaves them (the handler they call is instrumented)
        return info is not None and info.super_name != _PROXY

    def rewrite(self, name: str, data: bytes) -> Result:
        """The agent's answer for class ``name`` defined from ``data``."""
        try:
            cf = read_class(data)
            info = summarize(data)
        except JprewriteError as e:
            return Result(FAILED, message=f"cannot read the class file: {e}")
        except Exception as e:  # noqa: BLE001 - never let one class stop the worker
            return Result(FAILED, message=f"cannot read the class file: {type(e).__name__}: {e}")
        name = cf.name
        if name.startswith(RUNTIME_PACKAGE):
            return Result(UNCHANGED)
        self.seen.classes[name] = bytes(data)
        if self.hierarchy._infos.get(name, info) is None:   # asked for before and not found: decide again
            self.plan.forget(name)
        self.hierarchy.add(info)
        self.plan.add_to_world(name)
        if not self.plan.is_instrumented(name):
            return Result(UNCHANGED)
        try:
            return self._instrument(cf, contract_only=False)
        except AlreadyInstrumented:
            return Result(UNCHANGED, message="already rewritten by jprewrite")
        except Exception as e:  # noqa: BLE001 - the class falls back to its contract
            why = f"{type(e).__name__}: {e}"
        try:
            result = self._instrument(read_class(data), contract_only=True)
            result.message = f"{why}; its bodies run unchanged behind delegating ESI methods"
            return result
        except Exception as e:  # noqa: BLE001
            self.failed[name] = why
            self.plan.forget(name)
            return Result(FAILED, message=f"{why} (and its contract-only form failed too: {type(e).__name__}: {e})")

    def _instrument(self, cf, *, contract_only: bool) -> Result:
        injected = os.environ.get(_FAIL_CONTRACT_ENV if contract_only else _FAIL_ENV)
        if injected and ClassPatterns(injected.split(":"))(cf.name):
            raise RuntimeError(f"failure injected by {_FAIL_CONTRACT_ENV if contract_only else _FAIL_ENV}")
        serial_uid.pin_serial_version_uid(cf, self.hierarchy)
        report = instrument_class(cf, self.plan, self.cct_options, contract_only=contract_only)
        data = cf.to_bytes()
        self.rewritten += 1
        return Result(REWRITTEN, data, dict(report.extra_classes))

    def close(self) -> None:
        try:
            self.hierarchy.save_cache()
        except Exception:  # noqa: BLE001 - the JDK summary cache is an optimisation
            pass
        for c in self.containers:
            c.close()
