"""Tests of the pure-Python jimage reader against the real JDK and the JDK's own tools.

The real image is checked against ``jimage extract`` / ``jimage list`` (the
reference implementation). Compression, byte order and corruption are checked
on small images: ones jlink builds with ``--compress``, and tiny ones written
here by :class:`TinyImage`, whose layout is itself verified with ``jimage``.
"""

from __future__ import annotations

import os
import random
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from jprewrite.archive.jdk_image import (
    COMPRESSED_MAGIC,
    IMAGE_MAGIC,
    JdkImage,
    decompress_resource,
    find_java_home,
    image_hash,
)
from jprewrite.errors import ArchiveError

# --------------------------------------------------------------------------
# The real JDK
# --------------------------------------------------------------------------


def _real_java_home() -> Path | None:
    try:
        return find_java_home()
    except ArchiveError:
        fallback = Path("/usr/lib/jvm/java-17-openjdk-amd64")
        return fallback if (fallback / "lib" / "modules").is_file() else None


JAVA_HOME = _real_java_home()
needs_jdk = pytest.mark.skipif(JAVA_HOME is None, reason="no JDK 9+ installed")


def _tool(name: str) -> Path:
    tool = JAVA_HOME / "bin" / name if JAVA_HOME else None
    if tool is None or not tool.is_file():
        pytest.skip(f"JDK tool {name} not available")
    return tool


@pytest.fixture(scope="module")
def image():
    if JAVA_HOME is None:
        pytest.skip("no JDK 9+ installed")
    with JdkImage(JAVA_HOME) as img:
        yield img


def _run(*args: object) -> str:
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True).stdout


def _parse_jimage_list(text: str) -> dict[str, set[str]]:
    """``jimage list`` prints 'Module: m' then the module's paths indented."""
    listing: dict[str, set[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("Module: "):
            current = listing.setdefault(line[len("Module: ") :].strip(), set())
        elif line.startswith("    ") and current is not None:
            current.add(line.strip())
    return listing


@pytest.fixture(scope="module")
def jimage_listing() -> dict[str, set[str]]:
    if JAVA_HOME is None:
        pytest.skip("no JDK 9+ installed")
    return _parse_jimage_list(_run(_tool("jimage"), "list", JAVA_HOME / "lib" / "modules"))


@pytest.fixture(scope="module")
def extracted_base(tmp_path_factory) -> Path:
    if JAVA_HOME is None:
        pytest.skip("no JDK 9+ installed")
    out = tmp_path_factory.mktemp("java.base")
    _run(_tool("jimage"), "extract", "--include", "glob:/java.base/**", "--dir", out, JAVA_HOME / "lib" / "modules")
    return out / "java.base"


@needs_jdk
@pytest.mark.corpus
def test_every_java_base_class_matches_jimage_extract(image, extracted_base):
    expected = {str(p.relative_to(extracted_base))[:-6]: p for p in extracted_base.rglob("*.class")}
    seen = set()
    for module, name, data in image.iter_classes("java.base"):
        assert module == "java.base"
        assert data == expected[name].read_bytes(), name
        if name != "module-info":
            assert image.find_class(name) == data, name
        seen.add(name)
    assert seen == set(expected)
    assert len(seen) > 5000


@needs_jdk
def test_non_class_resource_matches_jimage_extract(image, extracted_base):
    path = "META-INF/services/java.nio.file.spi.FileSystemProvider"
    assert image.read_resource(f"/java.base/{path}") == (extracted_base / path).read_bytes()


@needs_jdk
@pytest.mark.corpus
def test_all_module_listings_match_jimage_list(image, jimage_listing):
    ours: dict[str, set[str]] = {}
    for module, path in image.iter_resource_names():
        ours.setdefault(module, set()).add(path)
    assert image.modules() == sorted(jimage_listing)
    for module, paths in jimage_listing.items():
        assert len(ours[module]) == len(paths), module
        assert ours[module] == paths, module
        class_count = sum(1 for p in paths if p.endswith(".class"))
        assert sum(1 for _ in image.iter_class_names(module)) == class_count, module


@needs_jdk
def test_modules_match_release_file(image):
    release = (JAVA_HOME / "release").read_text()
    declared = re.search(r'^MODULES="([^"]*)"', release, re.M)
    if declared is None:
        pytest.skip("release file lists no modules")
    assert image.modules() == sorted(declared.group(1).split())


@pytest.mark.parametrize(
    "line, expected",
    [
        ('JAVA_VERSION="17.0.15"', 17),
        ('JAVA_VERSION="21"', 21),
        ('JAVA_VERSION="22-ea"', 22),
        ('IMPLEMENTOR="x"', None),
    ],
)
def test_feature_version_from_the_release_file(tmp_path, line, expected):
    """What multi-release jars are planned with: ``JAVA_VERSION``'s first number, None without one."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "modules").write_bytes(b"")
    (tmp_path / "release").write_text(f'{line}\nJAVA_VERSION_DATE="2025-04-15"\n')
    assert JdkImage(tmp_path).feature_version == expected


def test_feature_version_of_this_jdk_is_the_one_java_reports(image):
    out = subprocess.run(
        [str(image.java_home / "bin" / "java"), "-XshowSettings:properties", "-version"], capture_output=True, text=True
    ).stderr
    spec = re.search(r"java\.specification\.version = (\d+)", out)
    assert spec is not None and image.feature_version == int(spec.group(1))


@needs_jdk
@pytest.mark.parametrize(
    "name, module",
    [
        ("java/lang/Object", "java.base"),
        ("java/util/concurrent/ConcurrentHashMap$Node", "java.base"),
        ("javax/swing/JFrame", "java.desktop"),
        ("com/sun/tools/javac/Main", "jdk.compiler"),
        ("java/util/logging/Logger", "java.logging"),
    ],
)
def test_find_well_known_classes(image, name, module):
    data = image.find_class(name)
    assert data is not None and data[:4] == b"\xca\xfe\xba\xbe"
    assert image.module_of_package(name.rpartition("/")[0]) == module
    assert data == image.read_resource(f"/{module}/{name}.class")
    # The this_class name sits in the constant pool as UTF-8.
    assert name.encode() in data


@needs_jdk
@pytest.mark.parametrize(
    "name",
    [
        "java/lang/NoSuchClass",
        "no/such/pkg/Foo",
        "Object",
        "",
        "java.lang.Object",
        "java/lang/",
        "java/lang/Object.class",
        "[Ljava/lang/Object;",
        "module-info",
        "java/lang/Obj\u00e9ct",
        "java/lang/\U0001f600",
        "java/lang/Object\0",
    ],
)
def test_missing_classes_return_none(image, name):
    assert image.find_class(name) is None


@needs_jdk
def test_missing_resources_and_packages(image):
    assert image.read_resource("/java.base/java/lang/Nope.class") is None
    assert image.read_resource("/no.such.module/x") is None
    assert image.read_resource("") is None
    assert not image.has_resource("/java.base/java/lang/Nope.class")
    assert image.has_resource("/java.base/java/lang/Object.class")
    assert image.module_of_package("no/such/pkg") is None
    assert image.module_of_package("") is None
    assert list(image.iter_classes("no.such.module")) == []


@needs_jdk
def test_module_info_is_listed_per_module(image):
    names = set(image.iter_class_names())
    assert ("java.base", "module-info") in names
    assert ("jdk.compiler", "module-info") in names
    info = image.read_resource("/java.base/module-info.class")
    assert info is not None and info[:4] == b"\xca\xfe\xba\xbe"


@needs_jdk
def test_byte_order_is_detected_from_the_real_file(image):
    with open(JAVA_HOME / "lib" / "modules", "rb") as f:
        head = f.read(4)
    assert int.from_bytes(head, image.byte_order) == IMAGE_MAGIC
    # The JDK writes its image in the platform's native order.
    assert image.byte_order == sys.byteorder


@needs_jdk
def test_build_id_is_stable_and_file_name_safe(image):
    again = JdkImage(JAVA_HOME)
    assert image.build_id == again.build_id
    assert re.fullmatch(r"[A-Za-z0-9._+-]+", image.build_id)
    version = re.search(r'^JAVA_VERSION="([^"]*)"', (JAVA_HOME / "release").read_text(), re.M)
    if version:
        assert version.group(1) in image.build_id


@needs_jdk
def test_java_home_and_modules_file_open_the_same_image(image):
    other = JdkImage(JAVA_HOME / "lib" / "modules")
    assert other.java_home == JAVA_HOME
    assert other.build_id == image.build_id
    with other:
        assert other.find_class("java/lang/String") == image.find_class("java/lang/String")


@needs_jdk
def test_close_and_context_manager():
    img = JdkImage(JAVA_HOME)
    with img:
        data = img.find_class("java/lang/Object")
    assert data[:4] == b"\xca\xfe\xba\xbe"  # copies survive the unmapping
    with pytest.raises(ValueError):
        img.find_class("java/lang/Object")
    img.close()  # idempotent


# --------------------------------------------------------------------------
# find_java_home and bad locations
# --------------------------------------------------------------------------


@needs_jdk
def test_find_java_home_prefers_java_home(tmp_path):
    assert find_java_home({"JAVA_HOME": str(JAVA_HOME), "PATH": ""}) == JAVA_HOME


def test_java_home_pointing_at_a_non_jdk_is_a_clear_error(tmp_path):
    (tmp_path / "bin").mkdir()
    with pytest.raises(ArchiveError) as err:
        find_java_home({"JAVA_HOME": str(tmp_path), "PATH": ""})
    message = str(err.value)
    assert "JAVA_HOME" in message and "JDK" in message and str(tmp_path) in message
    with pytest.raises(ArchiveError, match="JDK"):
        JdkImage(tmp_path)


@needs_jdk
def test_find_java_home_follows_java_on_path_through_symlinks(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "java").symlink_to(JAVA_HOME / "bin" / "java")
    found = find_java_home({"PATH": str(bin_dir)})
    assert found == (JAVA_HOME / "bin" / "java").resolve().parent.parent
    assert (found / "lib" / "modules").is_file()


def test_no_jdk_at_all_is_a_clear_error(tmp_path):
    with pytest.raises(ArchiveError, match="no JDK found"):
        find_java_home({"PATH": str(tmp_path)})


def test_java_on_path_without_runtime_image_is_an_error(tmp_path):
    fake = tmp_path / "jre8" / "bin"
    fake.mkdir(parents=True)
    (fake / "java").write_text("#!/bin/sh\n")
    (fake / "java").chmod(0o755)
    with pytest.raises(ArchiveError, match="JDK 9"):
        find_java_home({"PATH": str(fake)})


def test_missing_path_is_an_error(tmp_path):
    with pytest.raises(ArchiveError, match="no such file") as err:
        JdkImage(tmp_path / "nothing")
    assert err.value.path == str(tmp_path / "nothing")


# --------------------------------------------------------------------------
# Corrupt and truncated copies of the real image
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_index_bytes() -> bytes:
    """The real image's index (header + tables + strings) and a little content."""
    if JAVA_HOME is None:
        pytest.skip("no JDK 9+ installed")
    with open(JAVA_HOME / "lib" / "modules", "rb") as f:
        header = f.read(28)
        order = "<" if int.from_bytes(header[:4], "little") == IMAGE_MAGIC else ">"
        _m, _v, _f, _c, length, locations, strings = struct.unpack(order + "7I", header)
        index_size = 28 + 8 * length + locations + strings
        return header + f.read(index_size - 28 + 4096)


def _expect_archive_error(path: Path, offset: int | None, action=lambda img: img.modules()):
    img = JdkImage(path)  # construction is lazy: the file is not read yet
    with pytest.raises(ArchiveError) as err:
        action(img)
    assert err.value.path == str(path)
    assert str(path) in str(err.value)
    if offset is not None:
        assert err.value.offset == offset
        assert f"at byte {offset}" in str(err.value)
    img.close()
    return err.value


@pytest.mark.parametrize("cut", [0, 3, 10, 27])
def test_file_cut_inside_the_header(tmp_path, real_index_bytes, cut):
    path = tmp_path / "modules"
    path.write_bytes(real_index_bytes[:cut])
    error = _expect_archive_error(path, cut)
    assert "header" in error.message


@pytest.mark.parametrize("cut", [28, 28 + 1000, 200_000, 800_000])
def test_file_cut_inside_the_index(tmp_path, real_index_bytes, cut):
    path = tmp_path / "modules"
    path.write_bytes(real_index_bytes[:cut])
    error = _expect_archive_error(path, cut)
    assert "truncated" in error.message


def test_file_cut_inside_resource_content(tmp_path, real_index_bytes):
    path = tmp_path / "modules"
    path.write_bytes(real_index_bytes)
    with JdkImage(path) as img:
        assert "java.base" in img.modules()  # the index alone is intact
        assert img.has_resource("/java.base/java/lang/Object.class")
        with pytest.raises(ArchiveError) as err:
            img.read_resource("/java.base/java/lang/Object.class")
        # The /packages directory contents are stored last, so they are cut too.
        with pytest.raises(ArchiveError, match="/packages/java.lang"):
            img.find_class("java/lang/Object")
    assert err.value.entry == "/java.base/java/lang/Object.class"
    assert err.value.offset is not None and err.value.offset > len(real_index_bytes) - 4096
    assert "past the end" in str(err.value)


def test_bad_magic(tmp_path, real_index_bytes):
    path = tmp_path / "modules"
    path.write_bytes(b"PK\x03\x04" + real_index_bytes[4:])
    error = _expect_archive_error(path, 0)
    assert "magic" in error.message


def test_bad_version(tmp_path, real_index_bytes):
    data = bytearray(real_index_bytes)
    order = "little" if int.from_bytes(data[:4], "little") == IMAGE_MAGIC else "big"
    data[4:8] = (2 << 16 | 0).to_bytes(4, order)
    path = tmp_path / "modules"
    path.write_bytes(bytes(data))
    error = _expect_archive_error(path, 4, lambda img: img.find_class("java/lang/Object"))
    assert "version 2.0" in error.message


# --------------------------------------------------------------------------
# Tiny images written here
# --------------------------------------------------------------------------


class TinyImage:
    """Writes a small jimage the way jlink lays it out.

    Only for tests: it lets compression, byte order and corruption be tried on
    a file of a few kilobytes. :func:`test_tiny_image_is_valid_for_the_jdk_tools`
    checks the JDK's own ``jimage`` accepts what it writes.
    """

    def __init__(self, byte_order: str = "little") -> None:
        self.order = "<" if byte_order == "little" else ">"
        self.byte_order = byte_order
        self.strings = bytearray(b"\0")
        self.string_offsets = {b"": 0}
        self.content = bytearray()
        self.locations: list[tuple[str, list[int]]] = []  # (name, attribute values)
        self.packages: dict[str, list[str]] = {}

    def string(self, text: str | bytes) -> int:
        raw = text.encode() if isinstance(text, str) else text
        if raw not in self.string_offsets:
            self.string_offsets[raw] = len(self.strings)
            self.strings += raw + b"\0"
        return self.string_offsets[raw]

    def add(self, name: str, stored: bytes, uncompressed_size: int | None = None) -> None:
        """Add a resource; pass *uncompressed_size* when *stored* is compressed."""
        module, parent, base, extension = self._split(name)
        attrs = [0] * 8
        attrs[1], attrs[2], attrs[3], attrs[4] = (
            self.string(module),
            self.string(parent),
            self.string(base),
            self.string(extension),
        )
        attrs[5] = len(self.content)
        if uncompressed_size is None:
            attrs[7] = len(stored)
        else:
            attrs[6], attrs[7] = len(stored), uncompressed_size
        self.content += stored
        self.locations.append((name, attrs))
        if module not in ("modules", "packages") and parent:
            modules = self.packages.setdefault(parent.replace("/", "."), [])
            if module not in modules:
                modules.append(module)

    @staticmethod
    def _split(name: str) -> tuple[str, str, str, str]:
        """ImageLocationWriter.newLocation's split of a full name."""
        for root in ("modules", "packages"):
            if name.startswith(f"/{root}/"):
                return root, "", name[len(root) + 2 :], ""
        module, _, rest = name[1:].partition("/")
        parent, _, leaf = rest.rpartition("/")
        base, dot, extension = leaf.rpartition(".")
        return (module, parent, base, extension) if dot else (module, parent, leaf, "")

    def compressed(self, decompressor: str, payload: bytes, original_size: int) -> bytes:
        header = struct.pack(
            self.order + "IqqiiB", COMPRESSED_MAGIC, len(payload), original_size, self.string(decompressor), -1, 1
        )
        return header + payload

    def zipped(self, data: bytes, original_size: int | None = None) -> bytes:
        return self.compressed("zip", zlib.compress(data), len(data) if original_size is None else original_size)

    def build(self) -> bytes:
        for package, modules in sorted(self.packages.items()):
            pairs = b"".join(struct.pack(self.order + "II", 0, self.string(m)) for m in modules)
            self.add(f"/packages/{package}", pairs)
        names = [name.encode() for name, _ in self.locations]
        slots, redirect = _perfect_hash(names)
        locations = bytearray()
        offsets = []
        for slot in slots:
            offsets.append(len(locations))
            locations += _encode_attributes(self.locations[slot][1])
        count = len(names)
        header = struct.pack(
            self.order + "7I", IMAGE_MAGIC, 1 << 16, 0, count, count, len(locations), len(self.strings)
        )
        return (
            header
            + struct.pack(f"{self.order}{count}i", *redirect)
            + struct.pack(f"{self.order}{count}I", *offsets)
            + bytes(locations)
            + bytes(self.strings)
            + bytes(self.content)
        )

    def write(self, path: Path) -> Path:
        path.write_bytes(self.build())
        return path


def _perfect_hash(names: list[bytes]) -> tuple[list[int], list[int]]:
    """PerfectHashBuilder: collided buckets get a seed, single ones a direct slot."""
    count = len(names)
    buckets: dict[int, list[int]] = {}
    for i, name in enumerate(names):
        buckets.setdefault(image_hash(name) % count, []).append(i)
    slots: list[int | None] = [None] * count
    redirect = [0] * count
    for key, members in sorted(buckets.items(), key=lambda kv: -len(kv[1])):
        if len(members) == 1:
            continue
        seed = 1
        while True:
            wanted = [image_hash(names[m], seed) % count for m in members]
            if len(set(wanted)) == len(wanted) and all(slots[w] is None for w in wanted):
                break
            seed += 1
            # The hash's low bit ignores the seed, so a 2-slot table can be unsolvable.
            assert seed < 100_000, "no perfect hash; add a resource to the tiny image"
        for member, slot in zip(members, wanted):
            slots[slot] = member
        redirect[key] = seed
    free = (i for i in range(count) if slots[i] is None)
    for key, members in buckets.items():
        if len(members) == 1:
            slot = next(free)
            slots[slot] = members[0]
            redirect[key] = -1 - slot
    return slots, redirect


def _encode_attributes(attrs: list[int]) -> bytes:
    out = bytearray()
    for kind, value in enumerate(attrs):
        if kind and value:
            length = max(1, (value.bit_length() + 7) // 8)
            out.append(kind << 3 | (length - 1))
            out += value.to_bytes(length, "big")
    out.append(0)
    return bytes(out)


def _cint(value: int) -> bytes:
    """CompressIndexes.compress."""
    for size, limit in ((1, 1 << 5), (2, 1 << 13), (3, 1 << 21)):
        if value < limit:
            raw = bytearray(value.to_bytes(size, "big"))
            raw[0] |= 0x80 | size << 5
            return bytes(raw)
    return value.to_bytes(4, "big")


def _utf8_entry(text: bytes) -> bytes:
    return b"\x01" + len(text).to_bytes(2, "big") + text


CLASS_TAIL = b"\x00\x21\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"


def _plain_class(name: bytes) -> bytes:
    """A class file whose pool has a name, a Class, a descriptor, a long and a Utf8."""
    return (
        b"\xca\xfe\xba\xbe\x00\x00\x00\x3d"
        + (7).to_bytes(2, "big")
        + _utf8_entry(name)
        + b"\x07\x00\x01"
        + _utf8_entry(b"(Ljava/lang/String;I[LFoo;)Ljava/util/List;")
        + b"\x05"
        + (2**40 + 7).to_bytes(8, "big")
        + _utf8_entry(b"Code")
        + CLASS_TAIL
    )


def _shared_class(writer: TinyImage, name: bytes) -> bytes:
    """:func:`_plain_class` as jlink --compress=1 (compact-cp) stores it."""
    flow = b"".join(_cint(writer.string(s)) for s in (b"java/lang", b"String", b"", b"Foo", b"java/util", b"List"))
    return (
        b"\xca\xfe\xba\xbe\x00\x00\x00\x3d"
        + (7).to_bytes(2, "big")
        + b"\x17"
        + _cint(writer.string(name))
        + b"\x07\x00\x01"
        + b"\x19"
        + _cint(writer.string(b"(L;I[L;)L;"))
        + _cint(len(flow))
        + flow
        + b"\x05"
        + (2**40 + 7).to_bytes(8, "big")
        + _utf8_entry(b"Code")
        + CLASS_TAIL
    )


def _tiny_image(byte_order: str = "little") -> tuple[TinyImage, dict[str, bytes]]:
    """A tiny two-module image with plain, zip, compact-cp and stacked resources."""
    writer = TinyImage(byte_order)
    expected = {}

    def add(name: str, original: bytes, stored: bytes | None = None) -> None:
        writer.add(name, original if stored is None else stored, None if stored is None else len(original))
        expected[name] = original

    plain = _plain_class(b"p/Plain")
    add("/mod.a/p/Plain.class", plain)
    zipped = _plain_class(b"p/Zipped")
    add("/mod.a/p/Zipped.class", zipped, writer.zipped(zipped))
    shared = _plain_class(b"p/q/Shared")
    add(
        "/mod.a/p/q/Shared.class",
        shared,
        writer.compressed("compact-cp", _shared_class(writer, b"p/q/Shared"), len(shared)),
    )
    stacked = _plain_class(b"p/q/Stacked")
    inner = writer.compressed("compact-cp", _shared_class(writer, b"p/q/Stacked"), len(stacked))
    add("/mod.a/p/q/Stacked.class", stacked, writer.zipped(inner))
    add("/mod.a/META-INF/services/x.Y", b"p.Plain\n")
    add("/mod.b/r/R.class", _plain_class(b"r/R"))
    add("/mod.b/module-info.class", _plain_class(b"module-info"))
    add("/mod.b/r/data.bin", b"\xca\xfe\xfa\xfa not a header: too short")
    return writer, expected


def test_tiny_image_reads_back_in_both_byte_orders(tmp_path):
    for order in ("little", "big"):
        writer, expected = _tiny_image(order)
        with JdkImage(writer.write(tmp_path / f"modules.{order}")) as img:
            assert img.byte_order == order
            assert img.modules() == ["mod.a", "mod.b"]
            for name, data in expected.items():
                assert img.read_resource(name) == data, (order, name)
            assert img.find_class("p/q/Stacked") == expected["/mod.a/p/q/Stacked.class"]
            assert img.find_class("r/R") == expected["/mod.b/r/R.class"]
            assert img.module_of_package("p/q") == "mod.a"
            assert list(img.iter_class_names()) == [
                ("mod.a", "p/Plain"),
                ("mod.a", "p/Zipped"),
                ("mod.a", "p/q/Shared"),
                ("mod.a", "p/q/Stacked"),
                ("mod.b", "module-info"),
                ("mod.b", "r/R"),
            ]
            for module, name, data in img.iter_classes():
                assert data == expected[f"/{module}/{name}.class"]


def test_tiny_image_is_valid_for_the_jdk_tools(tmp_path):
    """Guards the test writer itself: the JDK's jimage must read it identically."""
    if JAVA_HOME is None:
        pytest.skip("no JDK 9+ installed")
    if sys.byteorder != "little":
        pytest.skip("the JDK 17 jimage tool reads native-order images only")
    writer, expected = _tiny_image()
    path = writer.write(tmp_path / "modules")
    listing = _parse_jimage_list(_run(_tool("jimage"), "list", path))
    assert listing == {
        "mod.a": {n.split("/", 2)[2] for n in expected if n.startswith("/mod.a/")},
        "mod.b": {n.split("/", 2)[2] for n in expected if n.startswith("/mod.b/")},
    }
    _run(_tool("jimage"), "extract", "--dir", tmp_path / "out", path)
    for name, data in expected.items():
        assert (tmp_path / "out" / name[1:]).read_bytes() == data, name


def test_unsupported_decompressor_is_named(tmp_path):
    writer = TinyImage()
    writer.add("/m/p/A.class", writer.compressed("lz4", b"\0" * 8, 100), 100)
    writer.add("/m/p/B.txt", b"b")
    with JdkImage(writer.write(tmp_path / "modules")) as img:
        with pytest.raises(ArchiveError, match="unsupported jimage decompressor 'lz4'") as err:
            img.find_class("p/A")
    assert err.value.entry == "/m/p/A.class"
    assert err.value.path == str(tmp_path / "modules")


@pytest.mark.parametrize(
    "stored, size",
    [
        (b"not zlib at all", 20),
        (zlib.compress(b"x" * 50), 20),  # longer than promised
        (zlib.compress(b"x" * 10), 20),  # shorter than promised
        (zlib.compress(b"x" * 50)[:-8], 50),  # truncated stream
    ],
)
def test_corrupt_zip_resources(tmp_path, stored, size):
    writer = TinyImage()
    writer.add("/m/p/A.class", writer.compressed("zip", stored, size), size)
    writer.add("/m/p/B.txt", b"b")
    with JdkImage(writer.write(tmp_path / "modules")) as img:
        with pytest.raises(ArchiveError) as err:
            img.find_class("p/A")
    assert err.value.entry == "/m/p/A.class"


def test_decompress_resource_rejects_bad_compact_cp():
    strings = {0: b"", 1: b"compact-cp", 12: b"java/lang"}
    good = _plain_class(b"x")

    def run(payload: bytes) -> bytes:
        header = struct.pack("<IqqiiB", COMPRESSED_MAGIC, len(payload), len(good), 1, -1, 1)
        return decompress_resource(
            header + payload,
            byte_order="little",
            strings=lambda off: strings[off] if off in strings else _raise(ArchiveError("bad string offset")),
        )

    start = b"\xca\xfe\xba\xbe\x00\x00\x00\x3d\x00\x03"
    for payload in (
        start + b"\x17",
        start + b"\x17\xa0\x07",
        start + b"\x19\x81",
        start + b"\x01\x00\x09ab",
        start + b"\x63\x00",
        start + b"\x17\x8c",
        start + b"\x17\xa9",
    ):
        with pytest.raises(ArchiveError):
            run(payload)


def _raise(error: Exception):
    raise error


def test_random_corruption_only_raises_archive_error(tmp_path):
    """Flip bytes anywhere in a tiny image: every failure must be an ArchiveError."""
    writer, expected = _tiny_image()
    pristine = writer.build()
    rng = random.Random(1234)
    path = tmp_path / "modules"
    outcomes = {"ok": 0, "error": 0}
    for _ in range(400):
        data = bytearray(pristine)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.2:
            del data[rng.randrange(len(data)) :]
        path.write_bytes(bytes(data))
        try:
            with JdkImage(path) as img:
                for name in expected:
                    img.read_resource(name)
                list(img.iter_classes())
                img.find_class("p/q/Stacked")
                img.module_of_package("r")
            outcomes["ok"] += 1
        except ArchiveError as error:
            assert error.path == str(path)
            outcomes["error"] += 1
    assert outcomes["ok"] and outcomes["error"]


def test_build_id_changes_with_the_image(tmp_path):
    home = tmp_path / "jdk"
    (home / "lib").mkdir(parents=True)
    writer, _ = _tiny_image()
    modules = writer.write(home / "lib" / "modules")
    (home / "release").write_text('IMPLEMENTOR="Acme"\nJAVA_VERSION="17.0.1"\n')
    first = JdkImage(home).build_id
    assert first.startswith("Acme-17.0.1-")
    assert JdkImage(home).build_id == first
    os.utime(modules, ns=(1, 1))
    touched = JdkImage(home).build_id
    assert touched != first
    (home / "release").write_text('IMPLEMENTOR="Acme"\nJAVA_VERSION="17.0.2"\n')
    assert JdkImage(home).build_id not in (first, touched)


def test_empty_image_has_nothing(tmp_path):
    path = TinyImage().write(tmp_path / "modules")
    with JdkImage(path) as img:
        assert img.modules() == []
        assert img.find_class("java/lang/Object") is None
        assert img.read_resource("/m/x") is None


def test_hash_matches_image_strings_reader():
    # Values computed with jdk.internal.jimage.ImageStringsReader.hashCode.
    assert image_hash(b"") == 0x01000193
    assert image_hash(b"/java.base/java/lang/Object.class") == _java_hash("/java.base/java/lang/Object.class")


def _java_hash(text: str, seed: int = 0x01000193) -> int:
    """A literal transcription of the Java loop, with Java's signed int overflow."""

    def to_int(v: int) -> int:
        v &= 0xFFFFFFFF
        return v - (1 << 32) if v & 0x80000000 else v

    h = to_int(seed)
    for ch in text.encode():
        h = to_int(to_int(h * 0x01000193) ^ ch)
    return h & 0x7FFFFFFF


# --------------------------------------------------------------------------
# Images jlink compresses (compared with the JDK's own decompressor)
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def jlinked(tmp_path_factory) -> dict[str, Path]:
    """java.base linked with --compress=2 (zip) and, for java/lang, 1 (compact-cp)."""
    if JAVA_HOME is None or not (JAVA_HOME / "jmods" / "java.base.jmod").is_file():
        pytest.skip("jlink needs the JDK's jmods")
    jlink = _tool("jlink")
    root = tmp_path_factory.mktemp("jlink")
    variants = {"zip": "--compress=2", "compact-cp": "--compress=1:filter=glob:/java.base/java/lang/**"}
    procs = {
        name: subprocess.Popen(
            [str(jlink), "--add-modules", "java.base", option, "--output", str(root / name)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for name, option in variants.items()
    }
    for proc in procs.values():
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out.decode(errors="replace")
    return {name: root / name for name in variants}


@needs_jdk
@pytest.mark.corpus
@pytest.mark.parametrize("variant", ["zip", "compact-cp"])
def test_jlink_compressed_images_match_jimage_extract(jlinked, tmp_path, variant):
    home = jlinked[variant]
    modules = home / "lib" / "modules"
    _run(_tool("jimage"), "extract", "--dir", tmp_path, modules)
    compressed = _count_compressed(modules)
    assert compressed > 500, "jlink did not compress; the test would prove nothing"
    count = 0
    with JdkImage(home) as img:
        for module, path in img.iter_resource_names():
            assert img.read_resource(f"/{module}/{path}") == (tmp_path / module / path).read_bytes(), path
            count += 1
        assert img.find_class("java/lang/Object") == (tmp_path / "java.base/java/lang/Object.class").read_bytes()
    assert count == sum(1 for p in tmp_path.rglob("*") if p.is_file())


def _count_compressed(modules: Path) -> int:
    """How many locations have a COMPRESSED attribute (kind 6)."""
    with JdkImage(modules) as img:
        index = img._open()
        return sum(1 for attrs in index.all_locations() if attrs[6])
