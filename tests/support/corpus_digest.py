"""Digest of the rewriter's output on the Debian workload jars, for "behaviour unchanged" refactors.

``python tests/support/corpus_digest.py record OUT.json [--jprewrite CMD]`` rewrites the
workloads' class paths (the jars of ``../shared/bench/workloads``, the compilers left out: they
take most of an hour) in every counting mode, once more with allocations, activation and
weights, and records the SHA-256 of every output entry.
``python tests/support/corpus_digest.py compare A.json B.json`` lists the entries that differ
and exits 1 when any does.

Entry digests rather than jar digests: the zip container's own bytes (timestamps, order) are the
archive layer's business; what a refactor of the rewriting must keep is every class's bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

JARS = [
    "batik-all.jar",
    "xml-apis-1.4.01.jar",
    "js-1.7.14.jar",
    "xalan2-2.7.2.jar",
    "xercesImpl-2.12.0.jar",
    "xml-apis-ext-1.4.01.jar",
    "xml-resolver-1.2.jar",
    "serializer-2.7.2.jar",
    "xmlgraphics-commons.jar",
    "commons-io.jar",
    "commons-logging-1.2.jar",
    "fop.jar",
    "fontbox2.jar",
    "groovy-all-2.4.21.jar",
    "h2-2.1.214.jar",
    "slf4j-api.jar",
    "lucene-core-4.10.4.jar",
    "lucene-analyzers-common-4.10.4.jar",
    "lucene-queryparser-4.10.4.jar",
    "commons-math3.jar",
    "sunflow-0.07.2.svn396.jar",
]
WEIGHTS = "default 1\ninvokevirtual 5\ninvokeinterface 6\nnew 10\nathrow 20\n"
CONFIGS = {
    "none": ["--counting", "none"],
    "default": ["--counting", "default"],
    "precise": ["--counting", "precise"],
    "default+alloc+activation+weights": [
        "--counting",
        "default",
        "--allocations",
        "--activation",
        "--weights",
        "{weights}",
    ],
}


def record(out: Path, jprewrite: list[str], java_dir: Path, only: list[str] | None) -> int:
    jars = [java_dir / j for j in JARS if (java_dir / j).exists()]
    result: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="jp-digest-") as tmp:
        weights = Path(tmp) / "weights.txt"
        weights.write_text(WEIGHTS)
        for name, args in CONFIGS.items():
            if only and name not in only:
                continue
            dest = Path(tmp) / name
            t0 = time.monotonic()
            cmd = [
                *jprewrite,
                "rewrite",
                *map(str, jars),
                "--output-dir",
                str(dest),
                "--quiet",
                *[a.format(weights=weights) for a in args],
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"{name}: jprewrite failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}", file=sys.stderr)
                return 1
            digests: dict[str, str] = {}
            for jar in sorted(dest.iterdir()):
                with zipfile.ZipFile(jar) as z:
                    for info in z.infolist():
                        digests[f"{jar.name}!{info.filename}"] = hashlib.sha256(z.read(info)).hexdigest()
            result[name] = digests
            out.write_text(json.dumps(result, indent=0, sort_keys=True))  # what is done so far
            print(f"{name}: {len(digests)} entries in {time.monotonic() - t0:.0f} s", flush=True)
            shutil.rmtree(dest)
    out.write_text(json.dumps(result, indent=0, sort_keys=True))
    return 0


def compare(a: Path, b: Path, skip_runtime: bool = False) -> int:
    da, db = json.loads(a.read_text()), json.loads(b.read_text())
    bad = 0
    for config in sorted(set(da) | set(db)):
        ea, eb = da.get(config, {}), db.get(config, {})
        if not ea or not eb:
            print(f"{config}: only in {'A' if ea else 'B'}")
            continue
        diff = sorted(
            k for k in set(ea) | set(eb) if ea.get(k) != eb.get(k) and not (skip_runtime and "!jprewrite/runtime/" in k)
        )
        bad += len(diff)
        print(f"{config}: {len(ea)} entries, {len(diff)} differ")
        for k in diff[:20]:
            print(f"  {k}: {'missing in A' if k not in ea else 'missing in B' if k not in eb else 'differs'}")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("out", type=Path)
    r.add_argument(
        "--jprewrite",
        default=str(Path(sys.executable).with_name("jprewrite")),
        help="the jprewrite command to run (word-split)",
    )
    r.add_argument("--java-dir", type=Path, default=Path("/usr/share/java"))
    r.add_argument("--only", action="append", help="record only these configurations")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument(
        "--skip-runtime",
        action="store_true",
        help="leave out the embedded runtime's classes (jprewrite/runtime/*), which change with runtime-java/",
    )
    args = p.parse_args(argv)
    if args.command == "record":
        return record(args.out, args.jprewrite.split(), args.java_dir, args.only)
    return compare(args.a, args.b, args.skip_runtime)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
