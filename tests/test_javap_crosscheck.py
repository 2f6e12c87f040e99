"""Cross-check the instruction and frame codecs against javap, an independent decoder.

For compiled fixtures and a sample of JDK classes, ``javap -c -v -p`` output is
parsed and compared with decode_instructions / decode_stack_map_table:
offsets, mnemonics (wide forms included: javap prints ``iload_w``, ``iinc_w``),
every operand (constant-pool indices, locals, absolute branch targets, switch
tables, iinc and push values, newarray types, invokeinterface counts) and the
StackMapTable (frame_type, offset_delta, locals and stack types).

javap runs once per batch of classes (two batches in parallel) to keep this fast.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from jprewrite.classfile import opcodes as op
from jprewrite.classfile.constants import ConstantPool
from jprewrite.classfile.frames import (
    Double,
    Float,
    Integer,
    Long,
    Null,
    Object,
    Top,
    Uninitialized,
    UninitializedThis,
    decode_stack_map_table,
    initial_frame_locals,
)
from jprewrite.classfile.instructions import (
    Iinc,
    InvokeDynamic,
    InvokeInterface,
    LookupSwitch,
    MultiANewArray,
    TableSwitch,
    decode_instructions,
)

try:  # shared Java fixtures and class-file walker
    from test_instructions import JAVAP, compiled_classes, jdk_sample_classes, needs_jdk, walk_methods
except ImportError:  # tests/ turned into a package
    from tests.test_instructions import JAVAP, compiled_classes, jdk_sample_classes, needs_jdk, walk_methods

pytestmark = needs_jdk


# ------------------------------------------------------------ javap parsing
@dataclass
class JInsn:
    offset: int
    mnemonic: str
    operands: str  # text after the mnemonic, without the // comment
    cases: list[tuple[str, int]] = field(default_factory=list)  # switch rows (key or "default", target)


@dataclass
class JFrame:
    frame_type: int
    offset_delta: int | None = None
    locals: list[str] | None = None
    stack: list[str] | None = None


@dataclass
class JCode:
    descriptor: str
    insns: list[JInsn] = field(default_factory=list)
    frames: list[JFrame] | None = None


_INSN = re.compile(r"^\s+(\d+): ([a-z_0-9]+)\b\s*(.*)$")
_CASE = re.compile(r"^\s+(-?\d+|default): (-?\d+)$")
_FRAME_TYPE = re.compile(r"^\s+frame_type = (\d+) /\* .* \*/$")


def _types(text: str) -> list[str]:
    inner = text.strip()
    assert inner.startswith("[") and inner.endswith("]"), text
    inner = inner[1:-1].strip()
    return [t.replace('"', "") for t in inner.split(", ")] if inner else []


def parse_javap(output: str) -> dict[str, list[JCode]]:
    """Class file path -> its Code sections in file order."""
    classes: dict[str, list[JCode]] = {}
    codes: list[JCode] = []
    descriptor = ""
    code: JCode | None = None
    state = "outside"  # outside | insns | switch | after_insns | frames
    for line in output.split("\n"):  # not splitlines(): javap prints U+2028 etc. raw
        if line.startswith("Classfile "):
            codes = classes.setdefault(line[len("Classfile ") :].strip(), [])
            state = "outside"
            continue
        if line.startswith("    descriptor: "):
            descriptor = line.split(": ", 1)[1]
            state = "outside"
            continue
        if line == "    Code:":
            code = JCode(descriptor)
            codes.append(code)
            state = "insns"
            continue
        if code is None or state == "outside":
            continue
        if state == "switch":
            m = _CASE.match(line)
            if m:
                code.insns[-1].cases.append((m.group(1), int(m.group(2))))
            else:
                assert line.strip() == "}", line
                state = "insns"
            continue
        if state == "frames":
            s = line.strip()
            m = _FRAME_TYPE.match(line)
            if m:
                code.frames.append(JFrame(int(m.group(1))))  # type: ignore[union-attr]
                continue
            if s.startswith("offset_delta = "):
                code.frames[-1].offset_delta = int(s.split("= ")[1])  # type: ignore[index]
                continue
            if s.startswith("locals = "):
                code.frames[-1].locals = _types(s.split("= ", 1)[1])  # type: ignore[index]
                continue
            if s.startswith("stack = "):
                code.frames[-1].stack = _types(s.split("= ", 1)[1])  # type: ignore[index]
                continue
            state = "after_insns"
        if state == "insns":
            if line.startswith("      stack="):
                continue
            m = _INSN.match(line)
            if m:
                switch = m.group(2) in ("tableswitch", "lookupswitch")
                # drop javap's comment, except a switch's "{ // low to high" / "{ // npairs"
                text = m.group(3).strip() if switch else m.group(3).split("//")[0].strip()
                code.insns.append(JInsn(int(m.group(1)), m.group(2), text))
                if switch:
                    state = "switch"
                continue
            state = "after_insns"
        if line.strip().startswith("StackMapTable: number_of_entries = "):
            code.frames = []
            state = "frames"
        elif re.match(r"^ {0,4}\S", line):  # back at member or class level
            state = "outside"
    return classes


# ----------------------------------------------------------------- compare
def _int(s: str) -> int:
    return int(s.strip())


def _cp(s: str) -> int:
    s = s.strip()
    assert s.startswith("#"), s
    return int(s[1:])


def check_instructions(code_bytes: bytes, jcode: JCode, where: str) -> int:
    insns = decode_instructions(code_bytes)
    assert [i.offset for i in insns] == [j.offset for j in jcode.insns], where
    for insn, j in zip(insns, jcode.insns):
        ctx = f"{where} @{insn.offset}: {j.mnemonic} {j.operands}"
        mnemonic = insn.name + ("_w" if insn.wide else "")
        assert mnemonic == j.mnemonic, ctx
        fmt = op.FORMATS[insn.opcode]
        text = j.operands
        if fmt == op.FMT_NONE:
            assert text == "", ctx
        elif fmt in (op.FMT_LOCAL, op.FMT_BYTE, op.FMT_SHORT, op.FMT_BRANCH, op.FMT_BRANCH_W):
            assert insn.operand == _int(text), ctx
        elif fmt == op.FMT_IINC:
            assert isinstance(insn, Iinc)
            index, inc = text.split(",")
            assert (insn.operand, insn.increment) == (_int(index), _int(inc)), ctx
        elif fmt in (op.FMT_CP1, op.FMT_CP2):
            assert insn.operand == _cp(text), ctx
        elif fmt == op.FMT_NEWARRAY:
            assert op.NEWARRAY_TYPE_NAMES[insn.operand] == text, ctx
        elif fmt == op.FMT_INVOKEINTERFACE:
            assert isinstance(insn, InvokeInterface)
            index, count = text.split(",")
            assert (insn.operand, insn.count) == (_cp(index), _int(count)), ctx
        elif fmt == op.FMT_INVOKEDYNAMIC:
            assert isinstance(insn, InvokeDynamic)
            index, first_zero = text.split(",")  # javap shows the first reserved byte
            assert (insn.operand, insn.reserved >> 8) == (_cp(index), _int(first_zero)), ctx
        elif fmt == op.FMT_MULTIANEWARRAY:
            assert isinstance(insn, MultiANewArray)
            index, dims = text.split(",")
            assert (insn.operand, insn.dims) == (_cp(index), _int(dims)), ctx
        elif fmt == op.FMT_TABLESWITCH:
            assert isinstance(insn, TableSwitch)
            assert text == f"{{ // {insn.low} to {insn.high}", ctx
            expected = [(str(insn.low + k), t) for k, t in enumerate(insn.targets)]
            assert j.cases == expected + [("default", insn.default)], ctx
        elif fmt == op.FMT_LOOKUPSWITCH:
            assert isinstance(insn, LookupSwitch)
            assert text == f"{{ // {len(insn.keys)}", ctx
            expected = [(str(k), t) for k, t in zip(insn.keys, insn.targets)]
            assert j.cases == expected + [("default", insn.default)], ctx
        else:
            raise AssertionError(f"unexpected format {fmt}: {ctx}")
    return len(insns)


_JAVAP_NAMES = {
    Top: "top",
    Integer: "int",
    Float: "float",
    Long: "long",
    Double: "double",
    Null: "null",
    UninitializedThis: "this",
}


def javap_type(t) -> str:
    if isinstance(t, Object):
        return f"class {t.name}"
    if isinstance(t, Uninitialized):
        return f"uninitialized {t.offset}"
    return _JAVAP_NAMES[t]


def check_frames(method, pool: ConstantPool, jcode: JCode, where: str) -> int:
    if method.stack_map is None:
        assert jcode.frames is None, where
        return 0
    assert jcode.frames is not None, where
    initial = initial_frame_locals(method.class_name, method.name, method.descriptor, method.is_static)
    frames = decode_stack_map_table(method.stack_map, pool, initial, len(method.code))
    assert len(frames) == len(jcode.frames), where
    # Rebuild javap's view independently: apply each frame (as javap printed it) to the previous.
    locals_ = [javap_type(t) for t in initial]
    prev = -1
    for f, j in zip(frames, jcode.frames):
        ctx = f"{where} frame @{f.offset} type {j.frame_type}"
        ft = j.frame_type
        assert f.kind == ft, ctx
        stack: list[str] = []
        if ft < 64:
            delta = ft
        elif ft < 128:
            delta = ft - 64
            stack = j.stack  # type: ignore[assignment]
        else:
            assert j.offset_delta is not None, ctx
            delta = j.offset_delta
            if ft == 247:
                stack = j.stack  # type: ignore[assignment]
            elif 248 <= ft <= 250:
                locals_ = locals_[: len(locals_) - (251 - ft)]
            elif 252 <= ft <= 254:
                assert len(j.locals) == ft - 251, ctx  # type: ignore[arg-type]
                locals_ = locals_ + j.locals  # type: ignore[operator]
            elif ft == 255:
                locals_, stack = j.locals, j.stack  # type: ignore[assignment]
        offset = prev + 1 + delta
        assert f.offset == offset, ctx
        assert [javap_type(t) for t in f.locals] == locals_, ctx
        assert [javap_type(t) for t in f.stack] == stack, ctx
        prev = offset
    return len(frames)


# ------------------------------------------------------------------- driver
def _run_javap(paths: list[Path]) -> dict[str, list[JCode]]:
    """javap over all paths in two parallel batches; returns parse_javap of the combined output."""
    batches = [paths[0::2], paths[1::2]]
    procs = [
        subprocess.Popen(
            [str(JAVAP), "-c", "-v", "-p", *map(str, b)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            errors="replace",
        )
        for b in batches
        if b
    ]
    result: dict[str, list[JCode]] = {}
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        result.update(parse_javap(out))
    return result


def _crosscheck(paths: list[Path]) -> tuple[int, int, set[str]]:
    parsed = _run_javap(paths)
    n_insns = n_frames = 0
    mnemonics: set[str] = set()
    for path in paths:
        data = path.read_bytes()
        jcodes = parsed[str(path.resolve())] if str(path.resolve()) in parsed else parsed[str(path)]
        methods = walk_methods(data)
        assert len(methods) == len(jcodes), path
        pool = ConstantPool.parse(data, 8)
        for m, jcode in zip(methods, jcodes):
            where = f"{path.name}:{m.name}{m.descriptor}"
            assert m.descriptor == jcode.descriptor, where
            n_insns += check_instructions(m.code, jcode, where)
            n_frames += check_frames(m, pool, jcode, where)
            mnemonics.update(j.mnemonic for j in jcode.insns)
    return n_insns, n_frames, mnemonics


def test_parser_sees_what_it_should():
    text = """Classfile /x/A.class
  static int f(int);
    descriptor: (I)I
    flags: (0x0008) ACC_STATIC
    Code:
      stack=1, locals=1, args_size=1
         0: iload_0
         1: tableswitch   { // 0 to 1
                       0: 20
                       1: 22
                 default: 24
            }
        20: iinc_w        300, -1000
        26: ldc           #7                  // String a // b
      LineNumberTable:
        line 3: 0
      StackMapTable: number_of_entries = 2
        frame_type = 255 /* full_frame */
          offset_delta = 20
          locals = [ class "[I", uninitialized 5, this ]
          stack = []
        frame_type = 1 /* same */
    Exceptions:
      throws java.io.IOException
}
"""
    codes = parse_javap(text)["/x/A.class"]
    assert len(codes) == 1 and codes[0].descriptor == "(I)I"
    insns = codes[0].insns
    assert [(i.offset, i.mnemonic, i.operands) for i in insns] == [
        (0, "iload_0", ""),
        (1, "tableswitch", "{ // 0 to 1"),
        (20, "iinc_w", "300, -1000"),
        (26, "ldc", "#7"),
    ]
    assert insns[1].cases == [("0", 20), ("1", 22), ("default", 24)]
    assert [(f.frame_type, f.offset_delta, f.locals, f.stack) for f in codes[0].frames] == [
        (255, 20, ["class [I", "uninitialized 5", "this"], []),
        (1, None, None, None),
    ]


def test_compiled_classes_agree_with_javap():
    n_insns, n_frames, mnemonics = _crosscheck(compiled_classes())
    assert n_insns > 3000 and n_frames > 50
    assert {
        "iload_w",
        "iinc_w",
        "istore_w",
        "ldc_w",
        "tableswitch",
        "lookupswitch",
        "invokedynamic",
        "invokeinterface",
        "multianewarray",
    } <= mnemonics


def test_jdk_classes_agree_with_javap():
    paths = jdk_sample_classes()
    if not paths:
        pytest.skip("no JDK image")
    n_insns, n_frames, mnemonics = _crosscheck(paths)
    assert n_insns > 50000 and n_frames > 5000
    assert {"tableswitch", "lookupswitch", "goto", "athrow", "monitorenter"} <= mnemonics
