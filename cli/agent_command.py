"""``jprewrite agent-path`` and ``jprewrite run [options] -- JAVA-ARGS``: profiling at load time.

``agent-path`` prints the path of the ``-javaagent`` jar (built on first use), so scripts can
write ``java -javaagent:$(jprewrite agent-path)=output=p.json,counting=precise -jar app.jar``.
``run`` does that for you: it turns its options into the agent's option string and runs
``java`` with it; the exit status is the program's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from ..agent.build import agent_jar
from ..agent.options import MODES, SAMPLERS, AgentOptions, parse_options
from ..archive.jdk_image import find_java_home
from ..errors import JprewriteError
from ..instrument import COUNTING_MODES
from .inputs import split_patterns


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agent-path",
        help="print the path of the -javaagent jar (building it on first use)",
        description=__doc__.split("\n\n")[0],
    )
    p.set_defaults(run=run_agent_path)
    r = sub.add_parser(
        "run",
        help="run java with the profiling agent: jprewrite run [options] -- JAVA-ARGS",
        description="Run a Java program under the jprewrite agent (classes are rewritten as they "
        "load; a cache makes the next run start fast). Everything after '--' goes "
        "to java.",
    )
    r.add_argument("java_args", nargs=argparse.REMAINDER, metavar="-- JAVA-ARGS")
    r.add_argument("--output", "-o", metavar="FILE", help="profile written at exit (default: jprewrite-profile.json)")
    r.add_argument("--collapsed", metavar="FILE", help="also write collapsed stacks")
    r.add_argument("--counting", choices=COUNTING_MODES, default="default")
    r.add_argument("--allocations", action="store_true", help="count allocations per type per context")
    r.add_argument("--weights", metavar="FILE", help="per-opcode costs file (adds a weighted counter)")
    r.add_argument("--activation", action="store_true", help="JP's periodic activation of the profiling agent")
    r.add_argument("--includes", action="append", default=[], metavar="PATTERNS")
    r.add_argument("--excludes", action="append", default=[], metavar="PATTERNS")
    r.add_argument("--cache", metavar="DIR", help="class cache directory ('none': no cache)")
    r.add_argument("--quiet", "-q", action="store_true", help="no progress lines while classes are rewritten")
    r.add_argument("--java", metavar="PATH", help="java executable (default: JAVA_HOME's, else the one on PATH)")
    s = r.add_argument_group("sampling (docs/sampling.md)")
    s.add_argument(
        "--mode",
        choices=MODES,
        default="exact",
        help="exact: calling context tree and counters (default); sample: time profile only; "
        "hybrid: both, samples on the exact tree's nodes",
    )
    s.add_argument("--interval", metavar="TIME", help="sampling interval, e.g. 10ms (default), 1ms, 100us")
    s.add_argument(
        "--sampler",
        choices=SAMPLERS,
        help="safepoint: Thread.getAllStackTraces() (no rewriting in sample mode); partial: threads "
        "at yieldpoints sample themselves; incremental (default): like partial, each frame "
        "decoded once",
    )
    s.add_argument("--sample-threads", type=int, metavar="N", help="samples per round (default: processors)")
    s.add_argument("--sample-waiting", action="store_true", help="also sample blocked, waiting and sleeping threads")
    r.set_defaults(run=run_java)


def run_agent_path(args: argparse.Namespace) -> int:
    print(agent_jar())
    return 0


def _java(explicit: str | None) -> str:
    """``--java``, else the java of the JDK the rewriter reads (``JAVA_HOME``, else the one on ``PATH``)."""
    return explicit or str(Path(find_java_home()) / "bin" / "java")


def agent_option_string(args: argparse.Namespace) -> str:
    opts = AgentOptions(
        output=args.output and os.path.abspath(args.output),
        collapsed=args.collapsed and os.path.abspath(args.collapsed),
        includes=split_patterns(args.includes),
        excludes=split_patterns(args.excludes),
        counting=args.counting,
        allocations=args.allocations,
        weights=args.weights and os.path.abspath(args.weights),
        activation=args.activation,
        cache=args.cache if args.cache in (None, "none") else os.path.abspath(args.cache),
        python=sys.executable,
        progress=not args.quiet,
        mode=args.mode,
        interval=args.interval,
        sampler=args.sampler,
        sample_threads=args.sample_threads,
        sample_waiting=True if args.sample_waiting else None,
    )
    text = opts.to_string()
    parse_options(text)  # the same checks the agent makes, before a JVM is started
    return text


def run_java(args: argparse.Namespace) -> int:
    java_args = list(args.java_args)
    if java_args and java_args[0] == "--":
        java_args = java_args[1:]
    if not java_args:
        raise JprewriteError("nothing to run: give java's arguments after '--' (e.g. -- -jar app.jar)")
    if args.weights and not os.path.isfile(args.weights):
        raise JprewriteError("cannot read weights file", path=args.weights)
    options = agent_option_string(args)
    cmd = [_java(args.java), f"-javaagent:{agent_jar()}" + (f"={options}" if options else ""), *java_args]
    try:
        return subprocess.call(cmd)
    except OSError as e:
        raise JprewriteError(f"cannot run {cmd[0]}: {e.strerror or e}") from None
