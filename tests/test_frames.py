"""Tests of the StackMapTable codec (jprewrite.classfile.frames) and of descriptors."""

from __future__ import annotations

import copy
import pickle
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jprewrite.classfile import opcodes as op
from jprewrite.classfile.constants import ConstantPool
from jprewrite.classfile.descriptors import (
    MethodDescriptor,
    class_name_of,
    is_valid_field_descriptor,
    parse_field_descriptor,
    parse_method_descriptor,
    type_size,
)
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
    decode_stack_map_table,
    encode_stack_map_table,
    frame_kind_name,
    initial_frame_locals,
)
from jprewrite.classfile.instructions import decode_instructions
from jprewrite.errors import ClassFormatError

try:  # shared Java fixtures and class-file walker
    from test_instructions import compiled_classes, jdk_sample_classes, needs_jdk, walk_methods
except ImportError:  # tests/ turned into a package
    from tests.test_instructions import compiled_classes, jdk_sample_classes, needs_jdk, walk_methods

SIMPLE = [Top, Integer, Float, Double, Long, Null, UninitializedThis]
NAMES = [
    "java/lang/Object",
    "java/lang/String",
    "[I",
    "[[Ljava/lang/String;",
    "p/Outer$Inner",
    "\u00e9t\u00e9/Caf\u00e9",
]


def utf8(s: str) -> bytes:
    b = s.encode()
    return bytes([1]) + struct.pack(">H", len(b)) + b


def pool_bytes(*entries: bytes) -> bytes:
    """A class-file prefix (magic, version) and constant pool made of ``entries``."""
    return b"\xca\xfe\xba\xbe\x00\x00\x00\x3d" + struct.pack(">H", len(entries) + 1) + b"".join(entries)


def make_pool() -> ConstantPool:
    pool = ConstantPool()
    for name in NAMES:
        pool.add_class(name)
    return pool


# ----------------------------------------------------------- vtypes, frames
def test_vtypes_value_semantics():
    assert Object("a/B", 3) == Object("a/B", 7) == Object("a/B")
    assert hash(Object("a/B", 3)) == hash(Object("a/B"))
    assert Object("a/B") != Object("a/C") and Object("a/B") != Integer
    assert Uninitialized(5) == Uninitialized(5) != Uninitialized(6)
    assert (
        len(
            {
                Top,
                Integer,
                Float,
                Double,
                Long,
                Null,
                UninitializedThis,
                Object("x"),
                Uninitialized(0),
                Object("x", 9),
                Uninitialized(0),
            }
        )
        == 9
    )
    assert Integer != Float and Top == Top
    with pytest.raises(AttributeError):
        Object("x").name = "y"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Top.tag = 3  # type: ignore[misc]
    for t in SIMPLE + [Object("x", 2), Uninitialized(4)]:
        assert copy.deepcopy(t) == t and pickle.loads(pickle.dumps(t)) == t
    assert copy.copy(Long) is Long and pickle.loads(pickle.dumps(UninitializedThis)) is UninitializedThis
    assert pickle.loads(pickle.dumps(Object("x", 2))).cp_index == 2
    assert [t.tag for t in SIMPLE] == list(range(7))
    assert Object("x").tag == 7 and Uninitialized(1).tag == 8


def test_initial_frame_locals():
    assert initial_frame_locals("p/C", "m", "()V", True) == []
    assert initial_frame_locals("p/C", "m", "()V", False) == [Object("p/C")]
    assert initial_frame_locals("p/C", "<init>", "()V", False) == [UninitializedThis]
    assert initial_frame_locals("java/lang/Object", "<init>", "()V", False) == [Object("java/lang/Object")]
    assert initial_frame_locals("p/C", "<clinit>", "()V", True) == []
    got = initial_frame_locals("p/C", "m", "(ZBCSIJFD[I[[Ljava/lang/String;Lq/R;)V", True)
    assert got == [Integer] * 5 + [Long, Float, Double, Object("[I"), Object("[[Ljava/lang/String;"), Object("q/R")]
    assert all(t.cp_index is None for t in got if isinstance(t, Object))
    with pytest.raises(ClassFormatError):
        initial_frame_locals("p/C", "m", "(Q)V", True)


# ------------------------------------------------------------- hypothesis
_vtypes = st.one_of(
    st.sampled_from(SIMPLE),
    st.tuples(st.sampled_from(NAMES), st.booleans()).map(lambda t: (t[0], t[1])),
    st.integers(0, 0xFFFF).map(Uninitialized),
)
_deltas = st.one_of(st.integers(0, 70), st.integers(0, 0xFFFF))


def _resolve(t, pool: ConstantPool):
    """Name tuples from the strategy become Object with or without the pool index."""
    if isinstance(t, tuple):
        name, with_index = t
        return Object(name, pool.add_class(name) if with_index else None)
    return t


@st.composite
def frame_tables(draw):
    pool = make_pool()
    vt = lambda: _resolve(draw(_vtypes), pool)  # noqa: E731
    vts = lambda lo, hi: [vt() for _ in range(draw(st.integers(lo, hi)))]  # noqa: E731
    initial = vts(0, 5)
    prev = list(initial)
    frames = []
    offset = -1
    for _ in range(draw(st.integers(0, 12))):
        kind_name = draw(st.sampled_from(["same", "same_ext", "sl1", "sl1_ext", "chop", "append", "full", None]))
        if kind_name == "chop" and not prev:
            kind_name = "full"
        delta = draw(st.integers(0, 63) if kind_name in ("same", "sl1") else _deltas)
        if offset + 1 + delta > 0xFFFF:
            break
        offset += 1 + delta
        if kind_name == "same":
            f = Frame(offset, list(prev), [], delta)
        elif kind_name == "same_ext":
            f = Frame(offset, list(prev), [], 251)
        elif kind_name == "sl1":
            f = Frame(offset, list(prev), [vt()], 64 + delta)
        elif kind_name == "sl1_ext":
            f = Frame(offset, list(prev), [vt()], 247)
        elif kind_name == "chop":
            k = draw(st.integers(1, min(3, len(prev))))
            f = Frame(offset, prev[:-k], [], 251 - k)
        elif kind_name == "append":
            k = draw(st.integers(1, 3))
            f = Frame(offset, prev + vts(k, k), [], 251 + k)
        elif kind_name == "full":
            f = Frame(offset, vts(0, 6), vts(0, 4), 255)
        else:
            base = draw(st.sampled_from(["prev", "prefix", "extend", "fresh"]))
            if base == "prev":
                locals_ = list(prev)
            elif base == "prefix":
                locals_ = prev[: draw(st.integers(0, len(prev)))]
            elif base == "extend":
                locals_ = prev + vts(0, 4)
            else:
                locals_ = vts(0, 6)
            f = Frame(offset, locals_, vts(0, 2), None)
        frames.append(f)
        prev = f.locals
    return pool, initial, frames


def _check_indices(frames: list[Frame], pool: ConstantPool) -> None:
    # entries inherited from the initial locals have no index; all others come from the pool
    for f in frames:
        for t in f.locals + f.stack:
            if isinstance(t, Object) and t.cp_index is not None:
                assert pool.class_name(t.cp_index) == t.name


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(frame_tables())
def test_frames_roundtrip_generated(table):
    pool, initial, frames = table
    data = encode_stack_map_table(frames, pool, initial)
    decoded = decode_stack_map_table(data, pool, initial)
    assert len(decoded) == len(frames)
    for f, d in zip(frames, decoded):
        assert d.same_types(f)
        if f.kind is not None:
            assert d.kind == f.kind
        for a, b in zip(f.locals + f.stack, d.locals + d.stack):
            if isinstance(a, Object) and a.cp_index is not None:
                assert b.cp_index == a.cp_index
    _check_indices(decoded, pool)
    assert encode_stack_map_table(decoded, pool, initial) == data
    assert encode_stack_map_table(decoded, pool) == data  # kinds trusted for the first frame
    # with every kind forgotten, the encoder picks compact kinds that decode to the same types
    fresh = [Frame(f.offset, f.locals, f.stack) for f in decoded]
    compact = encode_stack_map_table(fresh, pool, initial)
    assert len(compact) <= len(data)
    again = decode_stack_map_table(compact, pool, initial)
    assert all(a.same_types(b) for a, b in zip(again, decoded)) and len(again) == len(decoded)
    # any byte string prefix is rejected cleanly
    for cut in range(len(data) - 1, max(-1, len(data) - 8), -1):
        with pytest.raises(ClassFormatError):
            decode_stack_map_table(data[:cut], pool, initial)


@settings(max_examples=1000)
@given(st.binary(max_size=40), st.lists(st.sampled_from(SIMPLE), max_size=4), st.integers(-1, 100))
def test_random_bytes_decode_or_reject(data, initial, code_length):
    pool = make_pool()
    try:
        frames = decode_stack_map_table(data, pool, initial, code_length)
    except ClassFormatError as e:
        assert e.offset is not None and 0 <= e.offset <= len(data)
        return
    assert encode_stack_map_table(frames, pool, initial) == data


# ------------------------------------------------------------------ by hand
def test_every_kind_by_hand():
    pool = ConstantPool.parse(pool_bytes(utf8("Foo"), bytes([7, 0, 1]), bytes([7, 0, 1])), 8)
    initial = [Object("Foo", 2), Integer]
    data = bytes(
        [
            0,
            10,
            5,  # same, offset 5
            64 + 3,
            7,
            0,
            3,  # same_locals_1_stack_item Object(#3): offset 9
            247,
            0,
            1,
            8,
            0,
            9,  # same_locals_1_stack_item_extended Uninitialized(9): 11
            250,
            0,
            2,  # chop 1: offset 14, locals [Foo]
            251,
            0,
            0,  # same_frame_extended (small delta kept): 15
            254,
            0,
            0,
            4,
            3,
            0,  # append long double top: 16
            249,
            0,
            4,  # chop 2 (entries!): 21, locals [Foo, Long]
            255,
            0,
            1,
            0,
            2,
            6,
            5,
            0,
            2,
            1,
            2,  # full [UninitThis, Null] [Integer, Float]: 23
            0,  # same: 24
            127,
            7,
            0,
            2,
        ]
    )  # sl1 delta 63: 88
    frames = decode_stack_map_table(data, pool, initial, 100)
    assert [(f.offset, f.kind) for f in frames] == [
        (5, 5),
        (9, 67),
        (11, 247),
        (14, 250),
        (15, 251),
        (16, 254),
        (21, 249),
        (23, 255),
        (24, 0),
        (88, 127),
    ]
    assert [frame_kind_name(f.kind) for f in frames] == [
        "same",
        "same_locals_1_stack_item",
        "same_locals_1_stack_item_extended",
        "chop",
        "same_frame_extended",
        "append",
        "chop",
        "full_frame",
        "same",
        "same_locals_1_stack_item",
    ]
    assert frames[0].locals == initial and frames[0].stack == []
    assert frames[1].stack == [Object("Foo")] and frames[1].stack[0].cp_index == 3
    assert frames[2].stack == [Uninitialized(9)]
    assert frames[3].locals == [Object("Foo")]
    assert frames[5].locals == [Object("Foo"), Long, Double, Top]
    assert frames[6].locals == [Object("Foo"), Long]
    assert frames[7].locals == [UninitializedThis, Null] and frames[7].stack == [Integer, Float]
    assert frames[8].locals == [UninitializedThis, Null] and frames[8].stack == []
    assert frames[9].stack[0].cp_index == 2
    assert encode_stack_map_table(frames, pool, initial) == data
    assert encode_stack_map_table(frames, pool) == data
    # frames are independent lists
    frames[0].locals.append(Top)
    assert frames[1].locals == initial


def test_compact_kind_choice():
    pool = make_pool()
    S = Object("java/lang/String")
    s = pool.add_class(S.name)
    initial = [Integer, S]
    cases = [
        (Frame(3, [Integer, S]), [3]),
        (Frame(64, [Integer, S]), [251, 0, 64]),
        (Frame(3, [Integer, S], [Long]), [64 + 3, 4]),
        (Frame(100, [Integer, S], [Long]), [247, 0, 100, 4]),
        (Frame(3, [Integer]), [250, 0, 3]),
        (Frame(3, []), [249, 0, 3]),
        (Frame(3, [Integer, S, Double]), [252, 0, 3, 3]),
        (Frame(3, [Integer, S, Double, Top, Null]), [254, 0, 3, 3, 0, 5]),
        (Frame(3, [Integer, S, Double, Top, Null, Null]), [255, 0, 3, 0, 6, 1, 7, 0, s, 3, 0, 5, 5, 0, 0]),
        (Frame(3, [Float, S]), [255, 0, 3, 0, 2, 2, 7, 0, s, 0, 0]),
        (Frame(3, [Integer], [Integer]), [255, 0, 3, 0, 1, 1, 0, 1, 1]),
        (Frame(3, [Integer, S], [Integer, Integer]), [255, 0, 3, 0, 2, 1, 7, 0, s, 0, 2, 1, 1]),
    ]
    for frame, body in cases:
        assert encode_stack_map_table([frame], pool, initial) == bytes([0, 1] + body), frame
    # no initial locals: a kind-less first frame can only be a full frame
    assert encode_stack_map_table([Frame(3, [Integer, S])], pool)[2] == 255


def test_stale_kind_is_replaced():
    """A decoded frame edited without resetting its kind is still written correctly."""
    pool = make_pool()
    initial = [Integer]
    data = bytes([0, 2, 4, 252, 0, 2, 2])  # same @4, append Float @7
    frames = decode_stack_map_table(data, pool, initial)
    frames[0].locals = [Integer, Long]  # kind still says "same"
    frames[1].offset = 200  # append with a new delta
    out = encode_stack_map_table(frames, pool, initial)
    back = decode_stack_map_table(out, pool, initial)
    # frames are explicit: the second one still has its own locals, no longer an append
    assert [f.locals for f in back] == [[Integer, Long], [Integer, Float]]
    assert back[0].kind == 252 and back[1].offset == 200 and back[1].kind == 255
    frames[1].locals = [Integer, Long, Float]
    back = decode_stack_map_table(encode_stack_map_table(frames, pool, initial), pool, initial)
    assert back[1].kind == 252
    frames[0].stack = [Null]  # "append" with a stack is not possible
    frames[0].kind = 252
    back = decode_stack_map_table(encode_stack_map_table(frames, pool, initial), pool, initial)
    assert back[0].kind == 255 and back[0].stack == [Null]
    frames[0].kind = 40  # same_frame with a delta that no longer fits
    frames[0].locals, frames[0].stack, frames[0].offset = [Integer], [], 100
    frames[1].offset = 300
    back = decode_stack_map_table(encode_stack_map_table(frames, pool, initial), pool, initial)
    assert back[0].kind == 251 and back[0].offset == 100


def test_duplicate_class_constants_keep_their_index():
    pool = ConstantPool.parse(pool_bytes(utf8("Foo"), bytes([7, 0, 1]), bytes([7, 0, 1])), 8)
    data = bytes([0, 1, 255, 0, 0, 0, 2, 7, 0, 3, 7, 0, 2, 0, 0])
    frames = decode_stack_map_table(data, pool, [])
    assert [t.cp_index for t in frames[0].locals] == [3, 2]
    assert encode_stack_map_table(frames, pool, []) == data
    frames[0].locals.append(Object("Bar"))  # new name: added to the pool
    out = encode_stack_map_table(frames, pool, [])
    back = decode_stack_map_table(out, pool, [])
    assert back[0].locals[2] == Object("Bar") and pool.class_name(back[0].locals[2].cp_index) == "Bar"


# -------------------------------------------------------------- rejections
@pytest.mark.parametrize(
    "data, initial, code_length, offset, message",
    [
        (bytes([0]), [], None, 0, "truncated"),
        (bytes([0, 1]), [], None, 2, "truncated"),
        (bytes([0, 1, 64]), [], None, 2, "truncated"),
        (bytes([0, 1, 255, 0, 0, 0, 1, 7, 0]), [], None, 2, "truncated"),
        (bytes([0, 1, 252, 0]), [], None, 2, "truncated"),
        (bytes([0, 0, 0]), [], None, 2, "1 bytes after its 0 frames"),
        (bytes([0, 1, 64, 9]), [], None, 3, "bad verification type tag 9"),
        (bytes([0, 1, 252, 0, 0, 200]), [], None, 5, "bad verification type tag 200"),
        (bytes([0, 2, 0, 128]), [], None, 3, "reserved frame_type 128"),
        (bytes([0, 1, 246]), [], None, 2, "reserved frame_type 246"),
        (bytes([0, 1, 250, 0, 0]), [], None, 2, "chop_frame removes 1 locals but only 0"),
        (bytes([0, 1, 248, 0, 0]), [Integer, Long], None, 2, "removes 3 locals but only 2"),
        (bytes([0, 1, 10]), [], 10, 2, "frame at offset 10 is past the end"),
        (bytes([0, 2, 3, 251, 0, 5]), [], 9, 3, "frame at offset 9 is past the end"),
        (bytes([0, 1, 64, 8, 0, 20]), [], 20, 3, r"Uninitialized\(20\) is past the end"),
        (bytes([0, 1, 64, 7, 0, 1]), [], None, 3, "not a Class"),
        (bytes([0, 1, 64, 7, 0, 99]), [], None, 3, "out of range"),
    ],
)
def test_decode_rejects(data, initial, code_length, offset, message):
    pool = ConstantPool.parse(pool_bytes(utf8("Foo"), bytes([7, 0, 1])), 8)
    with pytest.raises(ClassFormatError, match=message) as e:
        decode_stack_map_table(data, pool, initial, code_length)
    assert e.value.offset == offset


def test_negative_code_length_means_unknown():
    pool = make_pool()
    assert decode_stack_map_table(bytes([0, 1, 63]), pool, [], -1)[0].offset == 63


@pytest.mark.parametrize(
    "frames, message",
    [
        ([Frame(5, []), Frame(5, [])], "does not come after"),
        ([Frame(5, []), Frame(3, [])], "does not come after"),
        ([Frame(70000, [])], "does not come after"),
        ([Frame(1, [Uninitialized(70000)], [], 255)], "cannot encode"),
        ([Frame(1, [Object("x", 70000)], [], 255)], "cannot encode"),
        ([Frame(1, ["not a vtype"], [], 255)], "cannot encode"),  # type: ignore[list-item]
    ],
)
def test_encode_rejects(frames, message):
    with pytest.raises(ClassFormatError, match=message):
        encode_stack_map_table(frames, make_pool(), [])


# ------------------------------------------------------------- descriptors
@pytest.mark.parametrize(
    "desc, params, ret",
    [
        ("()V", (), "V"),
        ("(I)J", ("I",), "J"),
        ("(ZBCSIJFD)D", tuple("ZBCSIJFD"), "D"),
        ("([I[[Ljava/lang/String;La/b$C;)[J", ("[I", "[[Ljava/lang/String;", "La/b$C;"), "[J"),
        ("(Lé;)Ljava/lang/Object;", ("Lé;",), "Ljava/lang/Object;"),
    ],
)
def test_parse_method_descriptor(desc, params, ret):
    md = parse_method_descriptor(desc)
    assert md == MethodDescriptor(params, ret) and md.params == params and md.return_type == ret
    assert md.param_slots == sum(type_size(p) for p in params)


def test_descriptor_sizes_and_names():
    assert parse_method_descriptor("(JDI[J)V").param_slots == 6
    assert parse_method_descriptor("()J").return_slots == 2
    assert parse_method_descriptor("()V").return_slots == 0
    assert class_name_of("Ljava/lang/String;") == "java/lang/String" and class_name_of("[I") == "[I"
    with pytest.raises(ClassFormatError):
        class_name_of("I")
    assert parse_field_descriptor("[" * 255 + "I") == "[" * 255 + "I"


@pytest.mark.parametrize(
    "desc",
    [
        "",
        "V",
        "(",
        "()",
        "(V)V",
        "()VV",
        "()[V",
        "(I",
        "I)V",
        "(L;)V",
        "(Ljava/lang/String)V",
        "(La.b;)V",
        "(La//b;)V",
        "(L/a;)V",
        "(La/;)V",
        "(La[b;)V",
        "([)V",
        "()Q",
        "(I)II",
        "()V ",
        "(" + "[" * 256 + "I)V",
        5,
    ],
)
def test_bad_method_descriptors(desc):
    with pytest.raises(ClassFormatError):
        parse_method_descriptor(desc)


@pytest.mark.parametrize("desc", ["", "V", "II", "L;", "Lx", "[", "[V", "Lx;I", "()V", "[" * 256 + "I"])
def test_bad_field_descriptors(desc):
    with pytest.raises(ClassFormatError):
        parse_field_descriptor(desc)
    assert not is_valid_field_descriptor(desc)


# --------------------------------------------------------------- real code
def _check_class_frames(data: bytes) -> int:
    pool = ConstantPool.parse(data, 8)
    n = 0
    for m in walk_methods(data):
        if m.stack_map is None:
            continue
        initial = initial_frame_locals(m.class_name, m.name, m.descriptor, m.is_static)
        frames = decode_stack_map_table(m.stack_map, pool, initial, len(m.code))
        assert encode_stack_map_table(frames, pool, initial) == m.stack_map, m
        assert encode_stack_map_table(frames, pool) == m.stack_map, m
        fresh = [Frame(f.offset, list(f.locals), list(f.stack)) for f in frames]
        # javac picks the most compact kind too, so even re-chosen kinds give the same bytes
        assert encode_stack_map_table(fresh, pool, initial) == m.stack_map, m
        insns = {i.offset: i for i in decode_instructions(m.code)}
        for f in frames:
            assert f.offset in insns, (m, f)
            for t in f.locals + f.stack:
                if isinstance(t, Uninitialized):
                    assert insns[t.offset].opcode == op.NEW, (m, f)
        n += len(frames)
    return n


@needs_jdk
def test_compiled_frames_roundtrip():
    total = sum(_check_class_frames(p.read_bytes()) for p in compiled_classes())
    assert total > 50


@needs_jdk
def test_compiled_frames_content():
    by_name = {}
    for path in compiled_classes():
        data = path.read_bytes()
        pool = ConstantPool.parse(data, 8)
        for m in walk_methods(data):
            if m.stack_map is not None:
                initial = initial_frame_locals(m.class_name, m.name, m.descriptor, m.is_static)
                by_name[(m.class_name, m.name, m.descriptor)] = decode_stack_map_table(
                    m.stack_map, pool, initial, len(m.code)
                )
    ctor = by_name[("Samples", "<init>", "(ZLjava/lang/String;Ljava/lang/String;)V")]
    assert any(isinstance(t, Uninitialized) for f in ctor for t in f.stack)
    this_ctor = by_name[("Samples", "<init>", "(Z)V")]
    assert all(f.locals[0] is UninitializedThis and f.stack[0] is UninitializedThis for f in this_ctor)
    longs = by_name[("Samples", "longs", "(JDI)D")]
    assert longs[0].locals == [Long, Double, Integer, Long, Double, Integer]  # one entry per long/double
    many = by_name[("Wide", "many", "(I)J")]
    assert any(len(f.locals) > 300 for f in many)
    kinds = {frame_kind_name(f.kind) for frames in by_name.values() for f in frames}
    assert kinds >= {"same", "same_locals_1_stack_item", "chop", "append", "full_frame"}


@needs_jdk
def test_jdk_sample_frames_roundtrip():
    classes = jdk_sample_classes()
    if not classes:
        pytest.skip("no JDK image")
    assert sum(_check_class_frames(p.read_bytes()) for p in classes) > 3000
