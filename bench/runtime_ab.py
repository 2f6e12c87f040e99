"""Two or more builds of the Java runtime in the same rewritten jars, side by side (issue 12's A/B runs).

A change to the runtime (the sampler, ``Node``) is best measured without rewriting anything: the jars
``bench/sampling.py`` left in its ``--work`` directory (``jpr-exact``, ``jpr-sample``, ``jpr-hybrid``)
carry a runtime, and a directory of runtime classes put first on the class path takes its place.
Each ``--rev NAME=REV`` compiles ``runtime-java/src`` as of a git revision (``WORKTREE``: the files as
they are now) with ``javac --release 8``, as the rewriter does; the workloads then run in rotating
rounds through ``../shared/bench`` with every runtime, and the summary gives medians per runtime and
the ratio of each to the first.

    python bench/runtime_ab.py --work /tmp/sampw --jars sample --rev old=1a62bec --rev new=WORKTREE \\
        -n 3 --jvm=-Djprewrite.interval=1ms batik fop

With ``--profile`` each run writes its profile, and the summary adds the sampling block's latency
p97.5, samples, lost and stack traces (``docs/sampling.md``). Checksums must equal across all runs of
a workload, or the script says so and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = (ROOT / ".." / "shared" / "bench").resolve()
MODES = ("exact", "sample", "hybrid")


def die(msg: str) -> None:
    print(f"runtime_ab: {msg}", file=sys.stderr)
    raise SystemExit(2)


def compile_runtime(rev: str, out: Path) -> Path:
    """``runtime-java/src`` at ``rev`` (or the work tree) compiled into ``out``."""
    src = out / "src"
    if rev == "WORKTREE":
        src = ROOT / "runtime-java" / "src"
    else:
        src.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "runtime-java/src"], capture_output=True, check=False
        )
        if archive.returncode:
            die(f"no runtime sources at {rev}: {archive.stderr.decode(errors='replace').strip()}")
        subprocess.run(["tar", "-x", "-C", str(src), "--strip-components=2"], input=archive.stdout, check=True)
    classes = out / "classes"
    classes.mkdir(parents=True)
    sources = sorted(str(p) for p in src.rglob("*.java"))
    p = subprocess.run(
        ["javac", "-nowarn", "--release", "8", "-d", str(classes), *sources], capture_output=True, text=True
    )
    if p.returncode:
        die(f"the runtime at {rev} does not compile: {p.stderr.strip().splitlines()[0]}")
    return classes


def class_path(workload: str) -> list[str]:
    env = dict(os.environ, PRINT_CP="1")
    p = subprocess.run(["bash", str(SHARED / "workloads" / f"{workload}.sh")], env=env, capture_output=True, text=True)
    if p.returncode:
        die(f"unknown workload {workload}")
    return p.stdout.split()


def run(workload: str, jars: Path, runtime: Path, jvm: list[str], profile: Path | None, scratch: Path) -> dict:
    """One run of ``workload`` with ``runtime`` first on the class path; the runner's measurements."""
    entries = [str(runtime)] + [str(jars / Path(e).name) for e in class_path(workload)]
    opts = list(jvm)
    if profile is not None:
        opts.append(f"-Djprewrite.output={profile}")
    env = dict(os.environ, BENCH_WORK=str(scratch), BENCH_CP=":".join(entries), JAVA_OPTS=" ".join(opts))
    p = subprocess.run(["bash", str(SHARED / "workloads" / f"{workload}.sh")], env=env, capture_output=True, text=True)
    rec: dict = {"rc": p.returncode}
    for line in p.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key in ("CPU", "ELAPSED", "FOREIGN_CPU"):
            rec[key.lower()] = float(value)
        elif key == "CHECKSUM":
            rec["checksum"] = value
    if profile is not None and profile.exists():
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 200000))  # a compiler's deep profile
        rec["sampling"] = json.loads(profile.read_text()).get("sampling") or {}
    return rec


def describe(rec: dict) -> str:
    text = f"cpu {rec.get('cpu')} wall {rec.get('elapsed')} foreign {rec.get('foreign_cpu')}"
    s = rec.get("sampling")
    if s:
        lat = s.get("latency_ns", {})
        text += (
            f" samples {s.get('samples')} lost {s.get('lost')} p97.5 {lat.get('p97_5', 0) / 1e3:.0f}us"
            f" stack_traces {s.get('stack_traces')}"
        )
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", required=True, type=Path, help="bench/sampling.py's work directory (rewritten jars)")
    ap.add_argument(
        "--jars",
        default="sample",
        help="which of its rewritten jar sets (jpr-NAME): exact, sample, hybrid of bench/sampling.py, or a counting"
        " mode (default, none, precise) of bench/cct_overhead.py's --work directory",
    )
    ap.add_argument("--rev", action="append", required=True, help="NAME=REV (a git revision, or WORKTREE)")
    ap.add_argument("--jvm", action="append", default=[], help="a JVM option for every run (repeatable)")
    ap.add_argument("--profile", action="store_true", help="write profiles; report their sampling blocks")
    ap.add_argument("-n", "--rounds", type=int, default=3)
    ap.add_argument("workloads", nargs="+")
    args = ap.parse_args()
    jars = args.work / f"jpr-{args.jars}"
    if not jars.is_dir():
        die(f"no rewritten jars in {jars}: run bench/sampling.py --work {args.work} first")
    if len(args.rev) < 2 or any("=" not in r for r in args.rev):
        die("give two or more --rev NAME=REV")
    with tempfile.TemporaryDirectory(prefix="runtime-ab-") as tmp:
        scratch = Path(tmp)
        runtimes = {}
        for spec in args.rev:
            name, _, rev = spec.partition("=")
            runtimes[name] = compile_runtime(rev, scratch / f"rt-{name}")
        results: dict[tuple[str, str], list[dict]] = {}
        failed = False
        for w in args.workloads:
            for r in range(args.rounds):
                names = list(runtimes)
                names = names[r % len(names) :] + names[: r % len(names)]  # rotating order
                for name in names:
                    prof = scratch / f"{w}-{name}-{r}.json" if args.profile else None
                    rec = run(w, jars, runtimes[name], args.jvm, prof, scratch / "bw")
                    print(f"{w} {name} r{r} {describe(rec)}", flush=True)
                    if rec["rc"]:
                        failed = True
                        print(f"  {w} {name}: exit status {rec['rc']}", file=sys.stderr)
                    results.setdefault((w, name), []).append(rec)
            sums = {rec.get("checksum") for name in runtimes for rec in results[(w, name)]}
            if len(sums) != 1:
                failed = True
                print(f"  {w}: outputs differ between runs ({len(sums)} checksums)", file=sys.stderr)
    first = next(iter(runtimes))
    print(f"\nmedians over {args.rounds} rounds; ratio: CPU over runtime {first!r}")
    for w in args.workloads:
        base = statistics.median(rec["cpu"] for rec in results[(w, first)] if "cpu" in rec)
        for name in runtimes:
            recs = results[(w, name)]
            cpu = statistics.median(rec["cpu"] for rec in recs if "cpu" in rec)
            line = f"{w:10s} {name:10s} cpu {cpu:7.2f}  ratio {cpu / base:5.3f}"
            lat = [rec["sampling"]["latency_ns"]["p97_5"] for rec in recs if rec.get("sampling")]
            if lat:
                line += f"  p97.5 {statistics.median(lat) / 1e3:7.0f}us (max {max(lat) / 1e3:.0f})"
            print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
