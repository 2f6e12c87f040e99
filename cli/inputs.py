"""What a command line names: inputs (jars, zips, directories, class files) and class-name patterns."""

from __future__ import annotations

from ..archive.jars import Container, open_container
from ..errors import JprewriteError


def open_inputs(paths: list[str]) -> list[Container]:
    """Open every path up front so a bad one fails before any work is done."""
    containers = []
    try:
        for p in paths:
            containers.append(open_container(p))
    except JprewriteError:
        for c in containers:
            c.close()
        raise
    return containers


def split_patterns(values: list[str]) -> list[str]:
    """``--includes``/``--excludes`` values (repeatable, each a list separated by ``:`` or ``,``) as one list."""
    out: list[str] = []
    for v in values:
        out += [p for p in v.replace(",", ":").split(":") if p.strip()]
    return out
