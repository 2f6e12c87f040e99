"""Profiles of several runs added into one: test forks, executors, repeated runs.

Build tools fork several test JVMs with the same agent options and a distributed job runs one JVM
per executor; each writes its own profile (``output=prof-%p.json``) and :func:`merge_profiles`
adds them up, as the runtime's ``append=true`` does at exit: the merged trees are added path by
path, each thread name's trees are added (threads are kept apart by name), every counter
(calls, bytecodes, weighted, samples, fresh, allocations per type) is summed, and ``runs`` counts
the runs the result stands for. Files are read one at a time, so memory is the result's size
plus one input's.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

from ..errors import JprewriteError
from .model import Frames, Profile, Tree
from .ops import TreeBuilder
from .reader import load

__all__ = ["merge_profiles"]


class _Sum:
    """One tree being added up (a :class:`TreeBuilder` whose columns grow with the inputs)."""

    def __init__(self, frames: Frames) -> None:
        self.frames = frames
        self.builder = TreeBuilder(frames, ())

    def add(self, tree: Tree) -> None:
        b = self.builder
        for m in tree.values:
            if m not in b.values:
                b.values[m] = _zeros(len(b.parent))
        fmap = [self.frames.intern(n, k) for n, k in zip(tree.frames.names, tree.frames.kinds)]
        b.merge(tree, frame_map=fmap)

    def build(self) -> Tree:
        for m in ("calls", "bytecodes"):  # every tree has these two
            if m not in self.builder.values:
                self.builder.values[m] = _zeros(len(self.builder.parent))
        return self.builder.build()


def _zeros(n: int) -> array:
    return array("q", bytes(8 * n))


def merge_profiles(paths: Iterable[str]) -> Profile:
    """The sum of the profiles in ``paths`` (at least one); a bad input raises :class:`JprewriteError`.

    The result's header is the first profile's (``sampling`` settings and the like) with ``runs``
    summed. A thread written as the merged tree (``same_as_root``, a program's only thread name)
    stays so when every input has that one thread name; a name listed without a tree
    (``threads=merged-only``) stays listed.
    """
    frames = Frames()
    merged = _Sum(frames)
    threads: dict[str, _Sum] = {}
    names: list[str] = []
    header: dict | None = None
    runs = 0
    alias: str | None = None  # the one thread name of every input so far, each written as the merged tree
    alias_ok = True
    count = 0
    for path in paths:
        p = load(path)
        if p.merged is None:
            raise JprewriteError("the profile has no merged tree", path=path)
        count += 1
        if header is None:
            header = dict(p.header)
        try:
            runs += max(1, int(p.header.get("runs", 1)))
        except (TypeError, ValueError):
            raise JprewriteError(f"'runs' is not a number: {p.header.get('runs')!r}", path=path) from None
        merged.add(p.merged)
        for name in p.thread_names:
            if name not in names:
                names.append(name)
        one = len(p.threads) == 1 and len(set(p.thread_names)) == 1 and p.threads[0][1] is p.merged
        if one and (alias is None or alias == p.threads[0][0]) and alias_ok:
            alias = p.threads[0][0]
        else:
            alias_ok = False
        for name, tree in p.threads:
            threads.setdefault(name, _Sum(frames)).add(tree)
    if count == 0:
        raise JprewriteError("no profiles to merge")
    total = merged.build()
    result = Profile(frames, total, header=dict(header or {}), thread_names=names)
    result.header["runs"] = runs
    for name, s in threads.items():
        result.threads.append((name, total if alias_ok and name == alias else s.build()))
    return result
