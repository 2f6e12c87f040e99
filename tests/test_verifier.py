"""The project's own bytecode verifier (``jprewrite.analysis.verifier``) against HotSpot.

1. Real input: a deterministic sample of java.base (read from the JDK image) and
   of Debian jars (h2, scala-library, kotlin-stdlib, groovy-all's version-47
   classes) verifies with zero problems; for the jars, HotSpot (``-Xverify:all``)
   checks the same classes and every class it accepts must be accepted here.
2. Rewritten classes: the real CCT rewriter (``instrument_class`` with a
   ``CctPlan``) over sunflow.jar in every counting mode (and a sample of h2.jar):
   every method it changed or added, holder classes included, verifies.
3. Mutations of javac-compiled classes (stack too small, code in dead blocks,
   branches into an instruction, wrong frame types, bad handler ranges, wrong
   returns, missing frames, stack underflow, the reported ASM-dead-code bug, ...):
   the verifier reports a problem at the offset where HotSpot reports it, and
   HotSpot rejects the same class.
4. Version 49 (inference, jsr/ret): valid code accepted by both verifiers, a
   too-small max_stack rejected by both.
"""

from __future__ import annotations

import functools
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from jprewrite.analysis import VerifyProblem, verify_class, verify_method
from jprewrite.analysis.hierarchy import ClassHierarchy
from jprewrite.classfile import opcodes as op
from jprewrite.classfile.code import ExceptionHandler
from jprewrite.classfile.frames import Frame, Integer, Object
from jprewrite.classfile.instructions import Iinc, Instruction, decode_instructions
from jprewrite.classfile.model import ClassFile, Method, read_class
from jprewrite.editor import Handler, Label, disassemble, write_body

from support.corpus import jar_classes, package_jars

try:
    from support.jdk import java_home, javac
    from support.verifier import verify_jvm

    HAVE_JDK = (java_home() / "bin" / "javac").exists()
except Exception:  # pragma: no cover - no JDK
    HAVE_JDK = False

needs_jdk = pytest.mark.skipif(not HAVE_JDK, reason="needs a JDK (javac, java)")


# ============================================================== shared helpers
@functools.cache
def jdk_image():
    from jprewrite.archive.jdk_image import JdkImage, find_java_home

    return JdkImage(find_java_home())


def hierarchy(*sources) -> ClassHierarchy:
    return ClassHierarchy(list(sources), jdk_image())


class DirSource:
    """Classes of a directory (class-path root), for the hierarchy."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_class(self, name: str):
        p = self.root / f"{name}.class"
        return p.read_bytes() if p.is_file() else None


def describe(problems: list[VerifyProblem], limit: int = 15) -> str:
    return "\n  ".join(str(p) for p in problems[:limit]) + (
        f"\n  ... and {len(problems) - limit} more" if len(problems) > limit else ""
    )


def test_problem_format() -> None:
    p = VerifyProblem("pkg.C.m(I)V", 12, "stack overflow (max_stack 2)")
    assert str(p) == "pkg.C.m(I)V @12: stack overflow (max_stack 2)"
    assert str(VerifyProblem("pkg.C.m(I)V", -1, "bad handler")) == "pkg.C.m(I)V: bad handler"


# ============================================================ 1. real classes
def test_java_base_sample_verifies() -> None:
    """Every 3rd class of java.base (about 2100 classes, 20000 methods): no problem."""
    image = jdk_image()
    h = ClassHierarchy([], image)
    names = sorted(n for _, n, _ in image.iter_classes("java.base") if not n.endswith("module-info"))
    problems: list[VerifyProblem] = []
    methods = 0
    for name in names[::3]:
        data = image.find_class(name)
        cf = read_class(data if isinstance(data, bytes) else data.read())
        methods += len(cf.methods)
        problems += verify_class(cf, h)
    assert methods > 10_000
    assert not problems, f"{len(problems)} problems in java.base:\n  {describe(problems)}"


JAR_SAMPLES = [  # (package, jar file name, every n-th class, highest class-file version sampled)
    ("libh2-java", "h2.jar", 1, 99),  # version 55
    ("scala", "scala-library.jar", 3, 99),  # version 50
    ("kotlin", "kotlin-stdlib.jar", 1, 99),  # versions 50, 51
    ("libxalan2-java", "xalan2.jar", 3, 99),  # versions 50, 52
    ("liblucene4.10-java", "lucene-core-4.10.4.jar", 3, 99),  # version 51
    ("groovy", "groovy-all.jar", 1, 49),  # the version-47/49 classes: the inference path
]


def _sample(jar: Path, step: int, max_major: int) -> list[tuple[str, bytes]]:
    out = []
    for entry, data in jar_classes(jar):
        if entry.startswith("META-INF/") or entry.endswith("module-info.class"):
            continue
        if int.from_bytes(data[6:8], "big") > max_major:
            continue
        out.append((entry, data))
    return out[::step]


@needs_jdk
@pytest.mark.parametrize("package, jar_name, step, max_major", JAR_SAMPLES, ids=[s[1] for s in JAR_SAMPLES])
def test_debian_jar_sample_agrees_with_hotspot(
    tmp_path: Path, package: str, jar_name: str, step: int, max_major: int
) -> None:
    """Classes HotSpot verifies are accepted; in these jars that is every class of the sample."""
    jar = next(j for j in package_jars(package) if j.name == jar_name)
    from jprewrite.archive.jars import open_container

    sample = _sample(jar, step, max_major)
    assert sample
    with open_container(jar) as container:
        h = hierarchy(container)
        ours: dict[str, list[VerifyProblem]] = {}
        for _entry, data in sample:
            cf = read_class(data)
            ours[cf.name] = verify_class(cf, h)
    # HotSpot on the same classes (the whole jar on the class path for their dependencies)
    root = tmp_path / "sample"
    for entry, data in sample:
        p = root / entry
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    report = verify_jvm([root], classpath=[jar], threads=2)
    print(f"{jar_name}: {len(sample)} classes; HotSpot {report}")
    hotspot_ok = set(report.ok)
    assert len(hotspot_ok) > len(sample) // 2, report
    disagree = [p for name in hotspot_ok for p in ours.get(name, [])]
    assert not disagree, f"HotSpot accepts, we reject:\n  {describe(disagree)}"
    problems = [p for ps in ours.values() for p in ps]
    assert not problems, f"{len(problems)} problems in {jar_name}:\n  {describe(problems)}"


# ========================================================= 2. rewritten classes
def _code_map(cf: ClassFile) -> dict[tuple[str, str], bytes]:
    out = {}
    for m in cf.methods:
        c = m.code()
        if c is not None:
            out[(m.name, m.descriptor)] = c.code_bytes()
    return out


def _rewrite_and_verify(jar: Path, counting: str, step: int = 1, **options) -> tuple[int, list[VerifyProblem]]:
    from jprewrite.archive.jars import open_container
    from jprewrite.instrument import AlreadyInstrumented, CctPlan, InstrumentOptions, instrument_class

    classes = _sample(jar, 1, 99)
    names = {read_class(d).name for _, d in classes}
    checked = 0
    problems: list[VerifyProblem] = []
    with open_container(jar) as container:
        h = hierarchy(container)
        plan = CctPlan(h, lambda n: n in names)
        plan.set_world(names)
        opts = InstrumentOptions(counting=counting, **options)
        for _, data in classes[::step]:
            cf = read_class(data)
            if not plan.is_instrumented(cf.name):
                continue
            before = _code_map(cf)
            try:
                report = instrument_class(cf, plan, opts)
            except AlreadyInstrumented:  # pragma: no cover
                continue
            out = read_class(cf.to_bytes())  # what is written, read back: the gate's strictest form
            changed = {k for k, v in _code_map(out).items() if before.get(k) != v}
            checked += len(changed)
            problems += verify_class(out, h, changed)
            problems += verify_class(cf, h, changed)  # the in-memory form the rewriter holds
            for extra in report.extra_classes.values():
                holder = read_class(extra)
                checked += len(holder.methods)
                problems += verify_class(holder, h)
    return checked, problems


@pytest.mark.parametrize("counting", ["none", "default", "precise"])
def test_rewritten_sunflow_verifies(counting: str) -> None:
    jar = package_jars("libsunflow-java")[0]
    checked, problems = _rewrite_and_verify(jar, counting)
    assert checked > 1000
    assert not problems, f"{len(problems)} problems after rewriting:\n  {describe(problems)}"


def test_rewritten_h2_sample_verifies_with_every_option() -> None:
    """Every 8th class of h2 (version 55), with allocation counting, weights and activation on."""
    jar = next(j for j in package_jars("libh2-java") if j.name == "h2.jar")
    checked, problems = _rewrite_and_verify(
        jar, "precise", step=8, allocations=True, activation=True, weights={op.INVOKEVIRTUAL: 3, op.NEW: 5}
    )
    assert checked > 500
    assert not problems, f"{len(problems)} problems after rewriting:\n  {describe(problems)}"


# ================================================================ 3. mutations
FIXTURE = """
public class {C} {
    long count;
    Object ref;

    {C}() { super(); }

    static int add(int a, int b) { return a + b; }

    int loop(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }

    String pick(Object o, int x) { String s = "a"; if (x > 0) { s = o.toString(); } return s; }

    void bump({C} node) { node.count += 1; }

    int guarded(int x) { try { return 10 / x; } catch (ArithmeticException e) { return -1; } }

    int size(java.util.List<String> l) { java.util.List<String> c = l; return c.size(); }
}
"""


def _method(cf: ClassFile, name: str) -> Method:
    m = cf.method(name)
    assert m is not None, name
    return m


def _insns(m: Method) -> list[Instruction]:
    return decode_instructions(m.code().code_bytes())  # type: ignore[union-attr]


def _offset_of(m: Method, opcode: int, nth: int = 0) -> int:
    return [i.offset for i in _insns(m) if i.opcode == opcode][nth]


def _set_frames(cf: ClassFile, m: Method, edit: Callable[[list[Frame]], None]) -> None:
    smt = m.code().attribute("StackMapTable", cf.pool)  # type: ignore[union-attr]
    frames = smt.frames(cf.pool)  # type: ignore[union-attr]
    edit(frames)
    smt.set_frames(frames)  # type: ignore[union-attr]


# Each mutation breaks one method of its own copy of FIXTURE and returns (method name, the
# offset at which the verifier must report the problem; -1: the method as a whole).
def mut_max_stack_minus_one(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "add")
    m.code().max_stack -= 1  # type: ignore[union-attr]
    return "add", 1  # iload_0 iload_1: the second load overflows


def mut_pop_empty_stack(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "add")
    body = disassemble(m)
    body.items.insert(0, Instruction(-1, op.POP))
    write_body(m, body)
    return "add", 0


def mut_wrong_return_opcode(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "add")
    code = m.code()
    at = _offset_of(m, op.IRETURN)
    raw = bytearray(code.code_bytes())  # type: ignore[union-attr]
    raw[at] = op.FRETURN
    code.code = bytes(raw)  # type: ignore[union-attr]
    return "add", at


def mut_areturn_of_int(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "add")
    code = m.code()
    at = _offset_of(m, op.IRETURN)
    raw = bytearray(code.code_bytes())  # type: ignore[union-attr]
    raw[at] = op.ARETURN
    code.code = bytes(raw)  # type: ignore[union-attr]
    return "add", at


def mut_branch_into_instruction(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "loop")
    code = m.code()
    goto = next(i for i in _insns(m) if i.opcode == op.GOTO)
    raw = bytearray(code.code_bytes())  # type: ignore[union-attr]
    delta = int.from_bytes(raw[goto.offset + 1 : goto.offset + 3], "big", signed=True) + 1
    raw[goto.offset + 1 : goto.offset + 3] = delta.to_bytes(2, "big", signed=True)
    code.code = bytes(raw)  # type: ignore[union-attr]
    return "loop", goto.offset


def mut_frame_int_for_reference(cf: ClassFile) -> tuple[str, int]:
    """pick's frame after the if says local 3 (the String) is an int: the branch into it fails."""
    m = _method(cf, "pick")

    def edit(frames: list[Frame]) -> None:
        f = frames[0]
        assert f.locals[3] == Object("java/lang/String"), f
        f.locals[3] = Integer

    _set_frames(cf, m, edit)
    return "pick", _offset_of(m, op.IFLE)


def mut_missing_frame_after_goto(cf: ClassFile) -> tuple[str, int]:
    """Dead code after a goto without a frame (the next frame is further on)."""
    m = _method(cf, "add")
    body = disassemble(m)
    target = Label()
    body.items[0:0] = [Instruction(-1, op.GOTO, target), Instruction(-1, op.NOP), target]
    body.frames[target] = Frame(-1, [Integer, Integer], [])
    write_body(m, body)
    return "add", 3


def mut_handler_end_beyond_code(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "guarded")
    code = m.code()
    code.handlers[0].end_pc = len(code.code_bytes()) + 1  # type: ignore[union-attr]
    return "guarded", -1


def mut_handler_end_inside_instruction(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "guarded")
    code = m.code()
    h = code.handlers[0]  # type: ignore[union-attr]
    starts = {i.offset for i in _insns(m)}
    h.end_pc = next(o for o in range(h.end_pc - 1, h.start_pc, -1) if o not in starts)
    return "guarded", -1


def mut_catch_type_not_throwable(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "guarded")
    code = m.code()
    h = code.handlers[0]  # type: ignore[union-attr]
    h.catch_type = cf.pool.add_class("java/lang/String")
    return "guarded", h.handler_pc


def mut_constructor_without_super(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "<init>")
    code = m.code()
    raw = bytearray(code.code_bytes())  # type: ignore[union-attr]
    ret = _offset_of(m, op.RETURN)
    raw[:ret] = bytes([op.NOP]) * ret  # aload_0; invokespecial Object.<init> -> nops
    code.code = bytes(raw)  # type: ignore[union-attr]
    return "<init>", ret


def _dead_counter(cf: ClassFile, frame_locals: list, keep_max_stack: bool) -> int:
    """bump(node) gets, after its return, an ASM-style dead block (frame: stack [Throwable],
    nop..., athrow) into which a counter update ``aload_1 dup getfield ldc2_w ladd putfield``
    was inserted; returns the block's offset. ``keep_max_stack``: javac's max_stack (what the
    live code needs), as a rewriter that counts only reachable code would leave it."""
    m = _method(cf, "bump")
    live_max_stack = m.code().max_stack  # type: ignore[union-attr]
    body = disassemble(m)
    field = next(i.operand for i in body.instructions() if i.opcode == op.GETFIELD)
    one = cf.pool.add_long(1)
    dead = Label()
    body.items += [
        dead,
        Instruction(-1, op.ALOAD, 1),
        Instruction(-1, op.DUP),
        Instruction(-1, op.GETFIELD, field),
        Instruction(-1, op.LDC2_W, one),
        Instruction(-1, op.LADD),
        Instruction(-1, op.PUTFIELD, field),
        Instruction(-1, op.NOP),
        Instruction(-1, op.NOP),
        Instruction(-1, op.ATHROW),
    ]
    body.frames[dead] = Frame(-1, frame_locals, [Object("java/lang/Throwable")])
    write_body(m, body)
    if keep_max_stack:
        m.code().max_stack = live_max_stack  # type: ignore[union-attr]
    return _offset_of(m, op.RETURN) + 1


def mut_asm_dead_code_counter(cf: ClassFile) -> tuple[str, int]:
    """The reported bug: the dead block's frame has no locals, so ``aload_1`` reads top."""
    return "bump", _dead_counter(cf, [], False)


def mut_asm_dead_code_counter_overflow(cf: ClassFile) -> tuple[str, int]:
    """Same block with the locals in its frame, but max_stack as the live code needs it (5):
    [Throwable] + node + the field (a long, 2 slots) + the constant overflows at the ldc2_w."""
    at = _dead_counter(cf, [Object(cf.name), Object(cf.name)], True)
    return "bump", at + 5  # aload_1 (1 byte), dup (1), getfield (3), ldc2_w


def mut_uninitialized_frame_site(cf: ClassFile) -> tuple[str, int]:
    """A frame whose Uninitialized type names an offset that is not a `new`."""
    from jprewrite.classfile.frames import Uninitialized

    m = _method(cf, "pick")

    def edit(frames: list[Frame]) -> None:
        frames[0].stack.append(Uninitialized(1))

    m.code().max_stack += 1  # type: ignore[union-attr]
    _set_frames(cf, m, edit)
    return "pick", None  # type: ignore[return-value]  # (HotSpot: ClassFormatError, no offset)


def mut_long_split_by_store(cf: ClassFile) -> tuple[str, int]:
    """``lload`` of a long whose second half was overwritten by an int store."""
    m = _method(cf, "add")
    body = disassemble(m)
    body.items[0:0] = [
        Instruction(-1, op.LCONST_1),
        Instruction(-1, op.LSTORE, 2),
        Instruction(-1, op.ICONST_0),
        Instruction(-1, op.ISTORE, 3),
        Instruction(-1, op.LLOAD, 2),
        Instruction(-1, op.POP2),
    ]
    write_body(m, body)
    return "add", 4  # lconst_1 lstore_2 iconst_0 istore_3 | lload_2


def mut_lvtt_matching_no_lvt_entry(cf: ClassFile) -> tuple[str, int]:
    """A LocalVariableTypeTable row whose range no longer matches its LocalVariableTable row
    (what a rewriter that shifts one table and forgets the other produces)."""
    m = _method(cf, "size")
    lvtt = m.code().attribute("LocalVariableTypeTable", cf.pool)  # type: ignore[union-attr]
    start, length, name, sig, slot = lvtt.rows[-1]  # type: ignore[union-attr]
    lvtt.rows[-1] = (start, length - 1, name, sig, slot)  # type: ignore[union-attr]
    return "size", -1


def mut_line_number_past_the_code(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "add")
    code = m.code()
    lnt = code.attribute("LineNumberTable", cf.pool)  # type: ignore[union-attr]
    lnt.rows.append((len(code.code_bytes()), 99))  # type: ignore[union-attr]
    return "add", -1


def mut_duplicate_method(cf: ClassFile) -> tuple[str, int]:
    m = _method(cf, "add")
    twin = Method(m.access, m.name_index, m.descriptor_index, list(m.attributes), cf)
    cf.methods.append(twin)
    return "add", -1


MUTATIONS = [
    mut_max_stack_minus_one,
    mut_pop_empty_stack,
    mut_wrong_return_opcode,
    mut_areturn_of_int,
    mut_branch_into_instruction,
    mut_frame_int_for_reference,
    mut_missing_frame_after_goto,
    mut_handler_end_beyond_code,
    mut_handler_end_inside_instruction,
    mut_catch_type_not_throwable,
    mut_constructor_without_super,
    mut_asm_dead_code_counter,
    mut_asm_dead_code_counter_overflow,
    mut_uninitialized_frame_site,
    mut_long_split_by_store,
    mut_lvtt_matching_no_lvt_entry,
    mut_line_number_past_the_code,
    mut_duplicate_method,
]


def _class_name(mutation) -> str:
    return "M_" + mutation.__name__[len("mut_") :]


_LOCATION = re.compile(r"Location: \|\s+(\S+?)\(\S* @(\d+):")
# where HotSpot was when it found the problem (Location is the branch target for frame mismatches)
_CURRENT = re.compile(r"Current Frame: \|\s+bci: @(\d+)")


class _Mutated:
    """The mutated classes of FIXTURE, our verdicts on them, and HotSpot's."""

    def __init__(self, root: Path) -> None:
        sources = {f"{_class_name(m)}.java": FIXTURE.replace("{C}", _class_name(m)) for m in MUTATIONS}
        sources["Intact.java"] = FIXTURE.replace("{C}", "Intact")
        classes = javac(sources, root / "classes", "--release", "11", "-g")
        self.h = hierarchy(DirSource(classes))
        self.intact = verify_class(read_class((classes / "Intact.class").read_bytes()), self.h)
        out = root / "mutated"
        out.mkdir()
        shutil.copy(classes / "Intact.class", out)
        self.ours: dict[str, tuple[str, int | None, list[VerifyProblem]]] = {}
        for mutation in MUTATIONS:
            name = _class_name(mutation)
            cf = read_class((classes / f"{name}.class").read_bytes())
            method, offset = mutation(cf)
            problems = verify_method(cf, _method(cf, method), self.h)
            self.ours[name] = (method, offset, problems)
            (out / f"{name}.class").write_bytes(cf.to_bytes())
        self.hotspot = verify_jvm([out])


@pytest.fixture(scope="module")
def mutated():
    if not HAVE_JDK:
        pytest.skip("needs a JDK")
    root = Path(tempfile.mkdtemp(prefix="jprewrite-verifier-"))
    try:
        yield _Mutated(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@needs_jdk
def test_intact_fixture_accepted_by_both(mutated: _Mutated) -> None:
    assert mutated.intact == []
    assert "Intact" in mutated.hotspot.ok, mutated.hotspot.failed.get("Intact")


@needs_jdk
@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.__name__[4:] for m in MUTATIONS])
def test_mutation_rejected_by_both_at_the_same_offset(mutated: _Mutated, mutation) -> None:
    name = _class_name(mutation)
    method, offset, problems = mutated.ours[name]
    hotspot = mutated.hotspot.failed.get(name)
    assert hotspot is not None, f"HotSpot accepted {name} ({mutated.hotspot})"
    assert problems, f"we accepted {name}.{method}; HotSpot says: {hotspot[:300]}"
    assert len(problems) == 1
    ours = problems[0]
    if offset is not None:
        assert ours.offset == offset, f"{ours} (expected @{offset}); HotSpot: {hotspot[:300]}"
    where = _LOCATION.search(hotspot)
    if where is not None:  # a VerifyError names the method and offset; a ClassFormatError does not
        assert where.group(1) == f"{name}.{method}", hotspot[:300]
        current = _CURRENT.search(hotspot)
        at = int(current.group(1) if current is not None else where.group(2))
        assert at == ours.offset, f"ours: {ours}; HotSpot: {hotspot[:400]}"
    else:
        assert "ClassFormatError" in hotspot, hotspot[:300]


# ======================================================= 4. version < 50
OLD = """
public class Old {
    long count;
    static int add(int a, int b) { return a + b; }
    int loop(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
    String pick(Object o, int x) { String s = "a"; if (x > 0) { s = o.toString(); } return s; }
    int guarded(int x) { try { return 10 / x; } catch (ArithmeticException e) { return -1; } }
    static int fin(int x) { return x; }
}
"""


def _to_version_49(cf: ClassFile) -> None:
    """A javac --release 8 class as a version-49 class: no StackMapTable (none needed)."""
    cf.major, cf.minor = 49, 0
    for m in cf.methods:
        code = m.code()
        if code is not None:
            code.attributes = [a for a in code.attributes if cf.pool.utf8(a.name_index) != "StackMapTable"]


def _with_subroutine(cf: ClassFile) -> None:
    """fin(x): x += 1 in a try whose finally (x += 2) is a jsr/ret subroutine, as javac 1.4 did::

    L0: iload_0 iconst_1 iadd istore_0  L1: jsr SUB  iload_0 ireturn
    H:  astore_2 jsr SUB aload_2 athrow           (catch-all over [L0, L1))
    SUB: astore_1 iinc 0 2 ret 1
    """
    m = _method(cf, "fin")
    body = disassemble(m)
    l0, l1, handler, sub = Label(), Label(), Label(), Label()
    body.items = [
        l0,
        Instruction(-1, op.ILOAD, 0),
        Instruction(-1, op.ICONST_1),
        Instruction(-1, op.IADD),
        Instruction(-1, op.ISTORE, 0),
        l1,
        Instruction(-1, op.JSR, sub),
        Instruction(-1, op.ILOAD, 0),
        Instruction(-1, op.IRETURN),
        handler,
        Instruction(-1, op.ASTORE, 2),
        Instruction(-1, op.JSR, sub),
        Instruction(-1, op.ALOAD, 2),
        Instruction(-1, op.ATHROW),
        sub,
        Instruction(-1, op.ASTORE, 1),
        Iinc(-1, 0, 2),
        Instruction(-1, op.RET, 1),
    ]
    body.handlers = [Handler(l0, l1, handler, 0)]
    body.lines, body.local_variables, body.local_variable_types = [], [], []
    body.max_locals = 3
    write_body(m, body)


@pytest.fixture(scope="module")
def old_classes():
    if not HAVE_JDK:
        pytest.skip("needs a JDK")
    root = Path(tempfile.mkdtemp(prefix="jprewrite-verifier-old-"))
    try:
        classes = javac({"Old.java": OLD}, root / "classes", "--release", "8", "-g")
        yield root, read_class((classes / "Old.class").read_bytes())
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _write(root: Path, name: str, cf: ClassFile) -> Path:
    d = root / name
    d.mkdir()
    (d / f"{cf.name}.class").write_bytes(cf.to_bytes())
    return d


@needs_jdk
def test_version_49_with_subroutines_accepted_by_both(old_classes) -> None:
    root, original = old_classes
    cf = read_class(original.to_bytes())
    _to_version_49(cf)
    _with_subroutine(cf)
    d = _write(root, "valid", cf)
    cf = read_class((d / "Old.class").read_bytes())
    assert cf.major == 49
    assert any(i.opcode == op.JSR for i in _insns(_method(cf, "fin")))
    problems = verify_class(cf, hierarchy())
    assert not problems, describe(problems)
    report = verify_jvm([d])
    assert report.ok == ["Old"], report.failed


@needs_jdk
@pytest.mark.parametrize("method, offset", [("add", 1), ("loop", None), ("fin", 1)])
def test_version_49_max_stack_too_small_rejected_by_both(old_classes, method: str, offset) -> None:
    root, original = old_classes
    cf = read_class(original.to_bytes())
    _to_version_49(cf)
    _with_subroutine(cf)
    cf = read_class(cf.to_bytes())
    m = _method(cf, method)
    m.code().max_stack -= 1  # type: ignore[union-attr]
    problems = verify_method(cf, m, hierarchy())
    assert problems and "stack overflow" in problems[0].reason, problems
    if offset is not None:
        assert problems[0].offset == offset, problems
    report = verify_jvm([_write(root, f"small-{method}", cf)])
    assert "Old" in report.failed, report


@needs_jdk
def test_version_49_ret_of_a_non_address_rejected_by_both(old_classes) -> None:
    root, original = old_classes
    cf = read_class(original.to_bytes())
    _to_version_49(cf)
    _with_subroutine(cf)
    cf = read_class(cf.to_bytes())
    m = _method(cf, "fin")
    code = m.code()
    ret = _offset_of(m, op.RET)
    raw = bytearray(code.code_bytes())  # type: ignore[union-attr]
    raw[ret + 1] = 0  # ret 0: local 0 is the int x
    code.code = bytes(raw)  # type: ignore[union-attr]
    problems = verify_method(cf, m, hierarchy())
    assert problems and problems[0].offset == ret, problems
    report = verify_jvm([_write(root, "bad-ret", cf)])
    assert "Old" in report.failed, report


def test_version_50_with_subroutines_verified_by_inference(old_classes) -> None:
    """Version 50 may still use jsr/ret (JVMS 4.9.1); no frame can describe them, so HotSpot verifies
    such a class with the old verifier, and so do we. (The HotSpot harness counts that fallback as a
    failure, so only our side is checked here.)"""
    _, original = old_classes
    cf = read_class(original.to_bytes())
    _to_version_49(cf)
    cf.major = 50
    _with_subroutine(cf)
    cf = read_class(cf.to_bytes())
    m = _method(cf, "fin")
    assert verify_method(cf, m, hierarchy()) == []
    # (its other methods have branches and no frames: rejected, as the project's rule wants,
    # although HotSpot would fall back to the old verifier for them too)
    assert verify_method(cf, _method(cf, "loop"), hierarchy())
    m.code().max_stack -= 1  # type: ignore[union-attr]
    problems = verify_method(cf, m, hierarchy())
    assert problems and problems[0].offset == 1 and "stack overflow" in problems[0].reason, problems


def test_jsr_rejected_from_version_51() -> None:
    """jsr/ret are illegal from version 51 (JVMS 4.9.1), whatever else the method does."""
    cf = ClassFile()
    cf.major = 52
    cf.this_class = cf.pool.add_class("T")
    cf.super_class = cf.pool.add_class("java/lang/Object")
    from jprewrite.classfile.code import CodeAttribute

    code = bytes([op.JSR, 0, 4, op.RETURN, op.ASTORE_0, op.RET, 0])
    attr = CodeAttribute(cf.pool.add_utf8("Code"), 1, 1, code, [], [])
    m = Method(0x0008, cf.pool.add_utf8("f"), cf.pool.add_utf8("()V"), [attr], cf)
    cf.methods.append(m)
    problems = verify_method(cf, m, None)
    assert problems and problems[0].offset == 0 and "version 51" in problems[0].reason, problems


# ================================================================ API details
def test_verify_class_filters_methods_and_checks_code_presence() -> None:
    cf = ClassFile()
    cf.major = 52
    cf.this_class = cf.pool.add_class("T")
    cf.super_class = cf.pool.add_class("java/lang/Object")
    from jprewrite.classfile.code import CodeAttribute

    ok = CodeAttribute(cf.pool.add_utf8("Code"), 0, 0, bytes([op.RETURN]), [], [])
    small = CodeAttribute(cf.pool.add_utf8("Code"), 0, 0, bytes([op.ICONST_0, op.IRETURN]), [], [])
    cf.methods = [
        Method(0x0008, cf.pool.add_utf8("a"), cf.pool.add_utf8("()V"), [ok], cf),
        Method(0x0008, cf.pool.add_utf8("b"), cf.pool.add_utf8("()I"), [small], cf),
        Method(0x0008, cf.pool.add_utf8("c"), cf.pool.add_utf8("()V"), [], cf),
    ]
    assert [str(p) for p in verify_class(cf, None)] == [
        "T.b()I @0: stack overflow (max_stack 0)",
        "T.c()V: a method that is neither abstract nor native has no Code attribute",
    ]
    assert verify_class(cf, None, {("a", "()V")}) == []
    assert [p.method for p in verify_class(cf, None, {("b", "()I")})] == ["T.b()I"]


def test_falling_off_the_end_and_handler_frames() -> None:
    cf = ClassFile()
    cf.major = 52
    cf.this_class = cf.pool.add_class("T")
    cf.super_class = cf.pool.add_class("java/lang/Object")
    from jprewrite.classfile.code import CodeAttribute

    falls = CodeAttribute(cf.pool.add_utf8("Code"), 1, 0, bytes([op.ICONST_0, op.POP]), [], [])
    m = Method(0x0008, cf.pool.add_utf8("f"), cf.pool.add_utf8("()V"), [falls], cf)
    cf.methods = [m]
    assert [str(p) for p in verify_method(cf, m, None)] == ["T.f()V @2: execution falls off the end of the code"]
    # a handler without a frame at its entry
    handled = CodeAttribute(
        cf.pool.add_utf8("Code"), 1, 0, bytes([op.NOP, op.RETURN, op.ATHROW]), [ExceptionHandler(0, 1, 2, 0)], []
    )
    m.attributes = [handled]
    problems = verify_method(cf, m, None)
    assert [(p.offset, p.reason) for p in problems] == [(0, "exception handler 2 has no stack map frame")]
