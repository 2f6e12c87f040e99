"""Class summaries of the program's class-path jars, kept on disk so a worker starts in a second.

The load-time worker needs every class of the class path at start (the world of the PENDING
rule, see :mod:`.loadtime`); summarising the 26,000 classes of the Kotlin compiler takes some
ten seconds. Summaries depend only on a jar's bytes, so they are cached per jar version
(absolute path, size, modification time) in ``$XDG_CACHE_HOME/jprewrite/summaries/``, beside
the JDK summaries of :mod:`jprewrite.analysis.hierarchy`: one ``marshal`` file per jar, written
to a temporary file and renamed. A damaged or foreign file is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..analysis.hierarchy import CACHE_FORMAT_VERSION, default_cache_directory, summarize
from ..archive.jars import Container, Entry
from ..errors import JprewriteError

_FORMAT = 1
_MAGIC = b"jprwCPS1"


def base_class_name(entry: Entry) -> str | None:
    """The class an entry defines in the base layer of its jar (None: a versioned or non-class entry)."""
    if entry.is_dir or not entry.name.endswith(".class") or entry.is_module_info:
        return None
    if entry.name.startswith("META-INF/versions/"):
        return None
    return entry.name[: -len(".class")]


class SummarizedContainer:
    """A class source over one container whose summaries are computed once per jar version.

    ``release``: the feature version of the JVM the program runs on. A multi-release jar is
    summarised as that JVM loads it (the copy in the highest ``META-INF/versions/N`` with N <=
    release): the plan answers questions about classes not loaded yet from these summaries, and a
    method that only a versioned copy declares must be known before its callers are rewritten.
    """

    def __init__(self, container: Container, cache_dir: Path | None, release: int | None = None) -> None:
        self.container = container
        self.release = release if release is not None and container.has_versioned_classes else None
        self.summaries: dict[str, tuple] = self._load(cache_dir) if container.kind == "jar" else {}
        if not self.summaries:
            self.summaries = self._compute()
            if container.kind == "jar" and cache_dir is not None:
                self._save(cache_dir)

    # ClassSource
    def find_summary(self, name: str) -> tuple | None:
        return self.summaries.get(name)

    def find_class(self, name: str):
        return self.container.find_class(name, self.release)

    def class_names(self) -> Iterable[str]:
        return self.container.class_names()

    def names(self) -> list[str]:
        return list(self.summaries)

    def _key(self) -> str | None:
        try:
            st = os.stat(self.container.path)
        except OSError:
            return None
        path = os.path.realpath(self.container.path)
        ident = f"{_FORMAT}:{CACHE_FORMAT_VERSION}:{path}:{st.st_size}:{st.st_mtime_ns}:{self.release}"
        return hashlib.sha256(ident.encode("utf-8", "surrogateescape")).hexdigest()[:32]

    def _load(self, cache_dir: Path | None) -> dict[str, tuple]:
        key = self._key()
        if cache_dir is None or key is None:
            return {}
        try:
            data = (cache_dir / key).read_bytes()
            if not data.startswith(_MAGIC):
                return {}
            found = marshal.loads(data[len(_MAGIC) :])
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        return found if isinstance(found, dict) else {}

    def _compute(self) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        release = self.release
        names: dict[str, None] = {}
        for e in self.container.entries():
            name = base_class_name(e)
            if name is not None:
                names[name] = None
            elif release is not None and e.is_class and not e.is_module_info and e.release is not None:
                if e.release <= release and e.class_name is not None:
                    names[e.class_name] = None  # a class that only versioned layers have
        for name in names:
            entry = self.container.find_class(name, release)
            if entry is None:
                continue
            try:
                info = summarize(entry.read())
            except (JprewriteError, OSError):
                continue  # left to the hierarchy, which records it as broken
            if info.name == name:
                out[name] = info.to_tuple()
        return out

    def _save(self, cache_dir: Path) -> None:
        key = self._key()
        if key is None:
            return
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".summaries-", dir=cache_dir)
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + marshal.dumps(self.summaries))
            os.replace(tmp, cache_dir / key)
        except OSError:
            pass  # a cache that cannot be written only costs time


def summaries_directory() -> Path | None:
    root = default_cache_directory()
    return None if root is None else root / "summaries"
