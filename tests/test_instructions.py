"""Tests of the instruction codec (jprewrite.classfile.instructions / opcodes).

The Java fixtures here (sources, compile helper, a tiny class-file walker)
are also used by test_frames.py and test_javap_crosscheck.py. The walker is
deliberately independent of jprewrite's own reader, so these tests do not
depend on it.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jprewrite.classfile import opcodes as op
from jprewrite.classfile.instructions import (
    Iinc,
    Instruction,
    InvokeDynamic,
    InvokeInterface,
    LookupSwitch,
    MultiANewArray,
    TableSwitch,
    decode_instructions,
    encode_instructions,
    instruction_length,
    switch_padding,
)
from jprewrite.errors import ClassFormatError

# ------------------------------------------------------------------ fixtures
JDK_BIN = Path(os.environ.get("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64")) / "bin"
JAVAC = JDK_BIN / "javac"
JAVAP = JDK_BIN / "javap"
JIMAGE = JDK_BIN / "jimage"
JDK_MODULES = JDK_BIN.parent / "lib" / "modules"
HAVE_JDK = JAVAC.exists() and JAVAP.exists()
needs_jdk = pytest.mark.skipif(not HAVE_JDK, reason="needs javac/javap")

SAMPLES_JAVA = r"""
import java.util.*;
import java.util.function.*;

public class Samples {
    static int dense(int x) {
        switch (x) { case 0: return 10; case 1: return 11; case 2: return 12; case 3: return 13; default: return -1; }
    }
    static int sparse(int x) {
        switch (x) { case -1000000: return 1; case 5: return 2; case 1000: return 3; case 70000: return 4; default: return 0; }
    }
    // switches at different alignments (iload_0 = 1 byte, iload 4 = 2, iinc + iload_2 = 4)
    static int align2(int a, int b, int c, int d, int x) {
        switch (x) { case 1: return a; case 2: return b; case 3: return c; default: return d; }
    }
    static int align3(long a, int x) {
        x += 1;
        switch (x) { case 10: return 1; case 20: return 2; default: return 3; }
    }
    static int align0(int a, int x) {
        a = a + x; a = a + 1;
        switch (a) { case 7: return 1; case 8: return 2; case 9: return 5; default: return 3; }
    }
    static int str(String s) {
        switch (s) { case "Aa": return 1; case "BB": return 2; case "hello": return 3; default: return 0; }
    }
    static String tryCatch(String s) {
        try {
            return s.substring(3);
        } catch (StringIndexOutOfBoundsException | NullPointerException e) {
            return "bad";
        } finally {
            System.out.println("done");
        }
    }
    static double longs(long a, double b, int n) {
        long acc = a;
        double d = b;
        for (int i = 0; i < n; i++) {
            if ((i & 1) == 0) { acc += i; } else { d *= 1.5; }
        }
        return acc + d;
    }
    final Object o;
    Samples(boolean a, String b, String c) {
        this.o = new StringBuilder(a ? b : c);
    }
    Samples(boolean a) {
        this(a, a ? "x" : "y", null);
    }
    static Object arrays(int n) {
        int[][] m = new int[n][3];
        String[][][] s = new String[2][][];
        boolean[] z = new boolean[n]; char[] c = new char[1]; long[] l = new long[2];
        double[] d = new double[3]; byte[] b = new byte[4]; short[] sh = new short[5]; float[] f = new float[6];
        return n > 3 ? m : n < 0 ? s : null;
    }
    static int consts(int x) {
        int a = -100; int b = 1000; int c = -30000; int d = 100000; long e = 5L; double f = 2.5; float g = 1.0f;
        x += 100; x -= 100; x += 1000; x -= 128; x += 127;
        return (int) (a + b + c + d + e + f + g + x);
    }
    static int lambdas(List<String> xs) {
        Function<String, Integer> f = String::length;
        Runnable r = () -> System.out.println(xs);
        r.run();
        int sum = 0;
        for (String x : xs) sum += f.apply(x);
        return sum + xs.size();
    }
    synchronized int sync(Object lock) {
        synchronized (lock) { return lock.hashCode(); }
    }
    static String concat(String a, int b) { return a + b + "!"; }
    static int loops(int[][] grid) {
        int total = 0;
        outer:
        for (int i = 0; i < grid.length; i++) {
            for (int j = 0; j < grid[i].length; j++) {
                if (grid[i][j] < 0) continue outer;
                if (grid[i][j] > 100) break outer;
                total += ((Object) grid[i]) instanceof int[] ? 1 : 0;
            }
        }
        return total;
    }
    static Object nulls(boolean a) {
        Object x = a ? null : "s";
        CharSequence y = a ? "t" : new StringBuilder();
        if (x != null && y == null) return "never";
        return x == null ? y : x;
    }
    enum Color { RED, GREEN, BLUE }
    static int enumSwitch(Color c) {
        switch (c) { case RED: return 1; case BLUE: return 3; default: return 0; }
    }
    interface Shape { double area(); default String name() { return "shape"; } }
    record Circle(double r) implements Shape { public double area() { return Math.PI * r * r; } }
    static double shapes(List<Shape> s) {
        double t = 0;
        for (Shape x : s) if (x instanceof Circle c) t += c.r(); else t += x.area();
        return t;
    }
    static long nested(long[] xs, double y) {
        long r = 0;
        try {
            for (long x : xs) {
                try { r += x / (long) y; } catch (ArithmeticException e) { r--; }
            }
        } catch (RuntimeException e) {
            return -1;
        } finally {
            r++;
        }
        return r;
    }
}
"""

# Old-style code generation (StringBuilder concatenation, no nestmates).
LEGACY_JAVA = r"""
public class Legacy {
    private int f;
    static String cat(String a, long b, char c) { return a + b + c; }
    int sw(String s, int k) {
        int r = 0;
        switch (s) { case "x": r = 1; break; case "y": r = 2; break; default: r = k; }
        switch (k) { case 1: case 2: case 3: case 4: case 5: r += 10; break; case 100: r -= 1; break; }
        return r + f;
    }
    class Inner { int g() { return f; } }
}
"""


def _wide_java() -> str:
    """A method with > 255 locals (wide loads/stores/iinc) and a class with > 256 constants (ldc_w)."""
    lines = ["public class Wide {", "  static long many(int p) {"]
    lines += [f"    int v{i} = p + {i};" for i in range(300)]
    lines += [
        "    long big = v299; double dd = v298; float ff = v297; Object oo = null;",
        "    v299 += 1000; v298 -= 3; v297++; v280 += -129; v270 += 127;",
        '    for (int i = 0; i < v299; i++) { if (i > v298) { big += v296; dd += ff; oo = "x"; } }',
        "    switch (v261) { case 1: v262++; break; case 2: v263--; break; case 3: big--; break; }",
        "    int r = v260; return r + v299 + v298 + big + (long) dd + (oo == null ? 0 : 1);",
        "  }",
        "  static String[] strs() { return new String[] {",
        ",".join(f'"s{i}"' for i in range(400)),
        "  }; }",
        "}",
    ]
    return "\n".join(lines)


def _javac(out: Path, sources: dict[str, str], *options: str) -> None:
    src = out / "src"
    src.mkdir(exist_ok=True)
    paths = []
    for name, text in sources.items():
        p = src / f"{name}.java"
        p.write_text(text)
        paths.append(str(p))
    subprocess.run(
        [str(JAVAC), "-d", str(out / "classes"), *options, *paths], check=True, capture_output=True, text=True
    )


@functools.cache
def compiled_dir() -> Path:
    """Compile the Java fixtures once per test process; returns the classes directory."""
    out = Path(tempfile.mkdtemp(prefix="jprewrite-insn-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    _javac(out, {"Samples": SAMPLES_JAVA, "Wide": _wide_java()})
    _javac(out, {"Legacy": LEGACY_JAVA}, "--release", "7", "-nowarn")
    return out / "classes"


def compiled_classes() -> list[Path]:
    return sorted(compiled_dir().glob("*.class"))


JDK_SAMPLE = [
    "java/lang/String",
    "java/lang/StringBuilder",
    "java/lang/AbstractStringBuilder",
    "java/lang/StringLatin1",
    "java/lang/StringUTF16",
    "java/lang/Integer",
    "java/lang/Long",
    "java/lang/Character",
    "java/lang/CharacterData00",
    "java/lang/Math",
    "java/lang/Thread",
    "java/lang/Class",
    "java/lang/ClassLoader",
    "java/lang/Object",
    "java/lang/Enum",
    "java/lang/invoke/MethodHandles$Lookup",
    "java/lang/invoke/MethodType",
    "java/lang/invoke/LambdaForm",
    "java/util/HashMap",
    "java/util/HashMap$TreeNode",
    "java/util/ArrayList",
    "java/util/TreeMap",
    "java/util/Arrays",
    "java/util/Collections",
    "java/util/Formatter",
    "java/util/Scanner",
    "java/util/Locale",
    "java/util/regex/Pattern",
    "java/util/regex/Matcher",
    "java/util/concurrent/ConcurrentHashMap",
    "java/util/concurrent/ForkJoinPool",
    "java/util/concurrent/ThreadPoolExecutor",
    "java/util/concurrent/locks/AbstractQueuedSynchronizer",
    "java/util/zip/ZipFile$Source",
    "java/util/zip/Inflater",
    "java/io/ObjectInputStream",
    "java/io/ObjectStreamClass",
    "java/io/BufferedReader",
    "java/math/BigInteger",
    "java/math/BigDecimal",
    "java/text/SimpleDateFormat",
    "java/text/DecimalFormat",
    "java/time/LocalDate",
    "java/time/format/DateTimeFormatterBuilder",
    "java/net/URI",
    "java/util/stream/ReferencePipeline",
    "sun/nio/cs/UTF_8$Decoder",
    "jdk/internal/org/objectweb/asm/ClassReader",
    "jdk/internal/org/objectweb/asm/MethodWriter",
    "jdk/internal/org/objectweb/asm/Frame",
    "sun/security/util/DerValue",
]


@functools.cache
def jdk_sample_dir() -> Path | None:
    """Extract JDK_SAMPLE from the JDK image once per test process (None if there is no image)."""
    if not (JIMAGE.exists() and JDK_MODULES.exists()):
        return None
    out = Path(tempfile.mkdtemp(prefix="jprewrite-jdk-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    regex = "|".join(f"/java.base/{c}.class".replace("$", "\\$") for c in JDK_SAMPLE)
    subprocess.run(
        [str(JIMAGE), "extract", "--dir", str(out), "--include", f"regex:{regex}", str(JDK_MODULES)],
        check=True,
        capture_output=True,
    )
    return out / "java.base"


def jdk_sample_classes() -> list[Path]:
    d = jdk_sample_dir()
    if d is None:
        return []
    return [d / f"{c}.class" for c in JDK_SAMPLE if (d / f"{c}.class").exists()]


class MethodCode:
    """What the walker finds per method with a Code attribute."""

    def __init__(
        self, class_name: str, name: str, descriptor: str, access: int, code: bytes, stack_map: bytes | None
    ) -> None:
        self.class_name, self.name, self.descriptor, self.access = class_name, name, descriptor, access
        self.code, self.stack_map = code, stack_map

    @property
    def is_static(self) -> bool:
        return bool(self.access & 0x0008)

    def __repr__(self) -> str:
        return f"{self.class_name}.{self.name}{self.descriptor}"


def walk_methods(data: bytes) -> list[MethodCode]:
    """Minimal class-file walker: the Code (and StackMapTable) of every method, in file order."""
    u2 = lambda p: struct.unpack_from(">H", data, p)[0]  # noqa: E731
    utf8: dict[int, str] = {}
    classes: dict[int, int] = {}
    count, pos, i = u2(8), 10, 1
    while i < count:
        tag = data[pos]
        if tag == 1:
            n = u2(pos + 1)
            utf8[i] = data[pos + 3 : pos + 3 + n].decode("utf-8", "surrogateescape")
            pos += 3 + n
        elif tag == 7:
            classes[i] = u2(pos + 1)
            pos += 3
        elif tag in (5, 6):
            pos += 9
            i += 1
        else:
            pos += {3: 5, 4: 5, 8: 3, 9: 5, 10: 5, 11: 5, 12: 5, 15: 4, 16: 3, 17: 5, 18: 5, 19: 3, 20: 3}[tag]
        i += 1
    class_name = utf8[classes[u2(pos + 2)]]
    pos += 8 + 2 * u2(pos + 6)  # access, this, super, interfaces

    def attributes(p: int) -> tuple[list[tuple[str, int, int]], int]:
        """(name, body offset, length) of the attributes whose count is at p; and the end."""
        out = []
        count, p = u2(p), p + 2
        for _ in range(count):
            name, length = u2(p), struct.unpack_from(">I", data, p + 2)[0]
            out.append((utf8[name], p + 6, length))
            p += 6 + length
        return out, p

    count, pos = u2(pos), pos + 2
    for _ in range(count):  # fields
        pos = attributes(pos + 6)[1]
    methods = []
    count, pos = u2(pos), pos + 2
    for _ in range(count):
        access, name, desc = struct.unpack_from(">HHH", data, pos)
        attrs, pos = attributes(pos + 6)
        for aname, p, _length in attrs:
            if aname == "Code":
                code_len = struct.unpack_from(">I", data, p + 4)[0]
                code = data[p + 8 : p + 8 + code_len]
                q = p + 8 + code_len
                q += 2 + 8 * u2(q)  # exception table
                smt = None
                for cname, cp, clen in attributes(q)[0]:
                    if cname == "StackMapTable":
                        smt = data[cp : cp + clen]
                methods.append(MethodCode(class_name, utf8[name], utf8[desc], access, code, smt))
    return methods


# ----------------------------------------------------------- hypothesis model
_NONE_OPS = [o for o in range(256) if op.FORMATS[o] == op.FMT_NONE]
_LOCAL_OPS = [o for o in range(256) if op.FORMATS[o] == op.FMT_LOCAL]
_CP2_OPS = [o for o in range(256) if op.FORMATS[o] == op.FMT_CP2]
_BRANCH_OPS = [o for o in range(256) if op.FORMATS[o] == op.FMT_BRANCH]
_u1 = st.integers(0, 0xFF)
_u2 = st.integers(0, 0xFFFF)
_s4 = st.integers(-(2**31), 2**31 - 1)

# A "proto" is a function offset -> Instruction with placeholder targets (filled in later).
_protos = st.one_of(
    st.sampled_from(_NONE_OPS).map(lambda o: lambda p: Instruction(p, o)),
    st.tuples(st.sampled_from(_LOCAL_OPS), _u1).map(lambda t: lambda p: Instruction(p, t[0], t[1])),
    st.tuples(st.sampled_from(_LOCAL_OPS), _u2).map(lambda t: lambda p: Instruction(p, t[0], t[1], True)),
    st.tuples(_u1, st.integers(-128, 127)).map(lambda t: lambda p: Iinc(p, *t)),
    st.tuples(_u2, st.integers(-32768, 32767)).map(lambda t: lambda p: Iinc(p, *t, wide=True)),
    st.integers(-128, 127).map(lambda v: lambda p: Instruction(p, op.BIPUSH, v)),
    st.integers(-32768, 32767).map(lambda v: lambda p: Instruction(p, op.SIPUSH, v)),
    _u1.map(lambda v: lambda p: Instruction(p, op.LDC, v)),
    st.tuples(st.sampled_from(_CP2_OPS), _u2).map(lambda t: lambda p: Instruction(p, *t)),
    _u1.map(lambda v: lambda p: Instruction(p, op.NEWARRAY, v)),
    st.sampled_from(_BRANCH_OPS).map(lambda o: lambda p: Instruction(p, o, 0)),
    st.sampled_from([op.GOTO_W, op.JSR_W]).map(lambda o: lambda p: Instruction(p, o, 0)),
    st.tuples(_u2, _u1, _u1).map(lambda t: lambda p: InvokeInterface(p, *t)),
    st.tuples(_u2, _u2).map(lambda t: lambda p: InvokeDynamic(p, *t)),
    st.tuples(_u2, _u1).map(lambda t: lambda p: MultiANewArray(p, *t)),
    st.tuples(_s4, st.integers(1, 6))
    .filter(lambda t: t[0] + t[1] - 1 < 2**31)
    .map(lambda t: lambda p: TableSwitch(p, 0, t[0], [0] * t[1])),
    st.lists(_s4, max_size=6).map(lambda ks: lambda p: LookupSwitch(p, 0, ks, [0] * len(ks))),
)


@st.composite
def instruction_lists(draw, max_size: int = 40) -> list[Instruction]:
    protos = draw(st.lists(_protos, min_size=1, max_size=max_size))
    insns = []
    pos = 0
    for make in protos:
        insn = make(pos)
        insns.append(insn)
        pos += instruction_length(insn)
    starts = st.sampled_from([i.offset for i in insns])
    for insn in insns:
        if isinstance(insn, (TableSwitch, LookupSwitch)):
            insn.default = draw(starts)
            insn.targets = [draw(starts) for _ in insn.targets]
            pad = switch_padding(insn.offset)
            if pad and draw(st.booleans()):
                insn.padding = draw(st.binary(min_size=pad, max_size=pad).filter(any))
        elif op.FORMATS[insn.opcode] in (op.FMT_BRANCH, op.FMT_BRANCH_W):
            insn.operand = draw(starts)
    return insns


# ------------------------------------------------------------------- tests
def test_opcode_tables():
    assert len(op.OPCODE_NAMES) == 256 and len(op.FORMATS) == 256
    assert op.OPCODE_NAMES[op.GOTO_W] == "goto_w" and op.OPCODES_BY_NAME["invokedynamic"] == 186
    assert op.OPCODE_NAMES[202] == "breakpoint" and op.OPCODE_NAMES[254] == "impdep1"
    assert all(op.OPCODE_NAMES[o] is None for o in range(203, 254))
    assert len(op.OPCODES_BY_NAME) == 205
    for name, o in op.OPCODES_BY_NAME.items():
        assert op.OPCODE_NAMES[o] == name and getattr(op, name.upper()) == o
    assert op.WIDENABLE == {
        op.ILOAD,
        op.LLOAD,
        op.FLOAD,
        op.DLOAD,
        op.ALOAD,
        op.ISTORE,
        op.LSTORE,
        op.FSTORE,
        op.DSTORE,
        op.ASTORE,
        op.RET,
        op.IINC,
    }


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(instruction_lists())
def test_roundtrip_generated(insns):
    code = encode_instructions(insns)
    assert len(code) == sum(instruction_length(i) for i in insns)
    decoded = decode_instructions(code)
    assert decoded == insns
    assert encode_instructions(decoded) == code


@pytest.mark.parametrize("prefix", range(8))
@pytest.mark.parametrize("kind", ["table", "lookup"])
def test_switch_at_every_alignment(prefix, kind):
    insns: list[Instruction] = [Instruction(i, op.NOP) for i in range(prefix)]
    if kind == "table":
        sw: Instruction = TableSwitch(prefix, 0, -1, [0, 0, 0])
    else:
        sw = LookupSwitch(prefix, 0, [-5, 7, 1 << 30], [0, 0, 0])
    insns.append(sw)
    end = prefix + instruction_length(sw)
    insns.append(Instruction(end, op.RETURN))
    sw.default = end
    sw.targets = [end, 0, end]  # type: ignore[attr-defined]
    code = encode_instructions(insns)
    pad = switch_padding(prefix)
    assert (prefix + 1 + pad) % 4 == 0
    assert code[prefix + 1 : prefix + 1 + pad] == bytes(pad)
    assert decode_instructions(code) == insns
    if pad:  # non-zero padding survives
        raw = bytearray(code)
        raw[prefix + 1 : prefix + 1 + pad] = b"\x7f" * pad
        back = decode_instructions(bytes(raw))
        assert back[prefix].padding == b"\x7f" * pad  # type: ignore[attr-defined]
        assert encode_instructions(back) == bytes(raw)


@settings(max_examples=1500)
@given(st.binary(max_size=64))
@example(bytes([op.WIDE]))
@example(bytes([op.TABLESWITCH, 0, 0, 0, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF]))
@example(bytes([op.LOOKUPSWITCH, 0, 0, 0, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF]))
def test_random_bytes_decode_or_reject(data):
    """Any byte string either decodes and re-encodes identically or raises ClassFormatError."""
    try:
        insns = decode_instructions(data)
    except ClassFormatError as e:
        assert e.offset is not None and 0 <= e.offset < len(data)
        return
    assert encode_instructions(insns) == data


@st.composite
def _mostly_valid_code(draw):
    insns = draw(instruction_lists(max_size=12))
    code = bytearray(encode_instructions(insns))
    for _ in range(draw(st.integers(1, 3))):
        code[draw(st.integers(0, len(code) - 1))] = draw(_u1)
    return bytes(code[: draw(st.integers(0, len(code)))])


@settings(max_examples=600)
@given(_mostly_valid_code())
def test_mutated_code_decode_or_reject(data):
    try:
        insns = decode_instructions(data)
    except ClassFormatError as e:
        assert e.offset is not None and 0 <= e.offset < len(data)
        return
    assert encode_instructions(insns) == data


def test_examples_by_hand():
    code = bytes(
        [
            op.WIDE,
            op.ILOAD,
            0,
            3,  # 0: wide iload 3 (needlessly wide)
            op.WIDE,
            op.IINC,
            1,
            0,
            0xFF,
            0x00,  # 4: wide iinc 256, -256
            op.IINC,
            2,
            0xFF,  # 10: iinc 2, -1
            op.BIPUSH,
            0x80,  # 13: bipush -128
            op.SIPUSH,
            0x80,
            0x00,  # 15: sipush -32768
            op.LDC,
            7,  # 18
            op.LDC_W,
            0,
            7,  # 20: ldc_w #7 (could have been ldc)
            op.INVOKEINTERFACE,
            0,
            9,
            2,
            0,  # 23
            op.INVOKEDYNAMIC,
            0,
            10,
            0,
            0,  # 28
            op.MULTIANEWARRAY,
            0,
            11,
            3,  # 33
            op.NEWARRAY,
            op.T_INT,  # 37
            op.GOTO_W,
            0,
            0,
            0,
            0,  # 39: goto_w 39 (self loop)
            op.JSR,
            0xFF,
            0xD9,  # 44: jsr -39 -> 5? no: 44 - 39 = 5 is mid-instruction
        ]
    )
    with pytest.raises(ClassFormatError) as e:
        decode_instructions(code)
    assert e.value.offset == 44
    code = code[:-3] + bytes([op.JSR, 0xFF, 0xD4, op.WIDE, op.RET, 0, 1, op.ILOAD_3, 202, 254, 255])
    insns = decode_instructions(code)
    assert [i.offset for i in insns] == [0, 4, 10, 13, 15, 18, 20, 23, 28, 33, 37, 39, 44, 47, 51, 52, 53, 54]
    assert insns[0] == Instruction(0, op.ILOAD, 3, wide=True)
    assert insns[1] == Iinc(4, 256, -256, wide=True)
    assert insns[2] == Iinc(10, 2, -1)
    assert insns[3].operand == -128 and insns[4].operand == -32768
    assert insns[6].opcode == op.LDC_W and insns[6].operand == 7
    assert insns[7] == InvokeInterface(23, 9, 2, 0)
    assert insns[8] == InvokeDynamic(28, 10, 0)
    assert insns[9] == MultiANewArray(33, 11, 3)
    assert insns[10].operand == op.T_INT
    assert insns[11].operand == 39
    assert insns[12] == Instruction(44, op.JSR, 0)
    assert insns[13] == Instruction(47, op.RET, 1, wide=True)
    assert [i.name for i in insns[-4:]] == ["iload_3", "breakpoint", "impdep1", "impdep2"]
    assert encode_instructions(insns) == code
    assert "wide iload 3" in repr(insns[0])


def test_goto_w_far_jump():
    """goto_w over more than 32767 bytes (javac cannot produce this; build it by hand)."""
    n = 40000
    insns = [Instruction(0, op.GOTO_W, 5 + n)]
    insns += [Instruction(5 + i, op.NOP) for i in range(n)]
    insns += [Instruction(5 + n, op.GOTO_W, 0)]
    code = encode_instructions(insns)
    assert code[:5] == bytes([op.GOTO_W]) + struct.pack(">i", 5 + n)
    assert decode_instructions(code) == insns
    insns[0] = Instruction(0, op.GOTO, 3 + n)  # as a 2-byte goto it cannot reach
    insns[1:] = [Instruction(3 + i, op.NOP) for i in range(n)] + [Instruction(3 + n, op.RETURN)]
    with pytest.raises(ClassFormatError, match="goto_w") as e:
        encode_instructions(insns)
    assert e.value.offset == 0


# ------------------------------------------------------------ rejections
@pytest.mark.parametrize(
    "code, offset, message",
    [
        (bytes([op.NOP, 203]), 1, "unknown opcode 203"),
        (bytes([op.NOP, 253]), 1, "unknown opcode"),
        (bytes([op.WIDE, op.NOP]), 0, "no wide form"),
        (bytes([op.NOP, op.WIDE, op.GOTO, 0, 0]), 1, "no wide form"),
        (bytes([op.WIDE]), 0, "truncated"),
        (bytes([op.WIDE, op.ILOAD, 0]), 0, "truncated"),
        (bytes([op.WIDE, op.IINC, 0, 1, 0]), 0, "truncated"),
        (bytes([op.NOP, op.SIPUSH, 1]), 1, "truncated"),
        (bytes([op.BIPUSH]), 0, "truncated"),
        (bytes([op.GOTO_W, 0, 0, 0]), 0, "truncated"),
        (bytes([op.INVOKEINTERFACE, 0, 1, 1]), 0, "truncated"),
        (bytes([op.INVOKEDYNAMIC, 0, 1, 0]), 0, "truncated"),
        (bytes([op.MULTIANEWARRAY, 0, 1]), 0, "truncated"),
        (bytes([op.NOP, op.TABLESWITCH, 0, 0]), 1, "truncated"),
        (bytes([op.TABLESWITCH, 0, 0, 0] + [0] * 8 + [0, 0, 0, 1]), 0, "truncated"),
        (bytes([op.LOOKUPSWITCH, 0, 0, 0] + [0] * 4 + [0, 0, 0, 1] + [0] * 4), 0, "truncated"),
        (bytes([op.NOP, op.LOOKUPSWITCH, 0, 0] + [0, 0, 0, 0] + [0xFF] * 4), 1, "npairs -1 < 0"),
        (bytes([op.TABLESWITCH, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 2] + [0, 0, 0, 1]), 0, "low 2 > high 1"),
        (bytes([op.GOTO, 0, 3]), 0, "outside the code"),
        (bytes([op.NOP, op.IFEQ, 0xFF, 0xFE]), 1, "outside the code"),
        (bytes([op.SIPUSH, 0, 0, op.GOTO, 0xFF, 0xFE]), 3, "not at an instruction start"),
        (bytes([op.NOP, op.GOTO_W, 0x7F, 0xFF, 0xFF, 0xFF]), 1, "outside the code"),
        (bytes([op.TABLESWITCH, 0, 0, 0] + [0, 0, 0, 0x40] + [0] * 8 + [0] * 4), 0, "outside the code"),
        (
            bytes([op.LOOKUPSWITCH, 0, 0, 0] + [0] * 4 + [0, 0, 0, 1] + [0] * 4 + [0, 0, 0, 2]),
            0,
            "not at an instruction start",
        ),
    ],
)
def test_decode_rejects(code, offset, message):
    with pytest.raises(ClassFormatError, match=message) as e:
        decode_instructions(code)
    assert e.value.offset == offset


@pytest.mark.parametrize(
    "insns, offset, message",
    [
        ([Instruction(0, op.NOP), Instruction(2, op.NOP)], 1, "offset 2 but would be written at 1"),
        ([Instruction(0, op.LDC, 256)], 0, "ldc_w"),
        ([Instruction(0, op.ILOAD, 256)], 0, "needs wide"),
        ([Instruction(0, op.ILOAD, -1)], 0, "needs wide"),
        ([Instruction(0, op.ILOAD, 65536, True)], 0, "out of range"),
        ([Instruction(0, op.GETFIELD, 65536)], 0, "out of range"),
        ([Instruction(0, op.GETFIELD, None)], 0, "cannot encode"),
        ([Instruction(0, op.BIPUSH, 128)], 0, "out of range"),
        ([Instruction(0, op.SIPUSH, -32769)], 0, "out of range"),
        ([Iinc(0, 1, 128)], 0, "needs wide"),
        ([Instruction(0, op.IINC, 1)], 0, "wrong instruction class"),
        ([Instruction(0, 203)], 0, "unknown opcode"),
        ([Instruction(0, op.WIDE)], 0, "bare wide"),
        ([Instruction(0, op.GOTO, 1), Instruction(3, op.RETURN)], 0, "not at an instruction start"),
        ([Instruction(0, op.GOTO, 4)], 0, "outside the code"),
        ([Instruction(0, op.NOP), TableSwitch(1, 1, 0, [1], padding=b"\0")], 1, "padding"),
        ([TableSwitch(0, 0, 0, [])], 0, "without targets"),
        ([LookupSwitch(0, 0, [1, 2], [0])], 0, "2 keys but 1 targets"),
        ([MultiANewArray(0, 1, 256)], 0, "out of range"),
    ],
)
def test_encode_rejects(insns, offset, message):
    with pytest.raises(ClassFormatError, match=message) as e:
        encode_instructions(insns)
    assert e.value.offset == offset


def test_encode_accepts_iterables():
    insns = [Instruction(0, op.GOTO, 3), Instruction(3, op.RETURN)]
    assert encode_instructions(iter(insns)) == bytes([op.GOTO, 0, 3, op.RETURN])


# --------------------------------------------------------------- real code
@needs_jdk
def test_compiled_code_roundtrips():
    seen: set[str] = set()
    for path in compiled_classes():
        for m in walk_methods(path.read_bytes()):
            insns = decode_instructions(m.code)
            assert encode_instructions(insns) == m.code, m
            for i in insns:
                seen.add(("wide " if i.wide else "") + i.name)
    # the fixtures exercise what they are meant to
    for name in [
        "tableswitch",
        "lookupswitch",
        "wide iload",
        "wide istore",
        "wide lload",
        "wide dstore",
        "wide astore",
        "wide iinc",
        "iinc",
        "ldc",
        "ldc_w",
        "ldc2_w",
        "invokeinterface",
        "invokedynamic",
        "multianewarray",
        "newarray",
        "anewarray",
        "bipush",
        "sipush",
        "monitorenter",
        "instanceof",
        "checkcast",
        "new",
        "goto",
        "athrow",
        "if_icmpge",
        "ifnull",
        "ifnonnull",
    ]:
        assert name in seen, name


@needs_jdk
def test_compiled_switch_alignments():
    alignments = set()
    for path in compiled_classes():
        for m in walk_methods(path.read_bytes()):
            for i in decode_instructions(m.code):
                if isinstance(i, (TableSwitch, LookupSwitch)):
                    alignments.add(i.offset % 4)
    assert alignments == {0, 1, 2, 3}


@needs_jdk
def test_jdk_sample_roundtrips():
    classes = jdk_sample_classes()
    if not classes:
        pytest.skip("no JDK image")
    n = 0
    for path in classes:
        for m in walk_methods(path.read_bytes()):
            insns = decode_instructions(m.code)
            assert encode_instructions(insns) == m.code, m
            n += len(insns)
    assert n > 50000


@pytest.mark.corpus
@needs_jdk
def test_all_of_java_base_roundtrips(tmp_path):
    """Every method of every java.base class (about 1.7M instructions, a few seconds)."""
    if not JDK_MODULES.exists():
        pytest.skip("no JDK image")
    subprocess.run(
        [str(JIMAGE), "extract", "--dir", str(tmp_path), "--include", "regex:/java.base/.*", str(JDK_MODULES)],
        check=True,
        capture_output=True,
    )
    count = 0
    for path in (tmp_path / "java.base").rglob("*.class"):
        if path.name == "module-info.class":
            continue
        for m in walk_methods(path.read_bytes()):
            insns = decode_instructions(m.code)
            assert encode_instructions(insns) == m.code, m
            count += len(insns)
    assert count > 1_000_000
