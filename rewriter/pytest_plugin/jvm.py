"""Starting the JVM in the pytest process (JPype) with the jprewrite agent, once per session.

JPype can start one JVM per process and never a second, so the plugin must be the one that
starts it: a JVM started earlier (by a conftest, another plugin, an import that calls
``jpype.startJVM``) has no agent, and nothing it runs would be counted. That case is an error
with one line saying so, unless that JVM already runs the jprewrite agent.

JPype is imported here only when a test asks for the JVM, so the plugin costs nothing in test
runs that do not use it.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

from ..errors import JprewriteError

__all__ = ["Jvm", "JvmSettings", "agent_option_string", "start_jvm"]

#: JPype's own Java classes: counting them would put JPype's call machinery into every measurement.
JPYPE_EXCLUDES = ("org.jpype.*",)


@dataclass
class JvmSettings:
    """What the JVM is started with: class path entries, agent options, extra JVM arguments."""

    classpath: list[str] = field(default_factory=list)
    agent_options: str = ""
    jvm_args: list[str] = field(default_factory=list)


def agent_option_string(user: str) -> str:
    """The agent's option string: the user's, checked, plus the plugin's defaults.

    Defaults that differ from the agent's: no profile file at exit (``output=none``; a test run
    should not leave ``jprewrite-profile.json`` behind), no progress lines (they would land in
    the captured output of whichever test loads classes), JPype's classes excluded, and the
    worker run by this interpreter. Raises :class:`JprewriteError` for a bad option.
    """
    from ..agent.options import parse_options  # here, not at import: the plugin loads into every pytest run

    opts = parse_options(user)
    given = {part.partition("=")[0].strip() for part in user.split(",") if part}
    if "output" not in given:
        opts.output = "none"
    if "progress" not in given:
        opts.progress = False
    opts.excludes = [*[p for p in JPYPE_EXCLUDES if p not in opts.excludes], *opts.excludes]
    if opts.python is None and opts.worker is None:
        opts.python = sys.executable
    return opts.to_string()


class Jvm:
    """The running JVM: JPype, and the runtime's ``Measure`` class."""

    def __init__(self, jpype: Any) -> None:
        self.jpype = jpype
        self.measure = jpype.JClass("jprewrite.runtime.Measure")

    def jclass(self, name: str) -> Any:
        """A Java class by binary name (``com.acme.Foo``), as JPype gives it."""
        return self.jpype.JClass(name)


def start_jvm(settings: JvmSettings) -> Jvm:
    """Start the JVM with the agent (or accept one that already runs it); JprewriteError otherwise."""
    try:
        import jpype
    except ImportError:
        raise JprewriteError("the bytecodes fixture needs JPype: pip install jpype1") from None
    if jpype.isJVMStarted():
        if not _runs_agent(jpype):
            raise JprewriteError(
                "the JVM was already started (jpype.startJVM called by something else) without the "
                "jprewrite agent, and JPype cannot start another: let the plugin start it (request the "
                "jprewrite_jvm or bytecodes fixture before anything else starts the JVM), or start it "
                "with -javaagent:$(jprewrite agent-path)"
            )
        return Jvm(jpype)
    missing = [p for p in settings.classpath if not os.path.exists(p)]
    if missing:
        raise JprewriteError(f"jprewrite_classpath entries that do not exist: {', '.join(missing)}")
    from ..agent.build import agent_jar

    options = agent_option_string(settings.agent_options)
    agent = f"-javaagent:{agent_jar()}" + (f"={options}" if options else "")
    try:
        jpype.startJVM(*settings.jvm_args, agent, classpath=list(settings.classpath), convertStrings=False)
    except (OSError, RuntimeError) as e:  # no JVM found, bad JVM arguments
        raise JprewriteError(f"cannot start the JVM: {e}") from None
    return Jvm(jpype)


def _runs_agent(jpype: Any) -> bool:
    """Whether the running JVM has the jprewrite agent (its classes are on the boot class path)."""
    try:
        jpype.JClass("java.lang.Class").forName("jprewrite.agent.Agent", False, None)
        return True
    except Exception:  # ClassNotFoundException, surfaced by JPype as a Python exception
        return False
