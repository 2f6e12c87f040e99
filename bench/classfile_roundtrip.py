"""Benchmark: decode and re-encode all java.base classes, jprewrite beside ASM, in one run.

    python bench/classfile_roundtrip.py [--repeats 3] [--passes 8]

What is measured, on the same classes (java.base of the JDK that runs this, module-info excluded
as the ASM tool does), single-threaded, classes held in memory:

* jprewrite full:  read_class -> decode_all (pool, every attribute, every instruction and
  StackMapTable frame through the object model) -> to_bytes, checked identical.
* jprewrite lazy:  read_class -> to_bytes (no code decoding), checked identical.
* ASM copy:        ClassReader -> new ClassWriter(COMPUTE_MAXS), every instruction visited (warm:
  median of passes 3..N in one JVM).
* ASM copycp:      ClassReader -> new ClassWriter(reader, ...), ASM's verbatim-copy shortcuts.

ASM runs through the shared InstrBench tool (../shared/bench/src/tools) against Debian's
libasm-java. Repeats alternate ASM and jprewrite so that machine noise hits both; the table
shows medians and the ratios jprewrite/ASM (goal for full: within 5x of ASM's warm time).

jprewrite's loops run in a child process per measurement, once with the installed build (compiled
by mypyc when setup.py could) and, with ``--pure``, once more as pure Python (``JPREWRITE_PURE=1``;
one process holds only one of the two builds).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import jprewrite  # noqa: E402
from jprewrite.archive.jdk_image import JdkImage, find_java_home  # noqa: E402
from jprewrite.classfile.model import read_class  # noqa: E402

SHARED = next((d for d in (ROOT.parent / "shared", Path("/work/shared")) if d.is_dir()), ROOT.parent / "shared")
SHARED_TOOLS = SHARED / "bench" / "src" / "tools" / "InstrBench.java"
J = Path("/usr/share/java")
ASM_CP = [J / "asm.jar", J / "asm-commons.jar", J / "asm-tree.jar", J / "asm-analysis.jar", J / "org.jacoco.core.jar"]


def java_base_classes() -> list[tuple[str, bytes]]:
    with JdkImage(find_java_home()) as image:
        return [(name, data) for _, name, data in image.iter_classes("java.base") if not name.endswith("module-info")]


def write_jar(classes: list[tuple[str, bytes]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in classes:
            z.writestr(name + ".class", data)


def build_instr_bench(out: Path) -> Path:
    missing = [p for p in ASM_CP if not p.exists()]
    if missing or not SHARED_TOOLS.exists():
        sys.exit(
            f"ASM anchor unavailable: need Debian libasm-java and libjacoco-java "
            f"(apt-get install libasm-java libjacoco-java) and {SHARED_TOOLS}"
        )
    tools = out / "tools"
    if not (tools / "InstrBench.class").exists():
        tools.mkdir(parents=True, exist_ok=True)
        javac = find_java_home() / "bin" / "javac"
        subprocess.run(
            [str(javac), "-nowarn", "-d", str(tools), "-cp", os.pathsep.join(map(str, ASM_CP)), str(SHARED_TOOLS)],
            check=True,
            capture_output=True,
        )
    return tools


def run_asm(mode: str, passes: int, jar: Path, tools: Path) -> dict:
    java = find_java_home() / "bin" / "java"
    cp = os.pathsep.join([str(tools), *map(str, ASM_CP)])
    r = subprocess.run(
        [str(java), "-Xms2g", "-Xmx2g", "-cp", cp, "InstrBench", mode, str(passes), str(jar)],
        check=True,
        capture_output=True,
        text=True,
    )
    line = next(l for l in r.stdout.splitlines() if l.startswith("JSON "))
    return json.loads(line[5:])


GC_OFF = False


def run_python(classes: list[tuple[str, bytes]], full: bool) -> float:
    import gc

    if GC_OFF:
        gc.disable()
    started = time.process_time()
    for name, data in classes:
        cf = read_class(data)
        if full:
            cf.decode_all()
        if cf.to_bytes() != data:
            raise SystemExit(f"round trip of {name} is not identical")
    elapsed = time.process_time() - started
    gc.enable()
    return elapsed


def run_child(mode: str, pure: bool) -> float:
    """:func:`run_python` (``mode`` full or lazy) in a fresh process, as pure Python if ``pure``."""
    env = {k: v for k, v in os.environ.items() if k != "JPREWRITE_PURE"}
    if pure:
        env["JPREWRITE_PURE"] = "1"
    cmd = [sys.executable, __file__, "--child", mode, "--gc", "off" if GC_OFF else "on"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return float(r.stdout.split()[-1])


def split_full(classes: list[tuple[str, bytes]]) -> dict[str, float]:
    """Where the full round trip spends its time: parse, decode, encode."""
    t = {"read": 0.0, "decode": 0.0, "encode": 0.0}
    for _, data in classes:
        a = time.process_time()
        cf = read_class(data)
        b = time.process_time()
        cf.decode_all()
        c = time.process_time()
        cf.to_bytes()
        d = time.process_time()
        t["read"] += b - a
        t["decode"] += c - b
        t["encode"] += d - c
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--passes", type=int, default=8, help="ASM passes per JVM (warm = median of 3..N)")
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--pure", action="store_true", help="measure the pure-Python build (JPREWRITE_PURE=1) too")
    ap.add_argument("--child", choices=("full", "lazy"), help=argparse.SUPPRESS)
    ap.add_argument(
        "--gc",
        choices=("on", "off"),
        default="on",
        help="off: Python's cyclic GC disabled during jprewrite's timed loops (as a batch "
        "rewriter may do); shown in the output",
    )
    args = ap.parse_args()

    global GC_OFF
    GC_OFF = args.gc == "off"
    classes = java_base_classes()
    if args.child:
        print(f"{run_python(classes, full=args.child == 'full'):.4f}")
        return 0
    total_bytes = sum(len(d) for _, d in classes)
    jar = args.out / "java.base.jar"
    write_jar(classes, jar)
    tools = build_instr_bench(args.out)
    print(
        f"java.base: {len(classes)} classes, {total_bytes / 1e6:.1f} MB; Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs; {args.repeats} repeats; cyclic GC {args.gc}; jprewrite: {jprewrite.__build__}",
        flush=True,
    )

    results: dict[str, list[float]] = {"asm copy": [], "asm copycp": [], "jprewrite full": [], "jprewrite lazy": []}
    if args.pure:
        results.update({"pure full": [], "pure lazy": []})
    for r in range(args.repeats):
        results["asm copy"].append(run_asm("copy", args.passes, jar, tools)["warm_s"])
        results["jprewrite full"].append(run_child("full", pure=False))
        if args.pure:
            results["pure full"].append(run_child("full", pure=True))
        results["asm copycp"].append(run_asm("copycp", args.passes, jar, tools)["warm_s"])
        results["jprewrite lazy"].append(run_child("lazy", pure=False))
        if args.pure:
            results["pure lazy"].append(run_child("lazy", pure=True))
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"  repeat {r + 1}: " + ", ".join(f"{k} {v[-1]:.3f}s" for k, v in results.items()) + f"; load {load}")

    med = {k: statistics.median(v) for k, v in results.items()}
    print()
    print(f"{'configuration':16} {'median s':>9} {'classes/s':>10} {'MB/s':>7}")
    for k, s in med.items():
        print(f"{k:16} {s:9.3f} {len(classes) / s:10.0f} {total_bytes / 1e6 / s:7.2f}")
    print()
    print(f"ratio full / ASM copy (goal <= 5):  {med['jprewrite full'] / med['asm copy']:.1f}x")
    print(f"ratio lazy / ASM copycp:            {med['jprewrite lazy'] / med['asm copycp']:.1f}x")
    print(f"ratio lazy / ASM copy:              {med['jprewrite lazy'] / med['asm copy']:.1f}x")
    if args.pure:
        print(f"ratio pure full / ASM copy:         {med['pure full'] / med['asm copy']:.1f}x")
        print(
            f"compiled vs pure: full {med['pure full'] / med['jprewrite full']:.2f}x faster, "
            f"lazy {med['pure lazy'] / med['jprewrite lazy']:.2f}x faster"
        )
    split = split_full(classes)
    tot = sum(split.values())
    print("full round trip split: " + ", ".join(f"{k} {v:.2f}s ({100 * v / tot:.0f}%)" for k, v in split.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
