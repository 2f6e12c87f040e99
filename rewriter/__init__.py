"""jprewrite: an exact and portable calling-context profiler for the JVM.

Layers, lowest first (a layer never imports a higher one; ``tests/test_layering.py`` checks it):

* ``jprewrite.errors``     -- the one-line errors about input (file, entry, byte offset).
* ``jprewrite.classfile``  -- constants, attributes, instructions, frames; read and write.
* ``jprewrite.archive``    -- containers of class files: jars, zips, directories, the JDK image.
* ``jprewrite.editor``     -- method bodies as labelled instruction lists; assembling them again.
* ``jprewrite.analysis``   -- class hierarchy, basic blocks, type flow, frames, the verifier.
* ``jprewrite.instrument`` -- the rewriting rules and the one class pipeline.
* ``jprewrite.rewrite``    -- offline: jars in, jars out, with the embedded Java runtime.
* ``jprewrite.agent``      -- load time: the ``-javaagent`` jar and its Python worker.
* ``jprewrite.cli``        -- the ``jprewrite`` command.

The root package imports no layer (every layer may be imported on its own); it holds the version
and decides, once, whether the compiled build runs (``__build__``): ``setup.py`` may have compiled
the hot packages with mypyc, leaving the extensions beside the sources and a manifest of the
sources' hashes. The compiled modules call each other natively, so they are used all or none:
none when ``JPREWRITE_PURE=1`` is set, or when a source no longer matches the manifest (an
editable install whose sources were edited after the build: running the old code silently would
be worse than running slower), in which case a line on stderr says so.
"""

import os as _os
import sys as _sys

__version__ = "0.1.0"

#: which build runs: "compiled by mypyc", "pure Python" or "pure Python: <why>"
__build__ = "pure Python"

__all__ = ["__version__", "__build__"]


def _choose_build() -> str:
    """Check the compiled build's manifest; bypass the extensions unless they match the sources."""
    here = _os.path.dirname(__file__)
    try:
        with open(_os.path.join(here, "_native.json"), "rb") as f:
            text = f.read()
    except OSError:
        return "pure Python"  # never compiled (or installed without a compiler)
    import json

    manifest = json.loads(text)
    modules: list[str] = manifest["modules"]
    if _os.environ.get("JPREWRITE_PURE", "") not in ("", "0"):
        _bypass(modules + [manifest["library"]], here)
        return "pure Python: JPREWRITE_PURE is set"
    stale = _stale_sources(manifest, here)
    if stale:
        _bypass(modules + [manifest["library"]], here)
        print(
            f"jprewrite: {stale} changed since the compiled build, running the pure-Python sources "
            "(reinstall, e.g. pip install -e ., to compile again)",
            file=_sys.stderr,
        )
        return f"pure Python: {stale} changed since the compiled build"
    return "compiled by mypyc"


def _stale_sources(manifest: dict, here: str) -> str:
    """The first source (or extension) that does not match the manifest; "" when all do."""
    import hashlib

    for relative, digest in manifest["sources"].items():
        try:
            with open(_os.path.join(here, relative), "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != digest:
                    return relative
        except OSError:
            return relative
    for module in manifest["modules"]:
        extension = _os.path.join(here, *module.split(".")[1:]) + manifest["suffix"]
        if not _os.path.exists(extension):
            return _os.path.relpath(extension, here)
    return ""


def _bypass(modules: list[str], here: str) -> None:
    """Import ``modules`` from their sources from now on (a finder ahead of the extensions')."""
    import importlib.abc
    import importlib.util
    from importlib.machinery import ModuleSpec

    names = frozenset(modules)

    class SourcesFirst(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
            if fullname not in names:
                return None
            source = _os.path.join(here, *fullname.split(".")[1:]) + ".py"
            if not _os.path.exists(source):
                raise ImportError(f"{fullname} is compiled only (no source at {source})", name=fullname)
            return importlib.util.spec_from_file_location(fullname, source)

    _sys.meta_path.insert(0, SourcesFirst())


__build__ = _choose_build()
