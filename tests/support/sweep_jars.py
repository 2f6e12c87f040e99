"""Rewrite every jar under some directories and check each class with HotSpot against the original.

A robustness sweep for developers, not a test: it finds the classes of real jars that the rewriting
breaks (a ``VerifyError`` or ``ClassFormatError`` the original does not have), that it leaves
uninstrumented and why, and the jars on which ``jprewrite`` itself fails. The tests keep what a
sweep finds as small cases in the corpus; the sweep itself takes too long for the suite (about a
second per jar and mode on two cores).

Each distinct jar (by content, and not already in ``/usr/share/java``) is rewritten in a batch
of jars (one plan, as a program's jars are), every other jar of the sweep and of
``/usr/share/java`` as ``--classpath``, without jprewrite's own verification gate (the users'
default: HotSpot is the judge here). Every class of the output is loaded and linked with
``-Xverify:all`` by ``support.verifier.verify_jvm``; so is the original, and only failures the
original does not have count.

``--agent`` sweeps the load-time agent instead: the batch's jars, then every other jar, go on the
class path of one JVM with ``-Xverify:all`` and the agent (no cache), and ``verifier/LinkAll.java``
loads and links each class of the batch through the application class loader, where the agent
rewrites it (``VerifyAll`` defines its inputs in an isolating loader of its own, whose classes the
agent leaves alone). The same run without the agent is the baseline; a run that does not reach its
end (the JVM died or hung) is a finding. Each class says whether it came out rewritten, so the
sweep reports how many it really checked.

    python tests/support/sweep_jars.py /tmp/sweep/root/usr/share/java --work /tmp/sweep/work
    python tests/support/sweep_jars.py DIR --work W --agent --agent-option counting=precise

Prints one line per jar with a finding and a summary; writes ``report.tsv`` in the work directory.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from support.jdk import cache_root, java_home  # noqa: E402
from support.verifier import VerifierError, verify_jvm  # noqa: E402

SYSTEM_JARS = Path("/usr/share/java")


@dataclass
class JarResult:
    jar: Path
    classes: int = 0
    rewrite_rc: int = 0
    rewrite_error: str = ""
    uninstrumented: Counter[str] = field(default_factory=Counter)
    new_failures: dict[str, str] = field(default_factory=dict)
    harness_error: str = ""
    seconds: float = 0.0
    #: agent mode: classes of the jar that linked rewritten under the agent
    rewritten: int = 0

    @property
    def finding(self) -> bool:
        return bool(self.rewrite_rc or self.new_failures or self.harness_error)


def distinct_jars(roots: list[Path], seen: set[str] | None = None) -> list[Path]:
    """The jars with classes under ``roots``, one per content (symlinks and copies dropped).

    ``seen``: digests of jars already found (by an earlier call), left out and added to."""
    seen = set() if seen is None else seen
    jars: list[Path] = []
    for root in roots:
        for path in sorted(root.rglob("*.jar")):
            real = path.resolve()
            if not real.is_file():
                continue
            digest = hashlib.sha256(real.read_bytes()).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            try:
                with zipfile.ZipFile(real) as z:
                    if not any(n.endswith(".class") for n in z.namelist()):
                        continue
            except (zipfile.BadZipFile, OSError):
                continue
            jars.append(real)
    return jars


def _class_count(jar: Path) -> int:
    with zipfile.ZipFile(jar) as z:
        return sum(1 for n in z.namelist() if n.endswith(".class") and not n.startswith("META-INF/"))


def _uninstrumented_reasons(stderr: str) -> Counter[str]:
    """Reasons of ``--verbose``'s uninstrumented lines, digits dropped so that they group."""
    reasons: Counter[str] = Counter()
    for line in stderr.splitlines():
        if "left uninstrumented:" in line:
            reason = "class: " + line.split("left uninstrumented:", 1)[1].strip()
        elif line.startswith("  ") and ": " in line:
            reason = "method: " + line.split(": ", 1)[1].strip()
        else:
            continue
        if reason:
            reasons[re.sub(r"\d+", "#", reason)[:120]] += 1
    return reasons


def _classpath_options(cp: list[Path]) -> list[str]:
    """``--classpath`` options of at most about 100 KB each (Linux limits one argument to 128 KB)."""
    options: list[str] = []
    chunk: list[str] = []
    size = 0
    for p in map(str, cp):
        if chunk and size + len(p) > 100_000:
            options += ["--classpath", ":".join(chunk)]
            chunk, size = [], 0
        chunk.append(p)
        size += len(p) + 1
    if chunk:
        options += ["--classpath", ":".join(chunk)]
    return options


def _classes_of(jar: Path) -> set[str]:
    """Internal names (``a/b/C``), as the verifier's report names classes."""
    with zipfile.ZipFile(jar) as z:
        return {n[: -len(".class")] for n in z.namelist() if n.endswith(".class")}


@contextmanager
def _batch_outcome(results: dict[Path, JarResult]) -> Iterator[None]:
    """Time the batch's work (shared among its jars), and make a harness's failure every jar's finding."""
    start = time.monotonic()
    try:
        yield
    except (VerifierError, subprocess.SubprocessError, OSError) as e:
        for r in results.values():
            r.harness_error = (str(e).splitlines() or [type(e).__name__])[0][:300]
    finally:
        for r in results.values():
            r.seconds = (time.monotonic() - start) / len(results)


def sweep_batch(batch: list[Path], classpath: list[Path], work: Path, args: argparse.Namespace) -> list[JarResult]:
    """Rewrite ``batch`` together (one plan, as a program's jars are), then verify both sides."""
    results = {jar: JarResult(jar, classes=_class_count(jar)) for jar in batch}
    cp = [p for p in classpath if p not in results]
    tool = str(Path(sys.executable).parent / "jprewrite")
    out = work / "out"
    with _batch_outcome(results):
        if out.exists():
            shutil.rmtree(out)
        cmd = [tool, "rewrite", *map(str, batch), "--output-dir", str(out), *_classpath_options(cp)]
        cmd += ["--no-verify", "--verbose", "--jobs", str(args.jobs), *args.rewrite_option]
        r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "JPREWRITE_VERIFY": "0"})
        reasons = _uninstrumented_reasons(r.stderr)
        if r.returncode:
            message = (r.stderr.strip().splitlines() or ["(no message)"])[-1][:300]
            for jar in batch:
                results[jar].rewrite_rc = r.returncode
                results[jar].rewrite_error = message
            return list(results.values())
        results[batch[0]].uninstrumented = reasons  # per batch: the CLI does not say which jar
        baseline = verify_jvm(batch, classpath=cp, timeout=3600, threads=args.jobs)
        checked = verify_jvm([out / jar.name for jar in batch], classpath=cp, timeout=3600, threads=args.jobs)
        new = checked.new_failures(baseline)
        # a holder (C$$jpmids) is a new class: it fails with its class C when C's package cannot be
        # defined in the harness's one loader (a split package sealed in another jar, say)
        failed = {**baseline.failed, **checked.failed}
        new = {n: m for n, m in new.items() if not (n.endswith("$$jpmids") and n[: -len("$$jpmids")] in failed)}
        owners = {jar: _classes_of(out / jar.name) for jar in batch}  # holders included
        for name, message in new.items():
            jar = next((j for j, names in owners.items() if name in names), batch[0])
            results[jar].new_failures[name] = message
    return list(results.values())


def _link_all_classes() -> Path:
    """The compiled ``LinkAll`` harness (compiled once per source and JDK)."""
    source = Path(__file__).resolve().parent / "verifier" / "LinkAll.java"
    digest = hashlib.sha256(source.read_bytes() + str(java_home().resolve()).encode()).hexdigest()[:16]
    out = cache_root("jprewrite-tests") / "link-all" / digest
    if not (out / "LinkAll.class").exists():
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(java_home() / "bin" / "javac"), "-nowarn", "-d", str(out), str(source)], check=True)
    return out


def _link(names: Path, cp: list[Path], work: Path, agent: list[str], timeout: float) -> dict[str, str]:
    """Run ``LinkAll`` over ``names``: a verdict by name (``OK 0``, ``OK 1``, ``FAIL ...``).

    Raises ``subprocess.SubprocessError`` when the JVM does not reach ``DONE``."""
    argfile = work / ("agent.args" if agent else "plain.args")
    classpath = os.pathsep.join(map(str, [_link_all_classes(), *cp]))
    argfile.write_text(f'-cp "{classpath}"\n', encoding="utf-8")  # one argument may not exceed 128 KB
    cmd = [str(java_home() / "bin" / "java"), "-Xverify:all", "-Xss4m", *agent, f"@{argfile}", "LinkAll", str(names)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    verdicts: dict[str, str] = {}
    done = False
    for line in r.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        name, _, verdict = rest.partition(" ")
        if kind == "DONE":
            done = True
        elif kind in ("OK", "FAIL"):
            verdicts[name] = f"{kind} {verdict}"
    if not done:
        tail = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1][:300]
        raise subprocess.SubprocessError(f"{'agent' if agent else 'plain'} run ended early ({r.returncode}): {tail}")
    return verdicts


def sweep_batch_agent(
    batch: list[Path], classpath: list[Path], work: Path, args: argparse.Namespace
) -> list[JarResult]:
    """Load and link ``batch``'s classes on the class path, plain and under the agent, and compare."""
    results = {jar: JarResult(jar, classes=_class_count(jar)) for jar in batch}
    owner: dict[str, Path] = {}
    for jar in batch:
        for name in sorted(_classes_of(jar)):
            dotted = name.replace("/", ".")
            if name.startswith(("META-INF/", "java/")) or name.endswith("module-info"):
                continue
            owner.setdefault(dotted, jar)  # the first copy on the class path is the one loaded
    names = work / "names.txt"
    names.write_text("".join(n + "\n" for n in owner), encoding="utf-8")
    cp = batch + [p for p in classpath if p not in results]
    options = ",".join(["output=none", "cache=none", "progress=false", "excludes=LinkAll", *args.agent_option])
    agent = [f"-javaagent:{args.agent_jar}={options}"]
    with _batch_outcome(results):
        baseline = _link(names, cp, work, [], timeout=3600)
        checked = _link(names, cp, work, agent, timeout=3600)
        for name, verdict in checked.items():
            jar = owner.get(name, batch[0])
            if verdict.startswith("OK 1"):
                results[jar].rewritten += 1
            if verdict.startswith("FAIL") and not baseline.get(name, "FAIL").startswith("FAIL"):
                results[jar].new_failures[name] = verdict[len("FAIL ") :]
        for name in owner.keys() - checked.keys():
            results[owner[name]].new_failures[name] = "no verdict under the agent"
    return list(results.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path, help="directories whose jars are swept")
    parser.add_argument("--work", type=Path, required=True, help="a directory for outputs and the report")
    parser.add_argument("--jobs", type=int, default=2, help="rewriting workers and verifying threads")
    parser.add_argument("--batch", type=int, default=40, help="jars rewritten together")
    parser.add_argument("--limit", type=int, default=0, help="only the first N jars")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N jars (to go on with a sweep)")
    parser.add_argument(
        "--rewrite-option", action="append", default=[], help="an option for jprewrite rewrite (repeatable)"
    )
    parser.add_argument(
        "--agent", action="store_true", help="sweep the load-time agent (the jars on the class path) instead"
    )
    parser.add_argument(
        "--agent-option", action="append", default=[], help="an agent option key=value (repeatable; with --agent)"
    )
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.agent:
        tool = Path(sys.executable).parent / "jprewrite"
        args.agent_jar = subprocess.run(
            [str(tool), "agent-path"], capture_output=True, text=True, check=True
        ).stdout.strip()
    seen: set[str] = set()
    system = distinct_jars([SYSTEM_JARS], seen)
    jars = distinct_jars(args.roots, seen)  # none that /usr/share/java has already
    classpath = jars + system
    jars = jars[args.skip :]
    if args.limit:
        jars = jars[: args.limit]
    print(f"{len(jars)} jars to sweep, {len(classpath)} on the class path", flush=True)
    results: list[JarResult] = []
    report = open(args.work / "report.tsv", "w")  # written as the sweep goes
    report.write("jar\tclasses\trc\tnew_failures\tuninstrumented\trewritten\tseconds\terror\n")
    for i in range(0, len(jars), args.batch):
        batch = jars[i : i + args.batch]
        sweep = sweep_batch_agent if args.agent else sweep_batch
        for result in sweep(batch, classpath, args.work, args):
            results.append(result)
            r = result
            report.write(
                f"{r.jar}\t{r.classes}\t{r.rewrite_rc}\t{len(r.new_failures)}\t{sum(r.uninstrumented.values())}"
                f"\t{r.rewritten}\t{r.seconds:.1f}\t{r.rewrite_error or r.harness_error}\n"
            )
            report.flush()
            for reason, n in r.uninstrumented.items():
                print(f"  uninstrumented x{n} (batch of {r.jar.name}): {reason}", flush=True)
            if result.finding:
                what = (
                    result.rewrite_error
                    or result.harness_error
                    or "; ".join(f"{n}: {m[:200]}" for n, m in sorted(result.new_failures.items())[:3])
                )
                print(f"FINDING {result.jar.name} ({result.classes} classes): {what}", flush=True)
    report.close()
    reasons: Counter[str] = Counter()
    for r in results:
        reasons.update(r.uninstrumented)
    print(
        f"{len(results)} jars, {sum(r.classes for r in results)} classes: "
        f"{sum(1 for r in results if r.rewrite_rc)} rewrite failures, "
        f"{sum(len(r.new_failures) for r in results)} new verification failures in "
        f"{sum(1 for r in results if r.new_failures)} jars, "
        f"{sum(1 for r in results if r.harness_error)} harness errors"
        + (f"; {sum(r.rewritten for r in results)} classes linked rewritten under the agent" if args.agent else "")
    )
    for reason, n in reasons.most_common(25):
        print(f"  {n:6d} uninstrumented: {reason}")
    return 1 if any(r.finding for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
