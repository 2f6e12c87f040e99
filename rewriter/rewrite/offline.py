"""Offline rewriting: jars and class directories in, self-contained profiling jars out.

One run rewrites several inputs together so the hierarchy rules see every
instrumented class (a caller in one jar passes the node to an ESI method in
another). The output gets the Java runtime embedded, so ``java -cp out.jar
Main`` works without anything else; a manifest ``Class-Path`` naming another
input of the same run is pointed at that input's output.

A class that fails to rewrite for an unexpected reason is left out of the
instrumented set and the whole run is planned again, so no caller ever
passes a node to a method that did not get its ESI twin.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.hierarchy import ClassHierarchy
from ..archive.jars import Container, Entry, ReleaseView, open_container, write_directory, write_jar
from ..archive.jdk_image import JdkImage, find_java_home
from ..classfile.model import read_class
from ..errors import JprewriteError
from ..instrument import (
    RUNTIME_PACKAGE,
    CctPlan,
    ClassPatterns,
    ClassPipeline,
    ClassReport,
    FailurePolicy,
    InstrumentOptions,
)
from .runtime_build import runtime_classes

_MAX_ROUNDS = 4
#: zlib level of the entries the rewriter writes: level 1 deflates the rewritten classes in 0.63x
#: level 6's time, into 6.5 % more bytes (commons-math3, h2, sunflow: 0.37 s against 0.59 s, 11.9
#: against 11.2 MB); the deflate was 7.7 % of a one-core rewrite at level 6. Unchanged entries keep
#: their compressed bytes.
_COMPRESSLEVEL = 1


@dataclass
class RewriteReport:
    classes: int = 0  #: classes read
    instrumented: int = 0  #: classes rewritten
    totals: ClassReport = field(default_factory=ClassReport)
    failed: dict[str, str] = field(default_factory=dict)  #: class -> why it stays uninstrumented
    serial_uids: list[str] = field(default_factory=list)  #: classes that got an explicit serialVersionUID
    class_path_notes: list[str] = field(default_factory=list)
    missing_classes: set[str] = field(default_factory=set)
    gate_rejected: int = 0  #: methods the verification gate sent back to be kept as they were
    seconds: float = 0.0


def _conflicting_duplicates(items: list[_Input]) -> dict[str, str]:
    """Classes present with different bytes in several inputs stay uninstrumented everywhere.

    The rewriting rules must hold for whichever copy the JVM loads, and the
    copies may differ in just what the rules look at (e.g. an interface's
    class-file version, which decides whether it may get default methods).
    """
    seen: dict[str, tuple] = {}
    out: dict[str, str] = {}
    for item in items:
        for e in item.class_entries:
            if e.name.startswith("META-INF/versions/"):
                continue
            name = _internal_name(e)
            size = e.file_size
            previous = seen.get(name)
            if previous is None:
                seen[name] = (size, item.container.path, e)
                continue
            other_size, other_path, other_entry = previous
            if name in out or (other_size == size and other_entry.read() == e.read()):
                continue
            out[name] = f"differs between {other_path} and {item.container.path}"
    return out


class _Input:
    def __init__(self, index: int, container: Container, output: Path) -> None:
        self.index = index
        self.container = container
        self.output = output
        self.class_entries: list[Entry] = [
            e
            for e in container.entries()
            if not e.is_dir and e.name.endswith(".class") and not e.is_module_info and not e.shadowed
        ]


def _internal_name(entry: Entry) -> str:
    name = entry.name[: -len(".class")]
    if name.startswith("META-INF/versions/"):
        parts = name.split("/", 3)
        name = parts[3] if len(parts) == 4 else name
    return name


def rewrite(
    inputs: Sequence[str | os.PathLike[str]],
    outputs: Sequence[str | os.PathLike[str]],
    *,
    classpath: Iterable[str | os.PathLike[str]] = (),
    options: InstrumentOptions | None = None,
    patterns: ClassPatterns | None = None,
    java_home: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    hierarchy_cache: bool = True,
    jobs: int | None = None,
    verify: bool | None = None,
) -> RewriteReport:
    """Rewrite each of ``inputs`` (jar or class directory) to the matching path of ``outputs``.

    ``verify``: every rewritten method passes the verification gate first (see
    :mod:`jprewrite.instrument.pipeline`); None: as ``JPREWRITE_VERIFY`` says, else off.
    """
    started = time.monotonic()
    if len(inputs) != len(outputs):
        raise ValueError("one output per input")
    options = options or InstrumentOptions()
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    patterns = patterns or ClassPatterns()
    report = RewriteReport()
    containers = [open_container(p) for p in inputs]
    extra = [open_container(p) for p in classpath]
    try:
        items: list[_Input] = []
        for c, out in zip(containers, outputs):
            if c.kind == "class":
                raise JprewriteError(
                    "a single class file cannot carry the runtime; rewrite its directory or jar", path=c.path
                )
            items.append(_Input(len(items), c, Path(out)))
        runtime = runtime_classes()
        for item in items:
            for e in item.class_entries:
                if e.name.startswith(RUNTIME_PACKAGE):
                    raise JprewriteError(
                        "already rewritten by jprewrite (contains the runtime)", path=item.container.path, entry=e.name
                    )
        jdk = JdkImage(java_home or find_java_home())
        sources = [*containers, *extra]
        everywhere, views = _release_views(items, sources, jdk.feature_version)
        target = everywhere[0]
        hierarchy = ClassHierarchy(_at(sources, target), jdk, cache=None if hierarchy_cache else False)
        hierarchies = {target: hierarchy}
        for view in {v for key in (everywhere, *views.values()) for v in key} - {target}:
            hierarchies[view] = ClassHierarchy(_at(sources, view), jdk, cache=hierarchy.cache or False)
        names = {_internal_name(e) for item in items for e in item.class_entries}
        excluded: dict[str, str] = _conflicting_duplicates(items)
        for _ in range(_MAX_ROUNDS):
            allowed = {n for n in names if patterns(n) and n not in excluded}
            plans: dict[int | None, CctPlan] = {}
            for view, view_hierarchy in hierarchies.items():
                plans[view] = CctPlan(view_hierarchy, allowed.__contains__)
                plans[view].set_world(allowed)
            pipelines: dict[_Views, ClassPipeline] = {}
            for key in {everywhere, *views.values()}:
                plan = plans[key[0]]
                if len(key) > 1:  # a plan of its own: its call sites hold in the other views too
                    plan = CctPlan(hierarchies[key[0]], allowed.__contains__)
                    plan.set_world(allowed)
                    plan.also_valid_in(plans[v] for v in key[1:])
                pipelines[key] = ClassPipeline(plan, options, on_failure=FailurePolicy.EXCLUDE, verify=verify)
            results, new_failures, round_report = _rewrite_all(items, pipelines, views, everywhere, progress, jobs)
            if not new_failures:
                break
            excluded.update(new_failures)
        else:  # pragma: no cover - would need failures that keep appearing
            raise JprewriteError("classes keep failing to rewrite: " + ", ".join(sorted(excluded)[:5]))
        report.failed = {
            n: why
            for n, why in excluded.items()
            if (info := hierarchy.info(n)) is not None and not info.from_jdk and patterns(n)
        }
        report.classes = sum(len(i.class_entries) for i in items)
        report.instrumented = round_report.instrumented
        report.totals = round_report.totals
        report.serial_uids = round_report.serial_uids
        report.gate_rejected = round_report.gate_rejected
        for item in items:
            manifest_bytes = _rewrite_manifest(item, items, report)
            _write(item, results, runtime, manifest_bytes)
        report.missing_classes = set(hierarchy.missing)
        hierarchy.save_cache()
    finally:
        for c in containers + extra:
            c.close()
    report.seconds = time.monotonic() - started
    return report


#: the views (releases a JVM loads the copies of multi-release jars for; None: the base copies)
#: in which a class is loaded: the one its plan is made in first, then those it must hold in too
_Views = tuple[int | None, ...]


def _release_views(
    items: list[_Input], sources: Sequence[Container], release: int | None
) -> tuple[_Views, dict[tuple[int, str], _Views]]:
    """The views every class is loaded in, and those of each copy of a class of a multi-release jar
    that is loaded in fewer (entries not listed: in all views).

    A JVM of release R loads, for each class, the copy in the highest ``META-INF/versions/N`` with
    N <= R, else the base one; a JVM with ``-Djdk.util.jar.enableMultiRelease=false`` (or a Java 8
    one) the base copies. The distinct views are the base and each release a versioned copy is
    for. The run plans for the JDK it reads the JDK classes from (``--java-home``) first: a copy
    that JDK loads is rewritten with the plan of that release (a method that exists only in a
    versioned copy gets its ESI twin and its callers pass the node), any other copy with the plan
    of the first view that loads it. A class is loaded in every view that picks its copy, and its
    call sites must be valid with the copies each of those views loads of the classes it calls
    (:meth:`CctPlan.also_valid_in`): a jar rewritten with JDK 17 also runs on Java 11, or with
    multi-release switched off. Without multi-release jars there is one view and every answer is
    as before (the base entries).
    """
    if release is None or not any(c.has_versioned_classes for c in sources):
        return (None,), {}
    releases = sorted(  # (a versioned module-info alone changes no class: kotlin-stdlib's, for one)
        {
            e.release
            for c in sources
            if c.has_versioned_classes
            for e in c.entries()
            if e.is_class and not e.is_module_info and e.release is not None and e.release >= 9
        }
    )
    if not releases:
        return (None,), {}
    # a view stands for the releases up to the next versioned one: the JDK's own stands for its range
    own = max((r for r in releases if r <= release), default=None)
    everywhere: _Views = (release, *(v for v in (None, *releases) if v != own))
    views: dict[tuple[int, str], _Views] = {}
    for item in items:
        container = item.container
        if not container.has_versioned_classes:
            continue
        for e in item.class_entries:
            assert e.class_name is not None
            loaded_in = tuple(v for v in everywhere if container.find_class(e.class_name, v) is e)
            if loaded_in != everywhere:
                views[(item.index, e.name)] = loaded_in or (e.release,)  # (no JVM loads it: its own release)
    return everywhere, views


def _at(sources: Sequence[Container], view: int | None) -> list[Container | ReleaseView]:
    """The class sources of one view: multi-release jars seen at ``view`` (None: their base copies)."""
    if view is None:
        return list(sources)
    return [c.at_release(view) if c.has_versioned_classes else c for c in sources]


_BATCH = 64
#: the inputs, a pipeline per set of views, the views of each entry not loaded in all, all views
_WorkerState = tuple[list[_Input], dict[_Views, ClassPipeline], dict[tuple[int, str], _Views], _Views]
_WORKER_STATE: _WorkerState | None = None  # inherited by forked workers


def _rewrite_all(
    items: list[_Input],
    pipelines: dict[_Views, ClassPipeline],
    views: dict[tuple[int, str], _Views],
    everywhere: _Views,
    progress: Callable[[int, int], None] | None,
    jobs: int,
):
    """Rewrite every class of ``items``; in ``jobs`` forked processes when there is enough work."""
    global _WORKER_STATE
    work = [(item.index, e.name) for item in items for e in item.class_entries]
    total = len(work)
    batches = [work[i : i + _BATCH] for i in range(0, total, _BATCH)]
    results: dict[tuple[int, str], bytes] = {}
    failures: dict[str, str] = {}
    report = RewriteReport()
    for pipeline in pipelines.values():
        pipeline.plan.warm_up()
    _WORKER_STATE = (items, pipelines, views, everywhere)
    done = 0

    def merge(part) -> None:
        nonlocal done
        error, part_results, part_failures, part_report, n = part
        if error is not None:
            path, entry, offset, message = error
            raise JprewriteError(message, path=path, entry=entry, offset=offset)
        results.update(part_results)
        failures.update(part_failures)
        report.instrumented += part_report.instrumented
        report.totals.add(part_report.totals)
        report.serial_uids += part_report.serial_uids
        report.gate_rejected += part_report.gate_rejected
        done += n
        if progress is not None:
            progress(done, total)

    try:
        with _fewer_collections():
            if jobs > 1 and len(batches) > 2 and "fork" in multiprocessing.get_all_start_methods():
                ctx = multiprocessing.get_context("fork")
                with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
                    for part in pool.map(_rewrite_batch, batches):
                        merge(part)
            else:
                for batch in batches:
                    merge(_rewrite_batch(batch))
    finally:
        _WORKER_STATE = None
    return results, failures, report


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """The cyclic garbage collector, less often while classes are rewritten (forked workers too).

    Rewriting a class allocates tens of thousands of short-lived objects (instructions, labels,
    lists) and frees almost all of them by reference counting; at the default threshold the
    collector runs every 700 allocations and, every so often, walks the hierarchy and the plan
    too. Those live for the whole run: frozen, no collection walks them. About 4 % of the run.
    """
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(threshold[0], 50_000), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def _rewrite_batch(batch: list[tuple[int, str]]):
    """(error, results, failures, report, count) for one batch; picklable, so it also runs in a worker."""
    assert _WORKER_STATE is not None
    items, pipelines, views, everywhere = _WORKER_STATE
    results: dict[tuple[int, str], bytes] = {}
    failures: dict[str, str] = {}
    report = RewriteReport()
    for index, name in batch:
        container = items[index].container
        pipeline = pipelines[views.get((index, name), everywhere)]
        try:
            entry = container.entry(name)
            assert entry is not None  # the name is one of the container's own entries
            data = entry.read()
            cf = read_class(data)
        except JprewriteError as err:
            err = err.located(path=container.path, entry=name)
            return (err.path, err.entry, err.offset, err.message), {}, {}, report, len(batch)
        outcome = pipeline.run(data, cf)
        if outcome.already_instrumented is not None:
            return (container.path, name, None, outcome.already_instrumented), {}, {}, report, len(batch)
        if outcome.failure is not None:  # stays uninstrumented; the run is planned again without it
            failures[cf.name] = outcome.failure
            continue
        rewritten = outcome.rewritten
        if rewritten is None:
            continue
        class_report, new = rewritten.report, rewritten.data
        report.gate_rejected += len(rewritten.rejected)
        if rewritten.serial_uid_pinned:
            report.serial_uids.append(cf.name)
        report.instrumented += 1
        extras = class_report.extra_classes
        class_report.extra_classes = {}
        report.totals.add(class_report)
        prefix = name[: len(name) - len(cf.name + ".class")]
        results[(index, name)] = new
        for extra_name, extra_data in extras.items():
            results[(index, prefix + extra_name + ".class")] = extra_data
    return None, results, failures, report, len(batch)


def _rewrite_manifest(item: _Input, items: list[_Input], report: RewriteReport) -> bytes | None:
    """Point ``Class-Path`` entries that name other inputs of this run at their outputs."""
    container = item.container
    if container.kind != "jar":
        return None
    manifest = container.manifest()
    if manifest is None or "Class-Path" not in manifest.main:
        return None
    here = Path(os.path.realpath(container.path)).parent
    out_dir = Path(os.path.abspath(item.output)).parent
    by_input = {os.path.realpath(i.container.path): i for i in items}
    new_parts = []
    changed = False
    for part in manifest.main["Class-Path"].split():
        target = os.path.realpath(here / part)
        other = by_input.get(target)
        if other is not None:
            rel = os.path.relpath(os.path.abspath(other.output), out_dir).replace(os.sep, "/")
            new_parts.append(rel)
            changed = changed or rel != part
        else:
            new_parts.append(part)
            if os.path.exists(target):
                report.class_path_notes.append(
                    f"{container.path}: Class-Path entry {part} is not rewritten in this run "
                    "(its classes will run uninstrumented)"
                )
    if not changed:
        return None
    manifest.main["Class-Path"] = " ".join(new_parts)
    return manifest.to_bytes()


def _write(
    item: _Input, results: dict[tuple[int, str], bytes], runtime: dict[str, bytes], manifest_bytes: bytes | None
) -> None:
    container = item.container

    def entries() -> Iterator:
        present = set()
        for e in container.entries():
            present.add(e.name)
            if e.is_dir or e.shadowed:  # a repeated name's earlier copies: never read by the JVM, kept as they are
                yield e
            elif manifest_bytes is not None and e.is_manifest:
                yield (e, manifest_bytes)
            else:
                new = results.get((item.index, e.name))
                yield e if new is None else (e, new)
        for (index, name), data in results.items():
            if index == item.index and name not in present:
                yield (name, data)
        for name, data in sorted(runtime.items()):
            if name not in present:
                yield (name, data)

    if container.kind == "directory":
        write_directory(item.output, entries(), inputs=[container])
    else:
        write_jar(
            item.output,
            entries(),
            inputs=[container],
            comment=container.comment,
            preamble=container.preamble,
            compresslevel=_COMPRESSLEVEL,
        )
