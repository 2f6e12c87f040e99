"""``jprewrite check``: does every class survive jprewrite's full decode and re-encode, byte for byte?

Users run it on their jars before trusting jprewrite with them, so it reports
each class that does not come back identical (and where), each class that
cannot be read (with file, entry and byte offset), and exits 0 only when every
class round-trips. Work is spread over processes because a large jar or the
whole JDK takes minutes in one.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from ..archive.jars import open_container
from ..archive.jdk_image import JdkImage, find_java_home
from ..errors import JprewriteError
from .inputs import open_inputs
from .progress import Progress
from .roundtrip import full_round_trip

_BATCH = 200
#: checks one batch of classes of one location: (name, identical?, what differs) per class
_Batch = Callable[[str, list[str]], list[tuple[str, bool, str]]]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check", help="decode and re-encode every class; report any that differ", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("inputs", nargs="*", metavar="PATH", help="jar, zip, directory or .class file")
    p.add_argument("--jdk", action="store_true", help="also check every class of the JDK runtime image")
    p.add_argument(
        "--jobs", "-j", type=int, default=os.cpu_count() or 1, help="worker processes (default: number of CPUs)"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    p.set_defaults(run=run)


def _check_container_batch(path: str, names: list[str]) -> list[tuple[str, bool, str]]:
    out = []
    with open_container(path) as c:
        for name in names:
            entry = c.entry(name)
            assert entry is not None  # the name is one of the container's own entries
            where = None if c.kind == "class" else name
            try:
                data = entry.read()
            except JprewriteError as e:
                out.append((name, False, f"error: {e.located(path=path, entry=where)}"))
                continue
            ok, why = full_round_trip(data, path=path, entry=where)
            out.append((name, ok, why))
    return out


def _check_jdk_batch(home: str, names: list[str]) -> list[tuple[str, bool, str]]:
    out = []
    with JdkImage(home) as image:
        for name in names:
            data = image.read_resource(name)
            ok, why = (
                full_round_trip(data, path=home, entry=name)
                if data is not None
                else (False, f"error: {home}!{name}: vanished from the image")
            )
            out.append((name, ok, why))
    return out


def run(args: argparse.Namespace) -> int:
    if not args.inputs and not args.jdk:
        print("jprewrite: check needs at least one jar, directory or class file, or --jdk", file=sys.stderr)
        return 2
    containers = open_inputs(args.inputs)
    work: list[tuple[_Batch, str, list[str]]] = []  # (function, location, batch)
    for c in containers:
        names = [e.name for e in c.entries() if e.is_class and not e.shadowed]
        for i in range(0, len(names), _BATCH):
            work.append((_check_container_batch, c.path, names[i : i + _BATCH]))
        c.close()
    if args.jdk:
        home = str(find_java_home())
        with JdkImage(home) as image:
            names = [f"/{module}/{name}.class" for module, name in image.iter_class_names()]
        for i in range(0, len(names), _BATCH):
            work.append((_check_jdk_batch, home, names[i : i + _BATCH]))
    total = sum(len(b) for _, _, b in work)
    progress = Progress("check", total, enabled=not args.quiet)
    identical = differ = errors = 0
    started = time.monotonic()

    def account(location: str, results: list[tuple[str, bool, str]]) -> None:
        nonlocal identical, differ, errors
        for name, ok, why in results:
            if ok:
                identical += 1
            elif why.startswith("error: "):
                errors += 1
                progress.write(f"ERROR {why[7:]}")
            else:
                differ += 1
                progress.write(f"DIFFERS {location}!{name}: {why}")
        progress.advance(len(results))

    jobs = max(1, args.jobs)
    if jobs == 1 or total < 2 * _BATCH:
        for fn, location, batch in work:
            account(location, fn(location, batch))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [(location, pool.submit(fn, location, batch)) for fn, location, batch in work]
            for location, fut in futures:
                account(location, fut.result())
    progress.close()
    elapsed = time.monotonic() - started
    print(f"checked {total} classes in {elapsed:.1f}s: {identical} identical, {differ} differ, {errors} unreadable")
    if errors:
        return 2
    return 0 if differ == 0 else 1
