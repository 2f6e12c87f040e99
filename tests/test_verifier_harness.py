"""Tests of the verification harness itself (tests/support/verifier.py + VerifyAll.java).

The harness is what other tests trust to say "HotSpot and ASM accept these
rewritten classes", so here it is shown to say OK for valid classes, FAIL for
classes with a type error (found by both verifiers), MISSING (not FAIL) for
classes whose dependencies are absent, to never run a static initialiser, to
handle old class files (JSR/RET; HotSpot's silent fallback to the old verifier
for version 50), and to treat JDK classes as documented.

Most scenarios share one input directory checked once per verifier (module
fixtures), which keeps this file to about a dozen JVM starts.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

import pytest

from jprewrite.classfile.model import read_class

from support.corpus import package_jars
from support.jdk import java_home, javac, tool
from support.verifier import VerifierError, VerifyReport, parse_line, verify_asm, verify_jvm

ILOAD_0, ALOAD_0 = 0x1A, 0x2A

VALID_SOURCES = {
    "p/Valid.java": r"""
package p;
import java.util.*;
import java.util.function.*;
public class Valid implements Comparable<Valid> {
    interface Shape { double area(); }
    record Circle(double r) implements Shape { public double area() { return Math.PI * r * r; } }
    enum Color { RED, GREEN }
    private final List<Shape> shapes = new ArrayList<>();
    static int sw(int x) { switch (x) { case 1: return 10; case 2: return 20; case 1000: return 3; default: return -1; } }
    String describe(Object o) {
        if (o instanceof Circle c) return "circle " + c.r();
        try { return String.valueOf(Objects.requireNonNull(o)); }
        catch (NullPointerException e) { return "null"; }
        finally { shapes.clear(); }
    }
    double total() {
        Function<Shape, Double> f = Shape::area;
        double t = 0;
        for (Shape s : shapes) t += f.apply(s);
        synchronized (this) { return t + new Object() { int k = 2; }.k; }
    }
    long[][] grid(int n) { return new long[n][n + 1]; }
    public int compareTo(Valid o) { return Integer.compare(shapes.size(), o.shapes.size()); }
}
""",
    "p/\u00dcn\u00efcode.java": "package p; public class \u00dcn\u00efcode { int x = Valid.sw(1); }\n",
}

MIXED_SOURCES = {
    "p/Broken.java": "package p; public class Broken { public static int f(int x) { return x + 1; } }\n",
    "p/Clinit.java": """package p; public class Clinit {
    static { System.out.println("CLINIT-RAN"); System.err.println("CLINIT-RAN"); }
    public static void main(String[] a) {}
}
""",
    "p/Base.java": "package p; public class Base {}\n",
    "p/Derived.java": "package p; public class Derived extends Base {}\n",  # deleted
    "p/Up.java": "package p; public class Up { static Base up(Derived d) { return d; } }\n",
    "p/Gone.java": "package p; public class Gone {}\n",  # deleted
    "p/Sub.java": "package p; public class Sub extends Gone {}\n",
}

# patched to class-file versions 50 and 52 (nothing in them is newer), both without their StackMapTable
BRANCH_SOURCES = {
    f"p/Branch{v}.java": f"package p; public class Branch{v} {{ public static int g(int x) {{ return x > 0 ? 1 : 2; }} }}\n"
    for v in (50, 52)
}


# ---------------------------------------------------------------------------- class-file surgery
def break_first_iload(data: bytes) -> tuple[bytes, str]:
    """Turn the first iload_0 of some method into aload_0: a type error (local 0 is an int there)."""
    cf = read_class(data)
    for m in cf.methods:
        code = m.code()
        if code is None:
            continue
        for insn in code.instructions():
            if insn.opcode == ILOAD_0:
                pos = code.code_offset + insn.offset
                assert data[pos] == ILOAD_0
                return data[:pos] + bytes([ALOAD_0]) + data[pos + 1 :], m.name + m.descriptor
    raise AssertionError("no iload_0 to break")


def drop_stack_map(data: bytes, major: int) -> bytes:
    """Set the major version and rename the StackMapTable attribute (same length) so it is ignored."""
    old = b"\x00\x0dStackMapTable"
    assert data.count(old) == 1
    data = data.replace(old, b"\x00\x0dStackMapTablX")
    return data[:6] + struct.pack(">H", major) + data[8:]


def jsr_class(name: str, broken: bool = False) -> bytes:
    """A version-49 class (javac no longer emits JSR/RET) with ``static int run(int)``:

    0: jsr 5   3: iload_0 (aload_0 if broken)   4: ireturn   5: astore_1   6: iinc 0 1   9: ret 1
    """

    def utf8(s: str) -> bytes:
        b = s.encode()
        return b"\x01" + struct.pack(">H", len(b)) + b

    pool = [
        utf8(name),
        b"\x07\x00\x01",
        utf8("java/lang/Object"),
        b"\x07\x00\x03",
        utf8("run"),
        utf8("(I)I"),
        utf8("Code"),
    ]
    code = bytes([0xA8, 0x00, 0x05, ALOAD_0 if broken else ILOAD_0, 0xAC, 0x4C, 0x84, 0x00, 0x01, 0xA9, 0x01])
    body = struct.pack(">HHI", 1, 2, len(code)) + code + struct.pack(">HH", 0, 0)
    method = struct.pack(">HHHH", 0x0009, 5, 6, 1) + struct.pack(">HI", 7, len(body)) + body
    return (
        struct.pack(">IHHH", 0xCAFEBABE, 0, 49, len(pool) + 1)
        + b"".join(pool)
        + struct.pack(">HHHHHH", 0x0021, 2, 4, 0, 0, 1)
        + method
        + struct.pack(">H", 0)
    )


def make_jar(root: Path, jar: Path, only: list[str] | None = None) -> Path:
    with zipfile.ZipFile(jar, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        for f in sorted(root.rglob("*.class")):
            rel = f.relative_to(root).as_posix()
            if only is None or rel in only:
                z.write(f, rel)
    return jar


# ---------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("verifier")


@pytest.fixture(scope="module")
def compiled(work) -> Path:
    """All the Java sources, in one javac run (javac is the slow part of this file)."""
    return javac(
        {**VALID_SOURCES, **MIXED_SOURCES, **BRANCH_SOURCES}, work / "classes", "--release", "17", "-encoding", "UTF-8"
    )


def _copy(compiled: Path, out: Path, sources: dict[str, str]) -> Path:
    """The classes compiled from ``sources`` (nested classes included), copied to ``out``."""
    for rel in sources:
        stem = rel[: -len(".java")]
        for f in compiled.glob(f"{stem}*.class"):
            if f.stem == Path(stem).name or f.stem.startswith(Path(stem).name + "$"):
                dest = out / f.relative_to(compiled)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, dest)
    return out


@pytest.fixture(scope="module")
def valid_jar(work, compiled) -> Path:
    return make_jar(_copy(compiled, work / "valid", VALID_SOURCES), work / "valid.jar")


@pytest.fixture(scope="module")
def mixed(work, compiled) -> dict:
    """A class-path directory with every crafted case, plus a jar holding a duplicate of p/Broken."""
    d = _copy(compiled, work / "mixed", MIXED_SOURCES)
    good_broken = (d / "p/Broken.class").read_bytes()
    bad, method = break_first_iload(good_broken)
    (d / "p/Broken.class").write_bytes(bad)
    (d / "p/Derived.class").unlink()
    (d / "p/Gone.class").unlink()
    for v in (50, 52):
        (d / f"p/Branch{v}.class").write_bytes(drop_stack_map((compiled / f"p/Branch{v}.class").read_bytes(), v))
    (d / "Jsr.class").write_bytes(jsr_class("Jsr"))
    (d / "JsrBad.class").write_bytes(jsr_class("JsrBad", broken=True))
    dup = work / "dup"
    (dup / "p").mkdir(parents=True)
    (dup / "p/Broken.class").write_bytes(good_broken)  # the valid copy, after the broken one
    return {"dir": d, "inputs": [d, make_jar(dup, work / "dup.jar")], "broken_method": method}


@pytest.fixture(scope="module")
def mixed_jvm(mixed) -> VerifyReport:
    return verify_jvm(mixed["inputs"])


@pytest.fixture(scope="module")
def mixed_asm(mixed) -> VerifyReport:
    return verify_asm(mixed["inputs"])


# ---------------------------------------------------------------------------- tests
@pytest.mark.parametrize("verify", [verify_jvm, verify_asm], ids=["jvm", "asm"])
def test_valid_jar_is_clean(valid_jar, verify):
    r = verify([valid_jar])
    r.assert_clean(allow_missing=False, allow_skipped=False)
    names = {n for n in zipfile.ZipFile(valid_jar).namelist() if n.endswith(".class")}
    assert sorted(r.ok) == sorted(n[:-6] for n in names)
    assert "p/\u00dcn\u00efcode" in r.ok  # non-ASCII names survive the line protocol
    assert "p/Valid$Circle" in r.ok and r.ignored == 0
    assert not r.initialized and not r.noise


def test_type_error_fails_in_both(mixed, mixed_jvm, mixed_asm):
    jvm, asm = mixed_jvm.failed.get("p/Broken", ""), mixed_asm.failed.get("p/Broken", "")
    assert jvm.startswith("java.lang.VerifyError: Bad local variable type"), jvm
    assert "p/Broken.f(I)I @0: aload_0" in jvm, jvm
    assert asm.startswith("org.objectweb.asm.tree.analysis.AnalyzerException: f(I)I: Error at instruction 0"), asm
    assert mixed["broken_method"] == "f(I)I"
    with pytest.raises(AssertionError, match=r"p/Broken: java\.lang\.VerifyError"):
        mixed_jvm.assert_clean()


def test_first_copy_of_a_name_is_checked(mixed_jvm, mixed_asm):
    for r in (mixed_jvm, mixed_asm):
        assert list(r.duplicates) == ["p/Broken"] and "dup.jar" in r.duplicates["p/Broken"]
        assert "p/Broken" in r.failed and "p/Broken" not in r.ok


def test_static_initialisers_do_not_run(mixed, mixed_jvm, tmp_path):
    assert "p/Clinit" in mixed_jvm.ok
    assert mixed_jvm.initialized == []
    assert "CLINIT-RAN" not in mixed_jvm.stderr and not mixed_jvm.noise
    # controls: the class does print when run, and the JVM log line the harness watches exists
    log = tmp_path / "init.log"
    r = subprocess.run(
        [tool("java"), f"-Xlog:class+init=info:file={log}", "-cp", str(mixed["dir"]), "p.Clinit"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "CLINIT-RAN" in r.stdout and "CLINIT-RAN" in r.stderr
    assert "Initializing 'p/Clinit'" in log.read_text()


def test_absent_dependencies_are_missing(mixed_jvm, mixed_asm):
    # loading Sub needs its superclass
    assert mixed_jvm.missing.get("p/Sub") == "p/Gone"
    # ASM never needs the superclass of the class it checks, only supertypes of other classes
    assert "p/Sub" in mixed_asm.ok
    # returning a Derived as a Base: both verifiers must load Derived to see it is a subclass
    assert mixed_jvm.missing.get("p/Up") == "p/Derived"
    assert mixed_asm.missing.get("p/Up") == "p/Derived"
    assert "p/Base" in mixed_jvm.ok and "p/Base" in mixed_asm.ok


def test_jsr_ret_old_class_files(mixed_jvm, mixed_asm):
    for r in (mixed_jvm, mixed_asm):
        assert "Jsr" in r.ok, r.failed.get("Jsr")
        assert "JsrBad" in r.failed
    # the aload_0 after the jsr: ASM's instruction indices count the label before it
    assert "run(I)I: Error at instruction 1: Expected an object reference, but found I" in mixed_asm.failed["JsrBad"]
    assert mixed_jvm.failed["JsrBad"].startswith("java.lang.VerifyError: (class: JsrBad, method: run"), mixed_jvm.failed


def test_stack_map_frames_are_checked_by_the_jvm_only(mixed_jvm, mixed_asm):
    # version 52 without frames: the type checker rejects it, no fallback
    assert "Expecting a stackmap frame" in mixed_jvm.failed.get("p/Branch52", ""), mixed_jvm.failed
    # version 50: HotSpot falls back to the old verifier and would accept it; the harness reports it
    assert "fell back to the old inference verifier" in mixed_jvm.failed.get("p/Branch50", ""), mixed_jvm.failed
    # ASM infers types itself and ignores the StackMapTable
    assert "p/Branch50" in mixed_asm.ok and "p/Branch52" in mixed_asm.ok


def test_summary_counts_every_class_once(mixed, mixed_jvm, mixed_asm):
    names = {p.relative_to(mixed["dir"]).as_posix()[:-6] for p in mixed["dir"].rglob("*.class")}
    for r in (mixed_jvm, mixed_asm):
        verdicts = [*r.ok, *r.failed, *r.missing, *r.skipped]
        assert sorted(verdicts) == sorted(names)
    assert set(mixed_jvm.failed) == set(mixed_asm.failed) | {"p/Branch50", "p/Branch52"}


def test_jdk_classes(tmp_path):
    """jvm mode SKIPs JDK classes (the JVM would check its own copies); asm mode verifies them."""
    jimage = java_home() / "bin" / "jimage"
    modules = java_home() / "lib" / "modules"
    if not (jimage.exists() and modules.exists()):
        pytest.skip("no jimage / JDK image")
    names = [
        "java/lang/String",
        "java/util/HashMap",
        "java/util/HashMap$TreeNode",
        "java/lang/Math",
        "jdk/internal/misc/VM",
        "sun/nio/cs/UTF_8$Decoder",
    ]
    regex = "|".join(f"/java.base/{n}.class".replace("$", "\\$") for n in names)
    subprocess.run(
        [str(jimage), "extract", "--dir", str(tmp_path), "--include", f"regex:{regex}", str(modules)],
        check=True,
        capture_output=True,
    )
    base, broken = tmp_path / "java.base", tmp_path / "broken"
    (broken / "java/lang").mkdir(parents=True)
    math, _ = break_first_iload((base / "java/lang/Math.class").read_bytes())
    (broken / "java/lang/Math.class").write_bytes(math)
    (base / "java/lang/Math.class").unlink()

    jvm = verify_jvm([base, broken])
    assert not jvm.ok and not jvm.failed and sorted(jvm.skipped) == sorted(names)
    assert "boot loader" in jvm.skipped["java/lang/String"]
    assert "the JDK's own class" in jvm.skipped["jdk/internal/misc/VM"]

    asm = verify_asm([base, broken])
    assert sorted(asm.ok) == sorted(set(names) - {"java/lang/Math"})
    assert list(asm.failed) == ["java/lang/Math"]


@pytest.mark.corpus
def test_debian_h2_jar_without_its_dependencies():
    jars = package_jars("libh2-java")
    for verify in (verify_jvm, verify_asm):
        r = verify(jars)
        r.assert_clean()  # OK or MISSING, never FAIL
        assert len(r.ok) > 500, r
        assert r.missing and not any(m.startswith("org/h2/") for m in r.missing.values()), r.missing


def test_timeout_and_bad_inputs(valid_jar, tmp_path):
    with pytest.raises(VerifierError, match="timed out"):
        verify_jvm([valid_jar], timeout=0.05)
    with pytest.raises(VerifierError, match="no such jar or directory"):
        verify_asm([tmp_path / "absent.jar"])
    with pytest.raises(TypeError):
        verify_asm(valid_jar)  # type: ignore[arg-type]


def test_line_protocol_parsing():
    r, verdicts = VerifyReport("jvm"), {}
    lines = [
        "DUPLICATE a/B in x.jar (the copy in y is checked)",
        "OK a/B",
        "OK a/\\u00e9\\u0020x",
        "MISSING a/C b/D",
        "SKIP java/lang/X boot",
        "FAIL a/E java.lang.VerifyError: bad | more",
        "FAIL a/B java.lang.VerifyError: fell back",
        "INITIALIZED a/F",
    ]
    for line in lines:
        assert parse_line(line, r, verdicts) is None
    assert r.ok == ["a/\u00e9 x"]
    assert r.failed == {"a/E": "java.lang.VerifyError: bad | more", "a/B": "java.lang.VerifyError: fell back"}
    assert r.missing == {"a/C": "b/D"} and r.skipped == {"java/lang/X": "boot"}
    assert r.initialized == ["a/F"] and list(r.duplicates) == ["a/B"]
    assert parse_line("SUMMARY ok=1 fail=2", r, verdicts) == {"ok": 1, "fail": 2}
    with pytest.raises(AssertionError) as e:
        r.assert_clean()
    assert "a/B: java.lang.VerifyError: fell back" in str(e.value) and "static initialiser ran" in str(e.value)
    baseline = VerifyReport("jvm", failed={"a/E": "old failure"})
    assert r.new_failures(baseline) == {"a/B": "java.lang.VerifyError: fell back"}
    with pytest.raises(AssertionError, match="1 new failures"):
        r.assert_no_new_failures(baseline)
