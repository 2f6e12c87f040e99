#!/usr/bin/env python3
"""Rewriting throughput: jprewrite's offline rewriter beside JaCoCo's offline instrumenter.

    python bench/rewrite_speed.py                       # the default jars, 3 repeats, phases once
    python bench/rewrite_speed.py --repeats 5 --jars h2,sunflow --no-phases
    python bench/rewrite_speed.py --jars kotlinc --repeats 1

What is measured (issue 15: >= 500 classes/s, default counting, one core, cold process):

* **jprewrite**: ``jprewrite rewrite JARS --output-dir TMP --jobs 1 --quiet`` (default counting,
  the verification gate as the command line has it: off unless ``JPREWRITE_VERIFY`` is set, which
  this script clears), one fresh process per repeat. Time = CPU time (user + sys) of that process
  from the interpreter's start to its exit: imports, the JDK summary, the class hierarchy, every
  class rewritten, the jars written. classes/s = class entries of the inputs / that time.
* **JaCoCo** and **ASM copy**: the shared ``InstrBench`` tool (``../shared/bench/src/tools``) in a
  fresh JVM on the same jars: *cold pass* = one pass in a fresh JVM (wall time inside the JVM,
  the class bytes already in memory) and *JVM CPU* = that JVM's whole CPU time (start, reading
  the jars, the pass, JIT threads): the cold-process figure comparable to jprewrite's; *warm* =
  the third pass of a second JVM (JaCoCo only).
* **phases** (once, a separate process, same command in-process): CPU time split by phase with
  exclusive timers wrapped around the rewriter's entry points (see ``PHASES``); the wrappers
  cost a few percent, so the split is a share, the throughput comes from the plain repeats.
  The timers wrap Python functions, so the phases run the pure-Python build (``JPREWRITE_PURE=1``):
  compiled modules call each other natively, past any wrapper.
* ``--pure-baseline``: each repeat also runs the same installation as pure Python
  (``JPREWRITE_PURE=1``), for the compiled build (setup.py, mypyc) against its fallback.
* ``--side-by-side`` (with a baseline): the baseline and jprewrite rewrite the jars at the same
  time, each pinned to a core of its own (cores swapped every repeat), and the ratio is taken per
  repeat: on a VM whose host moves single runs by 10-15 %, both sides then meet the same noise
  (the two processes also share the memory bus, so their times are above a lone run's).

Repeats alternate jprewrite and the JVM tools so that machine noise hits both; medians.
The machine's load average is printed: other jobs slow both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
J = Path("/usr/share/java")
SHARED = next((d for d in (ROOT.parent / "shared", Path("/work/shared")) if d.is_dir()), ROOT.parent / "shared")
SHARED_TOOLS = SHARED / "bench" / "src" / "tools" / "InstrBench.java"
ASM_CP = [J / "asm.jar", J / "asm-commons.jar", J / "asm-tree.jar", J / "asm-analysis.jar", J / "org.jacoco.core.jar"]
JARS = {
    "h2": "h2-2.1.214.jar",
    "lucene": "lucene-core-4.10.4.jar",
    "xalan": "xalan2-2.7.2.jar",
    "fop": "fop.jar",
    "sunflow": "sunflow-0.07.2.svn396.jar",
    "math": "commons-math3.jar",
    "rhino": "js-1.7.14.jar",
    "kotlinc": "kotlin-compiler-1.3.31.jar",
}
DEFAULT_JARS = "h2,lucene,xalan,fop,sunflow,math,rhino"

#: phase -> entry points (module, qualified name) whose time, minus the time of nested entry
#: points, is that phase's; what no entry point covers inside the rewrite loop is "build".
PHASES: dict[str, list[tuple[str, str]]] = {
    "read (read_class)": [("jprewrite.classfile.model", "read_class")],
    "decode (disassemble)": [("jprewrite.editor.disassembler", "disassemble_code")],
    "analysis (blocks)": [("jprewrite.analysis.blocks", "basic_blocks")],
    "plan (hierarchy rules)": [
        ("jprewrite.instrument.plan", "CctPlan.call_site"),
        ("jprewrite.instrument.plan", "CctPlan.has_esi"),
        ("jprewrite.instrument.plan", "CctPlan.needs_init_publish"),
        ("jprewrite.instrument.plan", "CctPlan.publishing_dispatcher"),
        ("jprewrite.instrument.serial_uid", "pin_serial_version_uid"),
    ],
    "assemble: layout": [("jprewrite.editor.assembler", "_layout")],
    "assemble: encode": [("jprewrite.editor.assembler", "_encode")],
    "assemble: max_stack": [("jprewrite.editor.assembler", "_max_stack")],
    "assemble: rest": [("jprewrite.editor.assembler", "assemble")],
    "frames (type flow)": [
        ("jprewrite.analysis.typeflow.inference", "flow_to"),
        ("jprewrite.analysis.typeflow.inference", "infer_frames"),
        ("jprewrite.analysis.frames", "complete_frames"),
        ("jprewrite.editor.assembler", "_frames"),
    ],
    "verify gate": [
        ("jprewrite.analysis.verifier", "verify_method"),
        ("jprewrite.analysis.verifier", "verify_class"),
    ],
    "encode (to_bytes)": [("jprewrite.classfile.model", "ClassFile.to_bytes")],
    "write jars": [("jprewrite.archive.jars", "write_jar")],
    "build (instrument, rest)": [("jprewrite.instrument.pipeline", "ClassPipeline.run")],
}


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def class_count(jars: list[Path]) -> int:
    n = 0
    for j in jars:
        with zipfile.ZipFile(j) as z:
            n += sum(1 for i in z.namelist() if i.endswith(".class") and not i.endswith("module-info.class"))
    return n


def child_cpu(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, subprocess.CompletedProcess]:
    """CPU seconds (user + sys) of ``cmd`` run to completion, and its result."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({r.returncode}): {r.stderr.strip()[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), r


def run_side_by_side(
    jars: list[Path], counting: str, scratch: Path, baseline: str | None, pure: bool, swap: bool
) -> tuple[float, float]:
    """CPU seconds of (baseline, jprewrite) rewriting ``jars`` at the same time, one core each."""
    procs = []
    outs = []
    for i, (pythonpath, is_pure) in enumerate(((baseline, pure), (None, False))):
        out = Path(tempfile.mkdtemp(prefix="rw-", dir=scratch))
        outs.append(out)
        cmd = [sys.executable, "-m", "jprewrite.cli.main", "rewrite", *map(str, jars), "--output-dir", str(out)]
        cmd += ["--jobs", "1", "--quiet", "--counting", counting]
        core = (i + int(swap)) % 2
        err = tempfile.TemporaryFile(dir=scratch)
        p = subprocess.Popen(
            cmd,
            env=jprewrite_env(pythonpath, is_pure),
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=lambda core=core: os.sched_setaffinity(0, {core}),
        )
        procs.append((p, err))
    cpu = []
    try:
        for p, err in procs:
            _, status, usage = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            if p.returncode != 0:
                err.seek(0)
                sys.exit(f"jprewrite failed ({p.returncode}): {err.read().decode(errors='replace')[-2000:]}")
            cpu.append(usage.ru_utime + usage.ru_stime)
    finally:
        for out in outs:
            subprocess.run(["rm", "-rf", str(out)], check=False)
    return cpu[0], cpu[1]


def jprewrite_env(pythonpath: str | None = None, pure: bool = False) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("JPREWRITE_VERIFY", None)
    env.pop("JPREWRITE_PURE", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    if pure:
        env["JPREWRITE_PURE"] = "1"
    return env


def build_of(pure: bool = False) -> str:
    """``jprewrite.__build__`` of a fresh process (compiled by mypyc, or pure Python)."""
    code = "import jprewrite; print(jprewrite.__build__)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=jprewrite_env(pure=pure))
    return r.stdout.strip() or r.stderr.strip()


def startup_warning() -> str | None:
    """A line when every start of jprewrite would compile its interpreted modules again: an
    editable install (sources outside site-packages) with bytecode writing off. That costs
    about 0.2 s a process, which a user's regular install does not pay."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return None
    code = "import jprewrite.archive.jars as m; print(m.__file__)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=jprewrite_env())
    where = r.stdout.strip()
    if not where or "site-packages" in where:
        return None
    return (
        "note: PYTHONDONTWRITEBYTECODE is set and jprewrite is an editable install: each process compiles "
        "its interpreted modules again (about 0.2 s); measure a regular install (pip install .) for users' figures"
    )


def run_jprewrite(
    jars: list[Path], counting: str, scratch: Path, pythonpath: str | None = None, pure: bool = False
) -> float:
    out = Path(tempfile.mkdtemp(prefix="rw-", dir=scratch))
    cmd = [sys.executable, "-m", "jprewrite.cli.main", "rewrite", *map(str, jars), "--output-dir", str(out)]
    cmd += ["--jobs", "1", "--quiet", "--counting", counting]
    try:
        cpu, _ = child_cpu(cmd, jprewrite_env(pythonpath, pure))
    finally:
        subprocess.run(["rm", "-rf", str(out)], check=False)
    return cpu


def build_instr_bench(scratch: Path) -> Path | None:
    if any(not p.exists() for p in ASM_CP) or not SHARED_TOOLS.exists():
        return None
    tools = scratch / "tools"
    if not (tools / "InstrBench.class").exists():
        tools.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["javac", "-nowarn", "-d", str(tools), "-cp", os.pathsep.join(map(str, ASM_CP)), str(SHARED_TOOLS)],
            check=True,
            capture_output=True,
        )
    return tools


def run_instr_bench(mode: str, jars: list[Path], tools: Path, warm: bool) -> dict:
    """InstrBench ``mode``: one pass in a fresh JVM (its seconds and the JVM's CPU time); with
    ``warm`` the third pass of another JVM too."""
    cp = os.pathsep.join([str(tools), *map(str, ASM_CP)])
    out: dict[str, float] = {}
    for passes in (1, 3) if warm else (1,):
        cpu, r = child_cpu(["java", "-Xms2g", "-Xmx2g", "-cp", cp, "InstrBench", mode, str(passes), *map(str, jars)])
        times = [float(x.split()[2].rstrip("s")) for x in r.stdout.splitlines() if x.startswith("pass ")]
        if passes == 1:
            out.update(cold=times[0], jvm_cpu=cpu)
        else:
            out["warm"] = times[-1]
    return out


# ----------------------------------------------------------------------------------------------
# phases: runs in a child process (``--child-phases``), the rewrite in-process with timers


def install_timers(acc: dict[str, float]) -> None:
    """Wrap every entry point of ``PHASES`` wherever it is bound (module globals, classes)."""
    import functools
    import importlib

    clock = time.process_time
    stack: list[list[float]] = []  # per active timed call: [child time]

    def wrap(phase: str, fn):
        @functools.wraps(fn)
        def timed(*args, **kwargs):
            stack.append([0.0])
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = clock() - t0
                children = stack.pop()[0]
                acc[phase] = acc.get(phase, 0.0) + spent - children
                if stack:
                    stack[-1][0] += spent

        return timed

    targets = []
    for phase, entries in PHASES.items():
        for module, qual in entries:
            mod = importlib.import_module(module)
            owner, _, attr = qual.rpartition(".")
            holder = getattr(mod, owner) if owner else mod
            targets.append((phase, holder, attr, getattr(holder, attr)))
    for phase, holder, attr, fn in targets:
        wrapped = wrap(phase, fn)
        setattr(holder, attr, wrapped)
        if isinstance(holder, type):
            continue
        for name, mod in list(sys.modules.items()):  # from-imports bind the function elsewhere too
            if name.startswith("jprewrite") and mod is not None and getattr(mod, attr, None) is fn:
                setattr(mod, attr, wrapped)


def child_phases(jars: list[str], counting: str, out: str) -> None:
    t_start = time.process_time()
    from jprewrite.instrument import InstrumentOptions
    from jprewrite.rewrite.offline import rewrite

    acc: dict[str, float] = {}
    t_imported = time.process_time()
    install_timers(acc)
    outputs = [str(Path(out) / Path(j).name) for j in jars]
    rewrite(jars, outputs, options=InstrumentOptions(counting=counting), jobs=1, verify=False)
    total = time.process_time() - t_start
    acc["imports"] = t_imported - t_start
    acc["startup + other (hierarchy, plan, zip read)"] = total - sum(acc.values())
    print("PHASES " + json.dumps({"total": total, "phases": acc}))


def run_phases(jars: list[Path], counting: str, scratch: Path) -> dict:
    out = Path(tempfile.mkdtemp(prefix="ph-", dir=scratch))
    cmd = [sys.executable, __file__, "--child-phases", "--counting", counting, "--jars", ",".join(map(str, jars))]
    cmd += ["--scratch", str(out)]
    try:
        _, r = child_cpu(cmd, jprewrite_env(pure=True))  # (see the module docstring)
    finally:
        subprocess.run(["rm", "-rf", str(out)], check=False)
    line = next(x for x in r.stdout.splitlines() if x.startswith("PHASES "))
    return json.loads(line[7:])


def resolve(spec: str) -> list[Path]:
    out = []
    for s in spec.split(","):
        p = Path(s) if "/" in s else J / JARS.get(s, s)
        if not p.exists():
            sys.exit(f"no such jar: {p}")
        out.append(p)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jars", default=DEFAULT_JARS, help="names (" + ",".join(JARS) + ") or paths, comma-separated")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--counting", default="default")
    p.add_argument("--no-phases", action="store_true")
    p.add_argument("--no-jvm", action="store_true", help="leave out JaCoCo and ASM")
    p.add_argument("--scratch", default=os.environ.get("BENCH_SCRATCH", tempfile.gettempdir()))
    p.add_argument(
        "--baseline",
        metavar="DIR",
        help="a directory holding another version of the package as jprewrite/ (put first on PYTHONPATH): "
        "each repeat rewrites with it too, for a before/after in one run",
    )
    p.add_argument(
        "--pure-baseline",
        action="store_true",
        help="each repeat also runs this installation as pure Python (JPREWRITE_PURE=1): compiled against pure",
    )
    p.add_argument(
        "--side-by-side",
        action="store_true",
        help="run the baseline and jprewrite at the same time, one core each, and report per-repeat ratios",
    )
    p.add_argument("--child-phases", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.side_by_side and not (a.baseline or a.pure_baseline):
        p.error("--side-by-side needs --baseline or --pure-baseline")
    if a.side_by_side and (os.cpu_count() or 1) < 2:
        p.error("--side-by-side needs two cores")
    if a.child_phases:
        child_phases(a.jars.split(","), a.counting, a.scratch)
        return
    jars = resolve(a.jars)
    scratch = Path(a.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    n = class_count(jars)
    tools = None if a.no_jvm else build_instr_bench(scratch)
    print(f"{len(jars)} jars, {n} classes: {', '.join(j.name for j in jars)}")
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; counting {a.counting}; {a.repeats} repeats")
    print(f"jprewrite build: {build_of()}" + (f"; baseline: {build_of(pure=True)}" if a.pure_baseline else ""))
    warning = startup_warning()
    if warning:
        print(warning)
    print(f"load average at start: {load_average()}")
    rows: dict[str, list] = {"jprewrite": [], "baseline": [], "ratio": [], "jacoco": [], "asm copy": []}
    for r in range(1, a.repeats + 1):
        line = f"  repeat {r}:"
        if a.side_by_side:
            base, cpu = run_side_by_side(jars, a.counting, scratch, a.baseline, a.pure_baseline, swap=r % 2 == 0)
            rows["baseline"].append(base)
            rows["jprewrite"].append(cpu)
            rows["ratio"].append(cpu / base)
            line += f" side by side: baseline {base:.2f}s CPU, jprewrite {cpu:.2f}s CPU, ratio {cpu / base:.3f}"
        else:
            if a.baseline or a.pure_baseline:
                cpu = run_jprewrite(jars, a.counting, scratch, a.baseline, pure=a.pure_baseline)
                rows["baseline"].append(cpu)
                line += f" {'pure' if a.pure_baseline else 'baseline'} {cpu:.2f}s CPU ({n / cpu:.0f} classes/s);"
            cpu = run_jprewrite(jars, a.counting, scratch)
            rows["jprewrite"].append(cpu)
            line += f" jprewrite {cpu:.2f}s CPU ({n / cpu:.0f} classes/s)"
        if tools is not None:
            jac = run_instr_bench("jacoco", jars, tools, warm=True)
            asm = run_instr_bench("copy", jars, tools, warm=False)
            rows["jacoco"].append(jac)
            rows["asm copy"].append(asm)
            line += (
                f"; jacoco cold {jac['cold']:.2f}s (JVM CPU {jac['jvm_cpu']:.2f}s) warm {jac['warm']:.2f}s"
                f"; asm copy cold {asm['cold']:.2f}s (JVM CPU {asm['jvm_cpu']:.2f}s)"
            )
        print(line + f"; load {load_average()}", flush=True)
    med = statistics.median(rows["jprewrite"])
    print(f"\n{'tool':24} {'median s':>9} {'classes/s':>10}")
    print(f"{'jprewrite (cold, CPU)':24} {med:9.2f} {n / med:10.0f}   (goal >= 500 classes/s)")
    if rows["baseline"]:
        b = statistics.median(rows["baseline"])
        label = "pure (cold, CPU)" if a.pure_baseline else "baseline (cold, CPU)"
        print(f"{label:24} {b:9.2f} {n / b:10.0f}   (jprewrite is {b / med:.2f}x faster)")
    if rows["ratio"]:
        ratios = ", ".join(f"{x:.3f}" for x in rows["ratio"])
        print(f"side by side, jprewrite / baseline per repeat: {ratios}; median {statistics.median(rows['ratio']):.3f}")
        print("  (both ran at once, one core each: their classes/s above are not a lone run's)")
    for tool in ("jacoco", "asm copy"):
        if rows[tool]:
            for key, label in (("cold", "cold pass"), ("jvm_cpu", "JVM CPU"), ("warm", "warm pass")):
                if key in rows[tool][0]:
                    s = statistics.median(x[key] for x in rows[tool])
                    print(f"{tool + ' (' + label + ')':24} {s:9.2f} {n / s:10.0f}")
    if rows["jacoco"]:
        jc = statistics.median(x["cold"] for x in rows["jacoco"])
        jcpu = statistics.median(x["jvm_cpu"] for x in rows["jacoco"])
        print(f"ratio jprewrite / jacoco: {med / jc:.1f}x its cold pass, {med / jcpu:.1f}x its whole cold JVM (CPU)")
    if not a.no_phases:
        ph = run_phases(jars, a.counting, scratch)
        total = ph["total"]
        print(
            f"\nphases (pure-Python build, one run with timers, {total:.2f}s CPU in-process, {n / total:.0f} classes/s):"
        )
        for k, v in sorted(ph["phases"].items(), key=lambda kv: -kv[1]):
            print(f"  {k:44} {v:7.2f}s {100 * v / total:5.1f}%  {1e3 * v / n:6.2f} ms/class")
    print(f"load average at end: {load_average()}")


if __name__ == "__main__":
    main()
