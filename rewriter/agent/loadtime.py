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
from collections.abc import Callable
from dataclasses import replace

from ..analysis.hierarchy import ClassHierarchy, summarize, summary_of
from ..archive.jars import Container, open_container
from ..archive.jdk_image import JdkImage
from ..classfile.model import read_class
from ..errors import JprewriteError
from ..instrument import HOLDER_SUFFIX, RUNTIME_PACKAGE, CctPlan, ClassPatterns, ClassPipeline, FailurePolicy
from .options import AgentOptions
from .protocol import FAILED, REWRITTEN, UNCHANGED, Result
from .speculation import NeedsQuery
from .summaries import SummarizedContainer, summaries_directory

_PROXY = "java/lang/reflect/Proxy"


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


def _needs_query(name: str) -> bytes | None:
    raise NeedsQuery(name)


def class_path_containers(class_path: str, warn: Callable[[str], None] | None = None) -> list[Container]:
    """The containers of ``java.class.path``, each jar followed by its manifest ``Class-Path`` (as the JVM
    reads them)."""
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
                        part = part[len("file:") :]
                    visit(os.path.join(base, part))

    for entry in class_path.split(os.pathsep):
        if entry:
            visit(entry)
    return out


class LoadTimeRewriter:
    """Rewrites classes one by one with the offline rules; ``query`` asks the agent for unknown classes."""

    def __init__(
        self,
        options: AgentOptions,
        java_home: str,
        class_path: str,
        query: Callable[[str], bytes | None] | None = None,
        warn: Callable[[str], None] | None = None,
        jar_release: str = "",
    ) -> None:
        """``jar_release``: the copies of multi-release jars the JVM loads (the agent's
        ``WorkerClient.jarRelease()``): ``base``, or a feature release; empty: the JDK's own."""
        instrument_options = options.instrument_options()  # first: a bad weights file fails before any work
        self.patterns = ClassPatterns(options.includes, options.excludes)
        self.containers = class_path_containers(class_path, warn)
        cache_dir = summaries_directory()
        self.jdk = JdkImage(java_home)
        # the copies of multi-release jars the JVM loads (the plan answers for classes not loaded yet)
        release: int | None = self.jdk.feature_version
        if jar_release == "base":
            release = None
        elif jar_release.isdigit():
            release = int(jar_release)
        sources = self.sources = [SummarizedContainer(c, cache_dir, release) for c in self.containers]
        self.seen = _SeenClasses()
        self.ask = _AskTheAgent(query)
        self.hierarchy = ClassHierarchy([self.seen, *sources, self.ask], self.jdk)
        self.failed: dict[str, str] = {}
        self.plan = CctPlan(self.hierarchy, self._may_instrument)
        #: the class-path source whose summary of a class counts (the first, as the JVM's loader finds it)
        self.summarized: dict[str, SummarizedContainer] = {}
        for source in reversed(sources):
            self.summarized.update(dict.fromkeys(source.names(), source))
        self.plan.set_world(n for n in self.summarized if self.patterns(n))
        self.pipeline = ClassPipeline(
            self.plan, instrument_options, on_failure=FailurePolicy.CONTRACT_ONLY, verify=options.verify
        )
        # for classes of loaders written in the program (see body_pass: resolutions)
        self.resolving = ClassPipeline(
            self.plan,
            replace(instrument_options, resolutions=True),
            on_failure=FailurePolicy.CONTRACT_ONLY,
            verify=options.verify,
        )
        self.rewritten = 0

    def _may_instrument(self, name: str) -> bool:
        if name in self.failed or not self.patterns(name) or name.endswith(HOLDER_SUFFIX):
            return False
        if self._in_jdk_package(name):
            return False
        info = self.hierarchy.info(name)
        # java.lang.reflect.Proxy classes are the JDK's dispatch plumbing, generated at run time:
        # left as the offline rewrite leaves them (the handler they call is instrumented)
        return info is not None and info.super_name != _PROXY

    def _in_jdk_package(self, name: str) -> bool:
        """A package of the JDK: the class path's copies (xml-apis' javax.xml...) are never loaded,
        and the classes the JDK generates there at run time (reflection's GeneratedMethodAccessorN,
        in their own loaders) are its plumbing."""
        return self.jdk.module_of_package(name.rpartition("/")[0]) is not None

    def rewrite(self, name: str, data: bytes, resolutions: bool = False) -> Result:
        """The agent's answer for class ``name`` defined from ``data``; ``resolutions``: its loader
        runs the program's code when it resolves a name (``ProgramLoaders`` on the Java side)."""
        try:
            cf = read_class(data)
            info = summary_of(cf)
        except JprewriteError as e:
            return Result(FAILED, message=f"cannot read the class file: {e}")
        except Exception as e:  # noqa: BLE001 - never let one class stop the worker
            return Result(FAILED, message=f"cannot read the class file: {type(e).__name__}: {e}")
        name = cf.name
        if name.startswith(RUNTIME_PACKAGE) or self._in_jdk_package(name):
            return Result(UNCHANGED)  # the JDK's own classes answer for these packages, never these bytes
        self._register(name, data, info)
        outcome = (self.resolving if resolutions else self.pipeline).run(data, cf)
        if outcome.already_instrumented is not None:
            return Result(UNCHANGED, message="already rewritten by jprewrite")
        rewritten = outcome.rewritten
        if rewritten is None:
            if outcome.failure is None:  # the plan leaves it as it is
                return Result(UNCHANGED)
            self.failed[name] = outcome.failure  # the agent's Java contract stands in for it
            self.plan.forget(name)
            return Result(FAILED, message=outcome.note())
        self.rewritten += 1
        return Result(REWRITTEN, rewritten.data, dict(rewritten.report.extra_classes), message=outcome.note())

    def _register(self, name: str, data: bytes, info) -> None:
        """The JVM defines ``name`` from ``data``: it is part of the program from now on."""
        self.seen.classes[name] = bytes(data)
        if self.hierarchy.add(info):  # asked for before and not found: decide again
            self.plan.forget(name)
        self.plan.add_to_world(name)

    def adopt(self, name: str, data: bytes, result: Result) -> None:
        """A result made ahead (:mod:`.speculation`) is used: record the class as :meth:`rewrite` would."""
        try:
            self._register(name, data, summarize(data))
        except JprewriteError:
            return
        if result.status == REWRITTEN:
            self.rewritten += 1

    def speculative_rewrite(self, name: str, data: bytes) -> Result:
        """:meth:`rewrite` in the forked copy: a question for the agent aborts it (``NeedsQuery``)."""
        self.ask.query = _needs_query
        return self.rewrite(name, data)

    def read_bytes(self, name: str) -> bytes | None:
        """The bytes the application class loader would define ``name`` from (first on the class path)."""
        source = self.summarized.get(name)
        if source is None:
            return None
        entry = source.find_class(name)
        try:
            return entry.read() if entry is not None else None
        except (JprewriteError, OSError):
            return None

    def likely_next(self, data: bytes) -> list[str]:
        """Class-path classes that the class in ``data`` names: the JVM often loads them next.

        Ordered so that the superclass comes last (it is rewritten first: the JVM loads it as
        soon as the class is defined), then the interfaces, then the rest of the pool.
        """
        try:
            cf = read_class(data)
            pool = cf.pool
            named = [pool.class_name(i) for i in range(1, len(pool)) if pool.tag(i) == 7]
        except Exception:  # noqa: BLE001 - only a guess
            return []
        first = [cf.super_name, *cf.interfaces]
        out = []
        seen = set(first)
        for n in named:
            if n not in seen and not n.startswith("[") and n not in self.seen.classes:
                seen.add(n)
                out.append(n)
        out += [n for n in reversed(first) if n and n not in self.seen.classes]
        return [n for n in out if self.patterns(n) and not self._in_jdk_package(n) and n in self.summarized]

    def close(self) -> None:
        try:
            self.hierarchy.save_cache()
        except Exception:  # noqa: BLE001 - the JDK summary cache is an optimisation
            pass
        for c in self.containers:
            c.close()
