"""``jprewrite junit-path``: print the path of the JUnit jar (bytecode budgets and baselines).

Scripts and build files put it on the test class path, next to the agent:
``java -javaagent:$(jprewrite agent-path) ... -cp tests:$(jprewrite junit-path):...``. The jar is
built from ``runtime-java/`` against Debian's JUnit 5 on first use and cached; see
``docs/budgets.md``.
"""

from __future__ import annotations

import argparse

from ..rewrite.junit_build import junit_jar


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "junit-path",
        help="print the path of the JUnit budgets jar (building it on first use)",
        description=__doc__.split("\n\n")[0],
    )
    p.set_defaults(run=run_junit_path)


def run_junit_path(args: argparse.Namespace) -> int:
    print(junit_jar())
    return 0
