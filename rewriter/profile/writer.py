"""Writing node tables back as profile JSON, in the runtime's own layout.

Tools that *make* profiles (``import-jfr``, averages of runs) write what the Java runtime
writes (``Tree.writeJson``): one calling context per line, children sorted like the
runtime sorts them, the optional fields in the runtime's order. So the streaming reader
reads them at full speed, and every tool reads them as it reads the runtime's. One
difference: a tree without bytecodes (sampled) has no ``inclusive_bytecodes``, so
``report`` does not prune by a column of zeros and then read the file again.
"""

from __future__ import annotations

import json
from typing import IO

from .model import KIND_JDK, KIND_NATIVE, KIND_UNINSTRUMENTED, METRICS, Profile, Tree

__all__ = ["write_profile", "write_tree"]

# the optional integer fields a node carries, in the runtime's order (allocations are per type)
_FIELDS = tuple(m for m in METRICS if m not in ("calls", "bytecodes", "allocations"))
_KIND_TEXT = {
    KIND_JDK: ',"kind":"jdk"',
    KIND_UNINSTRUMENTED: ',"kind":"uninstrumented","counted":false',
    KIND_NATIVE: ',"kind":"native","counted":false',
}


def _string(s: str) -> str:
    # the runtime escapes everything outside printable ASCII; json.dumps does the same
    return json.dumps(s, ensure_ascii=True)


def _sorted_children(tree: Tree) -> list[list[int]]:
    """Each row's children in the runtime's output order.

    A tree that counted nothing but samples is ordered by inclusive samples, then method name;
    any other by inclusive bytecodes, then calls, then name (``Tree.ORDER``/``SAMPLE_ORDER``).
    """
    par, names, frm = tree.parent, tree.frames.names, tree.frame
    kids: list[list[int]] = [[] for _ in range(len(par))]
    for i in range(1, len(par)):
        kids[par[i]].append(i)
    counted = bool(tree.total("calls") or tree.total("bytecodes"))
    if counted:
        inc, calls = tree.inclusive("bytecodes"), tree.value("calls")

        def key(c: int) -> tuple:
            return (-inc[c], -calls[c], names[frm[c]])
    else:
        inc_s = tree.inclusive("samples")

        def key(c: int) -> tuple:
            return (-inc_s[c], names[frm[c]])

    for k in kids:
        if len(k) > 1:
            k.sort(key=key)
    return kids


def write_tree(tree: Tree, out: IO[str]) -> None:
    """One tree, from ``{"method":"<root>"`` to its closing ``]}``, one context per line."""
    kids = _sorted_children(tree)
    names, kinds, frm = tree.frames.names, tree.frames.kinds, tree.frame
    calls, bytecodes = tree.value("calls"), tree.value("bytecodes")
    # inclusive bytecodes let readers pass over small subtrees; a tree that counted none (sampled)
    # leaves them out, so that no reader prunes by a column of zeros
    inc_bc = tree.inclusive("bytecodes") if tree.total("bytecodes") else None
    extra = [(m, tree.values[m]) for m in _FIELDS if m in tree.values]
    # (row, index of the next child to write); iterative: trees can be thousands of levels deep
    stack: list[list[int]] = []
    i = 0
    while True:
        if i >= 0:
            f = frm[i]
            line = [
                f'{{"method":{_string(names[f])},"calls":{calls[i]},"bytecodes":{bytecodes[i]}',
                _KIND_TEXT.get(kinds[f], ""),
            ]
            line += [f',"{m}":{col[i]}' for m, col in extra if col[i]]
            allocs = tree.allocations_of(i) if tree.allocs is not None else {}
            if allocs:
                line.append(',"allocations":{' + ",".join(f"{_string(t)}:{c}" for t, c in allocs.items()) + "}")
            if kids[i] and inc_bc is not None:
                line.append(f',"inclusive_bytecodes":{inc_bc[i]}')
            line.append(',"children":[')
            out.write("".join(line))
            stack.append([i, 0])
        top = stack[-1]
        row, k = top
        if k < len(kids[row]):
            top[1] = k + 1
            out.write(",\n" if k else "\n")
            i = kids[row][k]
            continue
        out.write("]}")
        stack.pop()
        if not stack:
            return
        i = -1


def write_profile(profile: Profile, out: IO[str]) -> None:
    """The whole profile: ``format``, ``version``, the other header fields, ``root``, ``threads``."""
    header = {"format": "jprewrite-profile", "version": 1}
    header.update({k: v for k, v in profile.header.items() if k not in ("format", "version")})
    out.write(f'{{"format":"jprewrite-profile","version":{json.dumps(header["version"])},\n')
    for key, value in header.items():
        if key not in ("format", "version"):
            out.write(f"{_string(key)}:{json.dumps(value, ensure_ascii=True, separators=(',', ':'))},\n")
    out.write('"root":')
    if profile.merged is not None:
        write_tree(profile.merged, out)
    else:
        out.write('{"method":"<root>","calls":0,"bytecodes":0,"children":[]}')
    out.write(',\n"threads":[')
    n = 0
    for name, tree in profile.threads:
        out.write(f'{"," if n else ""}\n{{"name":{_string(name)}')
        n += 1
        if tree is profile.merged:  # the only thread name's tree is the merged tree: not written twice
            out.write(',"same_as_root":true}')
            continue
        out.write(',"root":')
        write_tree(tree, out)
        out.write("}")
    with_tree = {name for name, _ in profile.threads}
    for name in dict.fromkeys(profile.thread_names):  # names listed without a tree (threads=merged-only)
        if name not in with_tree:
            out.write(f'{"," if n else ""}\n{{"name":{_string(name)}}}')
            n += 1
    out.write("]}\n")
