"""Benchmark: a counter update at the start of every basic block, over all java.base classes.

    python bench/editor_counters.py [--repeats 3] [--mode default|precise]

This is the code editor's workload that matters most (JP's bytecode counters):
for every method of every java.base class, disassemble, find the basic blocks,
give the method a new int local, insert ``iinc local, <block size>`` at every
block start, record the local in every StackMapTable frame, assemble and write
the class. Single process, one core, classes held in memory. Printed per
repeat and as medians: total CPU seconds, classes/s, and the split between
decode (read + disassemble), analysis (basic blocks), frames (frame updates)
and encode (assemble + write). Beside it, in the same run, the plain lossless
round trip (read + write, no decoding) as the floor. Goal (issue): <= 15 s.
A sample of the output is checked with ASM's verifier at the end.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from jprewrite.analysis.blocks import basic_blocks  # noqa: E402
from jprewrite.archive.jdk_image import JdkImage, find_java_home  # noqa: E402
from jprewrite.classfile import opcodes as op  # noqa: E402
from jprewrite.classfile.frames import Integer  # noqa: E402
from jprewrite.classfile.instructions import Iinc, Instruction  # noqa: E402
from jprewrite.classfile.model import ACC_ABSTRACT, ACC_NATIVE, read_class  # noqa: E402
from jprewrite.editor import CodeTooLargeError, disassemble, write_body  # noqa: E402
from jprewrite.instrument.codegen import define_local_in_frames  # noqa: E402


def java_base() -> list[tuple[str, bytes]]:
    with JdkImage(find_java_home()) as image:
        return [(n, d) for _, n, d in image.iter_classes("java.base") if not n.endswith("module-info")]


def count_blocks(classes, mode: str) -> tuple[dict[str, float], list[bytes], int]:
    t = dict(decode=0.0, analysis=0.0, frames=0.0, encode=0.0)
    out = []
    too_large = 0
    clock = time.process_time
    for _, data in classes:
        a = clock()
        cf = read_class(data)
        t["decode"] += clock() - a
        for m in cf.methods:
            if m.access & (ACC_ABSTRACT | ACC_NATIVE):
                continue
            a = clock()
            if m.code() is None:
                continue
            body = disassemble(m)
            b = clock()
            blocks = basic_blocks(body, mode, pool=cf.pool)
            c = clock()
            counter = body.new_local()
            if cf.major >= 50:
                define_local_in_frames(body, counter, Integer)
            d = clock()
            for blk in reversed(blocks):
                if blk.size:
                    body.items.insert(blk.start, Iinc(-1, counter, blk.size))
            body.items[0:0] = [Instruction(-1, op.ICONST_0), Instruction(-1, op.ISTORE, counter)]
            try:
                write_body(m, body)
            except CodeTooLargeError:
                too_large += 1
            e = clock()
            t["decode"] += b - a
            t["analysis"] += c - b
            t["frames"] += d - c
            t["encode"] += e - d
        a = clock()
        out.append(cf.to_bytes())
        t["encode"] += clock() - a
    return t, out, too_large


def plain_round_trip(classes) -> float:
    a = time.process_time()
    for _, data in classes:
        read_class(data).to_bytes()
    return time.process_time() - a


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mode", choices=("default", "precise"), default="default")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument(
        "--gc",
        choices=("on", "off"),
        default="on",
        help="off: cyclic GC disabled during the timed loop (collected between repeats), "
        "as a batch rewriter may do; reported in the output",
    )
    args = ap.parse_args()
    classes = java_base()
    print(
        f"java.base: {len(classes)} classes; mode {args.mode}; Python {sys.version.split()[0]}; "
        f"{os.cpu_count()} CPUs; {args.repeats} repeats; cyclic GC {args.gc}",
        flush=True,
    )
    totals, plains, splits = [], [], []
    out: list[bytes] = []
    for r in range(args.repeats):
        gc.collect()
        plains.append(plain_round_trip(classes))
        if args.gc == "off":
            gc.disable()
        split, out, too_large = count_blocks(classes, args.mode)
        gc.enable()
        splits.append(split)
        totals.append(sum(split.values()))
        print(
            f"  repeat {r + 1}: counters {totals[-1]:.2f}s ({len(classes) / totals[-1]:.0f} classes/s), "
            f"plain round trip {plains[-1]:.2f}s; too large: {too_large}",
            flush=True,
        )
    med = statistics.median(totals)
    print()
    print(f"median counters run: {med:.2f}s CPU, {len(classes) / med:.0f} classes/s  (goal <= 15 s)")
    print(f"median plain round trip: {statistics.median(plains):.2f}s; ratio {med / statistics.median(plains):.1f}x")
    for k in splits[0]:
        v = statistics.median(s[k] for s in splits)
        print(f"  {k:9} {v:6.2f}s  {100 * v / med:4.0f}%")
    if not args.no_verify:
        from support.verifier import verify_asm

        sample = [(n, b) for (n, _), b in zip(classes, out) if not n.startswith("java/lang/Object")][::25]
        with tempfile.TemporaryDirectory() as tmp:
            jar = Path(tmp) / "sample.jar"
            with zipfile.ZipFile(jar, "w") as z:
                for n, b in sample:
                    z.writestr(n + ".class", b)
            rep = verify_asm([jar])
            print(
                f"ASM verifier on every 25th class ({len(sample)}): ok={len(rep.ok)} "
                f"fail={len(rep.failed)} missing={len(rep.missing)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
