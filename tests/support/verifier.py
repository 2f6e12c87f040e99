"""Independent verification of class files by two verifiers: HotSpot's and ASM's.

Tests use this to prove that rewritten classes are accepted::

    from support.verifier import verify_jvm, verify_asm

    verify_jvm([rewritten_jar], classpath=[runtime_jar]).assert_clean()
    verify_asm([rewritten_jar], classpath=[runtime_jar]).assert_clean()

Both run ``tests/support/verifier/VerifyAll.java`` (compiled once with javac into
a cache directory outside the repository, keyed by the source's hash) in one JVM
per call, over every class file of the inputs (jars/zips, or directories that are
class-path roots); ``classpath`` is searched after the inputs, for dependencies
that are not themselves checked. See the Java source for exactly what each mode
does; in short:

* ``verify_jvm``: ``java -Xverify:all``; every class is loaded through a
  URLClassLoader without initialisation and linked with a reflective call,
  which makes HotSpot verify it (StackMapTable included). Static initialisers
  never run (the JVM's class+init log is checked: ``VerifyReport.initialized``).
  ``java/*`` classes, and other classes the JDK already defines, are SKIP: the
  JVM would check the JDK's copy, not the input's. Version-50 classes whose
  StackMapTable HotSpot rejects (it then silently falls back to the old
  verifier) are FAIL.
* ``verify_asm``: ASM's ``CheckClassAdapter.verify`` procedure (structure checks
  + ``Analyzer``/``SimpleVerifier`` data-flow types per method), with a class
  loader over inputs + classpath answering subtype questions (the running JDK's
  copies for JDK classes). It verifies ``java/*`` classes too, and JSR/RET; it
  ignores the StackMapTable.

A class is MISSING (not FAIL) when checking it needed a class that is neither in
the inputs nor on ``classpath``; ``missing`` maps it to that class.

Some real jars have failures before any rewriting: ASM's structure checks are
stricter than HotSpot's (groovy-all has an empty InnerClasses name), and HotSpot
enforces module encapsulation (kotlin-compiler subclasses non-exported
jdk.compiler classes: IllegalAccessError, unless ``jvm_options`` has the
``--add-exports``). Compare such jars with a run over the originals:
``verify_jvm([out]).assert_no_new_failures(verify_jvm([orig]))``.

Speed: one JVM per call (about 0.3 s to start with -Xverify:all, which disables
CDS), then roughly 1000-4000 classes/s per mode on one thread depending on the
machine's load; ``threads=N`` checks classes on N threads.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

try:
    from .jdk import cache_root, java_home
except ImportError:  # imported as a top-level module (tests/support on sys.path)
    from jdk import cache_root, java_home  # type: ignore[no-redef]

SOURCE = Path(__file__).parent / "verifier" / "VerifyAll.java"
ASM_JARS = ("asm.jar", "asm-tree.jar", "asm-analysis.jar", "asm-util.jar")
# The JVM's own warnings go to stdout by default: send them to stderr, stdout is the protocol's.
_STDOUT_FOR_THE_TOOL = ("-Xlog:disable", "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr")
# C1 only and the serial GC: measured fastest for these short, allocation-light runs
JVM_OPTIONS = (*_STDOUT_FOR_THE_TOOL, "-Xverify:all", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
ASM_OPTIONS = (*_STDOUT_FOR_THE_TOOL, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")

__all__ = ["VerifyReport", "VerifierError", "verify_jvm", "verify_asm", "asm_jars", "tool_classes", "parse_line"]


class VerifierError(RuntimeError):
    """The harness itself failed (bad input path, JVM crash, timeout), as opposed to a class."""


@dataclass
class VerifyReport:
    """The verdicts of one run: every checked class is in exactly one of ok/failed/missing/skipped."""

    mode: str
    ok: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # class -> the missing class it needed
    skipped: dict[str, str] = field(default_factory=dict)  # class -> reason
    duplicates: dict[str, str] = field(default_factory=dict)  # later copies of a name, not checked
    duplicate_copies: int = 0  # DUPLICATE lines (a name may have several)
    initialized: list[str] = field(default_factory=list)  # input classes whose <clinit> ran (jvm)
    ignored: int = 0  # META-INF/** and module-info entries
    noise: list[str] = field(default_factory=list)  # stdout lines outside the protocol
    stderr: str = ""
    seconds: float = 0.0
    command: list[str] = field(default_factory=list)

    @property
    def checked(self) -> int:
        """Classes that got a verdict other than SKIP."""
        return len(self.ok) + len(self.failed) + len(self.missing)

    @property
    def classes_per_second(self) -> float:
        return self.checked / self.seconds if self.seconds else 0.0

    def __str__(self) -> str:
        return (
            f"{self.mode}: ok={len(self.ok)} fail={len(self.failed)} missing={len(self.missing)} "
            f"skip={len(self.skipped)} in {self.seconds:.1f}s"
        )

    def assert_clean(self, *, allow_missing: bool = True, allow_skipped: bool = True, limit: int = 20) -> None:
        """Fail (with a readable list of up to ``limit`` failures) unless every class verified."""
        problems = [f"{name}: {_short(msg)}" for name, msg in sorted(self.failed.items())]
        if not allow_missing:
            problems += [f"{name}: MISSING {what}" for name, what in sorted(self.missing.items())]
        if not allow_skipped:
            problems += [f"{name}: SKIP {why}" for name, why in sorted(self.skipped.items())]
        problems += [f"{name}: its static initialiser ran (harness error)" for name in self.initialized]
        if self.noise:
            problems.append(f"unexpected verifier output: {self.noise[:3]}")
        if self.checked == 0 and not self.skipped:
            problems.append("no class was checked (empty inputs?)")
        if problems:
            shown = "\n  ".join(problems[:limit])
            more = f"\n  ... and {len(problems) - limit} more" if len(problems) > limit else ""
            raise AssertionError(f"{self.mode} verifier rejected classes ({self}):\n  {shown}{more}")

    def new_failures(self, baseline: VerifyReport) -> dict[str, str]:
        """Failures that ``baseline`` (e.g. the same jar before rewriting) does not have."""
        return {n: m for n, m in self.failed.items() if n not in baseline.failed}

    def assert_no_new_failures(self, baseline: VerifyReport, *, limit: int = 20) -> None:
        new = self.new_failures(baseline)
        if new:
            shown = "\n  ".join(f"{n}: {_short(m)}" for n, m in sorted(new.items())[:limit])
            more = f"\n  ... and {len(new) - limit} more" if len(new) > limit else ""
            raise AssertionError(
                f"{self.mode} verifier: {len(new)} new failures ({self} vs baseline {baseline}):\n  {shown}{more}"
            )


def verify_jvm(
    inputs: Sequence[Path | str],
    classpath: Iterable[Path | str] = (),
    *,
    timeout: float = 600,
    threads: int = 1,
    jvm_options: Sequence[str] = (),
) -> VerifyReport:
    """Verify every class of ``inputs`` with HotSpot's verifier (see the module docstring)."""
    return _run("jvm", inputs, classpath, timeout=timeout, threads=threads, jvm_options=jvm_options)


def verify_asm(
    inputs: Sequence[Path | str],
    classpath: Iterable[Path | str] = (),
    *,
    timeout: float = 600,
    threads: int = 1,
    jvm_options: Sequence[str] = (),
) -> VerifyReport:
    """Verify every class of ``inputs`` with ASM's Analyzer/SimpleVerifier (see the module docstring)."""
    return _run("asm", inputs, classpath, timeout=timeout, threads=threads, jvm_options=jvm_options)


# ---------------------------------------------------------------------------- tool
def asm_jars() -> list[Path]:
    """ASM's jars (Debian's libasm-java, or $JPREWRITE_ASM_DIR); VerifierError if absent."""
    d = Path(os.environ.get("JPREWRITE_ASM_DIR", "/usr/share/java"))
    jars = [d / j for j in ASM_JARS]
    absent = [str(j) for j in jars if not j.exists()]
    if absent:
        raise VerifierError(
            f"ASM is needed to build the verifier but {', '.join(absent)} do not exist "
            f"(install Debian's libasm-java, or set JPREWRITE_ASM_DIR)"
        )
    return jars


def _cache_root() -> Path:
    return cache_root("jprewrite-tests")


@cache
def tool_classes() -> Path:
    """The compiled VerifyAll (compiled on first use; safe with concurrent test workers)."""
    javac = java_home() / "bin" / "javac"
    jars = asm_jars()
    h = hashlib.sha256(SOURCE.read_bytes())
    h.update(str(java_home().resolve()).encode())
    for j in jars:
        h.update(f"{j.resolve()}:{j.stat().st_size}".encode())
    out = _cache_root() / "verifier" / h.hexdigest()[:16]
    if (out / "VerifyAll.class").exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=out.parent))
    try:
        r = subprocess.run(
            [
                str(javac),
                "-nowarn",
                "-encoding",
                "UTF-8",
                "-d",
                str(tmp),
                "-cp",
                os.pathsep.join(map(str, jars)),
                str(SOURCE),
            ],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise VerifierError(f"javac failed on {SOURCE}:\n{r.stdout}{r.stderr}")
        try:
            os.rename(tmp, out)  # atomic; loses harmlessly to a concurrent worker
        except OSError:
            if not (out / "VerifyAll.class").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


# ---------------------------------------------------------------------------- run
_LINE = re.compile(r"(OK|FAIL|MISSING|SKIP|DUPLICATE|INITIALIZED|SUMMARY) ?(\S*) ?(.*)")
_ESC = re.compile(r"\\u([0-9a-fA-F]{4})")
_STDERR_KEEP = 1 << 20


def _unescape(name: str) -> str:
    return _ESC.sub(lambda m: chr(int(m.group(1), 16)), name) if "\\" in name else name


def _short(msg: str, n: int = 600) -> str:
    return msg if len(msg) <= n else msg[:n] + " ..."


def _run(
    mode: str,
    inputs: Sequence[Path | str],
    classpath: Iterable[Path | str],
    *,
    timeout: float,
    threads: int,
    jvm_options: Sequence[str],
) -> VerifyReport:
    if isinstance(inputs, (str, Path)):
        raise TypeError("inputs must be a list of paths")
    inputs = [Path(p).resolve() for p in inputs]
    classpath = [Path(p).resolve() for p in classpath]
    for p in inputs + classpath:
        if not p.exists():
            raise VerifierError(f"no such jar or directory: {p}")
        if p.suffix == ".class":
            raise VerifierError(f"{p}: give the class-path root directory, not a .class file")
    tool = tool_classes()
    java = str(java_home() / "bin" / "java")
    with tempfile.TemporaryDirectory(prefix="jprewrite-verify-") as work:
        work = Path(work)
        (work / "inputs").write_text("".join(f"{p}\n" for p in inputs), encoding="utf-8")
        (work / "classpath").write_text("".join(f"{p}\n" for p in classpath), encoding="utf-8")
        if mode == "jvm":
            log = work / "jvm.log"
            cmd = [
                java,
                *JVM_OPTIONS,
                f"-Xlog:class+init=info:file={log}::filecount=0",
                *jvm_options,
                "-cp",
                str(tool),
                "VerifyAll",
                "jvm",
                "--jvm-log",
                str(log),
            ]
        else:
            cp = os.pathsep.join([str(tool), *map(str, asm_jars())])
            cmd = [java, *ASM_OPTIONS, *jvm_options, "-cp", cp, "VerifyAll", "asm"]
        cmd += [
            "--threads",
            str(threads),
            "--inputs-file",
            str(work / "inputs"),
            "--classpath-file",
            str(work / "classpath"),
        ]
        report = VerifyReport(mode, command=cmd)
        summary: dict[str, int] | None = None
        verdicts: dict[str, str] = {}
        start = time.monotonic()
        with open(work / "stderr", "w+b") as err:
            proc = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=err,
                stdin=subprocess.DEVNULL,
                cwd=work,
                encoding="utf-8",
                errors="replace",
            )
            timed_out = threading.Event()

            def kill() -> None:
                timed_out.set()
                proc.kill()

            timer = threading.Timer(timeout, kill)
            timer.start()
            try:
                assert proc.stdout is not None
                for line in proc.stdout:  # streamed: outputs can be huge
                    summary = parse_line(line.rstrip("\n"), report, verdicts) or summary
                rc = proc.wait()
            finally:
                timer.cancel()
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            report.seconds = time.monotonic() - start
            err.seek(0)
            report.stderr = err.read(_STDERR_KEEP).decode("utf-8", "replace")
    if timed_out.is_set():
        raise VerifierError(f"{mode} verifier timed out after {timeout}s ({report}); command: {' '.join(cmd)}")
    if rc != 0 or summary is None:
        raise VerifierError(f"{mode} verifier exited with {rc} (no summary); stderr:\n{report.stderr[-4000:]}")
    expected = {
        "ok": len(report.ok),
        "fail": len(report.failed),
        "missing": len(report.missing),
        "skip": len(report.skipped),
        "duplicate": report.duplicate_copies,
        "initialized": len(report.initialized),
    }
    if {k: summary.get(k) for k in expected} != expected:
        raise VerifierError(f"{mode} verifier: summary {summary} does not match its lines {expected}")
    report.ignored = summary.get("ignored", 0)
    return report


def parse_line(line: str, report: VerifyReport, verdicts: dict[str, str]) -> dict[str, int] | None:
    """Record one line of the harness's output in ``report``/``verdicts``; the counts of a ``SUMMARY`` line."""
    m = _LINE.fullmatch(line)
    if m is None:
        report.noise.append(line)
        return None
    kind, name, detail = m.groups()
    if kind == "SUMMARY":
        return {k: int(v) for k, v in (kv.split("=", 1) for kv in line.split()[1:])}
    name = _unescape(name)
    if kind == "INITIALIZED":
        report.initialized.append(name)
        return None
    if kind == "DUPLICATE":
        report.duplicates.setdefault(name, detail)
        report.duplicate_copies += 1
        return None
    before = verdicts.get(name)  # a later verdict replaces an earlier one (jvm-log failovers)
    if before == "OK":
        report.ok.remove(name)
    elif before is not None:
        {"FAIL": report.failed, "MISSING": report.missing, "SKIP": report.skipped}[before].pop(name)
    verdicts[name] = kind
    if kind == "OK":
        report.ok.append(name)
    else:
        {"FAIL": report.failed, "MISSING": report.missing, "SKIP": report.skipped}[kind][name] = detail
    return None
