"""Profiles in the formats other viewers read: collapsed stacks, speedscope, pprof.

Each context with a non-zero self value becomes one stack (the methods from the root's
child down to it) with that value as its weight: what a sampling profiler would have
recorded had it sampled every bytecode. Files are written as they are produced, so an
export needs the node tables plus one stack at a time, not a copy of the output.
"""

from __future__ import annotations

import gzip
import io
import json
from array import array
from collections.abc import Iterator
from typing import IO, cast

from ..errors import JprewriteError
from .model import Profile, Tree
from .names import display_names

__all__ = ["stacks", "write_collapsed", "write_speedscope", "write_pprof", "export_trees", "open_output"]

SPEEDSCOPE_SCHEMA = "https://www.speedscope.app/file-format-schema.json"


def stacks(tree: Tree) -> Iterator[tuple[int, list[int]]]:
    """Every row with its path of frames (root excluded), in preorder; the list is reused: copy to keep."""
    frm, depth = tree.frame, tree.depths()
    path: list[int] = []
    for i in range(1, len(frm)):
        d = depth[i]
        del path[d - 1 :]
        path.append(frm[i])
        yield i, path


def export_trees(profile: Profile, thread: str | None = None, merged: bool = True) -> list[tuple[str, Tree]]:
    """The trees an export shows: the one thread asked for; else the merged tree (unless ``merged`` is
    false) and each thread's, when there is more than one thread (one thread's tree equals the merged
    one). Thread names repeat when the program reused them; their trees are kept apart."""
    if thread is not None:
        return [(thread, profile.tree(thread))]
    out = []
    several = len(profile.threads) > 1
    if profile.merged is not None and (merged or not several):
        out.append(("all threads", profile.merged))
    if several or profile.merged is None:
        out += profile.threads
    return out


def open_output(path: str, binary: bool = False, compress: bool | None = None) -> IO:
    """A file to write, gzip-compressed when ``compress`` (default: the name ends in ``.gz``);
    one error line if it cannot be created."""
    try:
        raw = open(path, "wb")
    except OSError as e:
        raise JprewriteError(f"cannot write: {e.strerror or e}", path=path) from None
    if compress is None:
        compress = path.endswith(".gz")
    f = cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6)) if compress else raw
    if binary:
        return f
    return io.TextIOWrapper(f, encoding="utf-8", newline="\n")


def write_collapsed(tree: Tree, metric: str, out: IO[str], full: bool = False) -> int:
    """``a;b;c N`` lines (Brendan Gregg's folded stacks); ``;`` inside a name becomes ``,``."""
    names = [n.replace(";", ",").replace("\n", " ") for n in display_names(tree.frames.names, full)]
    values = tree.value(metric)
    lines = 0
    for i, path in stacks(tree):
        v = values[i]
        if v:
            out.write(";".join([names[f] for f in path]))
            out.write(f" {v}\n")
            lines += 1
    return lines


def write_speedscope(
    profile: Profile,
    trees: list[tuple[str, Tree]],
    metric: str,
    out: IO[str],
    *,
    full: bool = False,
    exporter: str = "jprewrite",
    name: str = "",
) -> None:
    """speedscope's file format: ``shared.frames`` and one ``sampled`` profile per tree, weighted by ``metric``."""
    names = display_names(profile.frames.names, full)
    out.write(
        f'{{"$schema":{json.dumps(SPEEDSCOPE_SCHEMA)},"exporter":{json.dumps(exporter)},'
        f'"name":{json.dumps(name or profile.source)},"activeProfileIndex":0,\n"shared":{{"frames":['
    )
    for f, (short, jvm) in enumerate(zip(names, profile.frames.names)):
        cls = jvm[: jvm.find("(")].rpartition(".")[0] if "(" in jvm else ""
        frame = {"name": short} if not cls else {"name": short, "file": cls}
        out.write(("," if f else "") + "\n" + json.dumps(frame, separators=(",", ":")))
    out.write(']},\n"profiles":[')
    for k, (title, tree) in enumerate(trees):
        values = tree.value(metric)
        rows = array("i", (i for i in range(1, len(values)) if values[i]))
        total = sum(values)
        out.write(
            ("," if k else "") + f'\n{{"type":"sampled","name":{json.dumps(title)},"unit":"none",'
            f'"startValue":0,"endValue":{total},"samples":['
        )
        first = True
        wanted = iter(rows)
        nxt = next(wanted, -1)
        for i, path in stacks(tree):
            if i == nxt:
                out.write(("" if first else ",") + "[" + ",".join(map(str, path)) + "]")
                first = False
                nxt = next(wanted, -1)
        out.write('],\n"weights":[')
        out.write(",".join(str(values[i]) for i in rows))
        out.write("]}")
    out.write("]}\n")


def write_pprof(
    profile: Profile,
    trees: list[tuple[str, Tree]],
    out: IO[bytes],
    *,
    default_metric: str,
    full_names: bool = False,
    comment: str = "",
) -> int:
    """pprof's ``profile.proto``, gzip-compressed: a sample type per metric present, a sample per
    context with any non-zero value, labelled with its thread when the trees are threads.
    Returns the number of bytes of the (uncompressed) message."""
    from .pprof import profile_chunks  # needs the protobuf package: imported only here

    size = 0
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6, mtime=0) as z:
        for chunk in profile_chunks(
            profile, trees, default_metric=default_metric, full_names=full_names, comment=comment
        ):
            z.write(chunk)
            size += len(chunk)
    return size
