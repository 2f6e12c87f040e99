"""The code editor on real javac output, run by the real JVM with the verifier on.

Each test edits compiled classes, writes them back, and runs them with
``-Xverify:all``: an edit is correct only when the JVM accepts the class and
the program prints exactly what it printed before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jprewrite.analysis.typeflow import State, execute
from jprewrite.classfile import opcodes as op
from jprewrite.classfile.constants import ConstantPool
from jprewrite.classfile.frames import Frame, Integer, Top
from jprewrite.classfile.instructions import Fragment, Instruction
from jprewrite.classfile.model import read_class
from jprewrite.editor import (
    AssemblyError,
    CodeBody,
    CodeTooLargeError,
    Label,
    assemble,
    disassemble,
    encode_straight,
    make_fragment,
    peak_depth,
    write_body,
)
from jprewrite.editor.assembler import layout
from jprewrite.editor.params import insert_parameter

from support.jdk import class_files, javac, run, tool
from support.verifier import verify_asm, verify_jvm

PROGRAM = {
    "demo/Main.java": """
package demo;
import java.util.*;
public class Main {
    int base;
    Main(int b) { super(); base = b; }
    Main(long l, double d) { this((int) (l + (long) d)); }
    static int branchy(int x) {
        if (x > 10) { return x * 2; }
        int s = 0;
        for (int i = 0; i < x; i++) { s += i % 3 == 0 ? i : -i; }
        return s;
    }
    static long mix(int a, long b, double c, long last) { return a + b + (long) c + last; }
    double inst(long a, double b) { return a * b + base; }
    static String sw(int k) {
        switch (k) {
            case 0: return "zero"; case 1: return "one"; case 2: return "two"; case 3: return "three";
            case 100: return "hundred"; case 1000: return "thousand";
            default: return "other";
        }
    }
    static String tables(int k) {
        switch (k) { case 5: return "a"; case 6: return "b"; case 7: return "c"; case 8: return "d"; default: return "z"; }
    }
    static int tryer(String s) {
        try { return Integer.parseInt(s); }
        catch (NumberFormatException e) { return -1; }
        finally { counter++; }
    }
    static int counter;
    public static void main(String[] args) {
        System.out.println(branchy(3) + " " + branchy(20));
        System.out.println(mix(1, 2L, 3.5, 4L));
        System.out.println(new Main(5).inst(3L, 2.5) + " " + new Main(7L, 1.5).base);
        for (int k : new int[] {0, 1, 2, 3, 100, 1000, 7}) System.out.print(sw(k) + tables(k + 5) + ",");
        System.out.println();
        System.out.println(tryer("12") + tryer("x") + " " + counter);
        List<Integer> l = new ArrayList<>(List.of(3, 1, 2));
        l.sort(Comparator.reverseOrder());
        System.out.println(l);
    }
}
""",
}


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    return javac(PROGRAM, tmp_path_factory.mktemp("editor") / "classes", "--release", "11", "-g")


def _java(classes: Path) -> str:
    return run([tool("java"), "-Xverify:all", "-cp", str(classes), "demo.Main"]).stdout


def _copy(src: Path, dst: Path) -> Path:
    for f in class_files(src):
        target = dst / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(f.read_bytes())
    return dst


def _edit_main(classes: Path, edit) -> None:
    path = classes / "demo" / "Main.class"
    cf = read_class(path.read_bytes())
    edit(cf)
    path.write_bytes(cf.to_bytes())


def test_unchanged_bodies_reassemble_identically(program) -> None:
    for f in class_files(program):
        data = f.read_bytes()
        cf = read_class(data)
        for m in cf.methods:
            if m.code() is not None:
                write_body(m, disassemble(m))
        assert cf.to_bytes() == data, f


def test_nops_everywhere_keep_behaviour(program, tmp_path) -> None:
    """A nop before every instruction moves every offset, switch alignment and frame."""
    expected = _java(program)
    classes = _copy(program, tmp_path)

    def edit(cf):
        for m in cf.methods:
            if m.code() is None:
                continue
            body = disassemble(m)
            items = []
            for item in body.items:
                if not isinstance(item, Label):
                    items.append(Instruction(-1, op.NOP))
                items.append(item)
            body.items = items
            write_body(m, body)

    _edit_main(classes, edit)
    assert _java(classes) == expected


@pytest.mark.parametrize("padding", [0, 1, 2, 3])
def test_switches_at_every_alignment(program, tmp_path, padding) -> None:
    expected = _java(program)
    classes = _copy(program, tmp_path)

    def edit(cf):
        for name in ("sw", "tables"):
            m = cf.method(name)
            body = disassemble(m)
            first = next(i for i, x in enumerate(body.items) if not isinstance(x, Label))
            body.insert(first, [Instruction(-1, op.NOP) for _ in range(padding)])
            write_body(m, body)

    _edit_main(classes, edit)
    assert _java(classes) == expected


@pytest.mark.parametrize("excess", [-1, 0, 1, 7000])
def test_branch_widening_on_both_sides_of_the_limit(program, tmp_path, excess) -> None:
    """Push the target of branchy's first `if` to exactly +32767 bytes away, and past it."""
    expected = _java(program)
    classes = _copy(program, tmp_path)
    widened = {}

    def edit(cf):
        m = cf.method("branchy")
        body = disassemble(m)
        i = next(i for i, x in enumerate(body.items) if not isinstance(x, Label) and x.opcode in op.BRANCH_OPCODES)
        positions, _ = layout(body)
        distance = body.items[i].operand.offset - positions[i]
        # nops right after the conditional branch move its target further away
        gap = 32767 - distance + excess
        body.insert(i + 1, [Instruction(-1, op.NOP) for _ in range(gap)])
        positions, long = layout(body)
        widened["conditional"] = i in long
        # after the (possibly inverted) branch the stack is empty and local 0 holds the int x
        write_body(m, body, frame_after=lambda _i: Frame(-1, [Integer], []))
        if i in long:
            ops = [x.opcode for x in m.code().instructions()]
            assert op.GOTO_W in ops

    _edit_main(classes, edit)
    assert widened["conditional"] == (excess > 0)
    assert _java(classes) == expected


def test_wide_locals(program, tmp_path) -> None:
    """Locals past slot 255 need the `wide` prefix; shifting every local by 300 forces it."""
    expected = _java(program)
    classes = _copy(program, tmp_path)

    def edit(cf):
        m = cf.method("branchy")
        body = disassemble(m)
        slot = body.new_local()
        while slot < 300:
            slot = body.new_local()
        first = next(i for i, x in enumerate(body.items) if not isinstance(x, Label))
        body.insert(
            first,
            [
                Instruction(-1, op.ICONST_5),
                Instruction(-1, op.ISTORE, slot),
                Instruction(-1, op.ILOAD, slot),
                Instruction(-1, op.POP),
            ],
        )
        write_body(m, body)
        assert m.code().max_locals == 301
        assert any(i.wide for i in m.code().instructions())

    _edit_main(classes, edit)
    assert _java(classes) == expected


def test_code_too_large_is_typed_and_leaves_method_alone(program) -> None:
    cf = read_class((program / "demo" / "Main.class").read_bytes())
    m = cf.method("branchy")
    before = m.code().encode(cf.pool)
    body = disassemble(m)
    body.insert(1, [Instruction(-1, op.NOP) for _ in range(65536)])
    with pytest.raises(CodeTooLargeError):
        write_body(m, body)
    assert m.code().encode(cf.pool) == before


@pytest.mark.parametrize(
    "method, position",
    [
        ("mix", 4),  # after a long in the last parameter slot
        ("mix", 0),
        ("mix", 2),
        ("inst", 2),  # instance method, after a double
        ("inst", 0),
    ],
)
def test_insert_parameter_verifies(program, tmp_path, method, position) -> None:
    classes = _copy(program, tmp_path)
    slots = {}

    def edit(cf):
        m = cf.method(method)
        slots["slot"] = insert_parameter(m, position, "Ljava/lang/Object;")

    _edit_main(classes, edit)
    cf = read_class((classes / "demo" / "Main.class").read_bytes())
    m = cf.method(method)
    assert "Ljava/lang/Object;" in m.descriptor
    lvt = m.code().attribute("LocalVariableTable", cf.pool)
    names = {cf.pool.utf8(row[2]): row[4] for row in lvt.rows}
    if method == "mix":
        assert names["a"] == (1 if position == 0 else 0)
        assert names["last"] == 5 + (1 if position <= 3 else 0)
        assert slots["slot"] == [0, 1, 3, 5, 7][position]
    # both verifiers must accept the changed class (main calls the old signature, so only link it)
    verify_jvm([classes]).assert_clean()
    verify_asm([classes]).assert_clean()


def test_insert_parameter_with_callers_passing_null(program, tmp_path) -> None:
    """Add a trailing parameter to mix(...) and make its caller pass null: output unchanged."""
    expected = _java(program)
    classes = _copy(program, tmp_path)

    def edit(cf):
        m = cf.method("mix")
        old = m.descriptor
        insert_parameter(m, 4, "Ljava/lang/Object;")
        new_ref = cf.pool.add_methodref("demo/Main", "mix", m.descriptor)
        main = cf.method("main")
        body = disassemble(main)
        for item in list(body.items):
            if (
                not isinstance(item, Label)
                and item.opcode == op.INVOKESTATIC
                and cf.pool.member_ref(item.operand) == ("demo/Main", "mix", old)
            ):
                item.operand = new_ref
                body.insert(body.index_of(item), [Instruction(-1, op.ACONST_NULL)])
        write_body(main, body)

    _edit_main(classes, edit)
    assert _java(classes) == expected


def test_insert_parameter_when_a_long_reuses_the_last_parameter_slot(tmp_path) -> None:
    """kotlinc reuses a dead parameter's slot for a long: the long must not straddle the new parameter."""
    from jprewrite.classfile.frames import Long
    from jprewrite.classfile.frames import Object as ObjectType
    from jprewrite.classfile.model import ACC_PUBLIC, ACC_STATIC, ACC_SUPER, ClassFile, Method
    from jprewrite.editor.assembler import assemble
    from jprewrite.editor.body import CodeBody

    cf = ClassFile()
    cf.major, cf.minor = 52, 0
    pool = cf.pool
    cf.access = ACC_PUBLIC | ACC_SUPER
    cf.this_class = pool.add_class("K")
    cf.super_class = pool.add_class("java/lang/Object")
    after = Label("after")
    # static long m(int x, Object dead): dead's slot 1 is reused by a long in slots 1-2
    items = [
        Instruction(-1, op.LCONST_1),
        Instruction(-1, op.LSTORE, 1),
        Instruction(-1, op.ILOAD, 0),
        Instruction(-1, op.IFEQ, after),
        Instruction(-1, op.LLOAD, 1),
        Instruction(-1, op.LCONST_1),
        Instruction(-1, op.LADD),
        Instruction(-1, op.LSTORE, 1),
        after,
        Instruction(-1, op.LLOAD, 1),
        Instruction(-1, op.LRETURN),
    ]
    body = CodeBody(items=items, max_locals=3)
    body.frames[after] = Frame(-1, [Integer, Long], [])
    code = assemble(body, pool, frames=True, name_index=pool.add_utf8("Code"))
    m = Method(ACC_PUBLIC | ACC_STATIC, pool.add_utf8("m"), pool.add_utf8("(ILjava/lang/Object;)J"), [code], cf)
    cf.methods.append(m)
    main = [
        Instruction(-1, op.GETSTATIC, pool.add_fieldref("java/lang/System", "out", "Ljava/io/PrintStream;")),
        Instruction(-1, op.ICONST_1),
        Instruction(-1, op.ACONST_NULL),
        Instruction(-1, op.ACONST_NULL),
        Instruction(-1, op.INVOKESTATIC, pool.add_methodref("K", "m", "(ILjava/lang/Object;Ljava/lang/Object;)J")),
        Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref("java/io/PrintStream", "println", "(J)V")),
        Instruction(-1, op.RETURN),
    ]
    main_code = assemble(CodeBody(items=main, max_locals=1), pool, frames=True, name_index=pool.add_utf8("Code"))
    cf.methods.append(
        Method(ACC_PUBLIC | ACC_STATIC, pool.add_utf8("main"), pool.add_utf8("([Ljava/lang/String;)V"), [main_code], cf)
    )
    slot = insert_parameter(m, 2, "Ljava/lang/Object;")
    assert slot == 2
    ops = [(i.opcode, i.operand) for i in m.code().instructions()]
    assert (op.LSTORE, 1) not in ops and (op.LSTORE, 4) in ops  # the long moved above everything
    frame = m.code().attribute("StackMapTable", pool).frames(pool)[0]
    assert frame.locals == [Integer, Top, ObjectType("java/lang/Object"), Top, Long]
    (tmp_path / "K.class").write_bytes(cf.to_bytes())
    out = run([tool("java"), "-Xverify:all", "-cp", str(tmp_path), "K"])
    assert out.stdout.strip() == "2"


def _spread_neutral_code(pool, m, *, as_fragments: bool) -> None:
    """Before every instruction of ``m``: ``System.out`` pushed twice and popped (neutral code
    with a peak of two slots above the depth it finds), written out or as fragments."""
    out = pool.add_fieldref("java/lang/System", "out", "Ljava/io/PrintStream;")
    steps = [Instruction(-1, op.GETSTATIC, out), Instruction(-1, op.DUP), Instruction(-1, op.POP2)]
    made = make_fragment(steps, pool)
    assert (made.peak, made.max_locals) == (2, 0)
    body = disassemble(m)
    items: list = []
    for item in body.items:
        if not isinstance(item, Label):
            if as_fragments:
                items.append(Fragment(made.code, made.peak, made.max_locals))
            else:
                items += [Instruction(-1, x.opcode, x.operand) for x in steps]
        items.append(item)
    body.items = items
    write_body(m, body)


def test_fragments_assemble_as_the_instructions_they_stand_for(program, tmp_path) -> None:
    """A body with fragments is written byte for byte as with the instructions written out
    (code, max_stack: the fragment's peak above the depth it finds, max_locals, handlers,
    frames); the type flow steps over a fragment; the class verifies and runs as before."""
    data = (program / "demo" / "Main.class").read_bytes()
    with_fragments, written_out = read_class(data), read_class(data)
    for m, m2 in zip(with_fragments.methods, written_out.methods):
        if m.code() is None:
            continue
        _spread_neutral_code(with_fragments.pool, m, as_fragments=True)
        _spread_neutral_code(written_out.pool, m2, as_fragments=False)
        a, b = m.code(), m2.code()
        assert (a.code, a.max_stack, a.max_locals) == (b.code, b.max_stack, b.max_locals), m.name
    assert with_fragments.to_bytes() == written_out.to_bytes()
    state = State([Integer, Top], [Integer])
    assert execute(state, Fragment(b"\x00", 3, 0), with_fragments.pool, "demo/Main") == state
    expected = _java(program)
    out = _copy(program, tmp_path / "classes")
    _edit_main(
        out,
        lambda cf: [_spread_neutral_code(cf.pool, m, as_fragments=True) for m in cf.methods if m.code() is not None],
    )
    verify_jvm([out]).assert_clean()
    assert _java(out) == expected


def test_a_fragment_is_straight_neutral_code() -> None:
    """make_fragment refuses what cannot be copied anywhere: labels, branches, returns, and code
    that takes values it did not push or leaves the stack deeper."""
    pool = ConstantPool()
    for items in (
        [Label("x")],
        [Instruction(-1, op.ICONST_0), Instruction(-1, op.IFEQ, Label("t"))],
        [Instruction(-1, op.RETURN)],
        [Instruction(-1, op.POP)],
        [Instruction(-1, op.ICONST_0)],
        [Instruction(-1, op.ACONST_NULL), Instruction(-1, op.ATHROW)],
    ):
        with pytest.raises(AssemblyError):
            make_fragment(items, pool)
    wide = make_fragment([Instruction(-1, op.LLOAD, 300), Instruction(-1, op.POP2)], pool)
    assert (wide.code, wide.peak, wide.max_locals) == (bytes((op.WIDE, op.LLOAD, 1, 44, op.POP2)), 2, 302)


def test_straight_code_encodes_as_the_assembler_and_says_its_depths() -> None:
    """encode_straight (what wrappers written as bytes are made of) gives the bytes, the depth
    after and the peak relative to the start, and the locals reached; it refuses control flow
    and code that takes what it did not push, but not code that leaves values or stores."""
    pool = ConstantPool()
    get = pool.add_methodref("java/lang/Long", "valueOf", "(J)Ljava/lang/Long;")
    items = [
        Instruction(-1, op.LLOAD, 2),
        Instruction(-1, op.INVOKESTATIC, get),
        Instruction(-1, op.ASTORE, 254),
        Instruction(-1, op.ALOAD, 254),
        Instruction(-1, op.DCONST_1),
    ]
    code, depth, peak, max_locals = encode_straight(items, pool)
    body = CodeBody(items=[*items, Instruction(-1, op.POP2), Instruction(-1, op.ARETURN)], max_locals=0)
    assembled = assemble(body, pool, frames=False)
    assert code == assembled.code[: len(code)]
    assert (depth, peak, max_locals) == (3, 3, 255)
    for bad in (
        [Label("x")],
        [Instruction(-1, op.ICONST_0), Instruction(-1, op.IFEQ, Label("t"))],
        [Instruction(-1, op.RETURN)],
        [Instruction(-1, op.POP)],
        [Instruction(-1, op.ACONST_NULL), Instruction(-1, op.ATHROW)],
    ):
        with pytest.raises(AssemblyError):
            encode_straight(bad, pool)


def test_locals_of_a_body_with_fragments_cannot_move() -> None:
    """A fragment's local slots are in its bytes: moving a body's locals after fragments went in
    would leave them reading the wrong slots, so it is refused."""
    pool = ConstantPool()
    made = make_fragment([Instruction(-1, op.ILOAD, 1), Instruction(-1, op.POP)], pool)
    body = CodeBody(items=[made, Instruction(-1, op.RETURN)], max_locals=2)
    with pytest.raises(ValueError):
        body.shift_locals(1, 2)


def test_peak_depth_of_inserted_code() -> None:
    """``peak_depth``: how far a straight run rises above the depth it starts at: fixed effects,
    the pool's (a long field takes two slots), a fragment's peak on top of the depth before it,
    labels nothing; a run that first takes values off (a pending call's spill) counts from its start."""
    pool = ConstantPool()
    field = pool.add_fieldref("p/C", "count", "J")
    call = pool.add_methodref("p/C", "take", "(JI)V")
    skip = Label()
    items = [
        Instruction(-1, op.ALOAD, 0),
        Instruction(-1, op.GETSTATIC, field),  # 3
        Instruction(-1, op.ICONST_1),  # 4
        Instruction(-1, op.INVOKESTATIC, call),  # 1
        skip,
        Fragment(b"\x00", 5, 0),  # 1 + 5
        Instruction(-1, op.POP),
    ]
    assert peak_depth(items, pool) == 6
    assert peak_depth([Instruction(-1, op.ISTORE, 4), Instruction(-1, op.ILOAD, 4)], pool) == 0
    assert peak_depth([], pool) == 0
