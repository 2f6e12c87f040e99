"""Type flow and frame computation (jprewrite.analysis.typeflow / .frames) against javac and the JVM.

* Transfer functions by hand: every family of opcodes, the dup forms on
  category-1/2 values, ``new``/``<init>``, ldc of every constant kind, jsr.
* (a) ``infer_frames`` on every method of real javac classes with their
  frames removed: written back, the classes must pass HotSpot's verifier
  (``-Xverify:all``, which checks the StackMapTable) and ASM's.
* (b) the inferred frames sit exactly where javac put frames, with types
  equal to javac's or assignable (javac keeps declared types).
* (c) ``flow_to`` from the previous frame reproduces javac's frame wherever
  straight-line flow reaches it, on the fixtures and on all of java.base.
* ``complete_frames`` / ``frame_after_provider`` after real insertions.
"""

from __future__ import annotations

import atexit
import collections
import functools
import multiprocessing
import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from jprewrite.analysis.frames import check_frames, complete_frames, frame_after_provider, labels_needing_frames
from jprewrite.analysis.typeflow import (
    FrameUnknown,
    InferenceReport,
    State,
    SubroutineError,
    TypeflowError,
    TypeMerger,
    execute,
    flow_to,
    flow_to_each,
    frame_from_state,
    infer_frames,
    initial_state,
    merge_states,
    state_assignable,
    state_from_frame,
)
from jprewrite.classfile import constants as C
from jprewrite.classfile import opcodes as op
from jprewrite.classfile.constants import ConstantPool
from jprewrite.classfile.descriptors import parse_method_descriptor
from jprewrite.classfile.frames import (
    Double,
    Float,
    Frame,
    Integer,
    Long,
    Null,
    Object,
    Top,
    Uninitialized,
    UninitializedThis,
)
from jprewrite.classfile.instructions import Iinc, Instruction, InvokeDynamic, InvokeInterface, MultiANewArray
from jprewrite.classfile.model import ACC_STATIC, read_class
from jprewrite.editor import Handler, Label, disassemble, write_body
from jprewrite.editor.assembler import layout

try:
    from support.jdk import java_home
    from support.verifier import verify_asm, verify_jvm

    HAVE_JDK = (java_home() / "bin" / "javac").exists()
except Exception:  # pragma: no cover - no JDK
    HAVE_JDK = False

needs_jdk = pytest.mark.skipif(not HAVE_JDK, reason="needs a JDK (javac, java) and ASM")

S = Object("java/lang/String")
OBJ = Object("java/lang/Object")


def I(o: int, operand=None) -> Instruction:  # noqa: E743
    return Instruction(-1, o, operand)


# ============================================================ a tiny hierarchy
class _Info:
    def __init__(self, name, super_name, interface=False):
        self.name, self.super_name, self.is_interface = name, super_name, interface


class FakeHierarchy:
    """Object <- Animal <- Dog <- Puppy, Animal <- Cat, Object <- Lost(super missing); Pet interface."""

    def __init__(self):
        self.infos = {
            n: _Info(n, s, i)
            for n, s, i in [
                ("java/lang/Object", None, False),
                ("Animal", "java/lang/Object", False),
                ("Dog", "Animal", False),
                ("Puppy", "Dog", False),
                ("Cat", "Animal", False),
                ("Pet", "java/lang/Object", True),
                ("Orphan", "Gone", False),
            ]
        }

    def info(self, name):
        return self.infos.get(name)

    def superclasses(self, name):
        while name is not None and name in self.infos:
            yield self.infos[name]
            name = self.infos[name].super_name


# ============================================================ unit tests: states
def test_state_frame_conversions():
    f = Frame(7, [Object("A"), Long, Integer, Double], [Long, S])
    st = state_from_frame(f)
    assert st.locals == [Object("A"), Long, Top, Integer, Double, Top]
    assert st.stack == [Long, S] and st.stack_slots == 3
    back = frame_from_state(st, 7)
    assert back.locals == f.locals and back.stack == f.stack and back.kind is None
    # trailing Tops are trimmed, Tops inside are kept
    st2 = State([Integer, Top, Long, Top, Top, Top], [])
    assert frame_from_state(st2).locals == [Integer, Top, Long]
    assert frame_from_state(State([Top, Top], [])).locals == []
    assert initial_state("p/C", "<init>", "(JLjava/lang/String;)V", False).locals == [UninitializedThis, Long, Top, S]
    assert initial_state("p/C", "m", "(D[I)V", True).locals == [Double, Top, Object("[I")]


def _pool():
    pool = ConstantPool()
    refs = dict(
        cls=pool.add_class("p/Foo"),
        arr_cls=pool.add_class("[[I"),
        fld_long=pool.add_fieldref("p/Foo", "n", "J"),
        fld_str=pool.add_fieldref("p/Foo", "s", "[Ljava/lang/String;"),
        init=pool.add_methodref("p/Foo", "<init>", "(IJ)V"),
        super_init=pool.add_methodref("java/lang/Object", "<init>", "()V"),
        vmeth=pool.add_methodref("p/Foo", "m", "(DLjava/lang/Object;)[[Ljava/lang/String;"),
        smeth=pool.add_methodref("p/Foo", "s", "()V"),
        imeth=pool.add_methodref("p/I", "f", "(I)Z", interface=True),
        int_=pool.add_integer(5),
        long_=pool.add_long(1 << 40),
        str_=pool.add_string("hi"),
        float_=pool.add(C.Float.of(1.5)),
        double_=pool.add(C.Double.of(2.5)),
        mtype=pool.add(C.MethodType(pool.add_utf8("()V"))),
        mhandle=pool.add(C.MethodHandle(6, pool.add_methodref("p/Foo", "s", "()V"))),
        dyn=pool.add(C.Dynamic(0, pool.add_name_and_type("_", "J"))),
        dyn_obj=pool.add(C.Dynamic(0, pool.add_name_and_type("_", "Ljava/util/List;"))),
        indy=pool.add(C.InvokeDynamic(0, pool.add_name_and_type("run", "(ILjava/lang/String;)Ljava/lang/Runnable;"))),
    )
    return pool, refs


def run(state, insns, pool=None, this="p/Foo", new_label=None):
    pool = pool or _pool()[0]
    for insn in insns:
        state = execute(state, insn, pool, this, new_label=new_label)
    return state


def test_loads_stores_and_long_halves():
    st = State([Integer, Long, Top, S], [])
    assert run(st, [I(op.ILOAD, 0), I(op.LLOAD, 1), I(op.ALOAD, 3)]).stack == [Integer, Long, S]
    assert run(st, [I(op.ALOAD_3), I(op.ILOAD_0)]).stack == [S, Integer]  # shortcut forms too
    # storing into the second half of a long kills the long
    after = run(st, [I(op.ICONST_1), I(op.ISTORE, 2)])
    assert after.locals == [Integer, Top, Integer, S]
    # a long over a reference and past the end
    after = run(st, [I(op.DCONST_0), I(op.DSTORE, 3), I(op.LCONST_1), I(op.LSTORE, 6)])
    assert after.locals == [Integer, Long, Top, Double, Top, Top, Long, Top]
    # a store that splits a long (storing at slot 0 where slot 0..1 is a long)
    st2 = State([Long, Top, Integer], [])
    assert run(st2, [I(op.FCONST_0), I(op.FSTORE, 1)]).locals == [Top, Float, Integer]
    with pytest.raises(TypeflowError):
        run(st, [I(op.ALOAD, 0)])  # an int is not a reference
    with pytest.raises(TypeflowError):
        run(State([], []), [I(op.POP)])  # underflow
    assert run(st, [I(op.ACONST_NULL), I(op.ASTORE, 0)]).locals[0] is Null
    assert run(st, [Iinc(-1, 0, 5)]).locals == st.locals


def test_arithmetic_conversions_compare():
    st = State([], [Long, Integer])
    assert run(st, [I(op.LSHL)]).stack == [Long]
    assert run(State([], [Double, Double]), [I(op.DCMPG)]).stack == [Integer]
    assert run(State([], [Float]), [I(op.F2L)]).stack == [Long]
    assert run(State([], [Long]), [I(op.L2D), I(op.D2F), I(op.F2I), I(op.I2S)]).stack == [Integer]
    assert run(State([], [Integer, Integer]), [I(op.IXOR), I(op.INEG), I(op.I2C)]).stack == [Integer]
    assert run(State([], [Long, Long]), [I(op.LCMP)]).stack == [Integer]
    assert run(State([], [Integer, Integer]), [I(op.IF_ICMPLT, Label())]).stack == []
    assert run(State([], [S, Null]), [I(op.IF_ACMPEQ, Label())]).stack == []
    assert run(State([], [S]), [I(op.IFNULL, Label())]).stack == []
    for o, t in [
        (op.BIPUSH, Integer),
        (op.SIPUSH, Integer),
        (op.FCONST_2, Float),
        (op.DCONST_1, Double),
        (op.ICONST_M1, Integer),
        (op.ACONST_NULL, Null),
    ]:
        assert run(State([], []), [I(o, 1)]).stack == [t]


@pytest.mark.parametrize(
    "opcode, before, after",
    [
        (op.DUP, [S], [S, S]),
        (op.DUP_X1, [Integer, S], [S, Integer, S]),
        (op.DUP_X2, [Integer, Float, S], [S, Integer, Float, S]),  # form 1
        (op.DUP_X2, [Long, S], [S, Long, S]),  # form 2
        (op.DUP2, [Integer, S], [Integer, S, Integer, S]),  # form 1
        (op.DUP2, [Double], [Double, Double]),  # form 2
        (op.DUP2_X1, [Float, Integer, S], [Integer, S, Float, Integer, S]),  # form 1
        (op.DUP2_X1, [Integer, Long], [Long, Integer, Long]),  # form 2
        (op.DUP2_X2, [Null, Float, Integer, S], [Integer, S, Null, Float, Integer, S]),  # form 1
        (op.DUP2_X2, [Integer, S, Long], [Long, Integer, S, Long]),  # form 2
        (op.DUP2_X2, [Double, Integer, S], [Integer, S, Double, Integer, S]),  # form 3
        (op.DUP2_X2, [Long, Double], [Double, Long, Double]),  # form 4
        (op.POP2, [Integer, Long], [Integer]),
        (op.POP2, [Long, Integer, S], [Long]),
        (op.SWAP, [Integer, S], [S, Integer]),
        (op.POP, [Long, S], [Long]),
    ],
)
def test_stack_manipulation(opcode, before, after):
    assert run(State([], list(before)), [I(opcode)]).stack == after


@pytest.mark.parametrize(
    "opcode, before",
    [
        (op.DUP, [Long]),
        (op.DUP_X1, [Long, S]),
        (op.DUP2, [S]),
        (op.DUP2_X1, [Long, Long]),
        (op.SWAP, [Long, Integer]),
        (op.POP, [Double]),
        (op.POP2, [Integer, Long, Top][:1]),
        (op.DUP_X2, [Integer, Long, S][1:2] + [Integer, S][:0]),
    ],
)
def test_stack_manipulation_rejects_splitting(opcode, before):
    with pytest.raises(TypeflowError):
        run(State([], list(before)), [I(opcode)])


def test_arrays():
    st = State([], [Object("[Ljava/lang/String;"), Integer])
    assert run(st, [I(op.AALOAD)]).stack == [S]
    assert run(State([], [Object("[[I"), Integer]), [I(op.AALOAD)]).stack == [Object("[I")]
    assert run(State([], [Object("[[[Ljava/util/List;"), Integer]), [I(op.AALOAD)]).stack == [
        Object("[[Ljava/util/List;")
    ]
    assert run(State([], [Null, Integer]), [I(op.AALOAD)]).stack == [Null]
    with pytest.raises(TypeflowError):
        run(State([], [Object("[I"), Integer]), [I(op.AALOAD)])
    for o, t in [
        (op.IALOAD, Integer),
        (op.BALOAD, Integer),
        (op.CALOAD, Integer),
        (op.SALOAD, Integer),
        (op.LALOAD, Long),
        (op.FALOAD, Float),
        (op.DALOAD, Double),
    ]:
        assert run(State([], [Object("[I"), Integer]), [I(o)]).stack == [t]
    for o, v in [(op.IASTORE, Integer), (op.LASTORE, Long), (op.AASTORE, S), (op.DASTORE, Double)]:
        assert run(State([], [Object("[X"), Integer, v]), [I(o)]).stack == []
    pool, r = _pool()
    for code, desc in [
        (op.T_BOOLEAN, "[Z"),
        (op.T_CHAR, "[C"),
        (op.T_FLOAT, "[F"),
        (op.T_DOUBLE, "[D"),
        (op.T_BYTE, "[B"),
        (op.T_SHORT, "[S"),
        (op.T_INT, "[I"),
        (op.T_LONG, "[J"),
    ]:
        assert run(State([], [Integer]), [I(op.NEWARRAY, code)], pool).stack == [Object(desc)]
    assert run(State([], [Integer]), [I(op.ANEWARRAY, r["cls"])], pool).stack == [Object("[Lp/Foo;")]
    assert run(State([], [Integer]), [I(op.ANEWARRAY, r["arr_cls"])], pool).stack == [Object("[[[I")]
    assert run(State([], [Integer, Integer]), [MultiANewArray(-1, r["arr_cls"], 2)], pool).stack == [Object("[[I")]
    assert run(State([], [Object("[[I")]), [I(op.ARRAYLENGTH)], pool).stack == [Integer]


def test_ldc_every_constant_kind():
    pool, r = _pool()
    expect = {
        "int_": Integer,
        "float_": Float,
        "long_": Long,
        "double_": Double,
        "str_": S,
        "cls": Object("java/lang/Class"),
        "mtype": Object("java/lang/invoke/MethodType"),
        "mhandle": Object("java/lang/invoke/MethodHandle"),
        "dyn": Long,
        "dyn_obj": Object("java/util/List"),
    }
    for key, t in expect.items():
        o = op.LDC2_W if t in (Long, Double) else op.LDC
        assert run(State([], []), [I(o, r[key])], pool).stack == [t], key


def test_fields_invokes_casts():
    pool, r = _pool()
    foo = Object("p/Foo")
    st = State([foo], [])
    assert run(st, [I(op.ALOAD, 0), I(op.GETFIELD, r["fld_long"])], pool).stack == [Long]
    assert run(st, [I(op.GETSTATIC, r["fld_str"])], pool).stack == [Object("[Ljava/lang/String;")]
    assert run(State([], [foo, Long]), [I(op.PUTFIELD, r["fld_long"])], pool).stack == []
    assert run(State([], [Integer, S]), [I(op.PUTSTATIC, r["fld_str"])], pool).stack == [Integer]
    got = run(State([], [foo, Double, S]), [I(op.INVOKEVIRTUAL, r["vmeth"])], pool)
    assert got.stack == [Object("[[Ljava/lang/String;")]
    assert run(State([], [Integer]), [I(op.INVOKESTATIC, r["smeth"])], pool).stack == [Integer]
    assert run(State([], [foo, Integer]), [InvokeInterface(-1, r["imeth"], 2, 0)], pool).stack == [Integer]
    assert run(State([], [Integer, S]), [InvokeDynamic(-1, r["indy"], 0)], pool).stack == [Object("java/lang/Runnable")]
    assert run(State([], [OBJ]), [I(op.CHECKCAST, r["cls"])], pool).stack == [foo]
    assert run(State([], [OBJ]), [I(op.CHECKCAST, r["arr_cls"])], pool).stack == [Object("[[I")]
    assert run(State([], [OBJ]), [I(op.INSTANCEOF, r["cls"])], pool).stack == [Integer]
    for o in (op.MONITORENTER, op.MONITOREXIT, op.ATHROW, op.ARETURN):
        assert run(State([], [OBJ]), [I(o)], pool).stack == []
    assert run(State([], [Long]), [I(op.LRETURN)], pool).stack == []
    assert run(State([], [Integer]), [I(op.TABLESWITCH)], pool).stack == []


def test_new_and_constructor_calls():
    pool, r = _pool()
    lab = Label("new_site")
    u = Uninitialized(lab)
    st = State([Integer, u], [])
    after_new = run(State([Integer], []), [I(op.NEW, r["cls"]), I(op.DUP)], pool, new_label=lab)
    assert after_new.stack == [u, u]
    # every occurrence (stack and locals) becomes the initialised type
    st = State([Integer, u, Long, Top], [u, u, Integer, Long])
    got = run(st, [I(op.INVOKESPECIAL, r["init"])], pool)
    assert got.stack == [Object("p/Foo")] and got.locals == [Integer, Object("p/Foo"), Long, Top]
    # a different new site is left alone
    other = Uninitialized(Label())
    got = run(State([other], [u, Integer, Long]), [I(op.INVOKESPECIAL, r["init"])], pool)
    assert got.locals == [other] and got.stack == []
    # super() in a constructor: UninitializedThis becomes the current class
    got = run(
        State([UninitializedThis, UninitializedThis], [UninitializedThis]),
        [I(op.INVOKESPECIAL, r["super_init"])],
        pool,
        this="p/Bar",
    )
    assert got.locals == [Object("p/Bar"), Object("p/Bar")] and got.stack == []
    with pytest.raises(TypeflowError):
        run(State([], [Object("p/Foo"), Integer, Long]), [I(op.INVOKESPECIAL, r["init"])], pool)
    with pytest.raises(TypeflowError):
        run(State([], []), [I(op.NEW, r["cls"])], pool)  # no label given


def test_subroutines_are_refused():
    for insn in (I(op.JSR, Label()), I(op.RET, 1), I(op.JSR_W, Label())):
        with pytest.raises(SubroutineError):
            run(State([], []), [insn])
    target = Label()
    body = _body([I(op.JSR, target), I(op.RETURN), target, I(op.ASTORE, 1), I(op.RET, 1)])
    with pytest.raises(SubroutineError):
        infer_frames(body, _pool()[0], FakeHierarchy(), "p/Foo", "m", "()V", True)


# ============================================================ merging
def test_lub_and_merges():
    m = TypeMerger(FakeHierarchy())
    assert m.lub("Dog", "Cat") == "Animal"
    assert m.lub("Puppy", "Dog") == "Dog" and m.lub("Puppy", "Cat") == "Animal"
    assert m.lub("Dog", "Pet") == "java/lang/Object"  # interfaces count as Object
    assert m.lub("[LDog;", "[LCat;") == "[LAnimal;"
    assert m.lub("[[LDog;", "[[LPuppy;") == "[[LDog;"
    assert m.lub("[[LDog;", "[LDog;") == "[Ljava/lang/Object;"  # [Dog vs Dog -> Object
    assert m.lub("[I", "[J") == "java/lang/Object" and m.lub("[I", "Dog") == "java/lang/Object"
    assert m.lub("[[I", "[[J") == "[Ljava/lang/Object;"
    assert not m.missing
    assert m.lub("Orphan", "Dog") == "java/lang/Object" and "Gone" in m.missing
    assert m.lub("Unknown", "Dog") == "java/lang/Object" and "Unknown" in m.missing
    assert m.merge_value(Null, Object("Dog")) == Object("Dog")
    assert m.merge_value(Object("Dog"), Null) == Object("Dog")
    assert m.merge_value(Null, Null) is Null
    assert m.merge_value(Integer, Float) is None
    assert m.merge_value(Null, Integer) is None
    lab = Label()
    assert m.merge_value(Uninitialized(lab), Uninitialized(lab)) == Uninitialized(lab)
    assert m.merge_value(Uninitialized(lab), Uninitialized(Label())) is None
    assert m.merge_value(UninitializedThis, Object("Dog")) is None

    old = State([Object("Dog"), Integer, Long, Top, S], [Object("Puppy")])
    new = State([Object("Cat"), Float, Long, Top], [Null])
    got = merge_states(m, old, new)
    assert got.locals == [Object("Animal"), Top, Long, Top, Top] and got.stack == [Object("Puppy")]
    assert merge_states(m, got, new) is None  # fixpoint reached: nothing changes
    assert merge_states(m, State([Long, Top], []), State([Integer, Integer], [])).locals == [Top, Top]
    with pytest.raises(TypeflowError):
        merge_states(m, State([], [Integer]), State([], [Float]))
    with pytest.raises(TypeflowError):
        merge_states(m, State([], [Integer]), State([], []))

    assert m.assignable(Object("Puppy"), Object("Animal")) and not m.assignable(Object("Cat"), Object("Dog"))
    assert m.assignable(Object("Cat"), Object("Pet"))  # interfaces accept anything (verifier)
    assert m.assignable(Object("[LPuppy;"), Object("[LAnimal;"))
    assert m.assignable(Object("[I"), Object("java/io/Serializable"))
    assert not m.assignable(Object("[I"), Object("[J")) and m.assignable(Null, Object("[I"))
    assert m.assignable(Integer, Top) and not m.assignable(Top, Integer)
    assert state_assignable(
        m, State([Object("Dog"), Integer, Long, Top], [Null]), State([Object("Animal"), Top, Long], [Object("Dog")])
    )


# ============================================================ bodies by hand
def _body(items, handlers=()):
    from jprewrite.editor.body import CodeBody

    return CodeBody(items=list(items), handlers=list(handlers))


def test_new_sites_are_instructions_and_flow_to():
    """An Uninitialized type names its `new` instruction object; flow_to never edits the body."""
    pool, r = _pool()
    items = [
        I(op.ICONST_1),
        I(op.NEW, r["cls"]),
        I(op.DUP),
        I(op.ICONST_2),
        I(op.LCONST_0),
        I(op.INVOKESPECIAL, r["init"]),
        I(op.ASTORE, 0),
        I(op.RETURN),
    ]
    body = _body(items)
    before = list(body.items)
    st = flow_to(body, len(body.items) - 1, pool, "p/Foo", "()V", True, "m")
    assert body.items == before and all(a is b for a, b in zip(body.items, before))
    assert st.locals == [Object("p/Foo")] and st.stack == [Integer]
    new = items[1]
    mid = flow_to(body, body.index_of(items[5]), pool, "p/Foo", "()V", True, "m")
    assert mid.stack == [Integer, Uninitialized(new), Uninitialized(new), Integer, Long]
    # identity, not value: an equal-looking `new` elsewhere is another site
    assert Uninitialized(new) != Uninitialized(I(op.NEW, r["cls"]))


def test_flow_to_stops_at_unconditional_transfer_and_uses_frames():
    pool, _ = _pool()
    target, after = Label("T"), Label("A")
    items = [
        I(op.ILOAD, 0),
        I(op.IFEQ, target),
        I(op.ICONST_1),
        I(op.ISTORE, 1),
        I(op.GOTO, after),
        target,
        I(op.FCONST_0),
        I(op.FSTORE, 1),
        after,
        I(op.RETURN),
    ]
    body = _body(items)
    with pytest.raises(FrameUnknown):
        flow_to(body, body.index_of(target), pool, "p/Foo", "(I)V", True, "m")
    body.frames[target] = Frame(-1, [Integer])
    st = flow_to(body, body.index_of(after), pool, "p/Foo", "(I)V", True, "m")
    assert st.locals == [Integer, Float]
    st = flow_to(body, body.index_of(items[4]), pool, "p/Foo", "(I)V", True, "m")  # from entry
    assert st.locals == [Integer, Integer]
    assert labels_needing_frames(body) == {target, after}


def test_infer_frames_by_hand_loop_and_handler():
    pool, r = _pool()
    head, exit_, start, end, handler = Label("head"), Label("exit"), Label("s"), Label("e"), Label("h")
    items = [
        I(op.ACONST_NULL),
        I(op.ASTORE, 1),  # Object o = null
        head,
        start,
        I(op.ILOAD, 0),
        I(op.IFEQ, exit_),  # while (x != 0)
        I(op.LDC, r["str_"]),
        I(op.ASTORE, 1),  #   o = "hi"
        I(op.LCONST_0),
        I(op.LSTORE, 2),  #   long l = 0
        Iinc(-1, 0, -1),
        I(op.GOTO, head),
        exit_,
        end,
        I(op.RETURN),
        handler,
        I(op.ASTORE, 4),
        I(op.RETURN),
    ]
    body = _body(items, [Handler(start, end, handler, 0)])
    rep = InferenceReport()
    frames = infer_frames(body, pool, FakeHierarchy(), "p/Foo", "m", "(I)V", True, report=rep)
    assert set(frames) == {head, exit_, handler}  # one label per position: the first one
    assert frames[head].locals == [Integer, S] and frames[head].stack == []  # Null merged with String
    assert frames[handler].locals == [Integer, S, Top, Top] or frames[handler].locals == [Integer, S]
    assert frames[handler].stack == [Object("java/lang/Throwable")]
    assert not rep.unreachable


def test_frame_after_provider_falls_back_to_inference():
    pool, _ = _pool()
    t, x = Label("T"), Label("X")
    body = _body(
        [
            I(op.ILOAD, 0),
            I(op.IFEQ, t),
            I(op.RETURN),
            t,
            I(op.ILOAD, 0),
            I(op.I2L),
            I(op.LSTORE, 1),
            I(op.ILOAD, 0),
            I(op.IFNE, x),
            I(op.RETURN),
            x,
            I(op.RETURN),
        ]
    )
    provider = frame_after_provider(
        body,
        pool=pool,
        hierarchy=FakeHierarchy(),
        this_class="p/Foo",
        method_name="m",
        descriptor="(I)V",
        is_static=True,
    )
    with pytest.raises(FrameUnknown):  # no frame at T: straight-line flow cannot get there
        flow_to(body, 8, pool, "p/Foo", "(I)V", True, "m")
    after = provider(8)
    assert after.locals == [Integer, Long] and after.stack == []
    assert provider(1).locals == [Integer] and provider(0).stack == [Integer]


def test_complete_frames_by_hand_keeps_existing_and_honours_needed():
    pool, _ = _pool()
    t, x = Label("T"), Label("X")
    body = _body(
        [
            I(op.ILOAD, 0),
            I(op.IFEQ, t),
            I(op.ACONST_NULL),
            I(op.ASTORE, 1),
            t,
            I(op.ILOAD, 0),
            I(op.IFNE, x),
            I(op.NOP),
            x,
            I(op.RETURN),
        ]
    )
    kw = dict(
        pool=pool, hierarchy=FakeHierarchy(), this_class="p/Foo", method_name="m", descriptor="(I)V", is_static=True
    )
    existing = Frame(5, [Integer], [], kind=0)
    body.frames[t] = existing
    stats = complete_frames(body, needed=[t], **kw)
    assert stats.method == "none" and stats.existing == 1 and stats.added == 0
    stats = complete_frames(body, **kw)
    assert stats.method == "local" and stats.added_local == 1 and stats.needed == 2
    assert body.frames[t] is existing and body.frames[x].locals == [Integer]
    # a frame that contradicts the flow is reported by check_frames
    body.frames[x] = Frame(-1, [Float])
    problems = check_frames(body, **kw)
    assert problems and "not assignable" in problems[0]
    del body.frames[x]
    assert "has no frame" in check_frames(body, **kw)[0]
    # after a goto the local approach cannot work: inference fills in, existing frames kept
    y = Label("Y")
    body = _body(
        [
            I(op.ILOAD, 0),
            I(op.IFEQ, t),
            I(op.LCONST_1),
            I(op.LSTORE, 1),
            I(op.GOTO, y),
            t,
            I(op.DCONST_0),
            I(op.DSTORE, 1),
            y,
            I(op.RETURN),
        ]
    )
    body.frames[t] = Frame(-1, [Integer])
    stats = complete_frames(body, **kw)
    assert stats.method == "inferred" and stats.added_inferred == 1 and stats.local_failure
    assert body.frames[y].locals == [Integer]  # long vs double in slots 1-2: Top, trimmed
    assert check_frames(body, **kw) == []


# ============================================================ javac fixtures
JAVA = {
    "Flow": r"""
import java.io.*;
import java.util.*;
import java.util.function.*;

public class Flow {
    static class Animal { String name() { return "a"; } }
    static class Dog extends Animal { }
    static class Cat extends Animal { }
    static class Puppy extends Dog { }
    interface Shape { double area(); default Shape twice() { Shape me = this; return () -> me.area() * 2; } }
    static final class Sq implements Shape { public double area() { return 1; } }
    static final class Ci implements Shape { public double area() { return 3; } }

    static class Box {
        final Object v; final int n;
        Box(Object v) { this.v = v; this.n = 0; }
        Box(Object v, int n) { this.v = v; this.n = n; }
        Box(boolean a, Dog d, Cat c) { this(a ? d : c, a ? 1 : 2); }
        Box(int k) { this(k > 0 ? (Object) new Dog() : new Cat(), k < 0 ? -k : k); }
        Box(long w, String s) { super(); Object o = s; if (w > 0) o = new int[(int) w]; v = o; n = (int) w; }
    }
    static class Sub extends Box {
        final long big; double d;
        Sub(int k, String s) {
            super(s == null ? "none" : s.length() > 3 ? s.substring(3) : s, k);
            long t = 0;
            for (int i = 0; i < k; i++) t += i;
            big = t;
            d = t * 0.5;
        }
        Sub(long x) { super(x > 0 ? new Box(Long.valueOf(x), (int) x) : null, (int) x); big = x; }
    }
    static Animal pick(boolean b, int x) {
        Animal a;
        if (b) a = new Dog(); else a = new Cat();
        if (x > 3) a = x > 10 ? new Puppy() : new Dog();
        return a;
    }
    static Object mix(int x) {
        Object o = null;
        if (x == 1) o = "s"; else if (x == 2) o = new int[3]; else if (x == 3) o = new String[2];
        return o;
    }
    static Shape shapes(boolean b) { Shape s = b ? new Sq() : new Ci(); return s; }
    static double area(boolean b) { return (b ? new Sq() : new Ci()).area(); }
    static Box newBox(boolean a, String x, Integer y) { return new Box(a ? x : y, a ? 1 : 2); }
    static Box nested(int a) { return new Box(new Box(a > 0 ? "p" : "n"), a == 0 ? 0 : new Box(a).n); }
    static int tryCatch(String s) {
        int r = 0;
        try {
            r = Integer.parseInt(s);
            long q = r * 2L;
            r += (int) q;
        } catch (NumberFormatException e) {
            r = -1;
        } catch (IllegalStateException | UnsupportedOperationException e) {
            r = -2;
        } finally {
            r++;
        }
        return r;
    }
    static String readAll(String path) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (BufferedReader br = new BufferedReader(new StringReader(path))) {
            String line;
            while ((line = br.readLine()) != null) sb.append(line);
        }
        return sb.toString();
    }
    static int loops(int[][] grid, long seed, double scale) {
        int total = 0; long acc = seed; double d = scale;
        outer:
        for (int i = 0; i < grid.length; i++) {
            int[] row = grid[i];
            for (int j = 0; j < row.length; j++) {
                if (row[j] < 0) continue outer;
                if (row[j] == 99) break outer;
                total += row[j]; acc ^= total; d *= 1.5;
            }
            do { acc >>= 1; } while (acc > 1000);
        }
        while (d > 10) d /= 2;
        return total + (int) acc + (int) d;
    }
    static String sw(int k, String s) {
        switch (k) {
            case 0: return "zero";
            case 1: case 2: s = s + k; break;
            case 100: s = null; break;
            default: s = s.trim();
        }
        switch (s == null ? "" : s) {
            case "a": return "A";
            case "b": return "B";
            default: break;
        }
        return s;
    }
    static int sw2(Object o) {
        return switch (o instanceof String str ? str.length() : -1) {
            case 1, 2 -> 1;
            case 3 -> { int q = 5; yield q * 2; }
            default -> 0;
        };
    }
    static long longs(long a, double b, int c) {
        long r = a;
        double q = b;
        if (c > 0) { long t = a * c; r += t; } else { float f = (float) b; q += f; }
        long[] arr = new long[]{r, (long) q};
        arr[0] += arr[1];
        return arr[0] + (a > r ? 1 : b < q ? 2 : 3);
    }
    static String arrays(String[][] m, int[][][] cube, Object[] objs,
                         char[] cs, byte[] bs, short[] ss, boolean[] zs) {
        String[] row = m[0];
        int[][] plane = cube[0];
        int[] line = plane[1];
        Object o = objs.length > 0 ? objs[0] : row;
        Object[] oo = m.length > 2 ? m : objs;
        Object[] pick = m.length > 3 ? row : new Integer[1];
        Object[][] two = m.length > 4 ? m : new Number[2][2];
        int[][] grid = new int[3][4];
        String[][][] deep = new String[2][][];
        cs[0]++; bs[0] += 2; ss[0] -= 3; zs[0] = !zs[0];
        return row[0] + line[0] + o + oo.length + pick.length + two.length + grid[1][2] + deep.length;
    }
    static Runnable lambdas(int x, String s) {
        Supplier<String> sup = () -> s + x;
        Function<Integer, Integer> f = i -> i + x;
        BiFunction<String, Integer, String> g = (a, b) -> b > 0 ? a : sup.get();
        List<Integer> li = new ArrayList<>();
        li.forEach(v -> System.out.println(f.apply(v)));
        return () -> System.out.println(g.apply(s, x));
    }
    synchronized int sync(Object lock, int v) {
        synchronized (lock) {
            if (v > 0) return v * 2;
            v--;
        }
        return v;
    }
    static Object cond(boolean a, boolean b) {
        Comparable<?> c = a ? "x" : Integer.valueOf(1);
        Number n = b ? Integer.valueOf(3) : Long.valueOf(4);
        CharSequence cs = a ? new StringBuilder() : "s";
        Throwable t = b ? new IOException() : new RuntimeException();
        return "" + c + n + cs + t;
    }
    static void thrower(int x) throws Exception {
        Exception e = x > 0 ? new IOException("a") : new IllegalStateException("b");
        if (x > 5) throw e;
        throw x > 2 ? new FileNotFoundException() : new EOFException();
    }
    static int nestedTry(int[] a) {
        int r = 0;
        try {
            try {
                r = a[5];
            } catch (ArrayIndexOutOfBoundsException e) {
                r = -1;
                throw new IllegalStateException(e);
            } finally {
                r += 10;
            }
        } catch (RuntimeException e) {
            String m = e.getMessage();
            r = m == null ? 0 : m.length();
        }
        return r;
    }
    static boolean bools(int a, int b, Object o) {
        boolean x = a > b && b > 0 || o instanceof String;
        boolean y = !x ? a == b : o != null;
        assert x || y : "never";
        return x ^ y;
    }
    static <T extends Comparable<T>> T max(List<T> xs) {
        T best = null;
        for (T x : xs) if (best == null || x.compareTo(best) > 0) best = x;
        return best;
    }
    enum Color { RED, GREEN, BLUE; Color next() { return values()[(ordinal() + 1) % 3]; } }
    static int enumSwitch(Color c) {
        switch (c) { case RED: return 1; case GREEN: return 2; default: return 3; }
    }
    record Point(int x, int y) {
        Point { if (x < 0) throw new IllegalArgumentException(); }
        Point scale(int k) { return new Point(x * k, y * k); }
    }
    static String patterns(Object o) {
        if (o instanceof Point p && p.x() > 0) return "p" + p.y();
        return o instanceof CharSequence cs ? cs.toString() : "?";
    }
    static int ternaryChain(int a) {
        int[] arr = a > 0 ? new int[]{1} : a < -5 ? null : new int[2];
        return arr == null ? 0 : arr.length;
    }
    static float floats(float f, int i, double d) { return i > 0 ? f * i : d > f ? (float) d : f / (i - 1); }
    static Object multiNew(int n) {
        return n > 0 ? new StringBuilder(n > 5 ? "big" : "small") : new StringBuilder(n);
    }
    static String varargs(String... xs) { return xs.length == 0 ? "" : String.join(",", xs); }
    class Inner {
        int v;
        Inner(int v) { this.v = v > 0 ? v : -v; }
        Inner() { this(sizeOf(Flow.this)); }
    }
    static int sizeOf(Object o) { return o == null ? 0 : 1; }
    static int counter;
    static {
        try { counter = Integer.parseInt(System.getProperty("flow.n", "3")); }
        catch (RuntimeException e) { counter = -1; }
    }
    { counter++; }
    static int wideLocals(int p) {
        long a0 = p; double a1 = p; int a2 = p, a3 = p, a4 = p, a5 = p, a6 = p, a7 = p, a8 = p, a9 = p;
        int[] big = new int[300];
        for (int i = 0; i < big.length; i++) big[i] = i * a2 + a9;
        return (int) (a0 + a1) + big[p % 300] + a3 + a4 + a5 + a6 + a7 + a8;
    }
}
""",
    "Gen": r"""
import java.util.*;
import java.util.function.*;

abstract class Base<T> {
    abstract T make(int k);
    T twice(int k) { T a = make(k); return a != null ? a : make(k + 1); }
}
public class Gen extends Base<String> implements Comparable<Gen> {
    final String tag;
    Gen(String t) { super(); tag = t == null ? "?" : t; }
    Gen() { this(Gen.class.getSimpleName().length() > 2 ? "long" : "short"); }
    String make(int k) { return k > 0 ? tag + k : null; }
    public int compareTo(Gen o) { return tag.compareTo(o.tag); }
    static Map<String, List<Integer>> group(int[] xs) {
        Map<String, List<Integer>> m = new TreeMap<>();
        for (int x : xs) m.computeIfAbsent(x % 2 == 0 ? "even" : "odd", k -> new ArrayList<>()).add(x);
        return m;
    }
    static Object rethrow(Callable<?> c) {
        try {
            return c.call();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            return e;
        } finally {
            System.out.flush();
        }
    }
    interface Callable<V> { V call() throws Exception; }
    static int deepNest(int n) {
        int r = 0;
        for (int i = 0; i < n; i++) {
            try {
                switch (i % 4) {
                    case 0 -> r += i;
                    case 1 -> { if (i > 5) continue; r -= 1; }
                    case 2 -> { try { r /= (i - 2); } catch (ArithmeticException e) { r = 0; } }
                    default -> { synchronized (Gen.class) { r ^= i; } }
                }
            } finally {
                r++;
            }
        }
        return r;
    }
    static long sum(Iterable<? extends Number> ns) {
        long s = 0L;
        Iterator<? extends Number> it = ns.iterator();
        while (it.hasNext()) { Number x = it.next(); s += x instanceof Long l ? l : x.intValue(); }
        return s;
    }
}
""",
}


def _javac(out: Path) -> Path:
    from support.jdk import javac

    return javac({f"{name}.java": text for name, text in JAVA.items()}, out)


@functools.cache
def compiled() -> Path:
    """javac the fixtures once per test process; returns the classes directory."""
    root = Path(tempfile.mkdtemp(prefix="jprewrite-typeflow-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return _javac(root / "classes")


class DirSource:
    def __init__(self, root: Path):
        self.root = root

    def find_class(self, name: str):
        p = self.root / f"{name}.class"
        return p.read_bytes() if p.is_file() else None


@functools.cache
def hierarchy():
    from jprewrite.analysis.hierarchy import ClassHierarchy
    from jprewrite.archive.jdk_image import JdkImage, find_java_home

    return ClassHierarchy([DirSource(compiled())], JdkImage(find_java_home()), cache=False)


def _methods():
    """(class file bytes path, class, method) for every method with code of every fixture class."""
    for path in sorted(compiled().rglob("*.class")):
        cf = read_class(path.read_bytes())
        for m in cf.methods:
            if m.code() is not None:
                yield path, cf, m


def _args(cf, m) -> dict:
    return dict(this_class=cf.name, method_name=m.name, descriptor=m.descriptor, is_static=bool(m.access & ACC_STATIC))


def _write(out: Path, path: Path, cf) -> None:
    dst = out / path.relative_to(compiled())
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(cf.to_bytes())


def _both_verifiers(out: Path) -> None:
    jvm = verify_jvm([out])
    jvm.assert_clean(allow_missing=False)
    asm = verify_asm([out])
    asm.assert_clean(allow_missing=False)
    assert len(jvm.ok) == len(asm.ok) == len(list(out.rglob("*.class")))


def _loosely_assignable(merger, ours: Frame, javac: Frame) -> bool:
    """Each entry equal, or assignable one way or the other (javac keeps declared types)."""
    a, b = state_from_frame(ours), state_from_frame(javac)
    if len(a.stack) != len(b.stack):
        return False
    n = max(len(a.locals), len(b.locals))
    pairs = [(a.local(i), b.local(i)) for i in range(n)] + list(zip(a.stack, b.stack))
    return all(x == y or merger.assignable(x, y) or merger.assignable(y, x) for x, y in pairs)


@needs_jdk
def test_infer_frames_on_javac_classes_verify_and_match(tmp_path):
    h = hierarchy()
    merger = TypeMerger(h)
    out = tmp_path / "inferred"
    written: dict[Path, object] = {}
    counts = collections.Counter()
    for path, cf, m in _methods():
        body = disassemble(m)
        javac_frames = dict(body.frames)
        body.frames = {}
        report = InferenceReport()
        frames = infer_frames(
            body, cf.pool, h, cf.name, m.name, m.descriptor, bool(m.access & ACC_STATIC), report=report
        )
        where = f"{cf.name}.{m.name}{m.descriptor}"
        assert not report.unreachable and not report.missing_classes, where
        # (b) exactly javac's positions, compatible types
        assert set(frames) == set(javac_frames), where
        for label, jf in javac_frames.items():
            ours = frames[label]
            counts["frames"] += 1
            if ours.locals == jf.locals and ours.stack == jf.stack:
                counts["equal"] += 1
            assert _loosely_assignable(merger, ours, jf), f"{where} at {label}:\n {ours}\n {jf}"
        assert check_frames(body, frames, pool=cf.pool, hierarchy=h, **_args(cf, m)) == [], where
        body.frames = frames
        write_body(m, body)
        written[path] = cf
        counts["methods"] += 1
    for path, cf in written.items():
        _write(out, path, cf)
    assert counts["methods"] > 70 and counts["frames"] > 150, counts
    assert counts["equal"] >= counts["frames"] * 0.6, counts
    # (a) both verifiers accept every class, frames recomputed from scratch
    _both_verifiers(out)


@needs_jdk
def test_flow_to_reproduces_javac_frames():
    h = hierarchy()
    merger = TypeMerger(h)
    counts = collections.Counter()
    for _path, cf, m in _methods():
        body = disassemble(m)
        for i, item in enumerate(body.items):
            jf = body.frames.get(item) if isinstance(item, Label) else None
            if jf is None:
                continue
            counts["frames"] += 1
            try:
                st = flow_to(body, i, cf.pool, cf.name, m.descriptor, bool(m.access & ACC_STATIC), m.name)
            except FrameUnknown:
                counts["unknown"] += 1
                continue
            counts["reached"] += 1
            got = frame_from_state(st)
            if got.locals == jf.locals and got.stack == jf.stack:
                counts["exact"] += 1
                continue
            javac_state = state_from_frame(jf)
            assert state_assignable(merger, st, javac_state), (
                f"{cf.name}.{m.name}{m.descriptor} at {item}:\n flow {got}\n javac {jf}"
            )
            n = len(javac_state.locals)
            if st.locals[:n] == javac_state.locals and st.stack == javac_state.stack:
                counts["extra_dead_locals"] += 1
            else:
                counts["declared_types"] += 1
    print(f"\nfixtures flow_to: {dict(counts)}")
    # the fixtures are full of declared-type joins (Animal a = new Dog()...), hence a lower share
    assert counts["reached"] > 60 and counts["exact"] >= counts["reached"] * 0.5, counts
    # every other one differs only by javac's declared types or trimmed dead locals (assigned above)


# ------------------------------------------------------------ java.base at scale
def _has_stack_map(pool, code) -> bool:
    return any(pool.utf8(a.name_index) == "StackMapTable" for a in code.attributes)


def _java_base_part(part: int, parts: int) -> tuple[collections.Counter, list]:
    from jprewrite.analysis.hierarchy import ClassHierarchy
    from jprewrite.archive.jdk_image import JdkImage, find_java_home

    img = JdkImage(find_java_home())
    merger = TypeMerger(ClassHierarchy([], img, cache=False))
    names = sorted(n for _, n in img.iter_class_names("java.base") if not n.endswith("module-info"))
    counts: collections.Counter = collections.Counter()
    bad: list = []
    for name in names[part::parts]:
        cf = read_class(img.find_class(name))
        pool = cf.pool
        counts["classes"] += 1
        for m in cf.methods:
            code = m.code()
            if code is None or not _has_stack_map(pool, code):
                continue
            counts["methods"] += 1
            body = disassemble(m)
            is_static = bool(m.access & ACC_STATIC)
            for i, item in enumerate(body.items):
                jf = body.frames.get(item) if isinstance(item, Label) else None
                if jf is None:
                    continue
                counts["frames"] += 1
                try:
                    st = flow_to(body, i, pool, cf.name, m.descriptor, is_static, m.name)
                except FrameUnknown:
                    counts["unknown"] += 1
                    continue
                except TypeflowError as e:
                    counts["error"] += 1
                    bad.append(f"{name}.{m.name}{m.descriptor} at {item}: {e}")
                    continue
                counts["reached"] += 1
                got = frame_from_state(st)
                if got.locals == jf.locals and got.stack == jf.stack:
                    counts["exact"] += 1
                    continue
                javac_state = state_from_frame(jf)
                if state_assignable(merger, st, javac_state):
                    n = len(javac_state.locals)
                    if st.locals[:n] == javac_state.locals and st.stack == javac_state.stack:
                        counts["extra_dead_locals"] += 1  # javac trimmed out-of-scope locals
                    else:
                        counts["declared_types"] += 1  # javac's frame has the declared (wider) types
                else:
                    counts["bad"] += 1
                    bad.append(f"{name}.{m.name}{m.descriptor} at {item}: flow {got} javac {jf}")
    return counts, bad[:20]


@needs_jdk
@pytest.mark.corpus
def test_flow_to_over_java_base():
    """(c) at scale: every frame of java.base that straight-line flow reaches from the previous one."""
    start = time.monotonic()
    workers = max(1, min(4, os.cpu_count() or 1))
    counts: collections.Counter = collections.Counter()
    bad: list = []
    if workers == 1:
        parts = [_java_base_part(0, 1)]
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as ex:
            parts = list(ex.map(_java_base_part, range(workers), [workers] * workers))
    for c, b in parts:
        counts.update(c)
        bad.extend(b)
    elapsed = time.monotonic() - start
    print(f"\njava.base flow_to: {dict(counts)} in {elapsed:.1f}s")
    assert counts["classes"] > 5000 and counts["frames"] > 50000, counts
    assert not bad, "\n".join(bad[:20])
    assert counts["error"] == 0 and counts["bad"] == 0
    assert counts["reached"] > 0.3 * counts["frames"]
    # exact reproduction; the rest only differ the way javac's frames are built
    assert counts["exact"] >= 0.75 * counts["reached"], counts
    assert counts["exact"] + counts["extra_dead_locals"] >= 0.9 * counts["reached"], counts


@needs_jdk
def test_infer_frames_on_a_java_base_sample():
    """FULL inference on every 40th class of java.base: javac's frames found again, compatible types."""
    from jprewrite.analysis.hierarchy import ClassHierarchy
    from jprewrite.archive.jdk_image import JdkImage, find_java_home

    img = JdkImage(find_java_home())
    h = ClassHierarchy([], img, cache=False)
    merger = TypeMerger(h)
    names = sorted(n for _, n in img.iter_class_names("java.base") if not n.endswith("module-info"))
    counts = collections.Counter()
    for name in names[::40]:
        cf = read_class(img.find_class(name))
        for m in cf.methods:
            code = m.code()
            if code is None or not _has_stack_map(cf.pool, code):
                continue
            body = disassemble(m)
            javac_frames = dict(body.frames)
            body.frames = {}
            report = InferenceReport()
            frames = infer_frames(
                body, cf.pool, h, cf.name, m.name, m.descriptor, bool(m.access & ACC_STATIC), report=report
            )
            where = f"{name}.{m.name}{m.descriptor}"
            counts["methods"] += 1
            assert not report.unreachable, where
            # javac sometimes adds a frame no jump needs (a loop head whose body always exits)
            assert set(frames) <= set(javac_frames), where
            for label, ours in frames.items():
                jf = javac_frames[label]
                counts["frames"] += 1
                counts["equal"] += ours.locals == jf.locals and ours.stack == jf.stack
                assert _loosely_assignable(merger, ours, jf), f"{where} at {label}:\n {ours}\n {jf}"
            assert check_frames(body, frames, pool=cf.pool, hierarchy=h, **_args(cf, m)) == [], where
    print(f"\njava.base sample infer_frames: {dict(counts)}")
    assert counts["methods"] > 300 and counts["equal"] >= 0.75 * counts["frames"], counts


# ------------------------------------------------------------ complete_frames after edits
def _call_println(pool, text: str) -> list:
    out = pool.add_fieldref("java/lang/System", "out", "Ljava/io/PrintStream;")
    println = pool.add_methodref("java/io/PrintStream", "println", "(Ljava/lang/String;)V")
    return [I(op.GETSTATIC, out), I(op.LDC, pool.add_string(text)), I(op.INVOKEVIRTUAL, println)]


def _probe(pool) -> tuple[list, Label]:
    """``if (System.nanoTime() == 0L) System.out.println("never");`` with its join label."""
    skip = Label("skip")
    nano = pool.add_methodref("java/lang/System", "nanoTime", "()J")
    return (
        [I(op.INVOKESTATIC, nano), I(op.LCONST_0), I(op.LCMP), I(op.IFNE, skip), *_call_println(pool, "never"), skip],
        skip,
    )


def _entry_index(body, m) -> int:
    """Where instrumentation may go: after super()/this() in constructors, else at the start."""
    if m.name != "<init>":
        return 0
    for i, item in enumerate(body.items):
        if isinstance(item, Label) or item.opcode != op.INVOKESPECIAL:
            continue
        _, name, desc = m.pool.member_ref(item.operand)
        if name == "<init>":
            st = flow_to(body, i, m.pool, m.owner.name, m.descriptor, False, m.name)
            if st.stack[-1 - len(parse_method_descriptor(desc).params)] is UninitializedThis:
                return i + 1  # the <init> call on `this` ends the uninitialised part
    raise AssertionError(f"no super() in {m}")  # pragma: no cover


@needs_jdk
def test_complete_frames_edits_verify(tmp_path):
    """The same three kinds of edits, written out class by class and verified by both verifiers."""
    h = hierarchy()
    out = tmp_path / "edited"
    stats_by = collections.Counter()
    for path in sorted(compiled().rglob("*.class")):
        cf = read_class(path.read_bytes())
        for n, m in enumerate(cf.methods):
            if m.code() is None:
                continue
            pool = cf.pool
            body = disassemble(m)
            kw = dict(pool=pool, hierarchy=h, **_args(cf, m))
            variant = n % 3
            if variant == 0:
                for i in reversed(range(len(body.items))):
                    item = body.items[i]
                    if not isinstance(item, Label) and op.IRETURN <= item.opcode <= op.RETURN:
                        body.insert(i, _probe(pool)[0])
                body.insert(_entry_index(body, m), _probe(pool)[0])
            elif variant == 1 and m.name != "<init>":
                start, end, handler = Label("s"), Label("e"), Label("h")
                body.items.insert(0, start)
                slot = body.new_local()
                body.items.extend(
                    [end, handler, I(op.ASTORE, slot), *_call_println(pool, "caught"), I(op.ALOAD, slot), I(op.ATHROW)]
                )
                body.handlers.append(Handler(start, end, handler, 0))
            else:
                body.frames = {}
            stats = complete_frames(body, **kw)
            assert not stats.unreachable and not stats.problems, (cf.name, m, stats)
            assert check_frames(body, pool=pool, hierarchy=h, **_args(cf, m)) == [], (cf.name, m)
            stats_by[stats.method] += 1
            write_body(m, body)
        _write(out, path, cf)
    assert stats_by["local"] > 10 and stats_by["inferred"] > 10, stats_by
    _both_verifiers(out)


@needs_jdk
def test_frame_after_for_widened_branches(tmp_path):
    """Push conditional branches past +-32 KB: the assembler widens them and asks frame_after."""
    h = hierarchy()
    out = tmp_path / "widened"
    path = compiled() / "Flow.class"
    cf = read_class(path.read_bytes())
    widened = 0
    for m in cf.methods:
        if m.name not in ("pick", "loops", "ternaryChain", "sw", "longs", "bools", "cond"):
            continue
        body = disassemble(m)
        branches = [
            i
            for i, x in enumerate(body.items)
            if not isinstance(x, Label)
            and (op.IFEQ <= x.opcode <= op.IF_ACMPNE or x.opcode in (op.IFNULL, op.IFNONNULL))
        ]
        assert branches, m
        first = branches[0]
        body.insert(first + 1, [I(op.NOP)] * 33000)  # on the fall-through path: the jump grows
        provider = frame_after_provider(body, pool=cf.pool, hierarchy=h, **_args(cf, m))
        calls = []

        def frame_after(i, provider=provider, calls=calls):
            frame = provider(i)
            calls.append((i, frame))
            return frame

        # what the provider says equals the state after the branch (its operands popped)
        st = flow_to(body, first, cf.pool, cf.name, m.descriptor, bool(m.access & ACC_STATIC), m.name)
        expect = frame_from_state(execute(st, body.items[first], cf.pool, cf.name))
        assert provider(first).locals == expect.locals and provider(first).stack == expect.stack
        write_body(m, body, frame_after=frame_after)
        _, long_branches = layout(body)
        assert first in long_branches and calls, m
        widened += 1
    assert widened == 7
    _write(out, path, cf)
    for other in compiled().rglob("*.class"):
        if other != path:
            _write(out, other, read_class(other.read_bytes()))
    verify_jvm([out]).assert_clean(allow_missing=False)


@needs_jdk
def test_flow_to_each_is_flow_to_at_every_position():
    """``flow_to_each`` (one walk for a method's pending calls) gives at each target what
    ``flow_to`` gives alone, or None where ``flow_to`` raises FrameUnknown: every instruction
    position of every method of every 60th class of java.base, the targets in a shuffled order
    and some twice; and a few positions at a time, so that the walk starts again."""
    import random

    from jprewrite.archive.jdk_image import JdkImage, find_java_home

    img = JdkImage(find_java_home())
    names = sorted(n for _, n in img.iter_class_names("java.base") if not n.endswith("module-info"))
    rng = random.Random(15)
    counts = collections.Counter()
    for name in names[::60]:
        cf = read_class(img.find_class(name))
        for m in cf.methods:
            if m.code() is None:
                continue
            body = disassemble(m)
            if counts["methods"] % 2:
                body.frames = {}  # without frames, code after a transfer is unknown to straight-line flow
            args = (cf.pool, cf.name, m.descriptor, bool(m.access & ACC_STATIC), m.name)
            positions = [i for i, x in enumerate(body.items) if not isinstance(x, Label)]
            expected = {}
            for t in positions:
                try:
                    st = flow_to(body, t, *args)
                    expected[t] = (st.locals, st.stack)
                except FrameUnknown:
                    expected[t] = None
                except TypeflowError:
                    expected[t] = "error"
            if "error" in expected.values():
                counts["skipped"] += 1
                continue
            for targets in (
                rng.sample(positions, len(positions)) + positions[:3],
                rng.sample(positions, min(3, len(positions))),
            ):
                got = flow_to_each(body, targets, *args)
                for t, st in zip(targets, got):
                    assert (None if st is None else (st.locals, st.stack)) == expected[t], f"{name}.{m.name} at {t}"
                    counts["unknown" if st is None else "known"] += 1
            counts["methods"] += 1
    assert counts["methods"] > 500 and counts["known"] > 10000 and counts["unknown"] > 1000, counts
