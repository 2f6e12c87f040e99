"""The agent's own contract writer (``runtime-java/agent/jprewrite/agent/ContractWriter.java``): when
Python cannot rewrite a class (the worker died for good, or both its full and its contract-only rewrite
failed), the agent gives the class its contract itself, so callers rewritten earlier still link.

Everything is real: the agent jar, the Python worker (killed for good through a wrapper that refuses to
start again), javac/java with -Xverify:all, and ASM's analyzer for the classes the Java writer produces.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from jprewrite.agent.build import agent_jar
from jprewrite.classfile.model import read_class
from jprewrite.cli.report_command import load_profile

from support.agent import AgentRun, agent_options, run_with_agent
from support.corpus import package_jars
from support.jdk import java_home, javac, tool
from support.profiling import find, run_java
from support.verifier import verify_asm, verify_jvm

WARNING = "jprewrite agent:"
LINKAGE = (
    "NoSuchMethodError",
    "AbstractMethodError",
    "VerifyError",
    "NoClassDefFoundError",
    "IncompatibleClassChangeError",
    "ClassFormatError",
    "IllegalAccessError",
)
MAIN = "com.example.fb.Main"
USE = (
    "Main.main([Ljava/lang/String;)V",
    "Late.run()V",
    "Caller.use(Lcom/example/fb/Base;Lcom/example/fb/Named;Lcom/example/fb/Legacy;Lcom/example/fb/Init;)Ljava/lang/String;",
)

# An abstract superclass and a caller rewritten early; subclasses, an interface with default and abstract
# methods, an old-version (--release 7) interface, an interface with a static initialiser (publishing
# dispatchers) and a callee loaded late. Main and Caller never force the late classes to load early
# (the verifier only loads classes to check assignments between different types).
FALLBACK = {
    "com/example/fb/Main.java": """
package com.example.fb;
import java.nio.file.*;
public class Main {
    public static void main(String[] args) throws Exception {
        System.out.println("early " + Base.created() + " " + Caller.early());
        System.out.flush();
        Path go = Paths.get(args[0]);
        long deadline = System.currentTimeMillis() + 120_000;
        while (!Files.exists(go) && System.currentTimeMillis() < deadline) Thread.sleep(10);
        Late.run();
    }
}
""",
    "com/example/fb/Base.java": """
package com.example.fb;
public abstract class Base implements java.io.Serializable {
    private static int count;
    protected final int size;
    protected Base(int size) { this.size = size; count++; }
    static int created() { return count; }
    public abstract int area();
    public String describe() { return getClass().getSimpleName() + "(" + size + ") area " + area(); }
    public int scaled(int k) { return area() * k; }
    protected long weight(long w, double d, String... tags) { return w + (long) d + size + tags.length; }
    public synchronized final String tag() { return "base" + size; }
}
""",
    "com/example/fb/Caller.java": """
package com.example.fb;
public class Caller {
    static String early() { return "ok"; }
    static String use(Base b, Named n, Legacy l, Init i) {
        return b.describe() + " " + b.scaled(2) + " " + b.weight(3L, 1.5, "x") + " " + b.tag() + " | " + n.name()
            + " " + n.id() + " | " + l.legacy(4) + " | " + i.code() + " " + Init.first() + " | " + Callee.compute(5)
            + " " + new Callee(2).twice();
    }
}
""",
    "com/example/fb/Named.java": """
package com.example.fb;
public interface Named { int id(); default String name() { return "named-" + id(); } }
""",
    "com/example/fb/Init.java": """
package com.example.fb;
import java.util.*;
public interface Init {
    List<String> CODES = Arrays.asList("a", "b", "c");
    String code();
    static String first() { return CODES.get(0); }
}
""",
    "com/example/fb/Circle.java": """
package com.example.fb;
public class Circle extends Base implements Named, Legacy, Init {
    public Circle(int r) { super(r); }
    public int area() { return 3 * size * size; }
    @Override public String describe() { return "circle:" + super.describe(); }
    public int id() { return 100 + size; }
    public String legacy(int k) { return "legacy" + (k * size); }
    public String code() { return CODES.get(size % 3); }
}
""",
    "com/example/fb/Square.java": """
package com.example.fb;
public final class Square extends Base {
    public Square(int s) { super(s); }
    public int area() { return size * size; }
}
""",
    "com/example/fb/Ring.java": """
package com.example.fb;
public class Ring extends Circle {
    public Ring(int r) { super(r); }
    @Override public int area() { return super.area() - 1; }
    @Override public String name() { return "ring-" + super.name(); }
}
""",
    "com/example/fb/Callee.java": """
package com.example.fb;
public class Callee {
    private final int k;
    Callee(int k) { this.k = k; }
    static int compute(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }
    synchronized int twice() { return helper() * 2; }
    private int helper() { return k + 1; }
}
""",
    "com/example/fb/Late.java": """
package com.example.fb;
import java.io.ObjectStreamClass;
public class Late {
    static void run() {
        System.out.println(Caller.use(new Circle(2), new Circle(3), new Circle(4), new Circle(5)));
        System.out.println(Caller.use(new Square(3), new Ring(4), new Ring(5), new Ring(6)));
        Named lambda = () -> 42;
        System.out.println(Caller.use(new Ring(7), lambda, k -> "lambda" + k, () -> "init"));
        // the contract writer pins the default serialVersionUID of serializable classes it changes
        System.out.println("uid " + ObjectStreamClass.lookup(Circle.class).getSerialVersionUID()
            + " " + ObjectStreamClass.lookup(Ring.class).getSerialVersionUID()
            + " " + ObjectStreamClass.lookup(Square.class).getSerialVersionUID());
        System.out.println("created " + Base.created());
    }
}
""",
}
LEGACY = {  # compiled with --release 7: an interface that may not take default methods
    "com/example/fb/Legacy.java": """
package com.example.fb;
public interface Legacy { String legacy(int k); }
""",
}

# Shapes the contract writer must handle: natives, varargs, wide and long/double parameters, bridges,
# enums (constants with bodies), records, private and static interface methods, a static-initialiser
# interface, an annotation, inner classes, a method with 240 parameter slots, an old-version class.
EDGE = {
    "com/example/edge/Edge.java": """
package com.example.edge;
public abstract class Edge<T> implements java.io.Serializable, Comparable<Edge<T>> {
    static final Object LOCK;
    static { LOCK = new Object(); }
    public static native int nativeStatic(int x);
    public native long nativeInstance(long a, double b);
    protected abstract T make(String... parts);
    public int compareTo(Edge<T> o) { return 0; }
    public double mix(int a, long b, float c, double d, Object e, int[] f, String[][] g) { return a + b + c + d; }
    strictfp double fp(double x) { return x * 2; }
    synchronized void sync() { }
    private int secret() { return 1; }
    final int fin() { return secret() + 2; }
    enum Color { RED, GREEN { @Override public String toString() { return "g"; } } }
    record Point(int x, int y) { int sum() { return x + y; } }
    interface WithPrivate {
        default int a() { return b(); } private int b() { return 1; } static int c() { return 2; } int d();
    }
    interface StaticInit { Object O = new Object(); int e(); static int f() { return 3; } }
    @interface Ann { int v(); }
    class Inner { int outer() { return fin(); } }
    static final class Leaf extends Edge<String> { protected String make(String... p) { return String.join(",", p); } }
}
""",
    "com/example/edge/Wide.java": f"""
package com.example.edge;
public class Wide {{
    public static long many({", ".join(f"long a{i}" for i in range(120))}) {{ return a0 + a119; }}
    public long manyVirtual({", ".join(f"long a{i}" for i in range(119))}) {{ return a0 + a118; }}
}}
""",
}
EDGE_OLD = {
    "com/example/edge/Old.java": """
package com.example.edge;
public class Old implements Runnable, OldApi {
    private int n;
    public void run() { for (int i = 0; i < 3; i++) n += i; }
    public int api(long x) { return (int) x + n; }
    protected Object self() { return this; }
}
""",
    "com/example/edge/OldApi.java": """
package com.example.edge;
public interface OldApi { int api(long x); int ZERO = 0; }
""",
    # edited below to what older compilers wrote: version 49 without ACC_ABSTRACT (raised: it gets it),
    # version 48 with ACC_ENUM on a field (not raised)
    "com/example/edge/OldPair.java": "package com.example.edge; public interface OldPair { int a(); long b(long x); }",
    "com/example/edge/OldFlagged.java": "package com.example.edge; public interface OldFlagged { int K = 1; int c(); int d(); }",
    **{
        f"com/example/edge/Old{v}.java": f"""
package com.example.edge;
public class Old{v} implements Runnable {{
    int n;
    public void run() {{ for (int i = 0; i < 3; i++) n += i; }}
    public int get(long x, double d) {{ return (int) x + n + (int) d; }}
    static int twice(int a) {{ return a < 0 ? -a : 2 * a; }}
}}
"""
        for v in (48, 49, 50)
    },
}


@pytest.fixture(scope="module")
def fallback(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fallback") / "classes"
    javac(LEGACY, out, "--release", "7", "-Xlint:-options")
    return javac(FALLBACK, out, "-cp", str(out))


@pytest.fixture(scope="module")
def edge(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("edge") / "classes"
    javac(EDGE_OLD, out, "--release", "7", "-Xlint:-options")
    for v in (48, 49, 50):  # javac cannot target these any more: version 51 code without 51's features
        p = out / "com" / "example" / "edge" / f"Old{v}.class"
        data = bytearray(p.read_bytes())
        data[6:8] = v.to_bytes(2, "big")
        p.write_bytes(bytes(data))
    for name, major, access, field_bits in (("OldPair", 49, 0x0201, 0), ("OldFlagged", 48, 0x0601, 0x4000)):
        p = out / "com" / "example" / "edge" / f"{name}.class"
        cf = read_class(p.read_bytes())
        cf.major, cf.access = major, access
        for f in cf.fields:
            f.access |= field_bits
        p.write_bytes(cf.to_bytes())
    return javac(EDGE, out, "-cp", str(out))


@pytest.fixture(scope="module")
def expected(fallback, tmp_path_factory) -> str:
    go = tmp_path_factory.mktemp("plain") / "go"
    go.touch()
    plain = run_java([fallback], MAIN, str(go))
    assert plain.returncode == 0, plain.stderr
    return plain.stdout


def _no_linkage_errors(stderr: str) -> None:
    found = [e for e in LINKAGE if e in stderr]
    assert not found, stderr


def _worker_pids(java_pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(java_pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _mortal_worker(tmp_path: Path) -> tuple[Path, Path]:
    """A worker command that starts the real worker until the file ``dead`` exists, then fails at once."""
    dead = tmp_path / "dead"
    script = tmp_path / "worker.sh"
    script.write_text(f"#!/bin/sh\n[ -e '{dead}' ] && exit 3\nexec '{sys.executable}' -m jprewrite.agent.worker\n")
    script.chmod(0o755)
    return script, dead


def test_classes_loaded_after_the_worker_died_for_good_link_with_callers_rewritten_before(
    fallback, expected, tmp_path
) -> None:
    """Base, Caller and Main are rewritten by Python; then the worker is killed and cannot start again.
    Circle, Square, Ring (subclasses), Named, Legacy, Init (interfaces) and Callee load afterwards: the
    agent writes their contract, so Caller's ESI calls and dispatcher calls link, overrides run, and
    the output is the plain run's."""
    script, dead = _mortal_worker(tmp_path)
    go = tmp_path / "go"
    profile = tmp_path / "p.json"
    proc = run_with_agent([fallback], [MAIN, str(go)], agent_options("none", profile, worker=str(script)), wait=False)
    try:
        first = proc.stdout.readline()
        assert first.startswith("early"), first + proc.stderr.read()
        pids = _worker_pids(proc.pid)
        assert pids, "no worker process was started"
        dead.touch()  # the restart fails too: the worker is gone for good
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
        go.touch()
        rest, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    _no_linkage_errors(err)
    assert first + rest == expected
    warnings = [line for line in err.splitlines() if line.startswith(WARNING)]
    assert len(warnings) == 2 and "restarting it" in warnings[0], err
    assert "classes loaded from now on stay uninstrumented" in warnings[1], err
    data = load_profile(str(profile))
    use = find(data, *USE)
    assert use["calls"] == 3 and use.get("kind", "instrumented") == "instrumented"  # rewritten by Python
    # the late classes answered through their delegating ESI methods: boundary nodes (kind 2)
    compute = find(data, *USE, "Callee.compute(I)I")
    assert compute["calls"] == 3 and compute["kind"] == "uninstrumented"
    children = {
        c["method"].rsplit(".", 2)[-2] + "." + c["method"].rsplit(".", 1)[-1]: c for c in use.get("children", ())
    }
    assert children["Circle.describe()Ljava/lang/String;"]["kind"] == "uninstrumented"  # the override ran
    # Base is instrumented: its describe() runs beneath Circle's super call
    describe = find(data, *USE, "Circle.describe()Ljava/lang/String;", "Base.describe()Ljava/lang/String;")
    assert describe.get("kind", "instrumented") == "instrumented"


FAILING = [
    "com.example.fb.Callee",
    "com.example.fb.Named",
    "com.example.fb.Legacy",
    "com.example.fb.Init",
    "com.example.fb.Circle",
]


def _run_env(fallback: Path, go: Path, profile: Path, env: dict[str, str], **options: str) -> AgentRun:
    agent = f"-javaagent:{agent_jar()}={agent_options(options.pop('cache', 'none'), profile, **options)}"
    cmd = [tool("java"), "-Xverify:all", agent, "-cp", str(fallback), MAIN, str(go)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, **env})
    return AgentRun(p.stdout, p.stderr, p.returncode, load_profile(str(profile)) if profile.exists() else None)


def test_classes_whose_python_rewrites_both_fail_get_the_java_contract(fallback, expected, tmp_path) -> None:
    """Caller (rewritten) passes nodes to Callee, Named, Legacy, Init and Circle, whose full and
    contract-only rewrites fail (injected): each gets the agent's contract, reported once; a warm run
    serves the failures from the cache and gives them the contract again, without Python."""
    go = tmp_path / "go"
    go.touch()
    pattern = ":".join(FAILING)
    env = {"JPREWRITE_AGENT_FAIL": pattern, "JPREWRITE_AGENT_FAIL_CONTRACT": pattern}
    cache = tmp_path / "cache"
    for n, extra in enumerate(({}, {"python": "/nonexistent/python"})):
        run = _run_env(fallback, go, tmp_path / f"p{n}.json", env, cache=str(cache), **extra)
        assert run.returncode == 0, run.stderr
        _no_linkage_errors(run.stderr)
        assert run.stdout == expected
        lines = [line for line in run.stderr.splitlines() if line.startswith(WARNING)]
        for name in FAILING:
            mine = [line for line in lines if f"{name} " in line]
            assert len(mine) == 1, run.stderr
            assert "stays uninstrumented" in mine[0] and "the agent gave it delegating ESI methods itself" in mine[0]
        assert len(lines) == len(FAILING), run.stderr
        compute = find(run.profile, *USE, "Callee.compute(I)I")
        assert compute["calls"] == 3 and compute["kind"] == "uninstrumented"


def test_a_worker_that_never_starts_still_gives_every_class_its_contract(fallback, expected, tmp_path) -> None:
    """Cache entries of a run with a working worker, then a run whose worker cannot start and whose
    late classes miss the cache (entries removed): the rewritten early classes come from the cache,
    the late ones get the agent's contract."""
    go = tmp_path / "go"
    go.touch()
    cache = tmp_path / "cache"
    first = _run_env(fallback, go, tmp_path / "a.json", {}, cache=str(cache))
    assert first.returncode == 0 and first.stdout == expected, first.stderr
    late = {"Circle", "Square", "Ring", "Named", "Legacy", "Init", "Callee", "Late"}
    removed = 0
    for p in sorted((fallback / "com" / "example" / "fb").glob("*.class")):
        if p.stem in late:
            h = hashlib.sha256(p.read_bytes()).hexdigest()
            for entry in cache.glob(f"*/{h[:2]}/{h[2:]}"):
                entry.unlink()
                removed += 1
    assert removed == len(late)
    second = _run_env(fallback, go, tmp_path / "b.json", {}, cache=str(cache), python="/nonexistent/python")
    assert second.returncode == 0, second.stderr
    _no_linkage_errors(second.stderr)
    assert second.stdout == expected
    lines = [line for line in second.stderr.splitlines() if line.startswith(WARNING)]
    assert 1 <= len(lines) <= 2 and "classes loaded from now on" in lines[-1], second.stderr


# ----------------------------------------------------------------------------- the writer itself


def contract_tool(out: Path, *inputs: Path) -> dict[str, str]:
    """``ContractTool OUT INPUTS``: {class: 'OK' | 'SKIP: why' | 'FAIL: why'}."""
    p = subprocess.run(
        [tool("java"), "-cp", str(agent_jar()), "jprewrite.agent.ContractTool", str(out), *map(str, inputs)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    verdicts = {}
    for line in p.stdout.splitlines():
        status, _, rest = line.partition(" ")
        name, _, why = rest.partition(": ")
        verdicts[name] = status if not why else f"{status}: {why}"
    return verdicts


def test_java_contract_classes_pass_hotspot_and_asm_verifiers(fallback, edge, tmp_path) -> None:
    out = tmp_path / "out"
    verdicts = contract_tool(out, fallback, edge)
    failed = {k: v for k, v in verdicts.items() if v.startswith("FAIL")}
    assert not failed, failed
    annotation = verdicts["com/example/edge/Edge$Ann"]
    assert annotation.startswith("SKIP") and "annotation" in annotation
    assert sum(v == "OK" for v in verdicts.values()) >= 20
    runtime = [agent_jar()]
    for verify in (verify_jvm, verify_asm):
        report = verify([out], classpath=[*runtime, fallback, edge])
        report.assert_clean()
        assert report.checked >= 30


def test_java_contract_over_a_real_jar_passes_both_verifiers(tmp_path) -> None:
    jars = package_jars("libasm-java")
    out = tmp_path / "out"
    verdicts = contract_tool(out, *jars)
    assert not [v for v in verdicts.values() if v.startswith("FAIL")]
    for verify in (verify_jvm, verify_asm):
        base = verify(jars, classpath=[agent_jar()], threads=2)
        report = verify([out], classpath=[agent_jar(), *jars], threads=2)
        report.assert_no_new_failures(base)
        assert report.checked > base.checked


# ----------------------------------------------------------------------------- the same form as Python's

_SHORT = re.compile(r"^([ailfd](?:load|store))_(\d)$")
_PUSH = {f"iconst_{n}": n for n in range(6)} | {"iconst_m1": -1}


def _normalised(cf, m) -> list[tuple]:
    """A method's code as (mnemonic, symbolic operand) pairs: pool indices resolved, branch targets as
    instruction numbers, short and wide encodings of one instruction made equal."""
    code = m.code()
    if code is None:
        return []
    pool = cf.pool
    insns = code.instructions()
    at = {i.offset: k for k, i in enumerate(insns)}
    out = []
    for i in insns:
        name = i.name
        operand = i.operand
        short = _SHORT.match(name)
        if short:
            name, operand = short.group(1), int(short.group(2))
        elif name in _PUSH or name in ("bipush", "sipush"):
            name, operand = "push", _PUSH.get(name, operand)
        elif name in ("ldc", "ldc_w"):
            tag = pool.tag(operand)
            if tag == 7:
                operand = pool.class_name(operand)
            elif tag == 8:
                operand = "string " + pool.utf8(pool[operand].index)
            else:
                operand = repr(getattr(pool[operand], "value", operand))
            name = "ldc"
        elif name.startswith("if") or name == "goto":
            operand = at[operand]
        elif name == "invokedynamic":
            operand = pool.name_and_type(pool[operand].name_and_type_index)
        elif name.startswith(("invoke", "getstatic", "putstatic", "getfield", "putfield")):
            operand = pool.member_ref(operand)
        elif name in ("anewarray", "new", "checkcast", "instanceof"):
            operand = pool.class_name(operand)
        out.append((name, operand))
    return out


def _shape(data: bytes) -> dict:
    cf = read_class(data)
    methods = {(m.name, m.descriptor): (m.access, _normalised(cf, m)) for m in cf.methods}
    fields = sorted((f.name, f.descriptor, f.access) for f in cf.fields)
    return {"access": cf.access, "version": (cf.major, cf.minor), "methods": methods, "fields": fields}


def _python_contract_only(monkeypatch, class_path: list[Path]) -> dict[str, dict[str, bytes]]:
    """Every class of ``class_path`` through the worker's rewriter with the full rewrite failing:
    {class: {name: bytes}} of the contract-only forms (the class and its holder)."""
    from jprewrite.agent.loadtime import LoadTimeRewriter
    from jprewrite.agent.options import parse_options

    monkeypatch.setenv("JPREWRITE_AGENT_FAIL", "*")
    rewriter = LoadTimeRewriter(parse_options(""), str(java_home()), os.pathsep.join(map(str, class_path)))
    out = {}
    for entry in class_path:
        if entry.is_dir():
            items = [(p.relative_to(entry).as_posix(), p.read_bytes()) for p in sorted(entry.rglob("*.class"))]
        else:
            with zipfile.ZipFile(entry) as z:
                items = [(n, z.read(n)) for n in z.namelist() if n.endswith(".class") and not n.startswith("META-INF")]
        for rel, data in items:
            result = rewriter.rewrite(rel[:-6], data)
            name = read_class(data).name
            out[name] = {name: result.data, **result.extras} if result.status == 1 else {}
    rewriter.close()
    return out


def _compare(python: dict[str, dict[str, bytes]], java_out: Path) -> list[str]:
    problems = []
    for name, forms in sorted(python.items()):
        if not forms:
            if (java_out / f"{name}.class").exists():
                problems.append(f"{name}: only the Java writer changes it")
            continue
        for cls, data in forms.items():
            path = java_out / f"{cls}.class"
            if not path.exists():
                problems.append(f"{cls}: not written by the Java writer")
                continue
            py, java = _shape(data), _shape(path.read_bytes())
            # $jprewrite$class: the Java writer returns null unless the superclass is the JDK's (documented)
            for shape in (py, java):
                shape["methods"].pop(("$jprewrite$class", "()Ljava/lang/Class;"), None)
            if py != java:
                differing = [
                    k
                    for k in py["methods"].keys() | java["methods"].keys()
                    if py["methods"].get(k) != java["methods"].get(k)
                ]
                problems.append(f"{cls}: differs ({differing[:5]}, fields {py['fields'] != java['fields']})")
    return problems


def test_java_contract_is_the_python_contract_only_form(monkeypatch, fallback, edge, tmp_path) -> None:
    """Same members, flags, version and normalised code as ``instrument_class(contract_only=True)``
    (except the body of ``$jprewrite$class``), over the test programs and ASM's jars."""
    inputs = [fallback, edge, *package_jars("libasm-java")]
    python = _python_contract_only(monkeypatch, inputs)
    out = tmp_path / "out"
    contract_tool(out, *inputs)
    problems = _compare(python, out)
    assert not problems, "\n".join(problems[:30])
    assert sum(1 for forms in python.values() if forms) >= 120


# ----------------------------------------------------------------------------- real programs

DRIVERS = {
    "H2Main.java": """
import java.sql.*;
public class H2Main {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:fallback")) {
            Statement s = c.createStatement();
            s.execute("create table t(id int primary key, name varchar(50), v double)");
            PreparedStatement p = c.prepareStatement("insert into t values(?, ?, ?)");
            for (int i = 0; i < 3000; i++) {
                p.setInt(1, i); p.setString(2, "n" + (i % 37)); p.setDouble(3, i * 1.5); p.executeUpdate();
            }
            ResultSet r = s.executeQuery(
                "select name, count(*), sum(v) from t where id % 3 <> 1 group by name order by name");
            long h = 0;
            while (r.next()) h = h * 31 + (r.getString(1) + r.getInt(2) + r.getDouble(3)).hashCode();
            System.out.println("checksum " + h);
        }
    }
}
""",
    "XalanMain.java": """
import java.io.*;
import javax.xml.transform.*;
import javax.xml.transform.stream.*;
public class XalanMain {
    static final String XSL = "<xsl:stylesheet version='1.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'>"
        + "<xsl:output method='xml' indent='yes'/>"
        + "<xsl:template match='/'><out><xsl:for-each select='//item'><xsl:sort select='@k' data-type='number'/>"
        + "<r n='{position()}' s='{string-length(.)}'>"
        + "<xsl:value-of select='concat(translate(., &quot;abc&quot;, &quot;ABC&quot;), "
        + "sum(//item[@k &lt; current()/@k]/@k))'/>"
        + "</r>"
        + "</xsl:for-each></out></xsl:template></xsl:stylesheet>";
    public static void main(String[] args) throws Exception {
        StringBuilder xml = new StringBuilder("<root>");
        for (int i = 0; i < 300; i++)
            xml.append("<item k='").append((i * 7919) % 1000).append("'>abc").append(i).append("</item>");
        xml.append("</root>");
        TransformerFactory f =
            TransformerFactory.newInstance("org.apache.xalan.processor.TransformerFactoryImpl", null);
        Transformer t = f.newTransformer(new StreamSource(new StringReader(XSL)));
        StringWriter w = new StringWriter();
        t.transform(new StreamSource(new StringReader(xml.toString())), new StreamResult(w));
        System.out.println(f.getClass().getName() + " checksum " + w.toString().hashCode()
            + " length " + w.toString().length());
    }
}
""",
}


@pytest.mark.corpus
@pytest.mark.parametrize(
    "main, package, failing",
    [
        # a large part of each library fails both Python rewrites: classes rewritten before them pass
        # them nodes (and classes rewritten after them treat them as uninstrumented)
        ("XalanMain", "libxalan2-java", "org.apache.xml.*:org.apache.xpath.*:org.apache.xalan.templates.*"),
        ("H2Main", "libh2-java", "org.h2.command.*:org.h2.expression.*:org.h2.value.*:org.h2.util.*:org.h2.table.*"),
    ],
)
def test_real_library_with_many_java_contracts_runs_unchanged(tmp_path, main, package, failing) -> None:
    jars = package_jars(package)
    drivers = javac(
        {f"{main}.java": DRIVERS[f"{main}.java"]}, tmp_path / "driver", "-cp", os.pathsep.join(map(str, jars))
    )
    cp = [drivers, *jars]
    plain = run_java(cp, main, jvm=())
    assert plain.returncode == 0 and "checksum" in plain.stdout, plain.stderr
    profile = tmp_path / "p.json"
    env = {"JPREWRITE_AGENT_FAIL": failing, "JPREWRITE_AGENT_FAIL_CONTRACT": failing}
    cmd = [
        tool("java"),
        "-Xverify:all",
        f"-javaagent:{agent_jar()}={agent_options('none', profile, progress='false')}",
        "-cp",
        os.pathsep.join(map(str, cp)),
        main,
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env={**os.environ, **env})
    assert p.returncode == 0, p.stderr[-3000:]
    _no_linkage_errors(p.stderr)
    assert p.stdout == plain.stdout
    lines = [line for line in p.stderr.splitlines() if line.startswith(WARNING)]
    given = [line for line in lines if "the agent gave it delegating ESI methods itself" in line]
    assert len(given) > 100, p.stderr[-3000:]
    assert len(given) == len(lines), [line for line in lines if line not in given][:5]
    data = load_profile(str(profile))
    assert find(data, f"{main}.main([Ljava/lang/String;)V")["calls"] == 1
