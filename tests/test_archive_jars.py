"""Tests for jprewrite.archive.jars (and zipformat) on real files.

Jars come from the JDK's own tools (javac, jar --release, keytool, jarsigner),
from Python's zipfile (for exact control of methods, comments, attributes,
extra fields) and from Debian packages under /usr/share/java.  JDK tools are
started once per session with C1-only JIT flags so the module stays fast.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from jprewrite.archive import jars, zipformat
from jprewrite.archive.jars import (
    DEFLATED,
    STORED,
    DirectoryWriter,
    JarWriter,
    Manifest,
    open_container,
    rewrite_container,
    write_directory,
    write_jar,
)
from jprewrite.errors import ArchiveError, ClassFormatError

from support.corpus import package_jars
from support.jdk import tool

FAST_JVM = ["-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Xshare:auto"]
STOREPASS = "secret123"

HELLO = """package com.acme;
public class Hello {
    public static void main(String[] args) {
        System.out.println("hello from base " + Util.twice(21));
    }
}
"""
UTIL = "package com.acme;\npublic class Util { public static int twice(int x) { return 2 * x; } }\n"
MODULE_INFO = "module com.acme { exports com.acme; }\n"


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{args[0]} failed:\n{r.stdout}\n{r.stderr}"
    return r


def _java(*args: object) -> str:
    return _run([tool("java"), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", *args]).stdout


def _jar_tf(path: Path) -> list[str]:
    return _run([tool("jar"), *FAST_JVM, "tf", path]).stdout.splitlines()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _leftovers(directory: Path) -> list[str]:
    """Hidden temporary files/directories a writer may have left next to its target."""
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> SimpleNamespace:
    """app.jar (module-info, multi-release, resource, Main-Class), its signed copy, the class tree."""
    root = tmp_path_factory.mktemp("jars")
    src = root / "src"
    (src / "com/acme").mkdir(parents=True)
    (src / "module-info.java").write_text(MODULE_INFO)
    (src / "com/acme/Hello.java").write_text(HELLO)
    (src / "com/acme/Util.java").write_text(UTIL)
    keystore = root / "ks.p12"
    keytool = subprocess.Popen(
        [
            tool("keytool"),
            *FAST_JVM,
            "-genkeypair",
            "-keystore",
            str(keystore),
            "-storepass",
            STOREPASS,
            "-keypass",
            STOREPASS,
            "-alias",
            "me",
            "-keyalg",
            "EC",
            "-dname",
            "CN=jprewrite test",
            "-validity",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    classes = root / "classes"
    _run(
        [
            tool("javac"),
            *FAST_JVM,
            "--release",
            "11",
            "-d",
            classes,
            src / "module-info.java",
            src / "com/acme/Hello.java",
            src / "com/acme/Util.java",
        ]
    )
    (classes / "com/acme/greeting.txt").write_text("hello resource\n")
    # The versioned class differs only in its string constant (same length, so the class stays valid).
    hello = (classes / "com/acme/Hello.class").read_bytes()
    assert hello.count(b"hello from base") == 1
    v11 = root / "v11"
    (v11 / "com/acme").mkdir(parents=True)
    (v11 / "com/acme/Hello.class").write_bytes(hello.replace(b"hello from base", b"hello from v11!"))
    app = root / "app.jar"
    _run(
        [
            tool("jar"),
            *FAST_JVM,
            "--create",
            "--file",
            app,
            "--main-class",
            "com.acme.Hello",
            "-C",
            classes,
            ".",
            "--release",
            "11",
            "-C",
            v11,
            ".",
        ]
    )
    assert keytool.wait() == 0, keytool.stdout.read() if keytool.stdout else ""
    signed = root / "signed.jar"
    _run(
        [tool("jarsigner"), *FAST_JVM, "-keystore", keystore, "-storepass", STOREPASS, "-signedjar", signed, app, "me"]
    )
    return SimpleNamespace(root=root, classes=classes, app=app, signed=signed, hello=hello)


def make_py_zip(path: Path, hello_class: bytes) -> Path:
    """A zip written by Python: stored and deflated entries, comments, attributes, extended timestamps."""
    ut_extra = struct.pack("<HHBI", 0x5455, 5, 1, 981173106)  # "UT" extended timestamp, mtime only
    with zipfile.ZipFile(path, "w") as z:
        z.comment = b"archive comment"
        d = zipfile.ZipInfo("META-INF/", (2020, 1, 2, 3, 4, 6))
        d.external_attr = (0o40755 << 16) | 0x10
        z.writestr(d, b"")
        m = zipfile.ZipInfo("META-INF/MANIFEST.MF", (2020, 1, 2, 3, 4, 6))
        m.compress_type = DEFLATED
        z.writestr(m, b"Manifest-Version: 1.0\r\nCreated-By: test\r\n\r\n")
        s = zipfile.ZipInfo("data/stored.bin", (2001, 2, 3, 4, 5, 6))
        s.compress_type = STORED
        s.comment = b"stored entry comment"
        s.external_attr = 0o100755 << 16
        s.extra = ut_extra
        z.writestr(s, bytes(range(256)) * 8)
        f = zipfile.ZipInfo("data/deflated.txt", (2010, 12, 31, 23, 59, 58))
        f.compress_type = DEFLATED
        f.comment = "déflaté".encode()
        f.external_attr = 0o100644 << 16
        z.writestr(f, b"some text that compresses well " * 50)
        z.writestr(zipfile.ZipInfo("data/empty.txt", (2015, 6, 7, 8, 9, 10)), b"", compress_type=DEFLATED)
        z.writestr(zipfile.ZipInfo("com/acme/Hello.class", (2022, 1, 1, 0, 0, 0)), hello_class, compress_type=DEFLATED)
    return path


def assert_same_zip(a: Path, b: Path) -> None:
    """Every entry equal: name, order, timestamps, method, comments, attributes, extra fields, bytes."""
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        ia, ib = za.infolist(), zb.infolist()
        assert [i.filename for i in ia] == [i.filename for i in ib]
        for x, y in zip(ia, ib):
            assert (
                x.date_time,
                x.compress_type,
                x.comment,
                x.external_attr,
                x.extra,
                x.CRC,
                x.file_size,
                x.create_system,
                x.flag_bits,
            ) == (
                y.date_time,
                y.compress_type,
                y.comment,
                y.external_attr,
                y.extra,
                y.CRC,
                y.file_size,
                y.create_system,
                y.flag_bits,
            ), x.filename
            if not x.is_dir():
                assert za.read(x) == zb.read(y), x.filename
        assert za.comment == zb.comment


def corrupt(path: Path, offset: int, value: bytes) -> None:
    data = bytearray(path.read_bytes())
    data[offset : offset + len(value)] = value
    path.write_bytes(bytes(data))


# =========================================================================== reading


def test_jar_tool_jar_lists_entries_in_order_and_reads_lazily(built):
    with zipfile.ZipFile(built.app) as z:
        expected = [(i.filename, z.read(i)) for i in z.infolist()]
    with open_container(built.app) as c:
        assert c.kind == "jar"
        entries = list(c.entries())
        assert [e.name for e in entries] == [name for name, _ in expected]
        for e, (name, data) in zip(entries, expected):
            assert e.read() == data
            assert e.is_dir == name.endswith("/")
            assert e.is_class == name.endswith(".class")
        assert c.get("com/acme/greeting.txt") == b"hello resource\n"
        assert c.get("com/acme/Missing.class") is None
        assert "com/acme/Util.class" in c and len(c) == len(expected)
        assert c.manifest().main["main-class"] == "com.acme.Hello"  # names are case-insensitive
        assert not c.is_signed


def test_multi_release_entries_and_class_lookup(built):
    with open_container(built.app) as c:
        v = c.entry("META-INF/versions/11/com/acme/Hello.class")
        assert (v.release, v.class_name, v.is_class) == (11, "com/acme/Hello", True)
        base = c.entry("com/acme/Hello.class")
        assert (base.release, base.class_name) == (None, "com/acme/Hello")
        assert c.is_multi_release
        assert c.find_class("com/acme/Hello") is base
        assert c.find_class("com/acme/Hello", release=17) is v
        assert c.find_class("com/acme/Hello", release=11) is v
        assert c.find_class("com/acme/Hello", release=10) is base
        assert c.find_class("com/acme/Util", release=17).name == "com/acme/Util.class"
        assert c.find_class("com/acme/Nope") is None
        assert b"hello from v11!" in c.find_class("com/acme/Hello", release=17).read()
        assert c.has_versioned_classes
        assert c.at_release(17).find_class("com/acme/Hello") is v
        assert c.at_release(10).find_class("com/acme/Hello") is base
        # every name find_class can find at some release, once (the class hierarchy's index)
        names = list(c.class_names())
        assert len(names) == len(set(names)) and "com/acme/Hello" in names
        assert set(names) == {e.class_name for e in c.entries() if e.is_class}
        assert set(c.at_release(10).class_names()) == set(names)


def test_directories_are_never_versioned(tmp_path):
    """The JVM's class path reads ``META-INF/versions`` only inside jars, whatever a directory's manifest says."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a/X.class").write_bytes(b"\xca\xfe\xba\xbebase")
    (tmp_path / "META-INF/versions/11/a").mkdir(parents=True)
    (tmp_path / "META-INF/versions/11/a/X.class").write_bytes(b"\xca\xfe\xba\xbev11")
    (tmp_path / "META-INF/MANIFEST.MF").write_bytes(b"Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n")
    with open_container(tmp_path) as c:
        assert c.is_multi_release and not c.has_versioned_classes
        assert c.find_class("a/X", release=17).name == "a/X.class"


def test_module_info_entry(built):
    with open_container(built.app) as c:
        mi = [e for e in c.entries() if e.is_module_info]
        assert [e.name for e in mi] == ["module-info.class"]
        assert mi[0].class_name == "module-info" and mi[0].read()[:4] == b"\xca\xfe\xba\xbe"


def test_directory_container(built):
    with open_container(built.classes) as c:
        assert c.kind == "directory"
        names = [e.name for e in c.entries()]
        assert names == [
            "com/",
            "com/acme/",
            "com/acme/Hello.class",
            "com/acme/Util.class",
            "com/acme/greeting.txt",
            "module-info.class",
        ]
        assert c.find_class("com/acme/Util").read() == (built.classes / "com/acme/Util.class").read_bytes()
        assert c.entry("module-info.class").is_module_info
        assert c.manifest() is None and not c.is_multi_release


def test_directory_container_puts_manifest_first(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a/X.class").write_bytes(b"x")
    (tmp_path / "META-INF").mkdir()
    (tmp_path / "META-INF/MANIFEST.MF").write_bytes(b"Manifest-Version: 1.0\r\n\r\n")
    (tmp_path / "META-INF/other.txt").write_bytes(b"o")
    with open_container(tmp_path) as c:
        assert [e.name for e in c.entries()] == [
            "META-INF/",
            "META-INF/MANIFEST.MF",
            "META-INF/other.txt",
            "a/",
            "a/X.class",
        ]


def test_single_class_file_container_is_named_after_its_class(built, tmp_path):
    copy = tmp_path / "whatever.bin"  # content decides, not the extension
    shutil.copy(built.classes / "com/acme/Hello.class", copy)
    with open_container(copy) as c:
        assert c.kind == "class"
        (e,) = list(c.entries())
        assert (e.name, e.class_name, e.is_class) == ("com/acme/Hello.class", "com/acme/Hello", True)
        assert e.read() == built.hello
        assert c.find_class("com/acme/Hello") is e
    with open_container(built.classes / "module-info.class") as c:
        assert [e.name for e in c.entries()] == ["module-info.class"]


def test_jar_detected_by_content_not_name(built, tmp_path):
    odd = tmp_path / "library.txt"
    shutil.copy(built.app, odd)
    with open_container(odd) as c:
        assert c.kind == "jar" and "module-info.class" in c


def test_executable_jar_with_launcher_script(built, tmp_path):
    script = b'#!/bin/sh\nexec java -jar "$0" "$@"\n'
    exe = tmp_path / "app.run"
    exe.write_bytes(script + built.app.read_bytes())
    out = tmp_path / "out.run"
    with open_container(exe) as c:
        assert c.kind == "jar" and c.preamble == script
        assert c.get("com/acme/greeting.txt") == b"hello resource\n"
        rewrite_container(c, out)
    assert out.read_bytes()[: len(script)] == script
    assert_same_zip(exe, out)
    assert _java("-jar", out).strip() == "hello from v11! 42"


def _zip64_archive(path: Path, data: bytes = b"hello zip64") -> None:
    """One stored entry with every size/offset in ZIP64 fields and ZIP64 end records."""
    name = b"big/hello.txt"
    crc = zlib.crc32(data)
    local_extra = struct.pack("<HHQQ", 1, 16, len(data), len(data))
    local = (
        struct.pack(
            "<4sHHHHHIIIHH", b"PK\x03\x04", 45, 0, 0, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(name), len(local_extra)
        )
        + name
        + local_extra
        + data
    )
    central_extra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), 0)
    central = (
        struct.pack(
            "<4sBBHHHHHIIIHHHHHII",
            b"PK\x01\x02",
            45,
            3,
            45,
            0,
            0,
            0,
            0x21,
            crc,
            0xFFFFFFFF,
            0xFFFFFFFF,
            len(name),
            len(central_extra),
            0,
            0,
            0,
            0,
            0xFFFFFFFF,
        )
        + name
        + central_extra
    )
    eocd64 = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, 1, 1, len(central), len(local))
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, len(local) + len(central), 1)
    eocd = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    path.write_bytes(local + central + eocd64 + locator + eocd)


def test_zip64_archive_is_read_and_copied_exactly(tmp_path):
    src, out = tmp_path / "z64.zip", tmp_path / "out.zip"
    _zip64_archive(src)
    with zipfile.ZipFile(src) as z:  # the hand-made archive is valid for a third-party reader
        assert z.read("big/hello.txt") == b"hello zip64"
    with open_container(src) as c:
        assert c.get("big/hello.txt") == b"hello zip64"
        rewrite_container(c, out)
    # Entries and central directory (with its ZIP64 extra field) are copied exactly; one entry needs
    # no ZIP64 end records, so the writer uses the plain one.
    entries_and_cd = src.read_bytes()[: -(56 + 20 + 22)]
    assert out.read_bytes()[:-22] == entries_and_cd
    assert_same_zip(src, out)


def test_many_entries_get_zip64_end_records(tmp_path, monkeypatch):
    # Writing 65536 entries takes a second; lower the limit instead (the code path is the same).
    monkeypatch.setattr(zipformat, "ZIP64_COUNT_LIMIT", 3)
    out = tmp_path / "many.zip"
    with JarWriter(out) as w:
        for i in range(5):
            w.put(f"d{i}/", b"", date_time=(2020, 1, 1, 0, 0, 0), compress_type=STORED)
        w.put("f.txt", b"data")
    tail = out.read_bytes()[-42:]
    assert (tail[:4], tail[20:24]) == (b"PK\x06\x07", b"PK\x05\x06")  # ZIP64 locator, then end record
    with zipfile.ZipFile(out) as z:
        assert [i.filename for i in z.infolist()][-2:] == ["d4/", "f.txt"] and z.read("f.txt") == b"data"
    with open_container(out) as c:
        assert len(c) == 6 and c.get("f.txt") == b"data"


def test_repeated_directory_entries_are_tolerated_and_kept(tmp_path):
    # Debian's kotlin-compiler.jar repeats directory entries; that must not stop us.
    src, out = tmp_path / "dup-dirs.jar", tmp_path / "out.jar"
    with pytest.warns(UserWarning), zipfile.ZipFile(src, "w") as z:
        z.writestr("com/", b"")
        z.writestr("com/A.class", b"a")
        z.writestr("com/", b"")
    with open_container(src) as c:
        assert [e.name for e in c.entries()] == ["com/", "com/A.class", "com/"]
        rewrite_container(c, out)
    assert out.read_bytes() == src.read_bytes()


# =========================================================================== bad input


def test_missing_path(tmp_path):
    missing = tmp_path / "nope.jar"
    with pytest.raises(ArchiveError) as err:
        open_container(missing)
    assert str(missing) in str(err.value) and "no such file" in str(err.value)


def test_unreadable_path(built, tmp_path, monkeypatch):
    locked = tmp_path / "locked.jar"
    shutil.copy(built.app, locked)
    locked.chmod(0)
    if os.access(locked, os.R_OK):  # running as root: permissions are not enforced, simulate the refusal
        real_open = os.open

        def refusing_open(path, flags, *args, **kw):
            if os.fspath(path) == str(locked):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, flags, *args, **kw)

        monkeypatch.setattr(jars.os, "open", refusing_open)
    with pytest.raises(ArchiveError) as err:
        open_container(locked)
    assert str(locked) in str(err.value) and "permission denied" in str(err.value)


@pytest.mark.parametrize("content", [b"", b"just some text\n", b"\x7fELF\x02\x01\x01"])
def test_neither_zip_nor_class_file(tmp_path, content):
    bogus = tmp_path / "bogus.jar"
    bogus.write_bytes(content)
    with pytest.raises(ArchiveError) as err:
        open_container(bogus)
    assert str(bogus) in str(err.value) and "neither a jar/zip archive nor a class file" in str(err.value)


def test_truncated_class_file(built, tmp_path):
    cut = tmp_path / "Cut.class"
    cut.write_bytes(built.hello[:40])
    with pytest.raises(ClassFormatError) as err:
        open_container(cut)
    assert str(cut) in str(err.value)


def test_truncated_zip(built, tmp_path):
    cut = tmp_path / "cut.jar"
    cut.write_bytes(built.app.read_bytes()[: built.app.stat().st_size // 2])
    with pytest.raises(ArchiveError) as err:
        open_container(cut)
    assert str(cut) in str(err.value) and "no end of central directory" in str(err.value)


def test_bad_central_directory(built, tmp_path):
    bad = tmp_path / "badcd.jar"
    shutil.copy(built.app, bad)
    with zipfile.ZipFile(bad) as z:
        second = z.infolist()[1]
        cd_start = z.start_dir
    # find the second central record by its name and break its signature
    data = bad.read_bytes()
    pos = data.index(b"PK\x01\x02", cd_start + 1)
    assert data[pos + 46 : pos + 46 + len(second.filename)] == second.filename.encode()
    corrupt(bad, pos, b"XX")
    with pytest.raises(ArchiveError) as err:
        open_container(bad)
    assert err.value.path == str(bad) and err.value.offset == pos
    assert "bad central directory entry signature" in str(err.value) and f"at byte {pos}" in str(err.value)


def test_bad_local_header(built, tmp_path):
    bad = tmp_path / "badlocal.jar"
    shutil.copy(built.app, bad)
    with zipfile.ZipFile(bad) as z:
        info = z.getinfo("com/acme/Util.class")
    corrupt(bad, info.header_offset, b"PK\x09\x09")
    with open_container(bad) as c:
        assert c.get("com/acme/greeting.txt") == b"hello resource\n"  # other entries still fine
        with pytest.raises(ArchiveError) as err:
            c.get("com/acme/Util.class")
    e = err.value
    assert (e.path, e.entry, e.offset) == (str(bad), "com/acme/Util.class", info.header_offset)
    assert "bad local file header" in str(e) and str(bad) in str(e)


def test_crc_mismatch(built, tmp_path):
    bad = make_py_zip(tmp_path / "badcrc.zip", built.hello)
    with zipfile.ZipFile(bad) as z:
        info = z.getinfo("data/stored.bin")
    data_offset = info.header_offset + 30 + len(info.filename) + len(info.extra)
    corrupt(bad, data_offset + 100, b"\xff\xfe")
    with open_container(bad) as c:
        with pytest.raises(ArchiveError) as err:
            c.get("data/stored.bin")
    assert "CRC mismatch" in str(err.value) and str(bad) in str(err.value)
    assert err.value.entry == "data/stored.bin" and err.value.offset == data_offset


def test_corrupt_deflate_data(built, tmp_path):
    bad = make_py_zip(tmp_path / "baddeflate.zip", built.hello)
    with zipfile.ZipFile(bad) as z:
        info = z.getinfo("data/deflated.txt")
    corrupt(bad, info.header_offset + 30 + len(info.filename.encode()) + len(info.extra), b"\xff\xff\xff")
    with open_container(bad) as c, pytest.raises(ArchiveError) as err:
        c.get("data/deflated.txt")
    assert str(bad) in str(err.value) and err.value.entry == "data/deflated.txt"


def test_unsupported_compression_method(tmp_path):
    bad = tmp_path / "bzip2.zip"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("ok.txt", b"fine", compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("b.txt", b"bzip2 data " * 10, compress_type=zipfile.ZIP_BZIP2)
    with open_container(bad) as c:
        assert c.get("ok.txt") == b"fine"
        with pytest.raises(ArchiveError) as err:
            c.get("b.txt")
    assert "unsupported compression method 12 (bzip2)" in str(err.value)
    assert str(bad) in str(err.value) and err.value.entry == "b.txt"


def test_repeated_entry_names_are_kept_and_the_last_one_counts(tmp_path):
    """The JVM's ZipFile reads the last entry of a repeated name; a copy of the jar keeps every entry."""
    dup = tmp_path / "dup.jar"
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(dup, "w") as z:
        z.writestr("com/acme/A.class", b"first")
        z.writestr("com/acme/B.class", b"other")
        z.writestr("com/acme/A.class", b"second")
    out, folder = tmp_path / "copy.jar", tmp_path / "folder"
    with open_container(dup) as c:
        assert c.get("com/acme/A.class") == b"second"
        assert c.find_class("com/acme/A").read() == b"second"
        assert [(e.name, e.shadowed) for e in c.entries()] == [
            ("com/acme/A.class", True),
            ("com/acme/B.class", False),
            ("com/acme/A.class", False),
        ]
        rewrite_container(c, out, lambda e: b"new" if e.name == "com/acme/A.class" else None)
        rewrite_container(c, folder, as_directory=True)
    with zipfile.ZipFile(out) as z:
        assert [(i.filename, z.read(i)) for i in z.infolist()] == [
            ("com/acme/A.class", b"first"),
            ("com/acme/B.class", b"other"),
            ("com/acme/A.class", b"new"),
        ]
    assert (folder / "com/acme/A.class").read_bytes() == b"second"


@pytest.mark.parametrize(
    "evil", ["../escape.txt", "/etc/absolute.txt", "a/../../up.txt", "C:/drive.txt", "back\\slash.txt"]
)
def test_escaping_names_refused_for_directory_output(tmp_path, evil):
    src = tmp_path / "evil.zip"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr("fine.txt", b"ok")
        info = zipfile.ZipInfo("placeholder")
        info.filename = evil  # bypass zipfile's own sanitising of the name
        z.writestr(info, b"gotcha")
    work = tmp_path / "work"
    work.mkdir()
    out = work / "out"
    with open_container(src) as c:
        assert c.get(evil) == b"gotcha"  # reading is fine; only writing to a directory is dangerous
        with pytest.raises(ArchiveError) as err:
            rewrite_container(c, out, as_directory=True)
    assert "unsafe entry name" in str(err.value) and str(src) in str(err.value) and err.value.entry == evil
    assert list(work.iterdir()) == []
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "up.txt").exists()


def test_malformed_manifest(tmp_path):
    bad = tmp_path / "badmf.jar"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\r\nno colon here\r\n")
    with open_container(bad) as c, pytest.raises(ArchiveError) as err:
        c.manifest()
    assert str(bad) in str(err.value) and err.value.entry == "META-INF/MANIFEST.MF"
    assert err.value.offset == len(b"Manifest-Version: 1.0\r\n")


def test_random_corruption_raises_only_archive_errors(built, tmp_path):
    """Damaged jars must produce located ArchiveErrors, never zlib/struct/Unicode/Index errors."""
    import random

    from jprewrite.errors import JprewriteError

    rng = random.Random(20240501)
    original = built.signed.read_bytes()
    victim, out = tmp_path / "damaged.jar", tmp_path / "out.jar"
    for _ in range(80):
        data = bytearray(original)
        for _ in range(rng.randint(1, 3)):
            # mostly hit the central directory and end record, where structure lives
            pos = (
                len(data) - 1 - rng.randrange(min(len(data), 1500)) if rng.random() < 0.7 else rng.randrange(len(data))
            )
            if rng.random() < 0.8:
                data[pos] = rng.randrange(256)
            else:
                del data[pos : pos + rng.randint(1, 40)]
        victim.write_bytes(bytes(data))
        try:
            with open_container(victim) as c:
                for e in c.entries():
                    try:
                        e.read()
                    except JprewriteError as err:
                        assert str(victim) in str(err)
                rewrite_container(c, out, fsync=False, warn=lambda m: None)
        except JprewriteError as err:
            assert str(victim) in str(err)
    assert sorted(p.name for p in tmp_path.iterdir()) in (["damaged.jar"], ["damaged.jar", "out.jar"])


# =========================================================================== writing


def test_copy_of_python_zip_preserves_every_detail(built, tmp_path):
    src = make_py_zip(tmp_path / "py.zip", built.hello)
    out = tmp_path / "out.zip"
    with open_container(src) as c:
        assert c.comment == b"archive comment"
        stored = c.entry("data/stored.bin")
        assert (stored.compress_type, stored.comment, stored.date_time) == (
            STORED,
            b"stored entry comment",
            (2001, 2, 3, 4, 5, 6),
        )
        rewrite_container(c, out)
    assert_same_zip(src, out)
    assert out.read_bytes() == src.read_bytes()


def test_copy_of_jar_tool_jar_is_identical_and_runs(built, tmp_path):
    out = tmp_path / "app-copy.jar"
    with open_container(built.app) as c:
        rewrite_container(c, out)
    assert out.read_bytes() == built.app.read_bytes()
    assert _java("-cp", out, "com.acme.Hello").strip() == "hello from v11! 42"


def test_replaced_entries_keep_metadata_and_method(built, tmp_path):
    src = make_py_zip(tmp_path / "py.zip", built.hello)
    out = tmp_path / "out.zip"
    new_stored = b"new stored payload" * 3
    new_text = b"changed text " * 40
    with open_container(src) as c:
        rewrite_container(c, out, lambda e: {"data/stored.bin": new_stored, "data/deflated.txt": new_text}.get(e.name))
    with zipfile.ZipFile(src) as za, zipfile.ZipFile(out) as zb:
        assert zb.testzip() is None  # every CRC and size is right
        assert [i.filename for i in za.infolist()] == [i.filename for i in zb.infolist()]
        for x in za.infolist():
            y = zb.getinfo(x.filename)
            assert (x.date_time, x.compress_type, x.comment, x.external_attr, x.extra) == (
                y.date_time,
                y.compress_type,
                y.comment,
                y.external_attr,
                y.extra,
            ), x.filename
        assert zb.read("data/stored.bin") == new_stored
        assert zb.getinfo("data/stored.bin").compress_size == len(new_stored)
        assert zb.read("data/deflated.txt") == new_text
        assert zb.getinfo("data/deflated.txt").compress_size < len(new_text)
        assert zb.read("com/acme/Hello.class") == built.hello
        assert zb.comment == b"archive comment"


def test_rewritten_class_runs_on_the_jvm(built, tmp_path):
    out = tmp_path / "patched.jar"

    def patch(entry):
        if entry.class_name == "com/acme/Hello" and entry.release == 11:
            return entry.read().replace(b"hello from v11!", b"hello, patched!")
        return None

    with open_container(built.app) as c:
        rewrite_container(c, out, patch)
    assert _java("-cp", out, "com.acme.Hello").strip() == "hello, patched! 42"
    assert _jar_tf(out) == _jar_tf(built.app)


def test_write_jar_with_new_and_dropped_entries(built, tmp_path):
    out = tmp_path / "mixed.jar"
    with open_container(built.app) as c:
        keep = [e for e in c.entries() if e.name != "com/acme/greeting.txt"]
        write_jar(out, [*keep, ("com/acme/extra.properties", b"k=v\n")], comment=b"made by test")
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        assert "com/acme/greeting.txt" not in names and names[-1] == "com/acme/extra.properties"
        assert z.read("com/acme/extra.properties") == b"k=v\n" and z.comment == b"made by test"
        assert z.getinfo("com/acme/extra.properties").compress_type == DEFLATED


def test_writer_refuses_to_write_the_same_name_twice(built, tmp_path):
    out = tmp_path / "twice.jar"
    with pytest.raises(ArchiveError) as err, JarWriter(out) as w:
        w.put("a.txt", b"1")
        w.put("a.txt", b"2")
    assert "duplicate entry name" in str(err.value) and str(out) in str(err.value)
    assert not out.exists() and _leftovers(tmp_path) == []


def test_directory_output_mirrors_directory_input(built, tmp_path):
    out = tmp_path / "classes-out"
    with open_container(built.classes) as c:
        rewrite_container(c, out)
    for p in built.classes.rglob("*"):
        q = out / p.relative_to(built.classes)
        assert q.is_dir() == p.is_dir()
        if p.is_file():
            assert q.read_bytes() == p.read_bytes()
            assert abs(q.stat().st_mtime - p.stat().st_mtime) < 2
    assert _leftovers(tmp_path) == []
    assert _java("-cp", out, "com.acme.Hello").strip() == "hello from base 42"


def test_jar_to_directory_and_back(built, tmp_path):
    tree, rebuilt = tmp_path / "tree", tmp_path / "rebuilt.jar"
    with open_container(built.app) as c:
        rewrite_container(c, tree, as_directory=True)
    assert (tree / "META-INF/versions/11/com/acme/Hello.class").read_bytes()[:4] == b"\xca\xfe\xba\xbe"
    with open_container(tree) as c:
        assert c.entries().__next__().name == "META-INF/"
        rewrite_container(c, rebuilt, as_directory=False)
    with zipfile.ZipFile(built.app) as za, zipfile.ZipFile(rebuilt) as zb:
        files = [{i.filename: z.read(i) for i in z.infolist() if not i.is_dir()} for z in (za, zb)]
        assert files[0] == files[1]
    assert _java("-jar", rebuilt).strip() == "hello from v11! 42"


def test_existing_output_directory_is_replaced_only_when_asked(built, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale.txt").write_text("old")
    with open_container(built.classes) as c:
        with pytest.raises(ArchiveError, match="not empty"):
            write_directory(out, c.entries(), inputs=[c])
        assert (out / "stale.txt").read_text() == "old"
        write_directory(out, c.entries(), inputs=[c], replace=True)
    assert not (out / "stale.txt").exists() and (out / "com/acme/Util.class").is_file()
    assert _leftovers(tmp_path) == []


def test_single_class_file_output(built, tmp_path):
    src, out = tmp_path / "Hello.class", tmp_path / "Hello-out.class"
    src.write_bytes(built.hello)
    with open_container(src) as c:
        rewrite_container(c, out, lambda e: e.read().replace(b"hello from base", b"hello from HERE"))
    assert out.read_bytes() == built.hello.replace(b"hello from base", b"hello from HERE")


# =========================================================================== atomic output, input safety


def test_output_same_as_input_is_refused(built, tmp_path):
    jar = tmp_path / "in.jar"
    shutil.copy(built.app, jar)
    link = tmp_path / "link.jar"
    link.symlink_to(jar)
    before = _sha(jar)
    with open_container(jar) as c:
        for target in (jar, link, tmp_path / "." / "in.jar"):
            with pytest.raises(ArchiveError) as err:
                rewrite_container(c, target)
            assert "refusing to overwrite the input" in str(err.value) and str(target) in str(err.value)
        with pytest.raises(ArchiveError):
            JarWriter(jar, inputs=[jar])
    assert _sha(jar) == before and _leftovers(tmp_path) == []


def test_output_directory_same_as_or_containing_input_is_refused(built, tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(built.classes, tree)
    with open_container(tree) as c:
        for target in (tree, tmp_path):
            with pytest.raises(ArchiveError, match="refusing to write over the input"):
                rewrite_container(c, target, replace=True)
        with pytest.raises(ArchiveError, match="inside the input directory"):
            rewrite_container(c, tree / "sub")
    assert sorted(p.name for p in tree.rglob("*")) == sorted(p.name for p in built.classes.rglob("*"))
    assert _leftovers(tmp_path) == [] and _leftovers(tree) == []


def test_failed_write_leaves_nothing_and_keeps_old_output(built, tmp_path):
    src = tmp_path / "in.jar"
    shutil.copy(built.app, src)
    with zipfile.ZipFile(src) as z:
        last = z.infolist()[-1]
    corrupt(src, last.header_offset, b"XXXX")  # the last entry fails only when it is copied
    before = _sha(src)
    out = tmp_path / "out.jar"
    out.write_bytes(b"previous output")
    with open_container(src) as c, pytest.raises(ArchiveError) as err:
        rewrite_container(c, out)
    assert err.value.entry == last.filename and str(src) in str(err.value)
    assert out.read_bytes() == b"previous output"
    assert _sha(src) == before
    assert _leftovers(tmp_path) == []


def test_exception_in_transform_leaves_nothing(built, tmp_path):
    out, out_dir = tmp_path / "out.jar", tmp_path / "outdir"

    def boom(entry):
        if entry.name == "com/acme/Util.class":
            raise RuntimeError("transform failed")
        return None

    with open_container(built.app) as c:
        for target, as_dir in ((out, False), (out_dir, True)):
            with pytest.raises(RuntimeError, match="transform failed"):
                rewrite_container(c, target, boom, as_directory=as_dir)
    assert list(tmp_path.iterdir()) == []


def test_abandoned_writer_removes_its_temporary_file(tmp_path):
    w = JarWriter(tmp_path / "never.jar")
    w.put("a.txt", b"x")
    assert len(_leftovers(tmp_path)) == 1
    del w
    assert list(tmp_path.iterdir()) == []
    d = DirectoryWriter(tmp_path / "never")
    d.put("a.txt", b"x")
    d.abort()
    assert list(tmp_path.iterdir()) == []


# =========================================================================== signed jars


def test_signed_jar_output_is_unsigned_with_one_warning(built, tmp_path):
    out = tmp_path / "unsigned.jar"
    messages: list[str] = []

    def patch(entry):
        if entry.class_name == "com/acme/Hello" and entry.release == 11:
            return entry.read().replace(b"hello from v11!", b"hello, patched!")
        return None

    with open_container(built.signed) as c:
        assert c.is_signed and set(c.signature_files) == {"META-INF/ME.SF", "META-INF/ME.EC"}
        original = c.manifest()
        assert len(original.sections) == 5
        rewrite_container(c, out, patch, warn=messages.append)
    assert len(messages) == 1 and str(built.signed) in messages[0] and "signed" in messages[0]
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        manifest = z.read("META-INF/MANIFEST.MF")
    assert not any(n.endswith((".SF", ".EC", ".RSA", ".DSA")) for n in names)
    with zipfile.ZipFile(built.signed) as z:
        assert [n for n in z.namelist() if n not in ("META-INF/ME.SF", "META-INF/ME.EC")] == names
    parsed = Manifest.parse(manifest)
    assert list(parsed.main.items()) == list(original.main.items()) and parsed.sections == {}
    assert b"Digest" not in manifest
    # the JVM reads the rewritten manifest (Main-Class, Multi-Release) and accepts the patched class
    assert _java("-jar", out).strip() == "hello, patched! 42"


def test_signed_jar_through_the_command_is_one_line_each(built, tmp_path):
    """``jprewrite IN OUT`` on a signed jar: the signature's removal is one ``jprewrite:`` line, not
    Python's warning format (file, line number, source line), and the output runs."""
    out = tmp_path / "cli-unsigned.jar"
    r = subprocess.run(
        [sys.executable, "-m", "jprewrite.cli.main", str(built.signed), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert all(line.startswith("jprewrite: ") for line in lines), r.stderr
    assert any("signed jar: the output is unsigned" in line for line in lines), r.stderr


def test_signature_stripping_keeps_other_per_entry_attributes(tmp_path):
    src, out = tmp_path / "signed.jar", tmp_path / "out.jar"
    manifest = (
        b"Manifest-Version: 1.0\r\nImplementation-Title: x\r\n\r\n"
        b"Name: a/A.class\r\nSHA-256-Digest: AAAA\r\n\r\n"
        b"Name: a/\r\nSealed: true\r\nSHA1-Digest: BBBB\r\nSHA-384-Digest-Manifest-Main: CC\r\n\r\n"
        b"Name: b/B.class\r\nX-Custom: keep me\r\n\r\n"
    )
    with zipfile.ZipFile(src, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", manifest)
        z.writestr("META-INF/SIGNER.SF", b"sf")
        z.writestr("META-INF/SIGNER.RSA", b"rsa")
        z.writestr("META-INF/SIG-EXTRA", b"sig")
        z.writestr("META-INF/maven/pom.properties", b"not a signature")
        z.writestr("a/A.class", b"a")
    messages: list[str] = []
    with open_container(src) as c:
        write_jar(out, c.entries(), warn=messages.append)
    with zipfile.ZipFile(out) as z:
        assert z.namelist() == ["META-INF/MANIFEST.MF", "META-INF/maven/pom.properties", "a/A.class"]
        assert z.read("META-INF/MANIFEST.MF") == (
            b"Manifest-Version: 1.0\r\nImplementation-Title: x\r\n\r\n"
            b"Name: a/\r\nSealed: true\r\n\r\n"
            b"Name: b/B.class\r\nX-Custom: keep me\r\n\r\n"
        )
    assert len(messages) == 1 and str(src) in messages[0]


# =========================================================================== manifest


def test_unchanged_manifest_is_byte_identical():
    odd = (
        b"Manifest-Version: 1.0\nClass-Path: a.jar b.jar c.jar d.jar e.jar f.jar g.jar h.jar i.jar j.ja\n"
        b" r k.jar\nCreated-By: someone\n\n\nName: x/\nSealed: true\n"
    )  # LF, wrapped, extra blank line
    m = Manifest.parse(odd)
    assert m.main["Class-Path"].endswith("j.jar k.jar") and m.sections["x/"]["sealed"] == "true"
    assert not m.is_modified and m.to_bytes() == odd
    m.main["Class-Path"] = m.main["Class-Path"]  # same value: still unchanged
    assert m.to_bytes() == odd
    m.sections["x/"]["Sealed"] = "false"
    out = m.to_bytes()
    assert out != odd and b"\r" not in out and Manifest.parse(out).sections["x/"]["Sealed"] == "false"


def test_manifest_wraps_lines_at_72_bytes_without_splitting_characters():
    m = Manifest([("Manifest-Version", "1.0")])
    long_path = " ".join(f"lib/dependency-number-{i}.jar" for i in range(30))
    m.main["Class-Path"] = long_path
    m.main["Implementation-Vendor"] = "Société Générale Ünïcödé " * 6
    data = m.to_bytes()
    lines = data.split(b"\r\n")
    assert all(len(line) <= 72 for line in lines)
    assert any(len(line) == 72 for line in lines)
    for line in lines:
        line.decode("utf-8")  # every physical line is whole UTF-8
    again = Manifest.parse(data)
    assert again.main["Class-Path"] == long_path
    assert again.main["Implementation-Vendor"] == m.main["Implementation-Vendor"]
    assert lines[0] == b"Manifest-Version: 1.0"


def test_manifest_joins_continuations_split_inside_a_character():
    value = "é" * 40  # 80 bytes of UTF-8
    line = f"X-Name: {value}".encode()
    cut = 72 if (line[72] & 0xC0) == 0x80 else 73  # deliberately cut inside a character, like old writers
    data = line[:cut] + b"\r\n " + line[cut:] + b"\r\n\r\n"
    assert Manifest.parse(data).main["X-Name"] == value


def test_manifest_digest_stripping():
    m = Manifest.parse(
        b"Manifest-Version: 1.0\r\nX-Main-Digest: keep\r\n\r\n"
        b"Name: a\r\nSHA-256-Digest: x\r\n\r\nName: b\r\nMD5-Digest: y\r\nFoo: bar\r\n\r\n"
    )
    assert m.strip_digests() is True
    assert list(m.sections) == ["b"] and dict(m.sections["b"]) == {"Foo": "bar"}
    assert m.main["X-Main-Digest"] == "keep"  # main attributes are kept
    assert m.strip_digests() is False


# =========================================================================== real Debian jars


@pytest.mark.corpus
def test_debian_asm_jars_copy_unchanged_and_still_run(tmp_path):
    jars_ = {p.name: p for p in package_jars("libasm-java")}
    copies = {}
    for name, path in jars_.items():
        out = tmp_path / name
        with open_container(path) as c:
            assert any(e.is_class for e in c.entries())
            rewrite_container(c, out)
        assert_same_zip(path, out)
        assert out.read_bytes() == path.read_bytes()
        assert _jar_tf(out) == _jar_tf(path) if name == "asm.jar" else True
        copies[name] = out
    if {"asm.jar", "asm-util.jar"} <= copies.keys():
        cp = os.pathsep.join(str(copies[n]) for n in ("asm-util.jar", "asm.jar"))
        text = _java("-cp", cp, "org.objectweb.asm.util.Textifier", "java.lang.Runnable")
        assert "public abstract interface java/lang/Runnable" in text


@pytest.mark.corpus
def test_debian_big_kotlin_jar_opens_lazily_and_copies_exactly(tmp_path):
    big = max(package_jars("kotlin"), key=lambda p: p.stat().st_size)
    out = tmp_path / "kotlin-copy.jar"
    with open_container(big) as c:
        classes = [e for e in c.entries() if e.is_class]
        assert len(classes) > 1000
        sample = classes[len(classes) // 2]
        assert c.find_class(sample.class_name) is sample and sample.read()[:4] == b"\xca\xfe\xba\xbe"
        rewrite_container(c, out, fsync=False)  # ~100 MB: the copy is under test, not the disk
    assert out.stat().st_size == big.stat().st_size
    with open(big, "rb") as a, open(out, "rb") as b:
        while True:
            x, y = a.read(1 << 22), b.read(1 << 22)
            assert x == y
            if not x:
                break
