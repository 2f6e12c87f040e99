"""Default serialVersionUID (Java Object Serialization Specification 4.6), checked against ``serialver``.

The oracle is the JDK's own ``bin/serialver``, which loads each class and asks
``java.io.ObjectStreamClass`` -- an implementation independent of ours. It is
run in batches (one JVM per batch of class names) over:

* hand-written classes with the awkward cases (member-class modifiers from
  InnerClasses, interfaces with and without methods, static initialisers,
  transient/private/static fields, array and nested-class descriptors, enums,
  records, anonymous and local classes, an explicit UID of another type);
* a deterministic pseudo-random set of generated classes (modifiers, fields,
  constructors, overloaded methods, nested classes);
* the same classes with flags edited in the class file (STRICT, SYNCHRONIZED,
  VOLATILE, ...) that javac 17 never writes;
* real Serializable classes of Debian jars: those without an explicit UID, and
  those with a private one, stripped of it (a private static field does not
  enter the hash, so the stripped class's default must equal our hash of the
  original).

And the point of it all: a class rewritten with extra members still reads data
serialised by the original once its default UID is pinned.
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from jprewrite.analysis.hierarchy import ClassHierarchy
from jprewrite.archive.jars import open_container
from jprewrite.archive.jdk_image import JdkImage, find_java_home
from jprewrite.classfile.model import (
    ACC_FINAL,
    ACC_PRIVATE,
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_STRICT,
    ACC_SYNCHRONIZED,
    ACC_TRANSIENT,
    ACC_VOLATILE,
    Field,
    read_class,
)
from jprewrite.instrument.serial_uid import (
    add_serial_version_uid,
    class_modifiers,
    default_serial_version_uid,
    explicit_uid_value,
    has_explicit_uid,
    is_enum,
    is_record,
    is_serializable,
    needs_serial_version_uid,
    pin_serial_version_uid,
    serial_version_uid,
    suid_hash,
)

from support.jdk import javac, run, tool

NOT_SERIALIZABLE = "not serializable"
_LINE = re.compile(r"^(\S+):\s+private static final long serialVersionUID = (-?\d+)L;$")
_NOT = re.compile(r"^Class (\S+) is not Serializable\.$")


# ------------------------------------------------------------------------ oracle
def serialver(classpath: list[Path], names: list[str], batch: int = 150) -> dict[str, int | str]:
    """serialver's answer per binary class name: the UID, NOT_SERIALIZABLE, or absent (it failed)."""
    out: dict[str, int | str] = {}
    cp = ":".join(str(p) for p in classpath)
    for i in range(0, len(names), batch):
        chunk = names[i : i + batch]
        r = run([tool("serialver"), "-classpath", cp, *chunk], check=False)
        for line in r.stdout.splitlines() + r.stderr.splitlines():
            m = _LINE.match(line.strip())
            if m:
                out[m.group(1)] = int(m.group(2))
                continue
            m = _NOT.match(line.strip())
            if m:
                out[m.group(1)] = NOT_SERIALIZABLE
    return out


class _Source:
    def __init__(self, container):
        self.container = container

    def find_class(self, name):
        e = self.container.find_class(name)
        return None if e is None else e.read()


@pytest.fixture(scope="module")
def jdk():
    return JdkImage(find_java_home())


def hierarchy_over(jdk, paths: list[Path]) -> ClassHierarchy:
    return ClassHierarchy([_Source(open_container(p)) for p in paths], jdk)


def expected_by_us(cf, hierarchy) -> int | str:
    """What we predict serialver prints for this class."""
    if not is_serializable(cf, hierarchy):
        return NOT_SERIALIZABLE
    v = serial_version_uid(cf, hierarchy)
    assert v is not None, f"{cf.name}: explicit UID without a ConstantValue"
    return v


def compare_dir(classes: Path, hierarchy, extra_cp: list[Path] = ()) -> tuple[int, list[str]]:
    """Compare every class under ``classes`` with serialver; (agreements, disagreements)."""
    cfs = {}
    for p in sorted(classes.rglob("*.class")):
        cf = read_class(p.read_bytes())
        cfs[cf.name.replace("/", ".")] = cf
    oracle = serialver([classes, *extra_cp], sorted(cfs))
    missing = sorted(set(cfs) - set(oracle))
    assert not missing, f"serialver failed on {missing}"
    agree, bad = 0, []
    for name, cf in cfs.items():
        ours = expected_by_us(cf, hierarchy)
        if ours == oracle[name]:
            agree += 1
        else:
            bad.append(f"{name}: ours {ours}, serialver {oracle[name]}")
    return agree, bad


# ------------------------------------------------------------------------ hand-written cases
HAND = {
    "suid/Plain.java": """
        package suid;
        public class Plain implements java.io.Serializable { int a; }
    """,
    "suid/Kitchen.java": """
        package suid;
        import java.io.*;
        import java.util.*;
        public class Kitchen extends AbstractList<String> implements Serializable, Comparable<Kitchen>, Cloneable {
            static int counter = init();
            static int init() { return 3; }
            private int x; protected String s; public transient List<String>[] l; private static long q;
            private transient int pt; private static transient int pst; volatile Map<String, Object> m;
            public static final String CONST = "c"; final double[][] grid = new double[1][1];
            public Kitchen() {} Kitchen(int x) { this.x = x; } private Kitchen(String s) {}
            protected Kitchen(Inner i, Nested[] n, Object... rest) {}
            public int compareTo(Kitchen o) { return 0; }
            public String get(int i) { return null; } public int size() { return 0; }
            public synchronized void sync(int[][] a, Object... v) {}
            protected static native void nat();
            private void hidden() {}
            static void overloaded(int a) {} static void overloaded(long a) {} static void overloaded(String a) {}
            static Inner make(Kitchen k) { return k.new Inner(); }
            public Runnable lambda() { return () -> System.out.println(x); }
            class Inner implements Serializable { int z; Inner() {} }
            protected static class Nested implements Serializable { Inner in; }
            private static final class Priv implements Serializable { }
            public static abstract class Abs implements Serializable { abstract void g(); public abstract int h(); }
            interface WithConst extends Serializable { int K = 1; }
            interface WithInit extends Serializable { List<String> L = new ArrayList<>(); }
            interface WithMethod extends Serializable { void f(); }
            public interface WithDefault extends Serializable { default int d() { return 1; } static int s() { return 2; } }
            Object anon() { return new Serializable() { int y; public String toString() { return "" + y; } }; }
            Object local() { class Local implements Serializable { long t; } return new Local(); }
            enum EnumUid { X; private static final long serialVersionUID = 5L; }
            enum Color implements Serializable { RED, GREEN { int extra() { return 1; } }; int extra() { return 0; } }
            record Rec(int a, String b, int[] c) implements Serializable { Rec { if (a < 0) throw new IllegalArgumentException(); } }
            record Rec2(int a) implements Serializable { private static final long serialVersionUID = 42L; }
            static class IntUid implements Serializable { static final int serialVersionUID = -7; }
            static class CharUid implements Serializable { static final char serialVersionUID = 'x'; }
            static class StringUid implements Serializable { static final String serialVersionUID = "no"; }
            static class NotFinalUid implements Serializable { static long serialVersionUID = 9L; }
            static class Sub extends Nested { public Sub() {} protected void p() {} }
            static class NotSer { int a; }
            static class NotSerSub extends NotSer implements Externalizable {
                public NotSerSub() {}
                public void writeExternal(ObjectOutput o) {} public void readExternal(ObjectInput i) {}
            }
        }
    """,
    "suid/Unicode.java": r"""
        package suid;
        public class Unicode implements java.io.Serializable {
            int \u00e9t\u00e9; int zeta; int \u0101; int \u4e2d; public void m\u00fc() {} public void mu() {}
            public void \ud835\udc9c() {} public void \uff41() {}
        }
    """,
    "suid/EmptyIface.java": """
        package suid;
        public interface EmptyIface extends java.io.Serializable { }
    """,
}


def _gen_classes(seed: int, count: int) -> dict[str, str]:
    """Pseudo-random Serializable classes (deterministic for a seed)."""
    rnd = random.Random(seed)
    types = [
        "int",
        "long",
        "boolean",
        "byte",
        "char",
        "short",
        "float",
        "double",
        "String",
        "Object",
        "int[]",
        "String[][]",
        "java.util.List<String>",
        "java.util.Map<String, int[]>",
        "Base",
        "Base.Part",
        "Ser",
        "Runnable",
        "java.io.File",
        "Object[]",
    ]
    sources = {
        "gen/Base.java": """
            package gen;
            public class Base implements java.io.Serializable {
                public static class Part implements java.io.Serializable { int p; }
                protected Base() {} public Base(int x) {}
            }
        """,
        "gen/Ser.java": "package gen; public interface Ser extends java.io.Serializable { int size(); }",
    }
    for k in range(count):
        name = f"G{k}"
        kind = rnd.choice(["plain", "plain", "extends", "iface"])
        abstract = kind != "iface" and rnd.random() < 0.25
        mods = []
        if rnd.random() < 0.6:
            mods.append("public")
        if abstract:
            mods.append("abstract")
        elif kind != "iface" and rnd.random() < 0.3:
            mods.append("final")
        body: list[str] = []
        fields = set()
        for _ in range(rnd.randrange(6)):
            fm = [rnd.choice(["", "public", "protected", "private"])]
            static = rnd.random() < 0.4
            if kind == "iface":
                fm, static = [], True
            if static:
                fm.append("static")
            final = kind == "iface" or rnd.random() < 0.3
            if final:
                fm.append("final")
            elif rnd.random() < 0.2:
                fm.append("transient")
            elif rnd.random() < 0.2:
                fm.append("volatile")
            t = rnd.choice(types)
            fname = rnd.choice(["a", "b", "c", "zz", "Q", "_u", "$d", "count", "value", "x1", "x10", "x2"])
            if fname in fields:
                continue
            fields.add(fname)
            init = ""
            if final:
                init = {
                    "int": " = 3",
                    "long": " = 4L",
                    "boolean": " = true",
                    "byte": " = 1",
                    "char": " = 'c'",
                    "short": " = 2",
                    "float": " = 1f",
                    "double": " = 2.0",
                    "String": ' = "s"',
                }.get(t, " = null")
                if static and rnd.random() < 0.3 and t in ("int", "long"):
                    init = f" = ({t}) System.nanoTime()"  # not a constant: needs <clinit>
            body.append(f"{' '.join(fm)} {t} {fname}{init};")
        if kind != "iface" and rnd.random() < 0.25:
            body.append('static { System.getProperty("x"); }')
        param_lists = [
            "",
            "int a",
            "long a, int b",
            "String s",
            "int[] v",
            "Object... v",
            "Base.Part p",
            "java.util.List<String> l, double d",
            "Ser s, char c",
            "byte[][] b",
        ]
        if kind != "iface":
            for pl in rnd.sample(param_lists, rnd.randrange(4)):
                acc = rnd.choice(["", "public", "protected", "private"])
                sup = "super(1);" if kind == "extends" else ""
                body.append(f"{acc} {name}({pl}) {{ {sup} }}")
        for mname in rnd.sample(["run", "get", "set", "compute", "zeta", "Alpha", "size", "m"], rnd.randrange(5)):
            for pl in rnd.sample(param_lists, rnd.randint(1, 3)):
                ret = rnd.choice(["void", "int", "String", "Base.Part[]", "Object"])
                val = {"void": "", "int": "return 0;"}.get(ret, "return null;")
                if kind == "iface":
                    choice = rnd.choice(["abstract", "default", "static"])
                    if choice == "abstract":
                        body.append(f"{ret} {mname}({pl});")
                    else:
                        body.append(f"{choice} {ret} {mname}({pl}) {{ {val} }}")
                    continue
                mm = [rnd.choice(["", "public", "protected", "private"])]
                if rnd.random() < 0.3:
                    mm.append("static")
                if rnd.random() < 0.2:
                    mm.append("final")
                if rnd.random() < 0.15:
                    mm.append("synchronized")
                if abstract and "private" not in mm and "static" not in mm and "final" not in mm and rnd.random() < 0.4:
                    body.append(f"{' '.join(mm)} abstract {ret} {mname}({pl});")
                elif rnd.random() < 0.1:
                    body.append(f"{' '.join(mm)} native {ret} {mname}({pl});")
                else:
                    body.append(f"{' '.join(mm)} {ret} {mname}({pl}) {{ {val} }}")
        if kind != "iface":
            if rnd.random() < 0.3:
                acc = rnd.choice(["", "public", "protected", "private"])
                st = rnd.choice(["static ", ""])
                body.append(f"{acc} {st}class N implements java.io.Serializable {{ int n; N() {{}} }}")
            if rnd.random() < 0.2:
                body.append("Object anon() { return new java.io.Serializable() { int q; }; }")
            if rnd.random() < 0.2:
                body.append("Runnable lam(int q) { return () -> System.out.println(q); }")
        if kind == "plain":
            header = f"class {name} implements java.io.Serializable" + rnd.choice(["", ", Cloneable", ", Runnable"])
            if header.endswith("Runnable") and not abstract and not any(" run()" in b for b in body):
                body.append("public void run() {}")
        elif kind == "extends":
            header = f"class {name} extends Base" + rnd.choice(["", " implements Comparable<Base>"])
            if header.endswith(">") and not abstract:
                body.append("public int compareTo(Base o) { return 0; }")
            if not any(f" {name}(" in b for b in body):
                body.append(f"{name}() {{ super(1); }}")
        else:
            header = f"interface {name} extends " + rnd.choice(
                ["java.io.Serializable", "Ser", "Ser, Runnable, Comparable<String>"]
            )
        sources[f"gen/{name}.java"] = (
            "package gen;\n" + " ".join(mods) + " " + header + " {\n    " + "\n    ".join(body) + "\n}\n"
        )
    return sources


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    root = tmp_path_factory.mktemp("suid")
    hand = javac({k: v for k, v in HAND.items()}, root / "hand", "--release", "17", "-g")
    sources = _gen_classes(seed=20240817, count=80)
    gen = _compile_generated(sources, root / "gen")
    return root, hand, gen


def _compile_generated(sources: dict[str, str], out: Path) -> Path:
    """Compile the generated classes; a class javac refuses (a rare clash of the generator's
    choices) is dropped and the rest compiled again."""
    sources = dict(sources)
    for _ in range(20):
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(out.parent / (out.name + "-src"), ignore_errors=True)
        try:
            return javac(sources, out, "--release", "17", "-g")
        except Exception as e:  # CalledProcessError: drop the files javac complains about
            text = getattr(e, "stderr", "") or ""
            bad = {m.group(1) for m in re.finditer(r"gen/(G\d+)\.java:\d+: error", text)}
            if not bad:
                raise
            for b in bad:
                sources.pop(f"gen/{b}.java")
    raise AssertionError("generated classes do not compile")


def test_hand_written_classes_agree_with_serialver(compiled, jdk):
    root, hand, _ = compiled
    agree, bad = compare_dir(hand, hierarchy_over(jdk, [hand]))
    print(f"hand-written: {agree} classes agree with serialver")
    assert not bad, "\n".join(bad)
    assert agree >= 20


def test_generated_classes_agree_with_serialver(compiled, jdk):
    root, _, gen = compiled
    n_sources = len(list(gen.rglob("G*.class")))
    agree, bad = compare_dir(gen, hierarchy_over(jdk, [gen]))
    print(f"generated: {agree} classes agree with serialver")
    assert not bad, "\n".join(bad)
    assert n_sources >= 60 and agree >= 60


def test_member_class_modifiers_come_from_inner_classes(compiled):
    _, hand, _ = compiled
    nested = read_class((hand / "suid" / "Kitchen$Nested.class").read_bytes())
    # protected in the source: ACC_PUBLIC in the class file, PROTECTED|STATIC to reflection
    assert nested.access & ACC_PUBLIC
    assert class_modifiers(nested) == 0x0004 | ACC_STATIC


def test_enums_and_records(compiled, jdk):
    _, hand, _ = compiled
    h = hierarchy_over(jdk, [hand])

    def load(n):
        return read_class((hand / "suid" / f"Kitchen${n}.class").read_bytes())

    color, body, rec, rec2 = load("Color"), load("Color$1"), load("Rec"), load("Rec2")
    assert is_enum(color, h) and is_enum(body, h) and is_enum(body, None)
    assert is_record(rec) and is_record(rec2) and not is_record(color)
    for cf in (color, body, rec):
        assert default_serial_version_uid(cf, h) == 0
        assert suid_hash(cf) != 0
        assert not needs_serial_version_uid(cf, h)
    assert has_explicit_uid(rec2) and explicit_uid_value(rec2) == 42
    assert serial_version_uid(rec2, h) == 42 and serial_version_uid(rec, h) == 0
    enum_uid = load("EnumUid")  # an enum's declared UID is ignored
    assert has_explicit_uid(enum_uid) and serial_version_uid(enum_uid, h) == 0
    # explicit UIDs of other types: read when Field.getLong can read them
    assert explicit_uid_value(load("IntUid")) == -7
    assert explicit_uid_value(load("CharUid")) == ord("x")
    assert not has_explicit_uid(load("StringUid")) and not has_explicit_uid(load("NotFinalUid"))
    # ... but a field of that name is never added twice
    assert not needs_serial_version_uid(load("StringUid"), h)
    assert needs_serial_version_uid(load("Nested"), h)
    assert not needs_serial_version_uid(load("NotSer"), h)
    assert not needs_serial_version_uid(load("WithMethod"), h)  # interfaces: never


_FLAG_EDITS = [
    ("method", ACC_STRICT),
    ("method", ACC_SYNCHRONIZED),
    ("method", ACC_FINAL),
    ("field", ACC_VOLATILE),
    ("field", ACC_TRANSIENT),
    ("field", ACC_FINAL),
    ("class", ACC_FINAL),
]


def test_flags_javac_does_not_write(compiled, jdk, tmp_path):
    """Flags edited into the class files (javac 17 never writes ACC_STRICT, for one)."""
    _, hand, gen = compiled
    out = tmp_path / "edited"
    rnd = random.Random(7)
    edited = 0
    for src_root in (hand, gen):
        for p in sorted(src_root.rglob("*.class")):
            cf = read_class(p.read_bytes())
            if cf.is_interface() or is_record(cf) or cf.access & 0x4000:
                continue
            where, flag = rnd.choice(_FLAG_EDITS)
            if where == "class":
                if cf.access & 0x0400:
                    continue
                cf.access |= flag
            else:
                members = [
                    m
                    for m in (cf.methods if where == "method" else cf.fields)
                    if not m.name.startswith("<") and not m.access & 0x0400
                ]
                if where == "field" and flag == ACC_FINAL:
                    members = [m for m in members if m.access & ACC_STATIC]
                if where == "field" and flag == ACC_VOLATILE:
                    members = [m for m in members if not m.access & ACC_FINAL]
                if not members:
                    continue
                for m in members:
                    m.access |= flag
            dst = out / p.relative_to(src_root)
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(cf.to_bytes())
            edited += 1
    # classes not edited are still needed on the class path (after the edited ones)
    agree, bad = compare_dir(out, hierarchy_over(jdk, [out, hand, gen]), [hand, gen])
    print(f"flag edits: {agree} of {edited} edited classes agree with serialver")
    assert not bad, "\n".join(bad)
    assert agree == edited >= 50


# ------------------------------------------------------------------------ pinning
_WRITER = """
    import java.io.*;
    public class Io {
        public static void main(String[] a) throws Exception {
            if (a[0].equals("write")) {
                try (ObjectOutputStream o = new ObjectOutputStream(new FileOutputStream(a[1]))) {
                    o.writeObject(new data.Point(3, 4));
                }
            } else {
                try (ObjectInputStream i = new ObjectInputStream(new FileInputStream(a[1]))) {
                    System.out.println("read " + i.readObject());
                } catch (InvalidClassException e) {
                    System.out.println("incompatible");
                }
            }
        }
    }
"""
_POINT = """
    package data;
    public class Point implements java.io.Serializable {
        int x, y;
        public Point(int x, int y) { this.x = x; this.y = y; }
        public String toString() { return x + "," + y; }
    }
"""


def _add_public_field(cf) -> None:
    pool = cf.pool
    cf.fields.append(Field(ACC_PUBLIC | ACC_STATIC, pool.add_utf8("$extra"), pool.add_utf8("I"), [], cf))


def test_pinning_keeps_old_data_readable(tmp_path, jdk):
    classes = javac({"Io.java": _WRITER, "data/Point.java": _POINT}, tmp_path / "orig", "--release", "17")
    java = tool("java")
    data = tmp_path / "point.ser"
    run([java, "-cp", str(classes), "Io", "write", str(data)])
    assert run([java, "-cp", str(classes), "Io", "read", str(data)]).stdout.strip() == "read 3,4"
    h = hierarchy_over(jdk, [classes])
    original = (classes / "data" / "Point.class").read_bytes()

    for pin, expected in ((False, "incompatible"), (True, "read 3,4")):
        cf = read_class(original)
        value = None
        if pin:
            assert needs_serial_version_uid(cf, h)
            value = pin_serial_version_uid(cf, h)
            assert value == default_serial_version_uid(read_class(original), h)
            assert not needs_serial_version_uid(cf, h) and pin_serial_version_uid(cf, h) is None
        _add_public_field(cf)  # what a rewrite does: a new member changes the default UID
        assert suid_hash(cf) != suid_hash(read_class(original))
        out = tmp_path / f"pin{pin}"
        shutil.copytree(classes, out)
        (out / "data" / "Point.class").write_bytes(cf.to_bytes())
        rewritten = read_class((out / "data" / "Point.class").read_bytes())
        if pin:
            assert has_explicit_uid(rewritten) and explicit_uid_value(rewritten) == value
            f = next(f for f in rewritten.fields if f.name == "serialVersionUID")
            assert f.access == ACC_PRIVATE | ACC_STATIC | ACC_FINAL and f.descriptor == "J"
            assert serialver([out], ["data.Point"]) == {"data.Point": value}
        got = run([java, "-Xverify:all", "-cp", str(out), "Io", "read", str(data)]).stdout.strip()
        assert got == expected


def test_add_refuses_a_second_field(compiled):
    _, hand, _ = compiled
    cf = read_class((hand / "suid" / "Plain.class").read_bytes())
    add_serial_version_uid(cf, -1)
    with pytest.raises(ValueError):
        add_serial_version_uid(cf, 2)
    with pytest.raises(ValueError):
        add_serial_version_uid(read_class((hand / "suid" / "Plain.class").read_bytes()), 1 << 63)


# ------------------------------------------------------------------------ real jars
# jar -> extra class path it needs to load
REAL_JARS = [
    ("/usr/share/java/commons-lang.jar", []),
    ("/usr/share/java/commons-lang3.jar", []),
    ("/usr/share/java/commons-collections3.jar", []),
    ("/usr/share/java/commons-math3.jar", []),
    ("/usr/share/java/xalan2.jar", ["/usr/share/java/serializer.jar"]),
]
PER_JAR = 30  # of each kind: without a UID, with a private UID stripped


def test_real_serializable_classes_agree_with_serialver(jdk, tmp_path):
    present = [
        (Path(j), [Path(x) for x in extra])
        for j, extra in REAL_JARS
        if Path(j).exists() and all(Path(x).exists() for x in extra)
    ]
    if not present:
        pytest.skip(
            "NO DEBIAN JARS: none of "
            + ", ".join(j for j, _ in REAL_JARS)
            + " is installed (apt-get install libcommons-lang-java libcommons-lang3-java ...)"
        )
    totals = {"default": 0, "stripped": 0, "explicit": 0, "not serializable": 0, "unloadable": 0}
    bad: list[str] = []
    for k, (jar, extra) in enumerate(present):
        h = hierarchy_over(jdk, [jar, *extra])
        stripped_dir = tmp_path / f"stripped{k}"
        plain: dict[str, object] = {}
        stripped: dict[str, object] = {}
        explicit: dict[str, object] = {}
        nonser: dict[str, object] = {}
        with open_container(jar) as c:
            entries = sorted(
                (e for e in c.entries() if e.is_class and e.release is None and not e.is_module_info),
                key=lambda e: e.name,
            )
            for e in entries:
                cf = read_class(e.read())
                name = cf.name.replace("/", ".")
                if not is_serializable(cf, h):
                    if len(nonser) < 10 and not cf.is_interface():
                        nonser[name] = cf
                    continue
                uid = next((f for f in cf.fields if f.name == "serialVersionUID"), None)
                if uid is None:
                    if len(plain) < PER_JAR:
                        plain[name] = cf
                elif uid.access & ACC_PRIVATE and uid.access & ACC_STATIC and has_explicit_uid(cf):
                    if len(stripped) < PER_JAR:
                        stripped[name] = cf
                    if len(explicit) < 10:
                        explicit[name] = cf
        # the stripped copies: same class without its (private static) UID field
        for cf in stripped.values():
            copy = read_class(cf.to_bytes())
            copy.fields = [f for f in copy.fields if f.name != "serialVersionUID"]
            dst = stripped_dir / (cf.name + ".class")
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(copy.to_bytes())
        cp = [jar, *extra]
        oracle = serialver(cp, sorted({**plain, **explicit, **nonser}))
        oracle_stripped = serialver([stripped_dir, *cp], sorted(stripped))
        for group, found, table in (
            ("default", oracle, plain),
            ("explicit", oracle, explicit),
            ("not serializable", oracle, nonser),
            ("stripped", oracle_stripped, stripped),
        ):
            for name, cf in table.items():
                if name not in found:
                    totals["unloadable"] += 1  # serialver could not load it (a missing dependency)
                    continue
                if group == "stripped":
                    ours = default_serial_version_uid(cf, h)
                else:
                    ours = expected_by_us(cf, h)
                if ours == found[name]:
                    totals[group] += 1
                else:
                    bad.append(f"{jar.name} {group} {name}: ours {ours}, serialver {found[name]}")
    print(f"real jars {[j.name for j, _ in present]}: {totals}")
    assert not bad, "\n".join(bad)
    assert totals["default"] + totals["stripped"] >= 50, totals
