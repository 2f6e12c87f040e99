"""Where the Java sources of the runtime, the agent and the JUnit extension are.

jprewrite compiles its Java parts on first use (``runtime_build``, ``agent.build``,
``junit_build``) from their sources, so an installation must carry them. In a checkout (and an
editable install, which runs from it) they are ``runtime-java/`` beside the package's sources; an
installed copy (``pip install .``, a wheel) has them inside the package, as ``jprewrite/java/``,
put there by ``setup.py``'s ``build_py`` (the package directory cannot reach outside itself).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["java_source_root"]

#: the copy inside an installed package (setup.py writes it)
INSTALLED = Path(__file__).resolve().parent.parent / "java"
#: the checkout's tree (rewriter/ and runtime-java/ are siblings)
CHECKOUT = Path(__file__).resolve().parents[2] / "runtime-java"


def java_source_root() -> Path:
    """``jprewrite/java`` of an installed package, else the checkout's ``runtime-java``.

    Holds ``src`` (the runtime), ``agent`` (the ``-javaagent``) and ``junit`` (the JUnit 5
    extension), each a source root.
    """
    return INSTALLED if INSTALLED.is_dir() else CHECKOUT
