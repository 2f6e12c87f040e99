#!/usr/bin/env python3
"""Cost of the verification gate: verifying rewritten methods vs rewriting them.

    python bench/verifier_cost.py                              # h2.jar, counting default, 3 repeats
    python bench/verifier_cost.py --jar /usr/share/java/sunflow.jar --counting precise --repeats 5

Single process, one core, classes held in memory. Each repeat, for every class
of the jar: *rewrite* = ``read_class`` + ``instrument_class`` (the CCT rewriter
with a run-wide ``CctPlan``) + ``to_bytes``; then the gate, two ways:

* *verify* = ``verify_class`` on the rewritten ClassFile in memory, for the
  methods the rewriting changed or added, as the rewriter would run it before
  writing the class; plus every method of the holder classes it made (which it
  hands over as bytes: read, then verified; their share is printed);
* *verify re-read* = ``read_class`` of the written bytes + the same checks
  (fully independent of the objects the rewriter built).

Printed per repeat and as medians: seconds (CPU time of this process) and the
ratios verify/rewrite. Goal (issue): the gate costs at most ~15 % of rewriting.
The hierarchy (and its on-disk JDK summary cache) is shared by all repeats, so
the first repeat also pays for class lookups that later ones find cached.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from jprewrite.analysis.hierarchy import ClassHierarchy  # noqa: E402
from jprewrite.analysis.verifier import verify_class  # noqa: E402
from jprewrite.archive.jars import open_container  # noqa: E402
from jprewrite.archive.jdk_image import JdkImage, find_java_home  # noqa: E402
from jprewrite.classfile.model import read_class  # noqa: E402
from jprewrite.instrument import (  # noqa: E402
    CctPlan,
    InstrumentOptions,
    instrument_class,  # noqa: E402
)


def load(jar: Path) -> list[tuple[str, bytes]]:
    out = []
    with open_container(jar) as c:
        for e in c.entries():
            if e.is_class and not e.name.startswith("META-INF/") and not e.name.endswith("module-info.class"):
                out.append((e.name[: -len(".class")], e.read()))
    return out


def code_bytes(cf) -> dict[tuple[str, str], bytes]:
    out = {}
    for m in cf.methods:
        c = m.code()
        if c is not None:
            out[(m.name, m.descriptor)] = c.code_bytes()
    return out


def one_repeat(
    classes, plan: CctPlan, hierarchy: ClassHierarchy, options: InstrumentOptions, originals: dict[str, dict]
) -> dict[str, float]:
    clock = time.process_time
    t = dict(rewrite=0.0, verify=0.0, reread=0.0, holders=0.0)
    counts = dict(classes=0, methods=0, problems=0)
    for name, data in classes:
        if not plan.is_instrumented(name):
            continue
        a = clock()
        cf = read_class(data)
        try:
            report = instrument_class(cf, plan, options)
        except Exception:  # noqa: BLE001 - the run would leave such a class as it was
            continue
        out = cf.to_bytes()
        b = clock()
        before = originals[name]
        changed = {k for k, v in code_bytes(cf).items() if before.get(k) != v}
        c = clock()
        problems = verify_class(cf, hierarchy, changed)
        h = clock()
        for extra in report.extra_classes.values():
            problems += verify_class(read_class(extra), hierarchy)
        d = clock()
        verify_class(read_class(out), hierarchy, changed)
        for extra in report.extra_classes.values():
            verify_class(read_class(extra), hierarchy)
        e = clock()
        t["rewrite"] += b - a
        t["verify"] += d - c
        t["holders"] += d - h
        t["reread"] += e - d
        counts["classes"] += 1
        counts["methods"] += len(changed)
        counts["problems"] += len(problems)
        for p in problems[:3]:
            print("   ", p)
    t.update(counts)
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jar", type=Path, default=Path("/usr/share/java/h2.jar"))
    ap.add_argument("--counting", choices=("none", "default", "precise"), default="default")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0, help="only the first N classes (0: all)")
    args = ap.parse_args()
    classes = load(args.jar)
    if args.limit:
        classes = classes[: args.limit]
    container = open_container(args.jar)
    hierarchy = ClassHierarchy([container], JdkImage(find_java_home()))
    names = {n for n, _ in classes}
    plan = CctPlan(hierarchy, lambda n: n in names)
    plan.set_world(names)
    plan.warm_up()
    originals = {n: code_bytes(read_class(d)) for n, d in classes}
    options = InstrumentOptions(counting=args.counting)
    print(
        f"{args.jar.name}: {len(classes)} classes; counting {args.counting}; Python "
        f"{sys.version.split()[0]}; {os.cpu_count()} CPUs; {args.repeats} repeats",
        flush=True,
    )
    rows = []
    for r in range(args.repeats):
        gc.collect()
        t = one_repeat(classes, plan, hierarchy, options, originals)
        rows.append(t)
        print(
            f"  repeat {r + 1}: rewrite {t['rewrite']:.2f}s, verify {t['verify']:.2f}s "
            f"({t['verify'] / t['rewrite']:.1%}; holder classes {t['holders']:.2f}s), "
            f"verify re-read {t['reread']:.2f}s ({t['reread'] / t['rewrite']:.1%}); "
            f"{t['classes']} classes, {t['methods']} changed methods, {t['problems']} problems",
            flush=True,
        )
    med = {k: statistics.median(row[k] for row in rows) for k in ("rewrite", "verify", "reread")}
    ratio = statistics.median(row["verify"] / row["rewrite"] for row in rows)
    ratio_reread = statistics.median(row["reread"] / row["rewrite"] for row in rows)
    print(
        f"median: rewrite {med['rewrite']:.2f}s ({rows[0]['classes'] / med['rewrite']:.0f} classes/s), "
        f"verify {med['verify']:.2f}s, verify re-read {med['reread']:.2f}s"
    )
    print(f"cost ratio verify / rewrite (goal <= 15%): {ratio:.1%}   (re-read: {ratio_reread:.1%})")
    container.close()
    hierarchy.save_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
