"""pytest plugin: exact bytecode budgets and snapshots for Java code, measured with jprewrite through JPype.

Registered under the ``pytest11`` entry point, so pytest loads it in every run once jprewrite is
installed; it stays inert until a test requests one of its fixtures (no JPype import, no JVM,
no agent build before that). ``docs/budgets.md`` has the guide.

* ``jprewrite_jvm`` (session): starts the JVM in this process with the jprewrite agent, the class
  path of ``--jprewrite-classpath`` / ini ``jprewrite_classpath``, the agent options of
  ``--jprewrite-agent-options`` / ini ``jprewrite_agent_options`` and the JVM arguments of ini
  ``jprewrite_jvm_args``. ``.jclass(name)`` gives a Java class.
* ``bytecodes``: ``bytecodes(java_callable, name=..., max=..., tolerance=..., max_allocations=...)``
  measures, checks ``max``, and compares with the snapshot ``__bytecodes__/<module>/<test>.json``
  beside the test module (written when missing or with ``--bytecodes-update``); a failure names
  the contexts that grew most.
* marker ``@pytest.mark.bytecodes(max=..., tolerance=..., max_allocations=...)``: defaults for the
  fixture's calls in one test (ini ``bytecodes_tolerance`` is the session default tolerance).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..errors import JprewriteError
from .fixture import BytecodeResult, Bytecodes, BytecodesFailure, Settings
from .jvm import Jvm, JvmSettings, start_jvm

__all__ = ["BytecodeResult", "Bytecodes", "BytecodesFailure", "Jvm", "bytecodes", "jprewrite_jvm"]

_WRITTEN = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jprewrite", "bytecode budgets and snapshots (jprewrite, JPype)")
    group.addoption(
        "--jprewrite-classpath",
        action="append",
        default=[],
        metavar="PATHS",
        help=f"class path of the JVM the bytecodes fixture starts ('{os.pathsep}'-separated; repeatable)",
    )
    group.addoption(
        "--jprewrite-agent-options",
        metavar="OPTIONS",
        help="jprewrite agent options (key=value,...: see docs/agent.md); overrides the ini value",
    )
    group.addoption(
        "--bytecodes-update",
        action="store_true",
        help="rewrite the bytecode snapshots (__bytecodes__/) with this run's counts",
    )
    parser.addini(
        "jprewrite_classpath", type="paths", default=[], help="class path entries of the JVM, relative to the ini file"
    )
    parser.addini("jprewrite_agent_options", default="", help="jprewrite agent options (key=value,...)")
    parser.addini("jprewrite_jvm_args", type="args", default=[], help="extra JVM arguments (-Xmx512m ...)")
    parser.addini("bytecodes_tolerance", default="0", help="allowed growth over a snapshot, in percent (default 0)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "bytecodes(max=None, tolerance=None, max_allocations=None): defaults for "
        "the jprewrite bytecodes fixture in this test",
    )
    config.stash[_WRITTEN] = []


@pytest.fixture(scope="session")
def jprewrite_jvm(pytestconfig: pytest.Config) -> Jvm:
    """The JVM of this test session, started with the jprewrite agent (JPype)."""
    classpath = [str(p) for p in pytestconfig.getini("jprewrite_classpath")]
    for entry in pytestconfig.getoption("jprewrite_classpath"):
        classpath += [os.path.abspath(p) for p in entry.split(os.pathsep) if p]
    options = pytestconfig.getoption("jprewrite_agent_options")
    settings = JvmSettings(
        classpath,
        pytestconfig.getini("jprewrite_agent_options") if options is None else options,
        list(pytestconfig.getini("jprewrite_jvm_args")),
    )
    try:
        return start_jvm(settings)
    except JprewriteError as e:
        pytest.fail(f"jprewrite: {e}", pytrace=False)


@pytest.fixture
def bytecodes(request: pytest.FixtureRequest, jprewrite_jvm: Jvm) -> Iterator[Bytecodes]:
    """Measure Java code and check it against a budget and the stored snapshot (see the module doc)."""
    config = request.config
    marker = request.node.get_closest_marker("bytecodes")
    kw = dict(marker.kwargs) if marker else {}
    try:
        tolerance = float(kw.get("tolerance", config.getini("bytecodes_tolerance")))
    except ValueError:
        raise pytest.UsageError(
            f"bytecodes tolerance is not a number: {kw.get('tolerance')!r} (marker) or "
            f"{config.getini('bytecodes_tolerance')!r} (ini bytecodes_tolerance)"
        ) from None
    settings = Settings(
        Path(str(request.node.path)),
        request.node.nodeid,
        bool(config.getoption("bytecodes_update")),
        tolerance,
        kw.get("max"),
        kw.get("max_allocations"),
    )
    checker = Bytecodes(jprewrite_jvm, settings)
    yield checker
    config.stash[_WRITTEN].extend(checker.written)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    written = config.stash.get(_WRITTEN, [])
    if written:
        terminalreporter.write_line(
            f"jprewrite: wrote {len(written)} bytecode snapshot(s); commit them with the tests:"
        )
        for p in written:
            terminalreporter.write_line(f"  {p}")
