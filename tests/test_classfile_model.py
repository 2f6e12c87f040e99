"""The class-file model: lossless round trips of real javac output, and every kind of malformed input."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jprewrite.classfile import attributes as A
from jprewrite.classfile.model import read_class
from jprewrite.errors import ClassFormatError, JprewriteError, UnsupportedVersionError

from support.jdk import class_files, javac

SOURCES = {
    "p/Shapes.java": """
package p;
import java.lang.annotation.*;
import java.util.*;
import java.util.function.*;
@Retention(RetentionPolicy.RUNTIME) @Target({ElementType.TYPE_USE, ElementType.PARAMETER, ElementType.TYPE})
@interface Tag { String value() default "x"; int[] n() default {1, 2}; }
public sealed interface Shapes permits Shapes.Circle, Shapes.Square {
    record Circle(@Tag("r") double r) implements Shapes {}
    record Square(long side) implements Shapes {}
    static double area(Shapes s) {
        if (s instanceof Circle c) return Math.PI * c.r() * c.r();
        Square q = (Square) s;
        return q.side() * q.side();
    }
    default String describe(@Tag("who") String who, int... xs) {
        @Tag List<@Tag String> names = new ArrayList<>();
        Supplier<String> sup = () -> who + names + xs.length;
        try { return sup.get(); } catch (RuntimeException e) { return "\\u0000\\uD83D\\uDE00" + e; }
        finally { names.clear(); }
    }
}
""",
    "p/Outer.java": """
package p;
public class Outer {
    static final float NAN = 0.0f / 0.0f;
    static final double D = -0.0;
    static final long L = 1234567890123L;
    static final String S = "nul\\u0000 and surrogates \\uD800";
    class Inner { int x = 1; }
    java.util.List<String> names = null;
    <T extends Comparable<T>> T max(T a, T b) { return a.compareTo(b) > 0 ? a : b; }
    int sw(int k) {
        switch (k) { case 1: return 10; case 2: return 20; case 3: return 30; case 100: return 1; default: return 0; }
    }
    int lookup(String s) {
        return switch (s) { case "a" -> 1; case "bb" -> 2; default -> new Object() { int v = 3; }.v; };
    }
    synchronized long wide(long a, double b) {
        long r = a; for (int i = 0; i < 300; i++) { r += i * (long) b; }
        return r;
    }
}
""",
}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> list[Path]:
    out = javac(SOURCES, tmp_path_factory.mktemp("model") / "classes", "--release", "17", "-g")
    files = class_files(out)
    assert len(files) >= 7
    return files


def test_lazy_round_trip_is_identical(compiled) -> None:
    for f in compiled:
        data = f.read_bytes()
        assert read_class(data).to_bytes() == data, f


def test_decoded_attributes_round_trip(compiled) -> None:
    """Every attribute jprewrite decodes (outside instructions/frames) encodes back identically."""
    seen: set[str] = set()
    for f in compiled:
        data = f.read_bytes()
        cf = read_class(data)
        pool = cf.pool
        cf.attributes = [A.decode_attribute(a, pool, A.CLASS) for a in cf.attributes]
        for m in cf.fields + cf.methods:
            m.attributes = [A.decode_attribute(a, pool, m.context, m.decode_context()) for a in m.attributes]
            for a in m.attributes:
                seen.add(type(a).__name__)
                if type(a).__name__ == "CodeAttribute":
                    a.attributes = [A.decode_attribute(x, pool, A.CODE, a.context) for x in a.attributes]
                    seen.update(type(x).__name__ for x in a.attributes)
        seen.update(type(a).__name__ for a in cf.attributes)
        assert cf.to_bytes() == data, f
    for expected in [
        "Record",
        "PermittedSubclasses",
        "InnerClasses",
        "NestMembers",
        "NestHost",
        "BootstrapMethods",
        "Signature",
        "SourceFile",
        "CodeAttribute",
        "LineNumberTable",
        "LocalVariableTable",
        "LocalVariableTypeTable",
        "ConstantValue",
        "RuntimeVisibleParameterAnnotations",
        "RuntimeVisibleTypeAnnotations",
        "EnclosingMethod",
    ]:
        assert expected in seen, expected


def test_names_and_members(compiled) -> None:
    outer = next(read_class(f.read_bytes()) for f in compiled if f.name == "Outer.class")
    assert outer.name == "p/Outer"
    assert outer.super_name == "java/lang/Object"
    assert outer.method("wide").descriptor == "(JD)J"
    nan = next(f for f in outer.fields if f.name == "NAN")
    cv = nan.attribute("ConstantValue")
    assert outer.pool[cv.index].bits == 0x7FC00000
    d = next(f for f in outer.fields if f.name == "D").attribute("ConstantValue")
    assert outer.pool[d.index].bits == 0x8000000000000000
    s = next(f for f in outer.fields if f.name == "S")
    assert outer.pool.utf8(outer.pool[s.attribute("ConstantValue").index].index) == "nul\x00 and surrogates \ud800"


def test_reading_without_attributes_gives_the_same_members(compiled) -> None:
    """``attributes=False`` (the class hierarchy's reader) keeps every member and drops only attributes."""
    for f in compiled:
        data = f.read_bytes()
        full, bare = read_class(data), read_class(data, attributes=False)
        assert bare.name == full.name and bare.super_name == full.super_name
        assert bare.interfaces == full.interfaces and bare.access == full.access
        for a, b in ((full.fields, bare.fields), (full.methods, bare.methods)):
            assert [(m.access, m.name, m.descriptor) for m in a] == [(m.access, m.name, m.descriptor) for m in b]
            assert all(not m.attributes for m in b)
        assert bare.attributes == []


# --------------------------------------------------------------------------- bad input
def _small_class(compiled) -> bytes:
    return next(f.read_bytes() for f in compiled if f.name == "Outer$Inner.class")


def test_every_truncation_is_a_class_format_error(compiled) -> None:
    data = _small_class(compiled)
    for n in range(len(data)):
        with pytest.raises(ClassFormatError) as info:
            read_class(data[:n])
        assert info.value.offset is not None and 0 <= info.value.offset <= n
        with pytest.raises(ClassFormatError) as bare:  # the same error without the attributes
            read_class(data[:n], attributes=False)
        assert (bare.value.message, bare.value.offset) == (info.value.message, info.value.offset)


def test_bad_magic_and_versions(compiled) -> None:
    data = _small_class(compiled)
    with pytest.raises(ClassFormatError, match="bad magic"):
        read_class(b"\xca\xfe\xba\xbf" + data[4:])
    for major in (44, 200):
        with pytest.raises(UnsupportedVersionError, match=f"version {major}"):
            read_class(data[:6] + struct.pack(">H", major) + data[8:])
    with pytest.raises(ClassFormatError, match="extra bytes"):
        read_class(data + b"\0")


def test_this_class_of_wrong_kind(compiled) -> None:
    data = _small_class(compiled)
    cf = read_class(data)
    pos = 8 + cf.pool.original_size + 2  # access_flags, then this_class
    utf8_index = cf.pool[cf.this_class].index  # a Utf8, not a Class
    bad = data[:pos] + struct.pack(">H", utf8_index) + data[pos + 2 :]
    with pytest.raises(ClassFormatError, match="this_class index") as info:
        read_class(bad)
    assert info.value.offset == pos
    bad = data[:pos] + struct.pack(">H", 0xFFFF) + data[pos + 2 :]
    with pytest.raises(ClassFormatError, match="not a Class"):
        read_class(bad)


def test_attribute_length_overrun(compiled) -> None:
    data = _small_class(compiled)
    # the last attribute of the class is at the end: make its length too big by one
    cf = read_class(data)
    last = cf.attributes[-1]
    at = len(data) - len(last.data) - 4
    bad = data[:at] + struct.pack(">I", len(last.data) + 1) + data[at + 4 :]
    with pytest.raises(ClassFormatError, match="overruns"):
        read_class(bad)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_corrupted_bytes_never_crash(compiled, data) -> None:
    """Flipping bytes anywhere gives a clean class or a JprewriteError, never another exception."""
    original = _small_class(compiled) if data.draw(st.booleans()) else compiled[0].read_bytes()
    buf = bytearray(original)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i] = data.draw(st.integers(0, 255))
    try:
        cf = read_class(bytes(buf))
        cf.decode_all()
        cf.to_bytes()
    except JprewriteError:
        pass
