"""Profiles as plain JSON: opening (gzip or not), ``json.load``, and node tables from dicts.

The streaming reader (:mod:`.reader`) handles the runtime's own layout; this is the rest: a
profile another tool wrote in any JSON layout, the dicts scripts and tests like to walk, and
the optional per-node fields both readers store the same way.
"""

from __future__ import annotations

import gzip
import json
import sys
import zlib
from array import array
from collections.abc import Collection
from typing import BinaryIO

from ..errors import JprewriteError
from .model import KINDS, METRICS, Frames, Profile, Tree

__all__ = ["open_profile", "load_json", "from_dict", "store_fields", "resolve_threads"]


def open_profile(path: str) -> BinaryIO:
    """The profile's bytes: gzip-decompressed when the file starts with gzip's magic number."""
    try:
        f = open(path, "rb")
        magic = f.read(2)
        f.seek(0)
    except OSError as e:
        raise JprewriteError(f"cannot read: {e.strerror or e}", path=path) from None
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=f, mode="rb")  # type: ignore[return-value]
    return f


def store_fields(tree: Tree, rows: list[tuple[int, dict]]) -> None:
    """Put optional per-node fields into ``tree``: numeric metrics as columns, allocations sparse."""
    n = len(tree.parent)
    type_of: dict[str, int] = {}
    an, at, ac = array("i"), array("i"), array("q")
    for i, fields in rows:
        for key, v in fields.items():
            if key == "allocations" and isinstance(v, dict):
                for t, count in v.items():
                    ti = type_of.get(t)
                    if ti is None:
                        ti = type_of[t] = len(tree.alloc_types)
                        tree.alloc_types.append(t)
                    an.append(i)
                    at.append(ti)
                    ac.append(int(count))
            elif key in METRICS and key not in ("calls", "bytecodes") and isinstance(v, int):
                col = tree.values.get(key)
                if col is None:
                    col = tree.values[key] = array("q", bytes(8 * n))
                col[i] += v
    if an:
        order = sorted(range(len(an)), key=an.__getitem__)  # rows came in node order; keep it stable
        tree.allocs = (
            array("i", (an[k] for k in order)),
            array("i", (at[k] for k in order)),
            array("q", (ac[k] for k in order)),
        )
        total = array("q", bytes(8 * n))
        for node, count in zip(an, ac):
            total[node] += count
        tree.values["allocations"] = total


def load_json(path: str) -> dict:
    """The profile as plain dicts (``json.load``), for small profiles and scripts.

    Deep recursion in the program makes deeply nested JSON, so the recursion limit is raised.
    """
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 200_000))
    try:
        with open_profile(path) as f:
            data = json.load(f)
    except JprewriteError:
        raise
    except OSError as e:
        raise JprewriteError(f"cannot read: {e.strerror or e}", path=path) from None
    except (EOFError, zlib.error) as e:
        raise JprewriteError(f"cannot read the compressed profile: {e}", path=path) from None
    except json.JSONDecodeError as e:
        if e.doc.strip() and not e.doc[e.pos :].strip():  # the parser wanted more where the text ends
            offset = len(e.doc[: e.pos].encode("utf-8", "surrogatepass"))
            raise JprewriteError("truncated profile (the file ends early)", path=path, offset=offset) from None
        raise JprewriteError(f"not a JSON profile: {e}", path=path) from None
    except (ValueError, UnicodeDecodeError) as e:
        raise JprewriteError(f"not a JSON profile: {e}", path=path) from None
    except RecursionError:
        raise JprewriteError("profile nested too deeply to read as plain JSON", path=path) from None
    finally:
        sys.setrecursionlimit(limit)
    if not isinstance(data, dict) or not isinstance(data.get("root"), dict):
        raise JprewriteError("not a jprewrite profile (no 'root' object)", path=path)
    fmt = data.get("format", "jprewrite-profile")
    if fmt != "jprewrite-profile":
        raise JprewriteError(f"not a jprewrite profile (format {fmt!r})", path=path)
    return resolve_threads(data)


def resolve_threads(data: dict) -> dict:
    """Give a thread written as ``"same_as_root": true`` its tree: the merged one (the same dict).

    The runtime writes the tree of a program's only thread name once, as the merged tree, and
    marks the thread entry so (the two are equal); scripts that walk ``t["root"]`` of every thread
    keep working. Entries without a tree (``-Djprewrite.threads=merged-only``) stay as they are.
    """
    for t in data.get("threads") or ():
        if isinstance(t, dict) and t.get("same_as_root") is True and "root" not in t:
            t["root"] = data["root"]
            del t["same_as_root"]
    return data


def from_dict(data: dict, *, path: str = "", merged: bool = True, threads: bool | Collection[str] = True) -> Profile:
    """Node tables from a profile already read as dicts (``json.load``'s result)."""
    frames = Frames()
    header = {k: v for k, v in data.items() if k not in ("root", "threads")}
    result = Profile(frames, None, header=header, source=path)
    if merged:
        result.merged = _tree_from_dict(frames, data["root"], path)
    for t in data.get("threads") or ():
        if not isinstance(t, dict) or "name" not in t:
            raise JprewriteError("malformed thread entry (no 'name')", path=path)
        name = str(t.get("name"))
        result.thread_names.append(name)
        if not (threads is True or (threads is not False and name in threads)):
            continue
        if t.get("same_as_root") is True:  # the only thread name: its tree is the merged tree
            tree = result.merged if result.merged is not None else _tree_from_dict(frames, data["root"], path)
            result.threads.append((name, tree))
        elif isinstance(t.get("root"), dict):
            result.threads.append((name, _tree_from_dict(frames, t["root"], path)))
        elif "root" in t:
            raise JprewriteError("malformed thread entry ('root' is not an object)", path=path)
    return result


def _tree_from_dict(frames: Frames, root: dict, path: str) -> Tree:
    parent, frame = array("i"), array("i")
    calls, bytecodes = array("q"), array("q")
    rows: list[tuple[int, dict]] = []
    stack: list[tuple[dict, int]] = [(root, -1)]
    while stack:
        node, up = stack.pop()
        if not isinstance(node, dict) or not isinstance(node.get("method"), str):
            raise JprewriteError("malformed calling context (no 'method')", path=path)
        i = len(parent)
        parent.append(up)
        kind = node.get("kind") or ""
        frame.append(frames.intern(node["method"], KINDS.index(kind) if kind in KINDS else 0))
        try:
            calls.append(int(node.get("calls", 0)))
            bytecodes.append(int(node.get("bytecodes", 0)))
        except (TypeError, ValueError):
            raise JprewriteError(f"malformed counters in {node['method']}", path=path) from None
        more = {k: v for k, v in node.items() if k in METRICS or k == "allocations"}
        more.pop("calls", None)
        more.pop("bytecodes", None)
        if more:
            rows.append((i, more))
        stack.extend((c, i) for c in reversed(node.get("children") or ()))
    tree = Tree(frames, parent, frame, {"calls": calls, "bytecodes": bytecodes})
    if rows:
        store_fields(tree, rows)
    return tree
