"""``jprewrite IN OUT`` end to end: rewritten programs run under -Xverify:all, behave the same, and profile exactly.

Expectations here are computed by hand from the papers and ``javap -c`` (the
JDI oracle comparisons live in test_cct_oracle.py).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from support.jdk import javac, run, tool
from support.profiling import find, make_jar, paths, rewrite, run_java

# JP Fig. 4, left column, verbatim, plus a main.
FIG4 = {
    "Foo.java": """
class Foo {
  void f() { for (int i=1;i<=10;++i) { h(); g(i); } }
  void g(int i) { for (int j=1;j<=i;++j) h(); }
  void h() { }
}
""",
    "Fig4.java": """
public class Fig4 {
  public static void main(String[] args) { new Foo().f(); System.out.println("done"); }
}
""",
}


@pytest.fixture(scope="module")
def fig4(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("fig4")
    classes = javac(FIG4, tmp / "classes")
    jar = make_jar(classes, tmp / "fig4.jar")
    return tmp, jar


@pytest.mark.parametrize("counting", ["default", "precise"])
def test_jp_figure_4_calls_and_bytecodes(fig4, counting) -> None:
    tmp, jar = fig4
    out = tmp / f"fig4-{counting}.jar"
    rewrite([jar], out, "--counting", counting)
    r = run_java([out], "Fig4", profile=tmp / f"profile-{counting}.json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "done\n"
    p = r.profile
    main = "Fig4.main([Ljava/lang/String;)V"
    f = find(p, main, "Foo.f()V")
    # JP section 3.2: f = 1, f.h = 10, f.g = 10, f.g.h = 55
    assert f["calls"] == 1
    assert find(p, main, "Foo.f()V", "Foo.h()V")["calls"] == 10
    assert find(p, main, "Foo.f()V", "Foo.g(I)V")["calls"] == 10
    assert find(p, main, "Foo.f()V", "Foo.g(I)V", "Foo.h()V")["calls"] == 55
    # Bytecodes from javap -c (JP Fig. 5's blocks):
    #  f: iconst_1 istore_1 | iload_1 bipush if_icmpgt | aload_0 invokevirtual aload_0 iload_1
    #     invokevirtual iinc goto | return  ->  2 + 11*3 + 10*7 + 1 = 106
    #  g(i): iconst_1 istore_2 | iload_2 iload_1 if_icmpgt | aload_0 invokevirtual iinc goto | return
    #     -> 2 + (i+1)*3 + i*4 + 1 = 6 + 7i; sum over i = 1..10: 60 + 7*55 = 445
    #  h: return -> 1 per call
    assert f["bytecodes"] == 106
    assert find(p, main, "Foo.f()V", "Foo.g(I)V")["bytecodes"] == 445
    assert find(p, main, "Foo.f()V", "Foo.h()V")["bytecodes"] == 10
    assert find(p, main, "Foo.f()V", "Foo.g(I)V", "Foo.h()V")["bytecodes"] == 55
    # main: new dup invokespecial invokevirtual getstatic ldc invokevirtual return = 8
    assert find(p, main)["bytecodes"] == 8
    assert find(p, main, "Foo.<init>()V") == {**find(p, main, "Foo.<init>()V"), "calls": 1, "bytecodes": 3}


def test_counting_none_still_builds_the_tree(fig4) -> None:
    tmp, jar = fig4
    out = tmp / "fig4-none.jar"
    rewrite([jar], out, "--counting", "none")
    r = run_java([out], "Fig4", profile=tmp / "profile-none.json")
    assert r.returncode == 0, r.stderr
    got = paths(r.profile)
    main = "Fig4.main([Ljava/lang/String;)V"
    assert got[(main, "Foo.f()V", "Foo.g(I)V", "Foo.h()V")] == (55, 0)


def test_output_is_self_contained_and_input_untouched(fig4) -> None:
    tmp, jar = fig4
    before = jar.read_bytes()
    out = tmp / "fig4-self.jar"
    rewrite([jar], out)
    assert jar.read_bytes() == before
    names = zipfile.ZipFile(out).namelist()
    assert "jprewrite/runtime/Node.class" in names
    assert "Foo.class" in names


PROFILER = {
    "acme/Counting.java": """
package acme;
import jprewrite.runtime.*;
public class Counting implements Profiler {
  static int reports;
  static { Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.println("REPORTS " + reports))); }
  public int register(Thread t, ThreadRoot root) { return 1000; }
  public int report(ThreadRoot root, Node current) { reports++; return 1000; }
}
""",
}


def test_periodic_activation_calls_the_profiling_agent(fig4, tmp_path) -> None:
    """JP section 5: the agent is called about every 1000 bytecodes (the counter is an upper bound)."""
    from jprewrite.rewrite.runtime_build import runtime_classes

    tmp, _ = fig4
    rt = tmp_path / "runtime"
    for name, data in runtime_classes().items():
        (rt / name).parent.mkdir(parents=True, exist_ok=True)
        (rt / name).write_bytes(data)
    loop = {
        "Loop.java": """
public class Loop {
  static int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i % 7; return s; }
  public static void main(String[] a) { int t = 0; for (int k = 0; k < 50; k++) t += f(2000); System.out.println(t); }
}
"""
    }
    classes = javac({**loop, **PROFILER}, tmp_path / "classes", "-cp", str(rt))
    jar = make_jar(classes, tmp_path / "loop.jar")
    out = tmp_path / "loop-activation.jar"
    rewrite([jar], out, "--counting", "precise", "--activation", "--excludes", "acme.*")
    plain = run_java([jar, rt], "Loop")
    r = run_java([out], "Loop", profile=tmp_path / "p.json", jvm=("-Xverify:all", "-Djprewrite.profiler=acme.Counting"))
    assert r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout
    reports = int(r.stderr.split("REPORTS ")[1].split()[0])
    total = sum(bc for _, bc in paths(r.profile).values())
    assert total > 500_000
    # the counter is decremented by at least what runs: at least total/1000 reports
    print(f"activation: {reports} reports for {total} bytecodes")
    assert total // 1000 <= reports <= 2 * total // 1000 + 10, (reports, total)


def _cli(*args: str) -> tuple[int, str]:
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "jprewrite.cli.main", *args], capture_output=True, text=True)
    return p.returncode, p.stderr


def test_bad_input_is_one_line_and_exit_2(fig4, tmp_path) -> None:
    tmp, jar = fig4
    text = tmp_path / "notes.txt"
    text.write_text("not a jar")
    truncated = tmp_path / "truncated.jar"
    import zipfile

    with zipfile.ZipFile(jar) as z, zipfile.ZipFile(truncated, "w") as out:
        for name in z.namelist():
            data = z.read(name)
            out.writestr(name, data[:40] if name == "Foo.class" else data)
    rewritten = tmp_path / "once.jar"
    rewrite([jar], rewritten)
    cases = {
        "missing": ([str(tmp_path / "nope.jar"), str(tmp_path / "o1.jar")], "nope.jar"),
        "not a jar": ([str(text), str(tmp_path / "o2.jar")], "neither a jar"),
        "truncated class": ([str(truncated), str(tmp_path / "o3.jar")], "Foo.class"),
        "rewritten twice": ([str(rewritten), str(tmp_path / "o4.jar")], "already rewritten"),
        "output is input": ([str(jar), str(jar)], "input"),
        "bad counting": ([str(jar), str(tmp_path / "o5.jar"), "--counting", "exact"], "counting"),
    }
    before = jar.read_bytes()
    for what, (args, needle) in cases.items():
        code, err = _cli(*args)
        assert code == 2, (what, code, err)
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and needle in lines[0], (what, err)
        assert "Traceback" not in err
    assert jar.read_bytes() == before
    assert not any((tmp_path / f"o{i}.jar").exists() for i in range(1, 6))


def test_manifest_class_path_points_at_rewritten_siblings(tmp_path) -> None:
    """A Class-Path naming another input of the run (here by absolute path, as Debian's jars do)
    is pointed at that input's output; the rewritten application then runs instrumented code only."""
    import zipfile

    (tmp_path / "in").mkdir()
    lib = make_jar(
        javac(
            {"lib/Lib.java": "package lib; public class Lib { public static int twice(int x) { return 2 * x; } }"},
            tmp_path / "lib-classes",
        ),
        tmp_path / "in" / "lib.jar",
    )
    app_classes = javac(
        {
            "App.java": "public class App { public static void main(String[] a) { System.out.println(lib.Lib.twice(21)); } }"
        },
        tmp_path / "app-classes",
        "-cp",
        str(lib),
    )
    (tmp_path / "manifest.txt").write_text(f"Main-Class: App\nClass-Path: {lib.as_uri()[len('file:') :]}\n")
    app = tmp_path / "in" / "app.jar"
    run([tool("jar"), "cfm", str(app), str(tmp_path / "manifest.txt"), "-C", str(app_classes), "."])
    out = tmp_path / "out"
    rewrite([app, lib], out, output_dir=True)
    manifest = zipfile.ZipFile(out / "app.jar").read("META-INF/MANIFEST.MF").decode()
    assert "Class-Path: lib.jar" in manifest.replace("\r\n ", "")
    r = run_java([out / "app.jar"], "App", profile=tmp_path / "p.json")
    assert r.returncode == 0 and r.stdout == "42\n", r.stderr
    assert any(p[-1] == "lib.Lib.twice(I)I" and p[0] == "App.main([Ljava/lang/String;)V" for p in paths(r.profile))
    # rewriting the application alone keeps the entry and says so
    code, err = _cli(str(app), str(tmp_path / "alone.jar"))
    assert code == 0 and "Class-Path entry" in err and "not rewritten in this run" in err


OLD_INTERFACES = {
    "com/example/old/Main.java": """
package com.example.old;
import java.lang.reflect.Proxy;
public class Main {
    public interface Shape { int area(int scale); String name(); }
    public interface Weighed { Object TAG = new StringBuilder("w"); int weight(int k); }
    public static class Stone implements Weighed { public int weight(int k) { return k * 3 + TAG.toString().length(); } }
    public static class Square implements Shape {
        public int area(int scale) { return helper(scale) * scale; }
        private int helper(int s) { return s + 1; }
        public String name() { return "square"; }
    }
    public static class Big extends Square {
        public int area(int scale) { return super.area(scale) + 1; }
    }
    public static void main(String[] args) {
        Shape[] shapes = { new Square(), new Big(),
            (Shape) Proxy.newProxyInstance(Main.class.getClassLoader(), new Class<?>[] { Shape.class },
                (p, m, a) -> m.getName().equals("area") ? Integer.valueOf(7) : "proxy") };
        int sum = 0;
        Weighed[] weighed = { new Stone(), (Weighed) Proxy.newProxyInstance(Main.class.getClassLoader(),
            new Class<?>[] { Weighed.class }, (p, m, a) -> Integer.valueOf(5)) };
        for (int i = 0; i < 5; i++) for (Shape s : shapes) { sum += s.area(i); sum += s.name().length(); }
        for (int i = 0; i < 5; i++) for (Weighed w : weighed) { sum += w.weight(i); }
        System.out.println("sum " + sum);
    }
}
""",
}


def test_interfaces_below_version_52(tmp_path) -> None:
    """Class files of version 51 (--release 7). An interface without code (``Shape``) is raised to
    version 52 and gets default ESI methods, as newer interfaces do: calls through it pass the
    node. One with a static initialiser (``Weighed``: default methods would initialise it with its
    implementations, JVMS 5.5) gets no ESI methods (not even abstract declarations a compiler
    inside the program would have to implement); its dispatcher publishes the caller's node and
    the implementation's N2B enters beneath it. The tree equals the JDI oracle's."""
    from jprewrite.classfile.model import read_class

    from support.jdk import javac
    from support.oracle import diff_profiles, run_oracle
    from test_cct_oracle import without_object_init

    classes = javac(
        {
            k: v.replace(
                '(p, m, a) -> m.getName().equals("area") ? Integer.valueOf(7) : "proxy"',
                "new java.lang.reflect.InvocationHandler() { public Object invoke(Object p, "
                'java.lang.reflect.Method m, Object[] a) { return m.getName().equals("area") '
                '? Integer.valueOf(7) : "proxy"; } }',
            ).replace(
                "(p, m, a) -> Integer.valueOf(5)",
                "new java.lang.reflect.InvocationHandler() { public Object invoke(Object p, "
                "java.lang.reflect.Method m, Object[] a) { return Integer.valueOf(5); } }",
            )
            for k, v in OLD_INTERFACES.items()
        },
        tmp_path / "classes",
        "--release",
        "7",
        "-g",
    )
    jar = make_jar(classes, tmp_path / "old.jar")
    out = tmp_path / "old-rewritten.jar"
    rewrite([jar], out, "--counting", "precise")
    import zipfile

    with zipfile.ZipFile(out) as z:
        shape = read_class(z.read("com/example/old/Main$Shape.class"))
        weighed = read_class(z.read("com/example/old/Main$Weighed.class"))
    assert shape.major == 52 and not shape.access & 0x20  # no ACC_SUPER on a version-52 interface
    assert sorted(m.name for m in shape.methods) == ["area", "area$jp", "name", "name$jp"]
    assert weighed.major == 51
    assert sorted(m.name + m.descriptor for m in weighed.methods) == ["<clinit>()V", "weight(I)I"]
    main = "com.example.old.Main"
    run = run_java([out], main, profile=tmp_path / "p.json")
    assert run.returncode == 0, run.stderr
    oracle = run_oracle([jar], main, app_patterns=("com.example.",), timeout=600)
    assert run.stdout == oracle.stdout and run.stdout.startswith("sum ")
    expected = {**oracle.profile, "root": without_object_init(oracle.profile["root"])}
    differences = diff_profiles(expected, run.profile)
    assert not differences, "\n".join(differences[:30])


OLD_FLAGS = {
    "com/example/older/Main.java": """
package com.example.older;
public class Main {
    public static void main(String[] args) {
        Area a = new Impl();
        Named n = new Impl();
        Tagged t = new Impl();
        int sum = 0;
        for (int i = 0; i < 5; i++) sum += a.area(i) + a.sides() + n.name().length() + n.label().length() + t.tag() + Tagged.LIMIT;
        System.out.println("sum " + sum + " " + Main.class.getPackage().getName());
    }
}
""",
    "com/example/older/Area.java": "package com.example.older; public interface Area { int area(int scale); int sides(); }",
    "com/example/older/Named.java": "package com.example.older; public interface Named { String name(); String label(); }",
    "com/example/older/Tagged.java": """
package com.example.older;
public interface Tagged { int LIMIT = 3; int tag(); int tog(); }
""",
    "com/example/older/Impl.java": """
package com.example.older;
class Impl implements Area, Named, Tagged {
    public int area(int scale) { return 2 * scale; }
    public String name() { return "impl"; }
    public int sides() { return 4; }
    public String label() { return "l"; }
    public int tag() { return 7; }
    public int tog() { return 8; }
}
""",
    "com/example/older/package-info.java": "@Deprecated package com.example.older;",
}


def test_interfaces_of_old_compilers_raised_with_legal_flags(tmp_path) -> None:
    """Interfaces as compilers before Java 6 wrote them, raised to version 52 only when that keeps
    them legal and meaning the same. Below version 50 HotSpot treats every interface as abstract
    whether ``ACC_ABSTRACT`` is set or not (javac left it out of ``package-info``, found in ant,
    bcprov and janino's jars), and old compilers set ``ACC_SUPER``: the raised interface needs
    the one and must lose the other, or loading it is a ``ClassFormatError``. An ``ACC_ENUM`` bit
    (meaningless below 49, illegal on an interface or its fields above) keeps the interface at
    its version. ``-Xverify:all`` and HotSpot's verifier over every class; output unchanged."""
    from jprewrite.classfile.model import ACC_ABSTRACT, ACC_ENUM, ACC_INTERFACE, ACC_SUPER, read_class

    from support.verifier import verify_jvm

    classes = javac(OLD_FLAGS, tmp_path / "classes", "--release", "7")
    base = classes / "com/example/older"
    # (class, major, interface flags, extra flags on its fields)
    edits = {
        "Area": (49, ACC_INTERFACE, 0),  # as javac 1.5 wrote package-info: no ACC_ABSTRACT
        "Named": (46, ACC_INTERFACE | ACC_SUPER | 0x1, 0),  # a Java 1.2-era compiler's public interface
        "Tagged": (48, ACC_INTERFACE | ACC_ABSTRACT | 0x1, ACC_ENUM),
        "package-info": (49, ACC_INTERFACE, 0),
    }
    for name, (major, access, field_bits) in edits.items():
        cf = read_class((base / f"{name}.class").read_bytes())
        cf.major, cf.minor, cf.access = major, 0, access
        for f in cf.fields:
            f.access |= field_bits
        (base / f"{name}.class").write_bytes(cf.to_bytes())
    jar = make_jar(classes, tmp_path / "older.jar")
    out = tmp_path / "older-rewritten.jar"
    rewrite([jar], out)
    with zipfile.ZipFile(out) as z:
        got = {n: read_class(z.read(f"com/example/older/{n}.class")) for n in edits}
    for name in ("Area", "Named", "package-info"):
        assert got[name].major == 52, name
        assert got[name].access & (ACC_ABSTRACT | ACC_SUPER) == ACC_ABSTRACT, (name, hex(got[name].access))
    assert sorted(m.name for m in got["Area"].methods) == ["area", "area$jp", "sides", "sides$jp"]
    assert got["Tagged"].major == 48 and [m.name for m in got["Tagged"].methods] == ["tag", "tog"]
    verify_jvm([out]).assert_no_new_failures(verify_jvm([jar]))
    plain = run_java([jar], "com.example.older.Main")
    rewritten = run_java([out], "com.example.older.Main", profile=tmp_path / "p.json")
    assert plain.returncode == 0 and plain.stdout.startswith("sum "), plain.stderr
    assert rewritten.returncode == 0, rewritten.stderr
    assert rewritten.stdout == plain.stdout
    main = "com.example.older.Main.main([Ljava/lang/String;)V"
    assert find(rewritten.profile, main, "Impl.area(I)I")["calls"] == 5
    assert find(rewritten.profile, main, "Impl.tag()I")["calls"] == 5


def _holder_code(jar: Path, holder: str) -> dict[str, tuple[int, int]]:
    """(max_stack written, max_stack by the assembler's depth flow) of each method of ``holder``."""
    from jprewrite.classfile.model import read_class
    from jprewrite.editor import disassemble
    from jprewrite.editor.assembler import compute_max_stack

    cf = read_class(zipfile.ZipFile(jar).read(f"{holder}.class"))
    out = {}
    for m in cf.methods:
        code = m.code()
        assert code is not None
        out[m.name] = (code.max_stack, compute_max_stack(disassemble(m), cf.pool))
    return out


_WRAPPER_SHAPES = {
    "Shapes.java": """
public class Shapes implements Defaults {
  static void v() { }
  int i(int x) { return x + 1; }
  long j(long a, double b) { return a + (long) b; }
  double d(float f, long l, int[] xs) { return f + l + xs.length; }
  String s(Object o, byte b, char c, short sh, boolean z) { return "" + o + b + c + sh + z; }
  static Object[][] a(long[][] xs) { return new Object[xs.length][]; }
  float f() { throw new IllegalStateException("thrown through the wrapper"); }
  // 1 + 126 * 2 = 253 parameter slots, the most a twin (two slots more) may have: the wrapper's
  // node and saved slot at 253 and 254
  long wide(LONGS) { return l0 + l125; }
  static long wideStatic(int i, LONGS) { return i + l0 + l125; }
}
""".replace("LONGS", ", ".join(f"long l{k}" for k in range(126))),
    "Defaults.java": """
public interface Defaults {
  default char c(char x) { return (char) (x + 1); }
  static short sh(short x) { return (short) (x * 2); }
}
""",
    "ShapesMain.java": """
import java.lang.reflect.*;
public class ShapesMain {
  public static void main(String[] args) throws Exception {
    Shapes s = new Shapes();
    for (Method m : Shapes.class.getDeclaredMethods()) {
      if (m.getName().contains("$")) continue;
      Object[] values = new Object[m.getParameterCount()];
      Class<?>[] types = m.getParameterTypes();
      for (int k = 0; k < values.length; k++) {
        Class<?> t = types[k];
        values[k] = t == long.class ? (Object) 3L : t == int.class ? (Object) 2 : t == double.class ? (Object) 1.5
            : t == float.class ? (Object) 2.5f : t == byte.class ? (Object) (byte) 4 : t == char.class ? (Object) 'q'
            : t == short.class ? (Object) (short) 5 : t == boolean.class ? (Object) true
            : t == int[].class ? new int[3] : t == long[][].class ? new long[2][] : "o";
      }
      try {
        Object r = m.invoke(Modifier.isStatic(m.getModifiers()) ? null : s, values);
        System.out.println(m.getName() + " " + (r instanceof Object[] ? ((Object[]) r).length : r));
      } catch (InvocationTargetException e) {
        System.out.println(m.getName() + " threw " + e.getCause().getMessage());
      }
    }
    System.out.println(Defaults.class.getMethod("c", char.class).invoke(s, 'a'));
    System.out.println(Defaults.class.getMethod("sh", short.class).invoke(null, (short) 21));
  }
}
""",
}


def test_wrappers_and_checks_written_as_bytes_are_what_the_assembler_gives(tmp_path) -> None:
    """N2B wrappers are written from their parts' bytes (``shape_n2b.make_n2b``), with the
    handler, its frame and max_stack known from the shape; the override check at the start of a
    virtual twin is one fragment written as bytes (``override_check``). For every shape of
    parameters and result (two-slot values, arrays, the most parameter slots a twin allows,
    interface static and default methods), wrappers and twins are what the general assembler
    makes of the same instructions: code, max_stack, max_locals, handlers and frames byte for
    byte, and max_stack as the depth flow computes it (a twin's: the original's and what its
    inserted code adds, at least the flow's). They verify and run (reflection calls the
    wrappers, and an exception leaves through the handler)."""
    from jprewrite.classfile.model import read_class
    from jprewrite.editor import assemble, disassemble
    from jprewrite.editor.assembler import max_stack_by_flow
    from jprewrite.instrument.support import esi_name

    classes = javac(_WRAPPER_SHAPES, tmp_path / "classes")
    jar = make_jar(classes, tmp_path / "shapes.jar")
    out = tmp_path / "shapes-out.jar"
    rewrite([jar], out)
    wrappers = 0
    for name in ("Shapes", "Defaults"):
        cf = read_class(zipfile.ZipFile(out).read(f"{name}.class"))
        names = {m.name for m in cf.methods}
        for m in cf.methods:
            if m.name.startswith("<") or (esi_name(m.name) not in names and not m.name.endswith("$jp")):
                continue
            written = m.code()
            assert written is not None
            body = disassemble(m)
            again = assemble(
                body, cf.pool, frames=True, name_index=written.name_index, attribute_order=body.attribute_order
            )
            again.context = written.context
            for nested in again.attributes:
                if hasattr(nested, "context"):
                    nested.context = written.context
            flow = max_stack_by_flow(disassemble(m), cf.pool)
            if m.name.endswith("$jp"):
                # a twin declares the original's max_stack and what its inserted code adds
                # (emit.stack_bound): at most a leaf call's six slots over the flow's depth
                assert flow <= written.max_stack <= flow + 6, (m.name, written.max_stack, flow)
                again.max_stack = written.max_stack
            else:
                assert written.max_stack == flow, m.name
            assert written.encode_body(cf.pool) == again.encode_body(cf.pool), m.name
            wrappers += 1
    # 11 wrappers, 11 twins (the 7 of Shapes's instance methods with a check), and the slot twins of
    # Shapes's 3 static methods (v a leaf; a allocates and wideStatic's loads are wide: delegators)
    assert wrappers == 25
    plain = run_java([jar], "ShapesMain")
    r = run_java([out], "ShapesMain", profile=tmp_path / "shapes.json")
    assert plain.returncode == 0, plain.stderr
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.splitlines()) == sorted(plain.stdout.splitlines())  # (reflection's order varies)
    assert "f threw thrown through the wrapper" in r.stdout.splitlines()


def test_holders_of_both_forms_verify_and_name_every_method(tmp_path) -> None:
    """The holder's initialiser is written as bytes (``codegen.StraightCode``): its MethodIds in
    fields (the usual form) and, for a class that could need more than ``MAX_FIELD_MIDS``, in an
    array filled by ``fillN`` methods. Both verify, name the right methods, and declare the
    max_stack the assembler's depth flow computes."""
    many = "\n".join(f"  static int m{i}(int x) {{ return x + {i}; }}" for i in range(700))
    calls = " + ".join(f"m{i}(1)" for i in range(0, 700, 50))
    sources = {
        "Many.java": f"public class Many {{\n{many}\n  static int all() {{ return {calls}; }}\n}}\n",
        "Few.java": "public class Few { static int one(int x) { return x * 300; } }\n",
        "HolderMain.java": """
public class HolderMain {
  public static void main(String[] args) { System.out.println(Many.all() + Few.one(2) + Many.m699(1)); }
}
""",
    }
    classes = javac(sources, tmp_path / "classes")
    jar = make_jar(classes, tmp_path / "holders.jar")
    out = tmp_path / "holders-out.jar"
    rewrite([jar], out)
    many_holder, few_holder = _holder_code(out, "Many$$jpmids"), _holder_code(out, "Few$$jpmids")
    assert "fill0" in many_holder and "fill1" in many_holder, sorted(many_holder)  # the array form
    assert set(few_holder) == {"<clinit>"}  # the field form
    for name, (written, flow) in [*many_holder.items(), *few_holder.items()]:
        assert written == flow, name
    r = run_java([out], "HolderMain", profile=tmp_path / "holders.json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{sum(1 + i for i in range(0, 700, 50)) + 600 + 700}\n"
    main = "HolderMain.main([Ljava/lang/String;)V"
    assert find(r.profile, main, "Many.all()I", "Many.m650(I)I")["calls"] == 1
    assert find(r.profile, main, "Many.m699(I)I")["calls"] == 1
    assert find(r.profile, main, "Few.one(I)I")["calls"] == 1


def test_holder_tables_pack_long_and_unicode_names(tmp_path) -> None:
    """A holder's MethodIds come from ``MethodId.table`` strings of at most 64 KB (modified UTF-8):
    400 methods with 150-character names, ASCII and not, need several of them, and every method is
    still named right in the profile (the JVM's own names through the runtime, the oracle here)."""
    names = [f"m{i}_" + ("\u00e9\u4e2dx" if i % 2 else "abc") * 49 for i in range(400)]
    methods = "\n".join(f"  static int {n}(int x) {{ return x + {i}; }}" for i, n in enumerate(names))
    calls = " + ".join(f"{n}(1)" for n in names)
    sources = {
        "Longnames.java": f"public class Longnames {{\n{methods}\n  static int all() {{ return {calls}; }}\n}}\n",
        "LongMain.java": "public class LongMain {\n"
        "  public static void main(String[] a) { System.out.println(Longnames.all()); }\n}\n",
    }
    classes = javac(sources, tmp_path / "classes", "-encoding", "UTF-8")
    jar = make_jar(classes, tmp_path / "long.jar")
    out = tmp_path / "long-out.jar"
    rewrite([jar], out)
    from jprewrite.classfile.model import read_class
    from jprewrite.editor import disassemble

    holder = read_class(zipfile.ZipFile(out).read("Longnames$$jpmids.class"))
    clinit = next(m for m in holder.methods if m.name == "<clinit>")
    tables = [
        x
        for x in disassemble(clinit).items
        if getattr(x, "opcode", -1) == 0xB8 and holder.pool.member_ref(x.operand)[1] == "table"
    ]
    assert len(tables) >= 2, "the names fill more than one 64 KB string"
    r = run_java([out], "LongMain", profile=tmp_path / "long.json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{sum(1 + i for i in range(400))}\n"
    main = "LongMain.main([Ljava/lang/String;)V"
    for n in names:
        assert find(r.profile, main, "Longnames.all()I", f"Longnames.{n}(I)I")["calls"] == 1, n


@pytest.mark.parametrize(
    ("package", "options"),
    [
        ("librhino-java", ()),
        ("libclojure-java", ("--mode", "hybrid", "--counting", "precise", "--allocations", "--activation")),
    ],
)
def test_declared_max_stack_is_never_below_the_flow(tmp_path, package, options) -> None:
    """Twins and constructors declare the original's max_stack plus what their inserted code
    adds (``emit.stack_bound``), without a depth flow. On real compilers' output (Rhino's
    interpreter and generated parser, Clojure's compiler), with every kind of inserted code
    (hybrid yieldpoints, precise counters, allocation counts, activation checks, pending
    calls), every method of every class written declares at least what the assembler's work
    list finds, and at most six slots more (a leaf call's slot increment: the array, the index and
    two longs; a counter's is five)."""
    from jprewrite.classfile.model import read_class
    from jprewrite.editor import disassemble
    from jprewrite.editor.assembler import max_stack_by_flow

    from support.corpus import package_jars

    jar = package_jars(package)[0]
    out = tmp_path / "out.jar"
    rewrite([jar], out, *options)
    methods, over = 0, {}
    with zipfile.ZipFile(out) as z:
        for entry in z.namelist():
            if not entry.endswith(".class") or entry.startswith("jprewrite/"):
                continue
            cf = read_class(z.read(entry))
            for m in cf.methods:
                code = m.code()
                if code is None:
                    continue
                flow = max_stack_by_flow(disassemble(m), cf.pool)
                assert flow <= code.max_stack <= flow + 6, (entry, m.name, m.descriptor, code.max_stack, flow)
                methods += 1
                over[code.max_stack - flow] = over.get(code.max_stack - flow, 0) + 1
    assert methods > 10000, methods
    assert over.get(0, 0) > methods // 2, over  # most methods declare what the flow finds
