"""Opening the inputs named on a command line: jars, zips, directories, class files."""

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
