"""mypyc's per-class options (``mypyc_attr``) for the compiled build, without mypy at run time.

Why: the compiled build (``setup.py``) reads ``@mypyc_attr(...)`` when mypyc compiles a module,
and mypy is there then; an installed jprewrite need not have ``mypy_extensions``, and without it
the decorator changes nothing (as ``mypy_extensions``' own does at run time). This module itself
is never compiled.

``acyclic=True`` on a class whose objects can never be part of a reference cycle (instructions,
labels, constants, frames: they refer to nothing that refers back) makes mypyc leave them out of
the cyclic garbage collector, which otherwise walks every one of them.
"""

from __future__ import annotations

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # (only the compiler needs the real one)

    def mypyc_attr(*attrs: str, **kwattrs: object):  # type: ignore[misc]
        return lambda cls: cls


__all__ = ["mypyc_attr"]
