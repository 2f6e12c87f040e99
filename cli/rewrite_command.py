"""``jprewrite IN OUT`` / ``jprewrite IN... --output-dir DIR``: rewrite jars for exact CCT profiling.

The rewritten jar carries the runtime; run it as the original
(``java -cp out.jar Main``) and the profile is written at exit to
``-Djprewrite.output=FILE`` (default ``jprewrite-profile.json``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..errors import JprewriteError
from ..instrument import COUNTING_MODES, MODES, ClassPatterns, instrument_options
from ..rewrite.offline import rewrite
from .inputs import split_patterns
from .progress import Progress


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rewrite",
        help="rewrite jars/class directories for exact calling-context profiling (also: jprewrite IN OUT)",
        description=__doc__.split("\n\n")[0],
    )
    add_arguments(p)
    p.set_defaults(run=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="IN OUT, or IN... with --output-dir (jars or class directories)"
    )
    p.add_argument("--output-dir", "-d", metavar="DIR", help="rewrite every PATH to DIR under its own file name")
    p.add_argument(
        "--classpath",
        "-cp",
        action="append",
        default=[],
        metavar="CP",
        help=f"jars/directories consulted for the class hierarchy but not rewritten "
        f"(separated by '{os.pathsep}'; repeatable)",
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        default="exact",
        help="exact: calling context tree and bytecode counts; sample: yieldpoints only, for a "
        "sampled time profile; hybrid: both, samples on the exact tree (default: exact; "
        "sampling settings at run time: -Djprewrite.interval=..., see docs/sampling.md)",
    )
    p.add_argument(
        "--counting",
        choices=COUNTING_MODES,
        default="default",
        help="bytecode counting: none, default or precise basic blocks (JP section 4; default: default)",
    )
    p.add_argument("--allocations", action="store_true", help="count allocations per type per context")
    p.add_argument(
        "--verify",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="check every rewritten method with jprewrite's own verifier before it is written; a "
        "method it rejects is kept as it was (default: off, on when JPREWRITE_VERIFY=1; "
        "more than doubles the rewriting's CPU time)",
    )
    p.add_argument(
        "--weights",
        metavar="FILE",
        help="per-opcode costs ('<mnemonic> <cost>' lines, 'default <cost>'): adds a weighted counter",
    )
    p.add_argument(
        "--program-loader",
        action="store_true",
        help="the classes will be defined by a class loader written in the program (a plugin loader): "
        "publish the node before each first resolution of a class name, so that the loader's work "
        "attaches beneath the method that names the class (the agent does this by itself)",
    )
    p.add_argument(
        "--activation",
        action="store_true",
        help="JP's periodic activation: decrement a per-thread counter and call the profiling agent "
        "(-Djprewrite.profiler=CLASS) about every N bytecodes",
    )
    p.add_argument(
        "--includes",
        action="append",
        default=[],
        metavar="PATTERNS",
        help="only instrument classes matching these globs (binary names, separated by ':' or ',')",
    )
    p.add_argument(
        "--excludes",
        action="append",
        default=[],
        metavar="PATTERNS",
        help="never instrument classes matching these globs",
    )
    p.add_argument(
        "--java-home",
        metavar="DIR",
        help="JDK whose classes answer hierarchy questions (default: JAVA_HOME or the java on PATH)",
    )
    p.add_argument(
        "--jobs", "-j", type=int, default=os.cpu_count() or 1, help="worker processes (default: number of CPUs)"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress or summary on stderr")
    p.add_argument("--verbose", "-v", action="store_true", help="list every method left uninstrumented")


def run(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths]
    if args.output_dir:
        inputs = paths
        out_dir = Path(args.output_dir)
        if out_dir.exists() and not out_dir.is_dir():
            raise JprewriteError("--output-dir exists and is not a directory", path=str(out_dir))
        names = [p.name for p in inputs]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise JprewriteError(
                f"two inputs have the same file name {sorted(dup)[0]!r}; rewrite them in separate runs or rename one"
            )
        outputs = [out_dir / n for n in names]
        for i in inputs:
            if not i.exists():
                raise JprewriteError("cannot open: no such file or directory", path=str(i))
        out_dir.mkdir(parents=True, exist_ok=True)
    else:
        if len(paths) != 2:
            raise JprewriteError("expected IN OUT (or several inputs with --output-dir DIR)")
        inputs, outputs = [paths[0]], [paths[1]]
    classpath: list[str] = []
    for cp in args.classpath:
        classpath += [p for p in cp.split(os.pathsep) if p]
    options = instrument_options(
        counting=args.counting,
        allocations=args.allocations,
        weights=args.weights,
        activation=args.activation,
        mode=args.mode,
        resolutions=args.program_loader,
    )
    patterns = ClassPatterns(split_patterns(args.includes), split_patterns(args.excludes))
    bar = Progress("rewriting", 1, enabled=not args.quiet)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.enabled = not args.quiet and total > 0
        bar.advance(done - bar.done)

    try:
        report = rewrite(
            inputs,
            outputs,
            classpath=classpath,
            options=options,
            patterns=patterns,
            java_home=args.java_home,
            progress=progress,
            jobs=max(1, args.jobs),
            verify=args.verify,
        )
    finally:
        bar.close()
    if not args.quiet:
        t = report.totals
        rate = report.classes / report.seconds if report.seconds else 0.0
        err = sys.stderr
        done = (
            f"jprewrite: rewrote {report.instrumented} of {report.classes} classes in {report.seconds:.2f} s "
            f"({rate:.0f} classes/s): "
        )
        if options.mode == "sample":
            print(done + f"{t.yieldpoints} yieldpoints in {t.sampled} methods (sample mode)", file=err)
        else:
            print(
                done + f"{t.esi} ESI+N2B, {t.b2n} B2N, {t.delegators} delegating ESI, "
                f"{t.osi} OSI, {t.leaf_twins} leaf twins; call sites: {t.call_sites.get('pass', 0)} pass the node "
                f"({t.call_sites.get('slot', 0)} of them into a leaf's slots), "
                f"{t.call_sites.get('boundary', 0)} boundary, {t.call_sites.get('leaf', 0)} leaf, "
                f"{t.call_sites.get('pending', 0)} pending"
                + (f"; {t.yieldpoints} yieldpoints" if options.mode == "hybrid" else ""),
                file=err,
            )
        if report.gate_rejected:
            print(
                f"jprewrite: the verification gate rejected {report.gate_rejected} instrumented methods; "
                "they are kept as they were (--verbose lists them)",
                file=err,
            )
        if report.serial_uids:
            print(
                f"jprewrite: kept the default serialVersionUID of {len(report.serial_uids)} Serializable "
                "classes (explicit field added)",
                file=err,
            )
        failed = sorted(report.failed.items())
        for name, why in failed if args.verbose else failed[:5]:
            print(f"jprewrite: {name.replace('/', '.')} left uninstrumented: {why}", file=err)
        if len(failed) > 5 and not args.verbose:
            print(
                f"jprewrite: ... and {len(failed) - 5} more classes left uninstrumented (--verbose lists them)",
                file=err,
            )
        if t.past_jit_limit:
            print(
                f"jprewrite: {len(t.past_jit_limit)} methods past the JIT's size limit once instrumented "
                "(HotSpot will not compile them)" + ("" if args.verbose else "; --verbose lists them"),
                file=err,
            )
            if args.verbose:
                for line in t.past_jit_limit:
                    print(f"  {line}", file=err)
        if t.not_instrumented:
            print(
                f"jprewrite: {len(t.not_instrumented)} methods not instrumented (they run, without counts)"
                + ("" if args.verbose else "; --verbose lists them"),
                file=err,
            )
            if args.verbose:
                for line in t.not_instrumented:
                    print(f"  {line}", file=err)
        for note in report.class_path_notes:
            print(f"jprewrite: note: {note}", file=err)
    return 0
