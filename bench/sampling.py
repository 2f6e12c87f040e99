#!/usr/bin/env python3
"""Cost, latency and accuracy of jprewrite's samplers beside plain runs and JFR (issue 12).

Runs shared workloads (``../shared/bench``) side by side, interleaved: in each repeat every
workload runs once in every configuration, in an order rotated from repeat to repeat, so that
all configurations see the same machine conditions. Configurations:

- ``plain``: the unchanged program;
- ``safepoint-I``: the agent with ``mode=sample,sampler=safepoint`` (nothing rewritten, no
  Python: the JVMTI-style baseline as a user would run it);
- ``partial-I``, ``incremental-I``: jars rewritten offline with ``--mode sample`` (yieldpoints),
  ``-Djprewrite.sampler=... -Djprewrite.interval=I``;
- ``jfr-I``: ``-XX:StartFlightRecording`` with a generated ``.jfc`` that enables only
  ``jdk.ExecutionSample`` at period I (JFR's cheapest time profile; ``settings=profile`` adds
  allocation, lock and I/O events we do not measure), stack depth ``--jfr-stackdepth``;
- ``jfr-dns-I`` (at the accuracy interval only): the same with ``-XX:+DebugNonSafepoints``, which
  JDK 21 turns on whenever JFR runs (JDK-8307057): without it, JDK 17's JFR charges a sample in
  compiled code to the next call or safepoint poll's inlining scope, not to the code that ran;
- ``yieldpoints``: the sample-mode jars with ``-Djprewrite.mode=exact`` (yieldpoints never
  taken): what the rewriting costs before any sample is taken;
- ``exact``, ``hybrid``: jars rewritten with ``--mode exact`` / ``--mode hybrid`` (hybrid with
  its default sampler, ``incremental`` at ``--hybrid-interval``): hybrid's price over exact.

Reported: medians of CPU time and wall time and their ratios to plain; the samplers' round
latency (median and p97.5, from each profile's ``"sampling"`` block, median over repeats);
accuracy at ``--accuracy-interval`` as in Hofer et al. §7.3: degree of overlap and hot-edge
coverage (``jprewrite compare --metric samples --app-only <workload package>``, T = 0.1) of each
technique against JFR's recording of the same repeat (``jprewrite import-jfr``) and against
JFR with DebugNonSafepoints, and JFR against its own other runs as the ceiling; for hybrid, the correlation of its samples with its exact
bytecodes per context. Hofer's stability (§7.3, Fig. 12): each run's CCT against the average CCT of
all runs of the same technique, and the average CCTs of the techniques against JFR's (Fig. 13),
which is how the papers judge agreement: single short runs disagree even for JFR against itself;
the ceiling there is JFR's average over half its runs against the average over the other half.
Finally the goals of issue 12, met or missed.

    python bench/sampling.py                                   # h2 sunflow, 3 repeats, 10ms 1ms
    python bench/sampling.py -n 5 --accuracy-repeats 5 --intervals 10ms,1ms,100us h2 sunflow
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "bench"
JPREWRITE = [sys.executable, "-m", "jprewrite.cli.main"]
DEFAULT_WORKLOADS = ["h2", "sunflow"]
# The application's own frames, for --app-only: drivers and libraries of the JDK are folded.
APP_PREFIX = {
    "h2": "org.h2.",
    "sunflow": "org.sunflow.",
    "math": "org.apache.commons.math3.",
    "lucene": "org.apache.lucene.",
    "xalan": "org.apache.xalan.",
    "batik": "org.apache.batik.",
    "fop": "org.apache.fop.",
    "scalac": "scala.tools.",
    "kotlinc": "org.jetbrains.kotlin.",
    "groovy": "org.codehaus.groovy.",
}
MULTI_THREADED = {"sunflow"}
SAMPLERS = ["safepoint", "partial", "incremental"]
JFR_MIN_NS = 1_000_000  # JFR's execution sampler does not sample faster than every 1 ms


def die(msg: str) -> None:
    """One line and exit status 2: a benchmark's set-up problem is not a traceback."""
    print(f"sampling.py: {msg}", file=sys.stderr)
    sys.exit(2)


def interval_ns(text: str) -> int:
    """``10ms`` / ``0.1ms`` / ``100us`` as nanoseconds (the runtime's units)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|us)", text.strip())
    if not m:
        die(f"bad interval {text!r} (use e.g. 10ms, 1ms, 100us)")
    return round(float(m.group(1)) * (1_000_000 if m.group(2) == "ms" else 1_000))


def sh(args: list[str], **kw) -> subprocess.CompletedProcess:
    """Runs a tool; a failure ends the benchmark with the tool's last words."""
    r = subprocess.run(args, text=True, capture_output=True, **kw)
    if r.returncode:
        die(f"{' '.join(map(str, args[:4]))}... failed: {(r.stderr or r.stdout).strip()[-600:]}")
    return r


def class_path(workload: str) -> list[str]:
    """The workload's default class path, as its runner prints it."""
    env = dict(os.environ, PRINT_CP="1")
    return sh(["bash", str(SHARED / "workloads" / f"{workload}.sh")], env=env).stdout.split()


def rewrite(work: Path, modes: list[str], cps: dict[str, list[str]]) -> dict[str, float]:
    """One ``jprewrite --output-dir`` run per mode over every class-path entry of the workloads.

    Kept across invocations with the same ``--work`` (a ``.done`` file lists the inputs and the digest of the
    Java runtime the jars carry, so that a changed runtime is never measured in stale jars): rewriting is
    not what this benchmark measures. Returns seconds per mode (0 when reused)."""
    inputs = sorted({e for cp in cps.values() for e in cp})
    if len({Path(e).name for e in inputs}) != len(inputs):
        die("two class-path entries share a file name; cannot use --output-dir")
    runtime = f"runtime:{runtime_digest()}"
    took = {}
    for mode in modes:
        out = work / f"jpr-{mode}"
        done = out / ".done"
        if done.exists() and set(done.read_text().split()) >= {*inputs, runtime}:
            took[mode] = 0.0
            continue
        shutil.rmtree(out, ignore_errors=True)
        t = time.monotonic()
        sh([*JPREWRITE, *inputs, "--output-dir", str(out), "--mode", mode, "-q"])
        took[mode] = time.monotonic() - t
        done.write_text("\n".join([runtime, *inputs]) + "\n")
    return took


def runtime_digest() -> str:
    """16 hex digits of SHA-256 over the compiled Java runtime that rewritten jars carry."""
    import hashlib

    from jprewrite.rewrite import runtime_classes

    h = hashlib.sha256()
    for name, data in sorted(runtime_classes().items()):
        h.update(name.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()[:16]


def jfc(work: Path, ns: int) -> Path:
    """A JFR settings file with only ``jdk.ExecutionSample`` enabled, at period ``ns``."""
    path = work / f"exec-{ns}.jfc"
    ms = ns / 1e6
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<configuration version="2.0" label="sampbench" description="execution samples only">\n'
        '  <event name="jdk.ExecutionSample"><setting name="enabled">true</setting>'
        f'<setting name="period">{ms:g} ms</setting></event>\n</configuration>\n'
    )
    return path


class Config:
    """One way of running a workload: its JVM options, class path and the file it leaves behind."""

    def __init__(self, name: str, kind: str, interval: str | None = None, jar_mode: str | None = None):
        self.name, self.kind, self.interval, self.jar_mode = name, kind, interval, jar_mode

    def output(self, work: Path, workload: str, rep: int) -> Path | None:
        """The profile (``.json``) or recording (``.jfr``) a run writes; None for plain."""
        if self.kind in ("plain", "yieldpoints"):
            return None
        ext = "jfr" if self.kind in ("jfr", "jfr-dns") else "json"
        return work / "out" / f"{workload}-{self.name}-r{rep}.{ext}"

    def java_opts(self, work: Path, workload: str, rep: int, agent: str, stackdepth: int) -> str:
        """``JAVA_OPTS`` for one run."""
        out = self.output(work, workload, rep)
        if self.kind == "plain":
            return ""
        if self.kind in ("jfr", "jfr-dns"):
            dns = "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints " if self.kind == "jfr-dns" else ""
            return (
                f"{dns}-XX:FlightRecorderOptions:stackdepth={stackdepth} -XX:StartFlightRecording="
                f"settings={jfc(work, interval_ns(self.interval))},filename={out},dumponexit=true"
            )
        if self.kind == "safepoint":
            return f"-javaagent:{agent}=mode=sample,sampler=safepoint,interval={self.interval},output={out}"
        if self.kind == "yieldpoints":  # the sample-mode jar with sampling off: yieldpoints never taken
            return "-Djprewrite.mode=exact"
        opts = f"-Djprewrite.output={out}"
        if self.kind in ("partial", "incremental"):
            opts += f" -Djprewrite.sampler={self.kind} -Djprewrite.interval={self.interval}"
        elif self.kind == "hybrid":
            opts += f" -Djprewrite.interval={self.interval}"
        return opts


def configs(intervals: list[str], hybrid_interval: str, jfr: bool, hybrid: bool, acc_iv: str) -> list[Config]:
    """Every configuration of the run, plain first."""
    cs = [Config("plain", "plain"), Config("yieldpoints", "yieldpoints", None, "sample")]
    for iv in intervals:
        cs += [Config(f"{s}-{iv}", s, iv, None if s == "safepoint" else "sample") for s in SAMPLERS]
        if jfr and interval_ns(iv) >= JFR_MIN_NS:
            cs.append(Config(f"jfr-{iv}", "jfr", iv))
            if iv == acc_iv:
                cs.append(Config(f"jfr-dns-{iv}", "jfr-dns", iv))
    if hybrid:
        cs += [Config("exact", "exact", None, "exact"), Config("hybrid", "hybrid", hybrid_interval, "hybrid")]
    return cs


def run_one(
    work: Path, workload: str, cfg: Config, rep: int, cps: dict[str, list[str]], agent: str, stackdepth: int
) -> dict:
    """One JVM run through the shared runner; its measurements and, for profiles, the sampling block."""
    env = dict(os.environ, BENCH_WORK=str(work / "bw"), JAVA_OPTS=cfg.java_opts(work, workload, rep, agent, stackdepth))
    env.pop("BENCH_CP", None)
    if cfg.jar_mode:
        env["BENCH_CP"] = ":".join(str(work / f"jpr-{cfg.jar_mode}" / Path(e).name) for e in cps[workload])
    out = cfg.output(work, workload, rep)
    if out and out.exists():
        out.unlink()
    p = subprocess.run(["bash", str(SHARED / "workloads" / f"{workload}.sh")], env=env, text=True, capture_output=True)
    rec: dict = {"workload": workload, "config": cfg.name, "rep": rep, "rc": p.returncode}
    for line in p.stdout.splitlines():
        k, _, v = line.partition(" ")
        if k in ("ELAPSED", "CPU", "FOREIGN_CPU"):
            rec[k.lower()] = float(v)
        elif k == "MAXRSS_KB":
            rec["maxrss_kb"] = int(v)
        elif k == "CHECKSUM":
            rec["checksum"] = v
    if rec.get("elapsed"):
        rec["contention"] = round(rec.get("foreign_cpu", 0.0) / ((os.cpu_count() or 1) * rec["elapsed"]), 3)
    if p.returncode:
        rec["stderr"] = (p.stderr or "")[-1500:]
    if out and out.suffix == ".json" and out.exists():
        rec["sampling"] = sampling_block(out)
    return rec


def sampling_block(profile: Path) -> dict | None:
    """The profile's top-level ``"sampling"`` object, read from the head of the file (it comes first)."""
    with open(profile, encoding="utf-8") as f:
        for _, line in zip(range(5), f):
            if line.startswith('"sampling":'):
                return json.loads(line[len('"sampling":') :].rstrip().rstrip(","))
    return None


def measure(
    work: Path,
    workloads: list[str],
    cs: list[Config],
    repeats: int,
    cps: dict[str, list[str]],
    agent: str,
    stackdepth: int,
) -> list[dict]:
    """Every repeat runs every workload in every configuration, order rotated per repeat."""
    runs = []
    raw = work / "runs.jsonl"
    with open(raw, "w") as f:
        for rep in range(repeats):
            for w in workloads:
                k = rep % len(cs)
                for cfg in cs[k:] + cs[:k]:
                    r = run_one(work, w, cfg, rep, cps, agent, stackdepth)
                    runs.append(r)
                    f.write(json.dumps(r) + "\n")
                    f.flush()
                    lat = (r.get("sampling") or {}).get("latency_ns", {})
                    print(
                        f"  r{rep} {w:8} {cfg.name:18} rc={r['rc']} wall={r.get('elapsed')} "
                        f"cpu={r.get('cpu')} contention={r.get('contention')} "
                        f"lat_med={lat.get('median')} p97.5={lat.get('p97_5')}",
                        file=sys.stderr,
                        flush=True,
                    )
    return runs


def compare(a: Path, b: Path, prefix: str, metric_b: str | None = None) -> dict:
    """``jprewrite compare --json``: overlap, hot-edge coverage both ways, correlations."""
    args = [*JPREWRITE, "compare", str(a), str(b), "--metric", "samples", "--app-only", prefix, "--json"]
    if metric_b:
        args += ["--metric-b", metric_b]
    return json.loads(sh(args).stdout)


REFERENCES = ("jfr", "jfr-dns")
REF_LABEL = {"jfr": "JFR", "jfr-dns": "JFR+DNS"}


def imported(work: Path, w: str, ref: str, acc_iv: str, reps: int) -> list[tuple[int, Path]]:
    """``(repeat, profile)`` of each recording of reference ``ref`` at ``acc_iv``, imported once."""
    out = []
    for rep in range(reps):
        rec = work / "out" / f"{w}-{ref}-{acc_iv}-r{rep}.jfr"
        if not rec.exists():
            continue
        prof = rec.with_suffix(".imported.json")
        if not prof.exists() or prof.stat().st_mtime < rec.stat().st_mtime:
            sh([*JPREWRITE, "import-jfr", str(rec), "-o", str(prof)])
        out.append((rep, prof))
    return out


def accuracy(work: Path, workloads: list[str], cs: list[Config], acc_iv: str, reps: int) -> dict:
    """Each technique's profile at ``acc_iv`` against each reference's recording of the same repeat
    (key ``(workload, technique, reference)``), the references against their own other runs (the
    ceiling: what two runs of one reference profiler agree on) and JFR with DebugNonSafepoints
    against plain JFR."""
    names = {c.name for c in cs}
    if f"jfr-{acc_iv}" not in names:
        return {}
    res: dict = {}
    for w in workloads:
        prefix = APP_PREFIX.get(w)
        if not prefix:
            print(f"  no application package known for {w}: accuracy skipped", file=sys.stderr)
            continue
        refs = {ref: imported(work, w, ref, acc_iv, reps) for ref in REFERENCES}
        for ref, recs in refs.items():
            for s in SAMPLERS:
                for rep, prof in recs:
                    p = work / "out" / f"{w}-{s}-{acc_iv}-r{rep}.json"
                    if p.exists():
                        res.setdefault((w, s, ref), []).append(compare(p, prof, prefix))
            for (_, x), (_, y) in itertools.combinations(recs, 2):
                res.setdefault((w, ref, ref), []).append(compare(x, y, prefix))
        plain = dict(refs["jfr"])
        for rep, prof in refs["jfr-dns"]:
            if rep in plain:
                res.setdefault((w, "jfr-dns", "jfr"), []).append(compare(prof, plain[rep], prefix))
        hyb = work / "out" / f"{w}-hybrid-r0.json"
        if hyb.exists():
            res[(w, "hybrid-vs-bytecodes", "")] = [compare(hyb, hyb, prefix, metric_b="bytecodes")]
    return res


def stability(work: Path, workloads: list[str], acc_iv: str, reps: int, threshold: float = 0.1) -> dict:
    """Hofer et al. §7.3 at ``acc_iv``, app-only: per technique (and reference), each run's CCT against
    the average CCT of its runs ("stability", Fig. 12: overlap, and the share of the average's hot
    edges hot in the run), and each technique's average CCT against each reference's average
    ("agreement", Fig. 13: overlap, coverage of the reference's hot edges, and the reverse); the
    ceiling: a reference's average over half its runs against the average over the other half.
    Reads the recordings :func:`accuracy` imported."""
    from jprewrite.profile import load
    from jprewrite.profile.similarity import ContextSpace, hot_edge_coverage, overlap

    res: dict = {}
    for w in workloads:
        prefix = APP_PREFIX.get(w)
        if not prefix:
            continue
        space = ContextSpace([prefix])
        sides: dict = {}
        for t in [*SAMPLERS, *REFERENCES]:
            suffix = "imported.json" if t in REFERENCES else "json"
            paths = [work / "out" / f"{w}-{t}-{acc_iv}-r{r}.{suffix}" for r in range(reps)]
            trees = [load(str(p)).tree(None) for p in paths if p.exists()]
            if len(trees) >= 2:
                sides[t] = [space.side(tr, "samples") for tr in trees]
        avgs = {t: space.average(ss) for t, ss in sides.items()}
        for t, ss in sides.items():
            res[(w, t, "stability")] = [(overlap(x, avgs[t]), hot_edge_coverage(x, avgs[t], threshold)) for x in ss]
        for ref in REFERENCES:
            if ref not in avgs:
                continue
            j = avgs[ref]
            for t in [*SAMPLERS, *(r for r in REFERENCES if r != ref)]:
                if t in avgs:
                    a = avgs[t]
                    cov, rev = hot_edge_coverage(a, j, threshold), hot_edge_coverage(j, a, threshold)
                    res[(w, t, "agreement", ref)] = (overlap(a, j), cov, rev, len(sides[t]), len(sides[ref]))
            half = len(sides[ref]) // 2
            x, y = space.average(sides[ref][:half]), space.average(sides[ref][half:])
            res[(w, ref, "agreement", ref)] = (
                overlap(x, y),
                hot_edge_coverage(x, y, threshold),
                hot_edge_coverage(y, x, threshold),
                half,
                len(sides[ref]) - half,
            )
    return res


def print_stability(stab: dict, workloads: list[str], acc_iv: str) -> None:
    """Stability and agreement of average CCTs as Markdown."""
    if not stab:
        return
    print(
        f"\nStability at {acc_iv}, app-only, T = 0.1 (Hofer Fig. 12: each run against the average of its "
        "technique's runs; median over runs, min in brackets):\n"
    )
    print("| workload | technique | runs | overlap | hot-edge coverage of the average |")
    print("| --- | --- | ---: | ---: | ---: |")
    for w in workloads:
        for t in [*SAMPLERS, *REFERENCES]:
            xs = stab.get((w, t, "stability"))
            if xs:
                ov, hc = [x[0] for x in xs], [x[1] for x in xs if x[1] is not None]
                print(
                    f"| {w} | {REF_LABEL.get(t, t)} | {len(xs)} | {fmt(med(ov), '.1%')} ({fmt(min(ov), '.1%')}) "
                    f"| {fmt(med(hc), '.1%')} ({fmt(min(hc) if hc else None, '.1%')}) |"
                )
    print(
        f"\nAgreement of average CCTs at {acc_iv}, app-only, T = 0.1 (Hofer Fig. 13; coverage = share of "
        "the reference's hot edges hot in the technique's average; a reference against itself: the "
        "average of half its runs against the other half's, the ceiling):\n"
    )
    print("| workload | technique | reference | runs averaged | overlap | hot-edge coverage | reverse coverage |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for w in workloads:
        for ref in REFERENCES:
            for t in [*SAMPLERS, *REFERENCES]:
                a = stab.get((w, t, "agreement", ref))
                if a:
                    print(
                        f"| {w} | {REF_LABEL.get(t, t)} | {REF_LABEL[ref]} | {a[3]} / {a[4]} | {fmt(a[0], '.1%')} "
                        f"| {fmt(a[1], '.1%')} | {fmt(a[2], '.1%')} |"
                    )


def med(xs: list[float]) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def fmt(x: float | None, spec: str = ".2f", scale: float = 1.0) -> str:
    return "-" if x is None else format(x * scale, spec)


def summarise(runs: list[dict], workloads: list[str], cs: list[Config]) -> dict:
    """Per (workload, config): medians of CPU, wall, latency, samples; ratios to plain; checksums."""
    table = {}
    for w in workloads:
        plain_sums = {r.get("checksum") for r in runs if r["workload"] == w and r["config"] == "plain" and r["rc"] == 0}
        for c in cs:
            rs = [r for r in runs if r["workload"] == w and r["config"] == c.name]
            ok = [r for r in rs if r["rc"] == 0]
            smp = [r["sampling"] for r in ok if r.get("sampling")]
            lat = [s.get("latency_ns") or {} for s in smp]
            table[(w, c.name)] = {
                "n": len(rs),
                "failed": len(rs) - len(ok),
                "cpu": med([r.get("cpu") for r in ok]),
                "wall": med([r.get("elapsed") for r in ok]),
                "contention": med([r.get("contention") for r in ok]),
                "lat_med": med([x.get("median") for x in lat]),
                "lat_p975": med([x.get("p97_5") for x in lat]),
                "samples": med([s.get("samples") for s in smp]),
                "lost": med([s.get("lost") for s in smp]),
                "armed_med": med([(s.get("armed_ns") or {}).get("median") for s in smp]),
                "calls_per_round": med(
                    [s["yieldpoint_calls"] / s["rounds"] for s in smp if s.get("rounds") and "yieldpoint_calls" in s]
                ),
                "sampler_cpu": med([s.get("sampler_cpu_ns") for s in smp if (s.get("sampler_cpu_ns") or -1) >= 0]),
                "checksum_ok": bool(ok) and len(plain_sums) == 1 and all(r.get("checksum") in plain_sums for r in ok),
            }
        base = table[(w, "plain")]
        for c in cs:
            row = table[(w, c.name)]
            row["cpu_x"] = row["cpu"] / base["cpu"] if row["cpu"] and base["cpu"] else None
            row["wall_x"] = row["wall"] / base["wall"] if row["wall"] and base["wall"] else None
    return table


def status(row: dict) -> str:
    """Whether the runs produced the plain run's output."""
    if row["failed"]:
        return f"{row['failed']} failed"
    return "same" if row["checksum_ok"] else "DIFFERENT"


def print_table(table: dict, workloads: list[str], cs: list[Config]) -> None:
    """The cost table as Markdown."""
    print(
        "| workload | config | CPU s | wall s | CPU x | wall x | latency median µs | latency p97.5 µs "
        "| samples | lost | armed median µs | yieldpoint calls / round | sampler CPU ms | contention | output |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for w in workloads:
        for c in cs:
            r = table[(w, c.name)]
            print(
                f"| {w} | {c.name} | {fmt(r['cpu'])} | {fmt(r['wall'])} | {fmt(r['cpu_x'])} | {fmt(r['wall_x'])} "
                f"| {fmt(r['lat_med'], '.0f', 1e-3)} | {fmt(r['lat_p975'], '.0f', 1e-3)} "
                f"| {fmt(r['samples'], '.0f')} "
                f"| {fmt(r['lost'], '.0f')} | {fmt(r['armed_med'], '.0f', 1e-3)} | {fmt(r['calls_per_round'], '.0f')} "
                f"| {fmt(r['sampler_cpu'], '.0f', 1e-6)} | {fmt(r['contention'])} "
                f"| {status(r)} |"
            )
    print("\n| config | geomean CPU x | geomean wall x |")
    print("| --- | ---: | ---: |")
    for c in cs[1:]:
        print(
            f"| {c.name} | {fmt(geomean([table[(w, c.name)]['cpu_x'] for w in workloads]))} "
            f"| {fmt(geomean([table[(w, c.name)]['wall_x'] for w in workloads]))} |"
        )


def print_accuracy(acc: dict, workloads: list[str], acc_iv: str) -> None:
    """Accuracy as Markdown: medians over the repeats compared."""
    if not acc:
        print("\n(no accuracy: JFR at the accuracy interval was not run)")
        return
    print(
        f"\nAccuracy at {acc_iv}, app-only, T = 0.1, single runs (median over the pairs compared; "
        "coverage = share of the reference's hot edges that are hot in the technique):\n"
    )
    print(
        "| workload | technique | reference | pairs | overlap | hot-edge coverage | reverse coverage "
        "| correlation | top-10 agreement |"
    )
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for w in workloads:
        for ref in (*REFERENCES, ""):
            for t in [*SAMPLERS, *REFERENCES, "hybrid-vs-bytecodes"]:
                cs = acc.get((w, t, ref))
                if not cs:
                    continue
                label = "hybrid samples" if t == "hybrid-vs-bytecodes" else REF_LABEL.get(t, t)
                against = "its bytecodes" if not ref else REF_LABEL[ref] + (" (ceiling)" if t == ref else "")
                print(
                    f"| {w} | {label} | {against} | {len(cs)} | {fmt(med([c['overlap'] for c in cs]), '.1%')} "
                    f"| {fmt(med([c['coverage_a_over_b'] for c in cs]), '.1%')} "
                    f"| {fmt(med([c['coverage_b_over_a'] for c in cs]), '.1%')} "
                    f"| {fmt(med([c['correlation'] for c in cs]), '.3f')} "
                    f"| {fmt(med([c['top_agreement'] for c in cs]), '.0%')} |"
                )


def goals(table: dict, acc: dict, workloads: list[str], names: set[str], acc_iv: str, stab: dict) -> list[str]:
    """The goals of issue 12, each met / missed / not measured, with the numbers behind it."""
    out = []

    def verdict(ok: bool | None) -> str:
        return "not measured" if ok is None else "MET" if ok else "MISSED"

    if {"incremental-10ms", "jfr-10ms"} <= names:
        inc = geomean([table[(w, "incremental-10ms")]["cpu_x"] for w in workloads])
        jfr = geomean([table[(w, "jfr-10ms")]["cpu_x"] for w in workloads])
        ok = None if inc is None or jfr is None else inc <= jfr
        out.append(
            f"incremental at 10 ms costs no more than JFR at 10 ms (geomean CPU x): "
            f"{fmt(inc)} vs {fmt(jfr)}: {verdict(ok)}"
        )
    multi = [w for w in workloads if w in MULTI_THREADED]
    if {"safepoint-1ms", "partial-1ms", "incremental-1ms"} <= names and multi:
        for w in multi:
            sp = table[(w, "safepoint-1ms")]["cpu_x"]
            for s in ("partial", "incremental"):
                x = table[(w, f"{s}-1ms")]["cpu_x"]
                ok = None if sp is None or x is None else (x - 1) <= 0.5 * (sp - 1)
                out.append(
                    f"{w}: {s} at 1 ms overhead <= half of safepoint's: +{fmt(x and (x - 1), '.0%')} vs "
                    f"+{fmt(sp and (sp - 1), '.0%')}: {verdict(ok)}"
                )
    for w in workloads:
        for n in sorted(names):
            if n.startswith(("partial-", "incremental-")) or n == "hybrid":
                p = table[(w, n)]["lat_p975"]
                out.append(
                    f"{w}: {n} latency p97.5 <= 1 ms: {fmt(p, '.0f', 1e-3)} µs: "
                    f"{verdict(None if p is None else p <= 1_000_000)}"
                )
    for w in workloads:
        for s in SAMPLERS:
            for ref in REFERENCES:
                cs = acc.get((w, s, ref))
                if cs:
                    c = med([x["coverage_a_over_b"] for x in cs])
                    ceil = med([x["coverage_a_over_b"] for x in acc.get((w, ref, ref), [])])
                    out.append(
                        f"{w}: {s} hot-edge coverage of {REF_LABEL[ref]} at {acc_iv} >= 90 %: {fmt(c, '.1%')} "
                        f"({REF_LABEL[ref]} vs itself: {fmt(ceil, '.1%')}): {verdict(None if c is None else c >= 0.9)}"
                    )
                a = stab.get((w, s, "agreement", ref))
                if a:
                    ceil = stab.get((w, ref, "agreement", ref))
                    out.append(
                        f"{w}: {s} hot-edge coverage of {REF_LABEL[ref]} at {acc_iv}, average CCTs of {a[3]} / {a[4]} "
                        f"runs >= 90 %: {fmt(a[1], '.1%')} ({REF_LABEL[ref]} halves: {fmt(ceil and ceil[1], '.1%')}): "
                        f"{verdict(None if a[1] is None else a[1] >= 0.9)}"
                    )
    if {"exact", "hybrid"} <= names:
        for w in workloads:
            e, h = table[(w, "exact")]["cpu"], table[(w, "hybrid")]["cpu"]
            ok = None if not e or not h else h <= 1.05 * e
            out.append(f"{w}: hybrid adds <= 5 % to exact (CPU): {fmt(h and e and (h / e - 1), '+.1%')}: {verdict(ok)}")
    return out


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workloads", nargs="*", default=DEFAULT_WORKLOADS)
    ap.add_argument("-n", "--repeats", type=int, default=3, help="interleaved repeats (default 3)")
    ap.add_argument("--intervals", default="10ms,1ms", help="sampling intervals, e.g. 10ms,1ms,100us")
    ap.add_argument("--accuracy-interval", default="1ms", help="interval at which accuracy is judged")
    ap.add_argument(
        "--accuracy-repeats",
        type=int,
        default=3,
        help="repeats whose profiles are compared with JFR (each needs an import-jfr)",
    )
    ap.add_argument("--hybrid-interval", default="10ms", help="hybrid mode's interval (sampler incremental)")
    ap.add_argument("--no-jfr", action="store_true")
    ap.add_argument("--no-hybrid", action="store_true", help="skip exact and hybrid mode")
    ap.add_argument("--jfr-stackdepth", type=int, default=256, help="JFR's stack depth (its default is 64)")
    ap.add_argument("--work", default=None, help="scratch directory; rewritten jars are reused from it")
    a = ap.parse_args()
    for iv in [*a.intervals.split(","), a.accuracy_interval, a.hybrid_interval]:
        interval_ns(iv)
    unknown = [w for w in a.workloads if not (SHARED / "workloads" / f"{w}.sh").exists()]
    if unknown:
        die(f"unknown workload(s): {', '.join(unknown)}")
    if a.repeats < 1:
        die("--repeats must be at least 1")
    return a


def main() -> int:
    a = parse_args()
    if not (SHARED / "build.sh").exists():
        die(f"shared workloads not found at {SHARED}")
    if not (SHARED / "build").exists():
        sh(["bash", str(SHARED / "build.sh")])
    work = Path(a.work or tempfile.mkdtemp(prefix="jpr-sampling-")).resolve()
    (work / "out").mkdir(parents=True, exist_ok=True)
    cs = configs(a.intervals.split(","), a.hybrid_interval, not a.no_jfr, not a.no_hybrid, a.accuracy_interval)
    cps = {w: class_path(w) for w in a.workloads}
    took = rewrite(work, sorted({c.jar_mode for c in cs if c.jar_mode}), cps)
    agent = sh([*JPREWRITE, "agent-path"]).stdout.strip()
    t0 = time.monotonic()
    runs = measure(work, a.workloads, cs, a.repeats, cps, agent, a.jfr_stackdepth)
    t1 = time.monotonic()
    acc = accuracy(work, a.workloads, cs, a.accuracy_interval, min(a.repeats, a.accuracy_repeats))
    stab = stability(work, a.workloads, a.accuracy_interval, min(a.repeats, a.accuracy_repeats))
    load = open("/proc/loadavg").read().split()[0]
    print(
        f"workloads {' '.join(a.workloads)}; {a.repeats} interleaved repeats; {os.cpu_count()} CPUs; "
        f"load average at the end {load}; runs took {t1 - t0:.0f} s, accuracy {time.monotonic() - t1:.0f} s; "
        "rewriting " + ", ".join(f"{m} {s:.0f} s" for m, s in took.items()) + "\n"
    )
    table = summarise(runs, a.workloads, cs)
    print_table(table, a.workloads, cs)
    print_accuracy(acc, a.workloads, a.accuracy_interval)
    print_stability(stab, a.workloads, a.accuracy_interval)
    print("\nGoals (issue 12):")
    for g in goals(table, acc, a.workloads, {c.name for c in cs}, a.accuracy_interval, stab):
        print(f"- {g}")
    print(f"\n(raw runs: {work / 'runs.jsonl'}; profiles and recordings: {work / 'out'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
