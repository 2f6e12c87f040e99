"""Constant pool and modified UTF-8: generated pools survive encode/decode exactly."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jprewrite.classfile import constants as C
from jprewrite.classfile import mutf8
from jprewrite.errors import ClassFormatError

# Any sequence of UTF-16 code units, lone surrogates included, as Java strings allow.
java_strings = st.lists(st.integers(0, 0xFFFF), max_size=40).map(lambda units: mutf8._units_to_str(units))


@given(java_strings)
def test_mutf8_round_trip(text: str) -> None:
    raw = mutf8.encode(text)
    assert b"\x00" not in raw  # NUL is always C0 80
    assert mutf8.decode(raw) == text
    assert mutf8.encode(mutf8.decode(raw)) == raw


def _mutf8_by_units(text: str) -> bytes:
    """JVMS 4.4.7 spelled out: each UTF-16 code unit in 1 to 3 bytes, NUL in two."""
    units = text.encode("utf-16-be", "surrogatepass")
    out = bytearray()
    for k in range(0, len(units), 2):
        u = (units[k] << 8) | units[k + 1]
        if 0 < u < 0x80:
            out.append(u)
        elif u < 0x800:
            out += bytes((0xC0 | (u >> 6), 0x80 | (u & 0x3F)))
        else:
            out += bytes((0xE0 | (u >> 12), 0x80 | ((u >> 6) & 0x3F), 0x80 | (u & 0x3F)))
    return bytes(out)


@given(java_strings | st.text(max_size=40))
def test_mutf8_encodes_every_code_unit_as_the_jvms_says(text: str) -> None:
    """Every path of ``encode`` (ASCII, the UTF-8 shortcut, the loop) gives the units' encoding."""
    assert mutf8.encode(text) == _mutf8_by_units(text)


def test_mutf8_known_encodings() -> None:
    assert mutf8.encode("\x00") == b"\xc0\x80"
    # U+1F600 is a surrogate pair, three bytes each (not 4-byte UTF-8)
    assert mutf8.encode("\U0001f600") == b"\xed\xa0\xbd\xed\xb8\x80"
    assert mutf8.decode(b"\xed\xa0\xbd\xed\xb8\x80") == "\U0001f600"
    assert mutf8.decode(b"\xed\xa0\xbd") == "\ud83d"  # a lone high surrogate survives
    with pytest.raises(ClassFormatError):
        mutf8.decode(b"a\x00b")
    with pytest.raises(ClassFormatError):
        mutf8.decode(b"\xf0\x9f\x98\x80")  # real UTF-8 4-byte form is not modified UTF-8


def _constants(pool_size_hint: int = 0):
    """A strategy for one constant whose references are filled in later."""
    u32 = st.integers(0, 2**32 - 1)
    u64 = st.integers(0, 2**64 - 1)
    return st.one_of(
        java_strings.map(lambda s: ("utf8", s)),
        st.integers(-(2**31), 2**31 - 1).map(lambda v: ("int", v)),
        u32.map(lambda v: ("float", v)),  # any bit pattern: NaNs, -0.0, denormals
        st.integers(-(2**63), 2**63 - 1).map(lambda v: ("long", v)),
        u64.map(lambda v: ("double", v)),
        st.sampled_from(
            [
                "class",
                "string",
                "methodtype",
                "module",
                "package",
                "field",
                "method",
                "imethod",
                "nat",
                "dynamic",
                "indy",
                "mh",
            ]
        ).map(lambda k: (k, None)),
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(_constants(), min_size=1, max_size=60), st.data())
def test_generated_pool_round_trip(specs, data) -> None:
    pool = C.ConstantPool()
    # a few anchors that reference-holding constants may point to
    u = pool.add(C.Utf8("anchor/Name"))
    d = pool.add(C.Utf8("(I)V"))
    cls = pool.add(C.ClassRef(u))
    nat = pool.add(C.NameAndType(u, d))
    fref = pool.add(C.Fieldref(cls, nat))
    mref = pool.add(C.Methodref(cls, nat))
    iref = pool.add(C.InterfaceMethodref(cls, nat))
    for kind, value in specs:
        if kind == "utf8":
            pool.add(C.Utf8(value))
        elif kind == "int":
            pool.add(C.Integer(value))
        elif kind == "float":
            pool.add(C.Float(value))
        elif kind == "long":
            pool.add(C.Long(value))
        elif kind == "double":
            pool.add(C.Double(value))
        elif kind in ("class", "string", "methodtype", "module", "package"):
            cls_ = {
                "class": C.ClassRef,
                "string": C.String,
                "methodtype": C.MethodType,
                "module": C.Module,
                "package": C.Package,
            }[kind]
            pool.add(cls_(u if kind != "methodtype" else d))
        elif kind in ("field", "method", "imethod"):
            cls_ = {"field": C.Fieldref, "method": C.Methodref, "imethod": C.InterfaceMethodref}[kind]
            pool.add(cls_(cls, nat))
        elif kind == "nat":
            pool.add(C.NameAndType(d, u))
        elif kind in ("dynamic", "indy"):
            cls_ = C.Dynamic if kind == "dynamic" else C.InvokeDynamic
            pool.add(cls_(data.draw(st.integers(0, 5)), nat))
        elif kind == "mh":
            ref_kind = data.draw(st.integers(1, 9))
            target = {1: fref, 2: fref, 3: fref, 4: fref, 5: mref, 8: mref, 6: mref, 7: iref, 9: iref}[ref_kind]
            pool.add(C.MethodHandle(ref_kind, target))
    encoded = pool.encode()
    parsed = C.ConstantPool.parse(b"junk" + encoded, 4)
    assert len(parsed) == len(pool)
    assert [(i, c.key()) for i, c in parsed.entries()] == [(i, c.key()) for i, c in pool.entries()]
    assert parsed.encode() == encoded
    # the find-or-add index with keys read from the bytes, and with keys of the entries
    fast = C.ConstantPool.parse(encoded, 0)
    fast._build_index()
    slow = C.ConstantPool.parse(encoded, 0)
    slow.decode_all()
    slow._build_index()
    assert (fast._utf8_index, fast._ref_index, fast._other_index) == (
        slow._utf8_index,
        slow._ref_index,
        slow._other_index,
    )
    first: dict = {}
    for i, c in parsed.entries():
        first.setdefault(c.key(), i)
    for _, c in parsed.entries():  # find-or-add finds the first equal entry
        assert fast.add(c) == first[c.key()]
    assert len(fast) == len(pool)
    assert parsed.encode(full=True) == encoded


def test_pool_keeps_nan_bits_and_duplicates() -> None:
    nan_bits = 0x7FC00001  # a NaN that is not the canonical one
    raw = (
        struct.pack(">H", 6)
        + b"\x04"
        + struct.pack(">I", nan_bits)
        + b"\x01\x00\x01a"
        + b"\x01\x00\x01a"
        + b"\x06"
        + struct.pack(">Q", 0xFFF8000000000001)
    )
    pool = C.ConstantPool.parse(raw, 0)
    assert pool[1].bits == nan_bits
    assert pool[2] == pool[3]  # equal values, separate slots
    assert pool.encode(full=True) == raw
    assert pool.tag(5) == 0  # second slot of the Double
    with pytest.raises(ClassFormatError):
        pool[5]


def test_pool_add_finds_existing_entries() -> None:
    pool = C.ConstantPool()
    a = pool.add_methodref("java/lang/Object", "<init>", "()V")
    b = pool.add_methodref("java/lang/Object", "<init>", "()V")
    assert a == b
    assert pool.member_ref(a) == ("java/lang/Object", "<init>", "()V")
    assert pool.add_long(7) + 2 == pool.add_integer(7)  # a Long takes two slots


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"\x00\x02\x07\x00\x05", "invalid index #5"),  # Class -> out of range
        (b"\x00\x03\x07\x00\x02\x03\x00\x00\x00\x01", "not a Utf8"),  # Class -> Integer
        (b"\x00\x02\x0f\x0a\x00\x01", "bad reference_kind"),  # MethodHandle kind 10
        (b"\x00\x02\x02\x00", "unknown constant-pool tag 2"),
        (b"\x00\x02\x05\x00\x00\x00\x00\x00\x00\x00\x01", "takes two slots"),
        (b"\x00\x02\x01\x00\x09ab", "truncated"),
        (b"\x00\x00", "constant_pool_count is 0"),
    ],
)
def test_malformed_pools(raw: bytes, message: str) -> None:
    with pytest.raises(ClassFormatError, match=message) as info:
        C.ConstantPool.parse(raw, 0)
    assert info.value.offset is not None
