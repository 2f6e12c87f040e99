"""Opening the inputs named on a command line: jars, zips, directories, class files, the JDK image."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ..archive.jars import Container, open_container
from ..archive.jdk_image import JdkImage, find_java_home
from ..errors import ArchiveError, JprewriteError


@dataclass(frozen=True)
class ClassInput:
    """One class file from some input: where it came from and how to get its bytes."""

    path: str
    entry: str | None  # name inside the container; None for a lone class file
    read: object  # () -> bytes


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


def class_entries(container: Container) -> Iterator[tuple[str | None, object]]:
    """(entry name, entry) for the class files of a container, in order."""
    lone = type(container).__name__ == "ClassFileContainer"
    for e in container.entries():
        if e.is_class:
            yield (None if lone else e.name), e


def open_jdk() -> JdkImage:
    try:
        return JdkImage(find_java_home())
    except JprewriteError:
        raise
    except OSError as e:  # pragma: no cover - find_java_home reports its own errors
        raise ArchiveError(f"cannot open the JDK runtime image: {e}") from None
