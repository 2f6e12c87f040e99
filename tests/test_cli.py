"""The ``jprewrite`` command, run for real (``python -m jprewrite.cli.main``) on real inputs.

Good input: a jar, a class directory and a single class file built here with
javac and jar.  What ``info`` reports is checked against the class files
themselves, read by a small independent parser (:func:`_layout`), not by
jprewrite.

Bad input must never produce a traceback: exit code 2, exactly one line on
stderr of the form ``jprewrite: <path>[!<entry>][ at byte N]: <message>``,
and nothing on stdout (no half-written report).  ``check`` is the exception
by design for *classes* that cannot be read inside a readable container: it
reports an ``ERROR`` line per such class on stdout, goes on with the others,
and exits 2.

``check --jdk`` takes minutes and is not run here (the corpus tests do the
same round trip on the whole JDK image).
"""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

import jprewrite

from support.corpus import package_jars
from support.jdk import javac, run, tool

FAST_JVM = ["-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"]

HELLO = """package com.acme;
public class Hello {
    private int count;
    public static void main(String[] args) { System.out.println("hi " + twice(21)); }
    static int twice(int x) { return 2 * x; }
}
"""
SHAPE = "package com.acme;\npublic interface Shape { double area(); }\n"
OLD = """package com.acme.legacy;
public final class Old {
    public static long sum(int[] xs) { long s = 0; for (int x : xs) s += x; return s; }
}
"""
HELLO_ENTRY = "com/acme/Hello.class"


# --------------------------------------------------------------------------- running the command


def jprewrite_cmd(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jprewrite.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=300,
    )


def assert_bad_input(
    r: subprocess.CompletedProcess,
    path: Path | str,
    *,
    entry: str | None = None,
    offset: int | None = None,
    message: str = "",
) -> str:
    """Exit 2, nothing on stdout, one ``jprewrite: <where>: <what>`` line on stderr; returns that line."""
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == 2, f"exit code {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}"
    assert r.stdout == "", f"partial output on stdout: {r.stdout!r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{r.stderr}"
    line = lines[0]
    where = f"jprewrite: {path}" + (f"!{entry}" if entry else "") + (f" at byte {offset}" if offset is not None else "")
    assert line.startswith(where + ": "), f"expected {where!r}: ..., got {line!r}"
    assert message in line, f"expected {message!r} in {line!r}"
    return line


# --------------------------------------------------------------------------- an independent class-file parser

_CP_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}


def _layout(d: bytes) -> dict:
    """Constant-pool entry offsets, members and attributes (with file offsets) of a class file."""
    u2 = lambda p: struct.unpack_from(">H", d, p)[0]  # noqa: E731
    u4 = lambda p: struct.unpack_from(">I", d, p)[0]  # noqa: E731
    count = u2(8)
    pos, i, cp = 10, 1, {}
    while i < count:
        tag = d[pos]
        cp[i] = (tag, pos)
        pos += 1 + (2 + u2(pos + 1) if tag == 1 else _CP_SIZES[tag])
        i += 2 if tag in (5, 6) else 1
    cp_end = pos

    def utf8(k: int) -> str:
        p = cp[k][1]
        return d[p + 3 : p + 3 + u2(p + 1)].decode()

    def attributes(pos: int) -> tuple[list[dict], int]:
        out = []
        count = u2(pos)
        pos += 2
        for _ in range(count):
            name, length = utf8(u2(pos)), u4(pos + 2)
            a = {"name": name, "offset": pos, "length": length}
            if name == "Code":
                body = pos + 6
                a["max_stack"], a["max_locals"], a["code_length"] = u2(body), u2(body + 2), u4(body + 4)
                handlers_at = body + 8 + a["code_length"]
                a["handlers"] = u2(handlers_at)
                a["attributes"], _ = attributes(handlers_at + 2 + 8 * a["handlers"])
            out.append(a)
            pos += 6 + length
        return out, pos

    pos = cp_end
    access, this_class = u2(pos), u2(pos + 2)
    pos += 6
    pos += 2 + 2 * u2(pos)
    members: dict[str, list[dict]] = {}
    for kind in ("fields", "methods"):
        members[kind] = []
        n = u2(pos)
        pos += 2
        for _ in range(n):
            m = {"access": u2(pos), "name": utf8(u2(pos + 2)), "descriptor": utf8(u2(pos + 4))}
            m["attributes"], pos = attributes(pos + 6)
            members[kind].append(m)
    class_attributes, pos = attributes(pos)
    assert pos == len(d), "layout parser out of step"
    return {
        "minor": u2(4),
        "major": u2(6),
        "cp": cp,
        "cp_end": cp_end,
        "access": access,
        "name": utf8(u2(cp[this_class][1] + 1)),
        **members,
        "attributes": class_attributes,
    }


def _counts(attrs: list[dict]) -> dict[str, int]:
    out: dict[str, int] = {}
    for a in attrs:
        out[a["name"]] = out.get(a["name"], 0) + 1
    return out


def _patched(data: bytes, fmt: str, offset: int, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def _zip(path: Path, entries: list[tuple[str, bytes]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about duplicate names; they are the point
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in entries:
                z.writestr(name, data)
    return path


# --------------------------------------------------------------------------- inputs


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> SimpleNamespace:
    """app.jar, its class directory and Hello.class: two Java 17 classes, one Java 8 class, a resource."""
    root = tmp_path_factory.mktemp("cli")
    classes = javac({"com/acme/Hello.java": HELLO, "com/acme/Shape.java": SHAPE}, root / "classes")
    javac({"com/acme/legacy/Old.java": OLD}, classes, "--release", "8")
    (classes / "com/acme/greeting.txt").write_text("hello\n")
    jar = root / "app.jar"
    run([tool("jar"), *FAST_JVM, "--create", "--file", str(jar), "-C", str(classes), "."])
    hello = classes / HELLO_ENTRY
    return SimpleNamespace(root=root, classes=classes, jar=jar, hello=hello, hello_bytes=hello.read_bytes())


CLASS_NAMES = {"com.acme.Hello", "com.acme.Shape", "com.acme.legacy.Old"}


# --------------------------------------------------------------------------- info


def test_info_json_on_jar_matches_the_class_files(app):
    r = jprewrite_cmd("info", "--json", app.jar)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    (item,) = doc["inputs"]
    assert item["path"] == str(app.jar)
    assert item["kind"] == "jar"
    with zipfile.ZipFile(app.jar) as z:
        others = [n for n in z.namelist() if not n.endswith("/") and not n.endswith(".class")]
        class_bytes = {n: z.read(n) for n in z.namelist() if n.endswith(".class")}
    assert sorted(others) == ["META-INF/MANIFEST.MF", "com/acme/greeting.txt"]
    assert item["resources"] == len(others)
    by_name = {c["name"]: c for c in item["classes"]}
    assert set(by_name) == CLASS_NAMES
    assert {c["entry"] for c in item["classes"]} == set(class_bytes)

    # every number info reports, against an independent parse of the bytes
    for cls in item["classes"]:
        data = class_bytes[cls["entry"]]
        lay = _layout(data)
        assert cls["name"] == lay["name"].replace("/", ".")
        assert cls["version"] == f"{lay['major']}.{lay['minor']}"
        assert cls["size"] == len(data)
        assert cls["fields"] == len(lay["fields"])
        assert cls["attributes"] == _counts(lay["attributes"])
        assert [(m["name"], m["descriptor"]) for m in cls["methods"]] == [
            (m["name"], m["descriptor"]) for m in lay["methods"]
        ]
        for m, raw in zip(cls["methods"], lay["methods"]):
            assert m["attributes"] == _counts(raw["attributes"]), m["name"]
            code = next((a for a in raw["attributes"] if a["name"] == "Code"), None)
            if code is None:
                assert m["code_size"] is None
                continue
            assert (m["code_size"], m["max_stack"], m["max_locals"], m["handlers"]) == (
                code["code_length"],
                code["max_stack"],
                code["max_locals"],
                code["handlers"],
            ), m["name"]
            assert m["code_attributes"] == _counts(code["attributes"]), m["name"]

    # and what javac is known to produce
    hello, shape, old = by_name["com.acme.Hello"], by_name["com.acme.Shape"], by_name["com.acme.legacy.Old"]
    assert (hello["version"], hello["java"]) == ("61.0", "17")
    assert (shape["version"], shape["java"]) == ("61.0", "17")
    assert (old["version"], old["java"]) == ("52.0", "8")
    assert hello["flags"] == ["public"] and hello["super"] == "java.lang.Object" and hello["fields"] == 1
    assert shape["flags"] == ["public", "interface", "abstract"] and shape["super"] == "java.lang.Object"
    assert old["flags"] == ["public", "final"]
    methods = {m["name"]: m for m in hello["methods"]}
    # aload_0 invokespecial return; iconst_2 iload_0 imul ireturn
    assert methods["<init>"]["descriptor"] == "()V" and methods["<init>"]["code_size"] == 5
    assert methods["twice"]["descriptor"] == "(I)I" and methods["twice"]["code_size"] == 4
    assert methods["twice"]["flags"] == ["static"]
    assert methods["main"]["descriptor"] == "([Ljava/lang/String;)V"
    assert methods["main"]["flags"] == ["public", "static"]
    assert methods["twice"]["code_attributes"] == {"LineNumberTable": 1}
    (area,) = shape["methods"]
    assert (area["name"], area["descriptor"], area["code_size"]) == ("area", "()D", None)
    assert area["flags"] == ["public", "abstract"]
    assert hello["attributes"]["SourceFile"] == 1
    assert "BootstrapMethods" in hello["attributes"]  # string concatenation is an invokedynamic


def test_info_text_on_jar(app):
    r = jprewrite_cmd("info", "--methods", app.jar)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0] == f"{app.jar}: jar, 3 classes, 2 other files"
    doc = json.loads(jprewrite_cmd("info", "--json", app.jar).stdout)
    code_total = {c["name"]: sum(m["code_size"] or 0 for m in c["methods"]) for c in doc["inputs"][0]["classes"]}
    class_lines = {ln.split()[0]: ln for ln in lines[1:] if ln.startswith("  ") and not ln.startswith("      ")}
    assert set(class_lines) == CLASS_NAMES
    assert re.fullmatch(
        r"  com\.acme\.Hello  61\.0 \(Java 17\)  public  fields=1 methods=3 "
        rf"code={code_total['com.acme.Hello']}B  \[BootstrapMethods, InnerClasses, SourceFile\]",
        class_lines["com.acme.Hello"],
    ), class_lines["com.acme.Hello"]
    assert re.fullmatch(
        r"  com\.acme\.Shape  61\.0 \(Java 17\)  public interface abstract  fields=0 methods=1 "
        r"code=0B  \[SourceFile\]",
        class_lines["com.acme.Shape"],
    ), class_lines["com.acme.Shape"]
    assert re.fullmatch(
        r"  com\.acme\.legacy\.Old  52\.0 \(Java 8\)  public final  fields=0 methods=2 "
        rf"code={code_total['com.acme.legacy.Old']}B  \[SourceFile\]",
        class_lines["com.acme.legacy.Old"],
    ), class_lines["com.acme.legacy.Old"]
    method_lines = [ln.strip() for ln in lines if ln.startswith("      ")]
    assert "twice(I)I  static  code=4B" in method_lines
    assert "<init>()V  public  code=5B" in method_lines
    assert "area()D  public abstract  no code" in method_lines
    assert any(re.fullmatch(r"sum\(\[I\)J  public static  code=\d+B", ln) for ln in method_lines)


def test_info_on_directory_and_single_class(app):
    r = jprewrite_cmd("info", "--json", app.classes, app.hello)
    assert r.returncode == 0, r.stderr
    directory, single = json.loads(r.stdout)["inputs"]
    assert (directory["path"], directory["kind"]) == (str(app.classes), "directory")
    assert {c["name"] for c in directory["classes"]} == CLASS_NAMES
    assert directory["resources"] == 1  # greeting.txt; a directory has no manifest
    assert (single["path"], single["kind"]) == (str(app.hello), "class")
    (cls,) = single["classes"]
    assert cls["name"] == "com.acme.Hello" and cls["version"] == "61.0"
    assert cls["size"] == len(app.hello_bytes)
    # the same class reads the same whatever the container
    jar_doc = json.loads(jprewrite_cmd("info", "--json", app.jar).stdout)
    in_jar = next(c for c in jar_doc["inputs"][0]["classes"] if c["name"] == "com.acme.Hello")
    strip = lambda c: {k: v for k, v in c.items() if k != "entry"}  # noqa: E731
    assert strip(cls) == strip(in_jar)

    text = jprewrite_cmd("info", app.classes, app.hello)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert f"{app.classes}: directory, 3 classes, 1 other files" in lines
    assert f"{app.hello}: class, 1 classes, 0 other files" in lines
    assert sum(ln.startswith("  com.acme.Hello  61.0 (Java 17)") for ln in lines) == 2


# --------------------------------------------------------------------------- check

_SUMMARY = re.compile(r"checked (\d+) classes in \d+\.\ds: (\d+) identical, (\d+) differ, (\d+) unreadable")


def test_check_jar_directory_and_class(app):
    r = jprewrite_cmd("check", "-q", app.jar)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr == ""
    assert r.stdout.splitlines()[-1].startswith("checked 3 classes in ")
    assert _SUMMARY.fullmatch(r.stdout.splitlines()[-1]).groups() == ("3", "3", "0", "0")

    r = jprewrite_cmd("check", app.jar, app.classes, app.hello)  # with progress on stderr
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    (summary,) = r.stdout.splitlines()
    assert _SUMMARY.fullmatch(summary).groups() == ("7", "7", "0", "0")


@pytest.mark.corpus
def test_check_uses_worker_processes_on_a_big_jar():
    (jar,) = package_jars("libh2-java")
    with zipfile.ZipFile(jar) as z:
        n = sum(1 for name in z.namelist() if name.endswith(".class"))
    assert n >= 400, "needs at least two batches of 200 classes to use the process pool"
    r = jprewrite_cmd("check", "-q", "-j", "2", jar)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert _SUMMARY.fullmatch(r.stdout.splitlines()[-1]).groups() == (str(n), str(n), "0", "0")


# --------------------------------------------------------------------------- bad input: the container


@pytest.mark.parametrize("command", ["info", "check"])
def test_missing_path(app, command):
    missing = app.root / "no-such.jar"
    assert_bad_input(jprewrite_cmd(command, missing), missing, message="cannot open: no such file or directory")


@pytest.mark.parametrize("command", ["info", "check"])
def test_missing_path_after_a_good_one_writes_nothing(app, command):
    missing = app.root / "no-such-dir" / "x.jar"
    assert_bad_input(jprewrite_cmd(command, app.jar, missing), missing, message="no such file or directory")


@pytest.mark.parametrize("command", ["info", "check"])
def test_unreadable_path(app, tmp_path, command):
    if os.geteuid() == 0:
        pytest.skip("running as root: permissions do not stop root from reading a file or listing a directory")
    secret = tmp_path / "secret.jar"
    secret.write_bytes(app.jar.read_bytes())
    secret.chmod(0)
    try:
        assert_bad_input(jprewrite_cmd(command, secret), secret, message="permission denied")
    finally:
        secret.chmod(0o644)


@pytest.mark.parametrize("command", ["info", "check"])
@pytest.mark.parametrize(
    "content, message",
    [
        (b"just some text\n", "neither a jar/zip archive nor a class file"),
        (b"", "neither a jar/zip archive nor a class file (empty file)"),
    ],
    ids=["text", "empty"],
)
def test_not_a_jar_nor_a_class(tmp_path, command, content, message):
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    assert_bad_input(jprewrite_cmd(command, path), path, offset=0, message=message)


@pytest.mark.parametrize("command", ["info", "check"])
def test_truncated_jar(app, tmp_path, command):
    data = app.jar.read_bytes()
    path = tmp_path / "truncated.jar"
    path.write_bytes(data[: len(data) // 2])
    assert_bad_input(jprewrite_cmd(command, path), path, message="zip")


def _second_hello(app, tmp_path) -> bytes:
    """Hello compiled to print something else: the copy a jar repeats under the same name."""
    src = HELLO.replace('"hi "', '"second "')
    classes = javac({"com/acme/Hello.java": src}, tmp_path / "second")
    return (classes / HELLO_ENTRY).read_bytes()


def test_zip_with_a_repeated_name_is_read_as_the_jvm_reads_it(app, tmp_path):
    """Zips may repeat an entry name and the JVM accepts them: its ZipFile reads the last copy. Such a
    jar is rewritten (the last copy; the earlier one is kept as it is, never read by the JVM) and
    serves as the class path of another rewrite (Debian's kxml2-2.3.0.jar repeats a service file)."""
    second = _second_hello(app, tmp_path)
    dup = _zip(tmp_path / "dup.jar", [(HELLO_ENTRY, app.hello_bytes), ("x.txt", b"x"), (HELLO_ENTRY, second)])
    java = [tool("java"), "-Xverify:all", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]
    assert run([*java, "-cp", str(dup), "com.acme.Hello"]).stdout == "second 42\n"
    for command in ("info", "check"):
        r = jprewrite_cmd(command, dup)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    out = tmp_path / "out.jar"
    r = jprewrite_cmd(dup, out)
    assert r.returncode == 0, r.stderr
    assert "rewrote 1 of 1 classes" in r.stderr, r.stderr
    with zipfile.ZipFile(out) as z:
        copies = [z.read(i) for i in z.infolist() if i.filename == HELLO_ENTRY]
    assert len(copies) == 2 and copies[0] == app.hello_bytes and copies[1] != second
    profile = tmp_path / "p.json"
    r = run([*java, f"-Djprewrite.output={profile}", "-cp", str(out), "com.acme.Hello"])
    assert r.stdout == "second 42\n"
    methods = {n["method"] for n in json.loads(profile.read_text())["root"]["children"]}
    assert "com.acme.Hello.main([Ljava/lang/String;)V" in methods
    # as --classpath of another rewrite, and rewritten to a directory (a file holds the last copy)
    r = jprewrite_cmd(app.jar, tmp_path / "app.jar", "--classpath", dup)
    assert r.returncode == 0, r.stderr
    r = jprewrite_cmd("rewrite", dup, "--output-dir", tmp_path / "d", "--includes", "nothing.*")
    assert r.returncode == 0, r.stderr
    with zipfile.ZipFile(tmp_path / "d" / "dup.jar") as z:
        assert [z.read(i) for i in z.infolist() if i.filename == HELLO_ENTRY] == [app.hello_bytes, second]


# --------------------------------------------------------------------------- bad input: a class


def _truncated(d: bytes) -> tuple[bytes, int, str]:
    cut = 100
    lay = _layout(d)
    index, (tag, start) = next(
        (i, e) for i, e in lay["cp"].items() if e[1] < cut and (i + 1 not in lay["cp"] or lay["cp"][i + 1][1] > cut)
    )
    assert tag == 1, "the cut must fall inside a Utf8 constant for the expected message"
    return d[:cut], start, f"truncated Utf8 constant #{index}"


def _bad_magic(d: bytes) -> tuple[bytes, int, str]:
    return b"\xca\xfe\xba\xbf" + d[4:], 0, "bad magic 0xCAFEBABF"


def _version_200(d: bytes) -> tuple[bytes, int, str]:
    return _patched(d, ">H", 6, 200), 6, "unsupported class-file version 200.0"


def _cp_index_out_of_range(d: bytes) -> tuple[bytes, int, str]:
    lay = _layout(d)
    index, (_tag, start) = next((i, e) for i, e in lay["cp"].items() if e[0] == 10)  # first Methodref
    return _patched(d, ">H", start + 1, 0x7000), start, f"Methodref constant #{index} refers to invalid index #28672"


def _attribute_overrun(d: bytes) -> tuple[bytes, int, str]:
    a = _layout(d)["attributes"][-1]
    return (
        _patched(d, ">I", a["offset"] + 2, a["length"] + 10),
        a["offset"],
        f"attribute '{a['name']}' of length {a['length'] + 10} overruns",
    )


def _nested_attribute_overrun(d: bytes) -> tuple[bytes, int, str]:
    """LineNumberTable of ``twice`` longer than what is left of its Code attribute."""
    twice = next(m for m in _layout(d)["methods"] if m["name"] == "twice")
    (code,) = [a for a in twice["attributes"] if a["name"] == "Code"]
    (lnt,) = [a for a in code["attributes"] if a["name"] == "LineNumberTable"]
    return (
        _patched(d, ">I", lnt["offset"] + 2, lnt["length"] + 3),
        lnt["offset"],
        f"attribute 'LineNumberTable' of length {lnt['length'] + 3} overruns",
    )


BAD_CLASSES = {
    "truncated": _truncated,
    "bad-magic": _bad_magic,
    "version-200": _version_200,
    "cp-index-out-of-range": _cp_index_out_of_range,
    "attribute-overrun": _attribute_overrun,
    "nested-attribute-overrun": _nested_attribute_overrun,
}


@pytest.mark.parametrize("kind", list(BAD_CLASSES))
def test_info_bad_class_in_jar(app, tmp_path, kind):
    bad, offset, message = BAD_CLASSES[kind](app.hello_bytes)
    shape = (app.classes / "com/acme/Shape.class").read_bytes()
    jar = _zip(tmp_path / "bad.jar", [("com/acme/Shape.class", shape), (HELLO_ENTRY, bad)])
    assert_bad_input(jprewrite_cmd("info", jar), jar, entry=HELLO_ENTRY, offset=offset, message=message)
    assert_bad_input(jprewrite_cmd("info", "--json", jar), jar, entry=HELLO_ENTRY, offset=offset, message=message)


@pytest.mark.parametrize("kind", list(BAD_CLASSES))
def test_check_bad_class_in_jar(app, tmp_path, kind):
    """check goes on after an unreadable class, reports it as an ERROR line with its location, exits 2."""
    bad, offset, message = BAD_CLASSES[kind](app.hello_bytes)
    shape = (app.classes / "com/acme/Shape.class").read_bytes()
    jar = _zip(tmp_path / "bad.jar", [("com/acme/Shape.class", shape), (HELLO_ENTRY, bad)])
    r = jprewrite_cmd("check", "-q", jar)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr == ""
    errors = [ln for ln in r.stdout.splitlines() if ln.startswith("ERROR ")]
    assert len(errors) == 1, r.stdout
    (error,) = errors
    assert error.startswith(f"ERROR {jar}!{HELLO_ENTRY}"), error
    assert f"at byte {offset}: " in error and message in error, error
    assert _SUMMARY.fullmatch(r.stdout.splitlines()[-1]).groups() == ("2", "1", "0", "1")
    r = jprewrite_cmd("check", jar)  # with progress on stderr: still no traceback
    assert r.returncode == 2 and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "kind",
    [
        k
        for k in BAD_CLASSES
        # a lone file is recognized by its magic: with a bad one it is not a class
        # file at all (tested in test_not_a_jar_nor_a_class style below)
        if k != "bad-magic"
    ],
)
def test_info_bad_single_class_file(app, tmp_path, kind):
    bad, offset, message = BAD_CLASSES[kind](app.hello_bytes)
    path = tmp_path / "Hello.class"
    path.write_bytes(bad)
    if kind == "truncated":
        # Opening a lone class file reads its constant pool (to name the class), so the truncation
        # is found there, reported in its own words at the same byte, and stops check too.
        for command in ("info", "check"):
            assert_bad_input(jprewrite_cmd(command, path), path, offset=offset, message="truncated")
        return
    assert_bad_input(jprewrite_cmd("info", path), path, offset=offset, message=message)
    r = jprewrite_cmd("check", "-q", path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    (error, summary) = r.stdout.splitlines()
    assert error.startswith(f"ERROR {path}") and f"at byte {offset}: " in error and message in error, error
    assert _SUMMARY.fullmatch(summary).groups() == ("1", "0", "0", "1")


@pytest.mark.parametrize("command", ["info", "check"])
def test_single_class_file_with_bad_magic(app, tmp_path, command):
    path = tmp_path / "Hello.class"
    path.write_bytes(_bad_magic(app.hello_bytes)[0])
    assert_bad_input(jprewrite_cmd(command, path), path, offset=0, message="neither a jar/zip archive nor a class file")


def test_info_bad_class_in_directory(app, tmp_path):
    bad, offset, message = _nested_attribute_overrun(app.hello_bytes)
    root = tmp_path / "classes"
    (root / "com/acme").mkdir(parents=True)
    (root / HELLO_ENTRY).write_bytes(bad)
    assert_bad_input(jprewrite_cmd("info", root), root, entry=HELLO_ENTRY, offset=offset, message=message)


def test_info_writes_nothing_when_a_later_input_is_bad(app, tmp_path):
    bad, offset, message = _cp_index_out_of_range(app.hello_bytes)
    path = tmp_path / "Bad.class"
    path.write_bytes(bad)
    for args in (["info", app.jar, path], ["info", "--json", app.jar, path]):
        assert_bad_input(jprewrite_cmd(*args), path, offset=offset, message=message)


# --------------------------------------------------------------------------- usage


def test_no_arguments_prints_usage():
    r = jprewrite_cmd()
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.startswith("usage: jprewrite")
    assert "info" in r.stderr and "check" in r.stderr
    assert "Traceback" not in r.stderr


def test_version():
    r = jprewrite_cmd("--version")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"jprewrite {jprewrite.__version__} ({jprewrite.__build__})\n"  # which build runs


def test_check_without_inputs():
    r = jprewrite_cmd("check")
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("jprewrite"), r.stderr


def test_unknown_option():
    r = jprewrite_cmd("info", "--no-such-option", "x.jar")
    assert r.returncode == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr and "unrecognized arguments" in r.stderr
