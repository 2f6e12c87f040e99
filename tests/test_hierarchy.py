"""ClassHierarchy against the JVM itself.

Java classes exercising JVMS 17 resolution (5.4.3.2-5.4.3.4), overriding
(5.4.5) and selection (5.4.6) are compiled once per module -- some of them in
two steps (separate compilation) to make hierarchies javac refuses to write:
a default and an abstract method meeting, two defaults meeting, a class's
abstract method inherited next to an interface default. The oracle is the
JVM: a small Java program asks HotSpot's link resolver (through the trusted
MethodHandles lookup, so no access checks get in the way) which class's member
each reference resolves to, and invokes methods on real receivers to see
whose body runs. Every answer is compared with ClassHierarchy's, computed over
the compiled directory plus the JDK's runtime image.

Oracle answers are ``= owner`` (the member's class; for selection, the string
the body returned), ``! Error`` (the JVM's exception), or ``~ why`` where
HotSpot uses a hidden method (see ``_ORACLE``) and the precise JVMS answer is
checked against the expectation written next to the query instead.
"""

from __future__ import annotations

import os
import shutil
import threading
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from jprewrite.analysis.hierarchy import (
    CACHE_FORMAT_VERSION,
    ClassHierarchy,
    ClassInfo,
    JdkSummaryCache,
    MemberInfo,
    cache_file_name,
)
from jprewrite.archive.jars import open_container
from jprewrite.archive.jdk_image import JdkImage

from support.jdk import java_home, javac, run, tool

S = "()Ljava/lang/String;"

# --------------------------------------------------------------------------- Java sources

RES = """package r;
class Base {
    public String m() { return "r/Base"; }
    public String onlyBase() { return "r/Base"; }
    public static String sm() { return "r/Base"; }
    private String priv() { return "r/Base"; }
    public int f;
    public static int sf;
}
class Mid extends Base { public String m() { return "r/Mid"; } public static String sm() { return "r/Mid"; } }
class Leaf extends Mid { }
class PrivSub extends Base { public String priv() { return "r/PrivSub"; } }

interface Top { default String d() { return "r/Top"; } String abs(); static String st() { return "r/Top"; } }
interface Left extends Top { default String d() { return "r/Left"; } }
interface Right extends Top { }
class Diamond implements Left, Right { public String abs() { return "r/Diamond"; } }
class DiamondSub extends Diamond { }
abstract class AbsDiamond implements Left, Right { }

interface Plain { String p(); }
interface PlainSub extends Plain { }
abstract class AbsPlain implements PlainSub { }
class PlainImpl extends AbsPlain { public String p() { return "r/PlainImpl"; } }

interface Reabs extends Top { String d(); }
abstract class AbsReabs implements Reabs { }

interface PI { private String pim() { return "r/PI"; } default String callPim() { return pim(); } }
interface SubPI extends PI { }
class PIImpl implements SubPI { }

class HasD { public String d() { return "r/HasD"; } }
class ClassBeatsDefault extends HasD implements Left { public String abs() { return "r/ClassBeatsDefault"; } }

interface FI { int X = 1; }
interface FJ extends FI { }
interface FK { int X = 3; }
interface FShallow { int X = 4; }
class FBase { public static int X = 2; public int y; }
class FSub extends FBase implements FI { }
class FSub2 extends FBase implements FK, FI { }
class FOrder implements FJ, FShallow { }
class FOrderSub extends FOrder { }
class FOwn extends FSub { public static int X = 5; }
"""

CONFLICTS = """package r;
class AbstractVsDefault implements Dflt, Abst { }
class TwoDefaults implements Dflt, Dflt2 { }
interface CD { default String cd() { return "r/CD"; } }
class ClassAbstractWins extends AbsBase implements CD { }
class QImpl implements IQ { String q() { return "r/QImpl"; } }
"""

# Step 1 compiles everything; step 2 recompiles these files with new content.
STEP1 = {
    "r/Res.java": RES,
    "r/Conflicts.java": CONFLICTS,
    "r/Dflt.java": 'package r; interface Dflt { default String ad() { return "r/Dflt"; } }',
    "r/Abst.java": "package r; interface Abst { }",
    "r/Dflt2.java": "package r; interface Dflt2 { }",
    "r/AbsBase.java": "package r; abstract class AbsBase { }",
    "r/IQ.java": "package r; interface IQ { }",
    # package-private methods across packages (no override from another package)
    "pa/PA.java": 'package pa; public class PA { String pp() { return "pa/PA"; } }',
    "pb/PB.java": 'package pb; public class PB extends pa.PA { public String pp() { return "pb/PB"; } }',
    "pa/PC.java": 'package pa; public class PC extends pb.PB { public String pp() { return "pa/PC"; } }',
    "pb/PD.java": "package pb; public class PD extends pa.PA { }",
    # the transitive case of 5.4.5: TC.t overrides TB.t, which overrides TA.t
    "ta/TA.java": 'package ta; public class TA { String t() { return "ta/TA"; } }',
    "ta/TB.java": 'package ta; public class TB extends TA { public String t() { return "ta/TB"; } }',
    "tc/TC.java": 'package tc; public class TC extends ta.TB { public String t() { return "tc/TC"; } }',
    "ta/UB.java": 'package ta; public class UB extends TA { String t() { return "ta/UB"; } }',
    "tc/UC.java": 'package tc; public class UC extends ta.UB { public String t() { return "tc/UC"; } }',
    # for the missing-class tests: MBase is left out of the class path
    "m/MBase.java": 'package m; public class MBase { public String inherited() { return "m/MBase"; } public int mf; }',
    "m/MIface.java": 'package m; public interface MIface { default String dm() { return "m/MIface"; } }',
    "m/MChild.java": 'package m; public class MChild extends MBase implements MIface { public String own() { return "m/MChild"; } }',
}
STEP2 = {
    "r/Abst.java": "package r; interface Abst { String ad(); }",
    "r/Dflt2.java": 'package r; interface Dflt2 { default String ad() { return "r/Dflt2"; } }',
    "r/AbsBase.java": "package r; abstract class AbsBase { public abstract String cd(); }",
    "r/IQ.java": "package r; interface IQ { String q(); }",
}

_ORACLE = r"""
import java.lang.invoke.*;
import java.lang.reflect.*;
import java.nio.file.*;
import java.util.*;

/** For each query line, print "query => answer" (see the Python module's docstring). */
public class Oracle {
    static final byte GET_FIELD = 1, INVOKE_VIRTUAL = 5, INVOKE_STATIC = 6, INVOKE_SPECIAL = 7,
                      INVOKE_INTERFACE = 9;
    static MethodHandles.Lookup trusted;
    static Method resolveMethod, resolveField, declaringClass;
    static final ClassLoader LOADER = Oracle.class.getClassLoader();

    public static void main(String[] args) throws Throwable {
        Field f = MethodHandles.Lookup.class.getDeclaredField("IMPL_LOOKUP");
        f.setAccessible(true);
        trusted = (MethodHandles.Lookup) f.get(null);
        resolveMethod = MethodHandles.Lookup.class.getDeclaredMethod(
            "resolveOrFail", byte.class, Class.class, String.class, MethodType.class);
        resolveField = MethodHandles.Lookup.class.getDeclaredMethod(
            "resolveOrFail", byte.class, Class.class, String.class, Class.class);
        declaringClass = Class.forName("java.lang.invoke.MemberName").getDeclaredMethod("getDeclaringClass");
        resolveMethod.setAccessible(true);
        resolveField.setAccessible(true);
        declaringClass.setAccessible(true);
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            String answer;
            try {
                answer = answer(line.split(" "));
            } catch (Throwable t) {
                answer = "! " + root(t).getClass().getSimpleName();
            }
            System.out.println(line + " => " + answer);
        }
    }

    static Throwable root(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t;
    }

    static Class<?> cls(String internal) throws ClassNotFoundException {
        return Class.forName(internal.replace('/', '.'), false, LOADER);
    }

    static String internal(Class<?> c) { return c.getName().replace('.', '/'); }

    /** The class of the member HotSpot's link resolver finds for this reference kind, or "!Error". */
    static String resolve(byte kind, Class<?> c, String name, String desc) throws Throwable {
        try {
            Object member = kind == GET_FIELD
                ? resolveField.invoke(trusted, kind, c, name,
                                      MethodType.fromMethodDescriptorString("()" + desc, LOADER).returnType())
                : resolveMethod.invoke(trusted, kind, c, name, MethodType.fromMethodDescriptorString(desc, LOADER));
            return internal((Class<?>) declaringClass.invoke(member));
        } catch (InvocationTargetException e) {
            return "!" + root(e).getClass().getSimpleName();
        }
    }

    static boolean declares(Class<?> c, String name, String desc) {
        MethodType t = MethodType.fromMethodDescriptorString(desc, LOADER);
        for (Method m : c.getDeclaredMethods())   // reflection hides HotSpot's overpass methods
            if (m.getName().equals(name) && m.getReturnType() == t.returnType()
                    && Arrays.equals(m.getParameterTypes(), t.parameterArray()))
                return true;
        return false;
    }

    static String answer(String[] q) throws Throwable {
        String kind = q[0], name = q[2], desc = q[3];
        Class<?> c = cls(q[1]);
        switch (kind) {
            case "F": return done(resolve(GET_FIELD, c, name, desc));
            case "I": {
                String s = resolve(INVOKE_STATIC, c, name, desc);
                if (!s.startsWith("!")) return done(s);
                String i = resolve(INVOKE_INTERFACE, c, name, desc);
                if (i.equals(q[1]) && !declares(c, name, desc)) return "~ overpass";
                return done(i);
            }
            case "M": {
                String s = resolve(INVOKE_STATIC, c, name, desc);
                if (!s.startsWith("!")) return done(s);
                // invokeVirtual names the declaring class, except that a method declared in an
                // interface is reported as a member of the referencing class itself ...
                String v = resolve(INVOKE_VIRTUAL, c, name, desc);
                if (v.startsWith("!") || !v.equals(q[1]) || declares(c, name, desc)) return done(v);
                // ... so ask invokeSpecial, which names the interface (but refuses abstract methods).
                String sp = resolve(INVOKE_SPECIAL, c, name, desc);
                if (sp.startsWith("!")) return "~ inherited abstract " + sp.substring(1);
                if (sp.equals(q[1])) return "~ overpass";   // hidden method HotSpot put in the class
                return "= " + sp;
            }
            case "P": {   // the public API path, for signature-polymorphic methods
                MethodHandles.Lookup l = MethodHandles.lookup();
                return "= " + internal(l.revealDirect(l.findVirtual(c, name,
                    MethodType.fromMethodDescriptorString(desc, LOADER))).getDeclaringClass());
            }
            case "V": case "S": {  // selection: invoke on a receiver, report whose body ran
                MethodHandle mh = trusted.findVirtual(c, name, MethodType.fromMethodDescriptorString(desc, LOADER));
                Constructor<?> k = cls(q[4]).getDeclaredConstructor();
                k.setAccessible(true);
                return "= " + mh.invoke(k.newInstance());
            }
            default: throw new IllegalArgumentException(kind);
        }
    }

    static String done(String r) { return r.startsWith("!") ? "! " + r.substring(1) : "= " + r; }
}
"""

# --------------------------------------------------------------------------- queries

# (kind, owner, name, descriptor[, receiver]) and, for answers HotSpot gives through a
# hidden method, the JVMS answer expected from ClassHierarchy (a set: JVMS lets it choose).
# M Methodref, I InterfaceMethodref, F field, P public findVirtual (signature polymorphic),
# V invokevirtual selection, S invokeinterface selection.
QUERIES: list[tuple[tuple[str, ...], set[str] | None]] = [
    # methods inherited from superclasses; statics and privates are found by resolution too
    (("M", "r/Leaf", "m", S), None),
    (("M", "r/Leaf", "onlyBase", S), None),
    (("M", "r/Leaf", "sm", S), None),
    (("M", "r/Leaf", "priv", S), None),
    (("M", "r/Leaf", "toString", S), None),
    (("M", "r/Leaf", "nope", "()V"), None),
    # interface defaults, maximally-specific methods (diamond, one default overriding another)
    (("M", "r/Diamond", "d", S), None),
    (("M", "r/DiamondSub", "d", S), None),
    (("M", "r/AbsDiamond", "d", S), None),
    (("M", "r/AbsDiamond", "abs", S), {"r/Top"}),
    (("M", "r/AbsPlain", "p", S), {"r/Plain"}),
    (("M", "r/AbsReabs", "d", S), {"r/Reabs"}),
    (("M", "r/ClassBeatsDefault", "d", S), None),
    (("M", "r/PIImpl", "callPim", S), None),
    # abstract vs default, two defaults, a class's abstract method vs a default
    (("M", "r/AbstractVsDefault", "ad", S), None),
    (("M", "r/TwoDefaults", "ad", S), {"r/Dflt", "r/Dflt2"}),
    (("M", "r/ClassAbstractWins", "cd", S), None),
    # static interface methods are not inherited; a Methodref to an interface is an error
    (("M", "r/Diamond", "st", S), None),
    (("M", "r/Top", "d", S), None),
    # a package-private method of a superclass in another package still resolves
    (("M", "pb/PD", "pp", S), None),
    # arrays and the JDK
    (("M", "[I", "clone", "()Ljava/lang/Object;"), None),
    (("M", "[Ljava/lang/String;", "hashCode", "()I"), None),
    (("M", "java/util/ArrayList", "size", "()I"), None),
    (("M", "java/util/ArrayList", "stream", "()Ljava/util/stream/Stream;"), None),
    (("M", "java/util/ArrayList", "hashCode", "()I"), None),
    (("M", "java/util/AbstractMap", "getOrDefault", "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;"), None),
    (("M", "java/lang/invoke/MethodHandle", "bindTo", "(Ljava/lang/String;)V"), None),
    # signature-polymorphic methods resolve whatever the descriptor
    (("P", "java/lang/invoke/MethodHandle", "invokeExact", "(Ljava/lang/String;I)J"), None),
    (("P", "java/lang/invoke/MethodHandle", "invoke", "([I)V"), None),
    # interface method references
    (("I", "r/Right", "d", S), None),
    (("I", "r/Left", "d", S), None),
    (("I", "r/Top", "st", S), None),
    (("I", "r/Right", "st", S), None),
    (("I", "r/Top", "hashCode", "()I"), None),
    (("I", "r/Right", "toString", S), None),
    (("I", "r/Top", "getClass", "()Ljava/lang/Class;"), None),
    (("I", "r/Top", "clone", "()Ljava/lang/Object;"), None),
    (("I", "r/Top", "finalize", "()V"), None),
    (("I", "r/PI", "pim", S), None),
    (("I", "r/SubPI", "pim", S), None),
    (("I", "r/SubPI", "callPim", S), None),
    (("I", "r/Reabs", "d", S), None),
    (("I", "r/PlainSub", "p", S), None),
    (("I", "r/Diamond", "d", S), None),
    (("I", "java/util/List", "stream", "()Ljava/util/stream/Stream;"), None),
    (("I", "java/util/List", "size", "()I"), None),
    (("I", "java/util/List", "forEach", "(Ljava/util/function/Consumer;)V"), None),
    (("I", "java/util/Deque", "isEmpty", "()Z"), {"java/util/Collection"}),
    (("I", "java/util/Deque", "size", "()I"), None),
    # fields: the class, then its superinterfaces depth-first in order, then the superclass
    (("F", "r/FSub", "X", "I"), None),
    (("F", "r/FSub2", "X", "I"), None),
    (("F", "r/FOrder", "X", "I"), None),
    (("F", "r/FOrderSub", "X", "I"), None),
    (("F", "r/FOwn", "X", "I"), None),
    (("F", "r/FJ", "X", "I"), None),
    (("F", "r/FSub", "y", "I"), None),
    (("F", "r/Leaf", "f", "I"), None),
    (("F", "r/Leaf", "sf", "I"), None),
    (("F", "r/Leaf", "nope", "I"), None),
    (("F", "java/util/ArrayList", "size", "I"), None),
    (("F", "java/util/ArrayList", "modCount", "I"), None),
    (("F", "java/lang/Integer", "MAX_VALUE", "I"), None),
    # selection by invokevirtual
    (("V", "r/Base", "m", S, "r/Leaf"), None),
    (("V", "r/Base", "priv", S, "r/PrivSub"), None),
    (("V", "r/Diamond", "d", S, "r/DiamondSub"), None),
    (("V", "r/Diamond", "abs", S, "r/DiamondSub"), None),
    (("V", "r/ClassBeatsDefault", "d", S, "r/ClassBeatsDefault"), None),
    (("V", "r/AbstractVsDefault", "ad", S, "r/AbstractVsDefault"), None),
    (("V", "r/TwoDefaults", "ad", S, "r/TwoDefaults"), None),
    (("V", "r/ClassAbstractWins", "cd", S, "r/ClassAbstractWins"), None),
    (("V", "r/AbsPlain", "p", S, "r/PlainImpl"), None),
    (("V", "r/PIImpl", "callPim", S, "r/PIImpl"), None),
    (("V", "pa/PA", "pp", S, "pb/PB"), None),
    (("V", "pa/PA", "pp", S, "pa/PC"), None),
    (("V", "pa/PA", "pp", S, "pb/PD"), None),
    (("V", "pb/PB", "pp", S, "pa/PC"), None),
    (("V", "ta/TA", "t", S, "tc/TC"), None),
    (("V", "ta/TB", "t", S, "tc/TC"), None),
    (("V", "ta/TA", "t", S, "tc/UC"), None),
    (("V", "ta/UB", "t", S, "tc/UC"), None),
    # selection by invokeinterface
    (("S", "r/Top", "d", S, "r/Diamond"), None),
    (("S", "r/Right", "d", S, "r/Diamond"), None),
    (("S", "r/Top", "d", S, "r/ClassBeatsDefault"), None),
    (("S", "r/Top", "abs", S, "r/Diamond"), None),
    (("S", "r/Abst", "ad", S, "r/AbstractVsDefault"), None),
    (("S", "r/Dflt", "ad", S, "r/TwoDefaults"), None),
    (("S", "r/CD", "cd", S, "r/ClassAbstractWins"), None),
    (("S", "r/IQ", "q", S, "r/QImpl"), None),
    (("S", "r/Plain", "p", S, "r/PlainImpl"), None),
]

_FAST_JAVAC = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Xshare:auto")
_RESOLUTION_ERRORS = {"NoSuchMethodError", "NoSuchFieldError", "IncompatibleClassChangeError"}


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("hierarchy")
    classes = root / "classes"
    javac({**STEP1, "Oracle.java": _ORACLE}, classes, *_FAST_JAVAC)
    javac(STEP2, classes, *_FAST_JAVAC, "-cp", str(classes))

    # Package m goes into jars; the jar with MBase (the superclass) is not on the class path.
    app_jar, base_jar = root / "app.jar", root / "base.jar"
    with zipfile.ZipFile(app_jar, "w") as app, zipfile.ZipFile(base_jar, "w") as base:
        for cf in sorted((classes / "m").glob("*.class")):
            (base if cf.name == "MBase.class" else app).write(cf, f"m/{cf.name}")
    shutil.rmtree(classes / "m")

    queries = root / "queries.txt"
    queries.write_text("".join(" ".join(q) + "\n" for q, _ in QUERIES))
    out = run(
        [
            tool("java"),
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xshare:auto",
            "--add-opens",
            "java.base/java.lang.invoke=ALL-UNNAMED",
            "-cp",
            str(classes),
            "Oracle",
            str(queries),
        ]
    ).stdout
    oracle = {}
    for line in out.splitlines():
        query, _, answer = line.partition(" => ")
        oracle[tuple(query.split(" "))] = answer
    assert len(oracle) == len(QUERIES), out

    jdk = JdkImage(java_home())
    yield SimpleNamespace(root=root, classes=classes, app_jar=app_jar, oracle=oracle, jdk=jdk)
    jdk.close()


@pytest.fixture(scope="module")
def hierarchy(world, tmp_path_factory):
    cache = JdkSummaryCache(world.jdk.build_id, tmp_path_factory.mktemp("cache"))
    return ClassHierarchy([open_container(world.classes)], world.jdk, cache=cache)


def _ours(h: ClassHierarchy, q: tuple[str, ...]) -> MemberInfo | None:
    kind, owner, name, desc = q[:4]
    if kind in "MP":
        return h.resolve_method(owner, name, desc)
    if kind == "I":
        return h.resolve_interface_method(owner, name, desc)
    if kind == "F":
        return h.resolve_field(owner, name, desc)
    resolved = h.resolve_any_method(owner, name, desc, interface=kind == "S")
    assert resolved is not None, q
    return h.select_method(q[4], resolved)


# --------------------------------------------------------------------------- against the oracle


@pytest.mark.parametrize("query,expected", QUERIES, ids=[" ".join(q) for q, _ in QUERIES])
def test_agrees_with_the_jvm(hierarchy, world, query, expected):
    h = hierarchy
    answer = world.oracle[query]
    ours = _ours(h, query)
    kind, owner, name, desc = query[:4]
    verdict, _, detail = answer.partition(" ")
    if kind in "VS":  # selection
        if verdict == "=":
            assert ours is not None and ours.owner == detail, (answer, ours)
            assert not ours.is_abstract
        elif detail == "AbstractMethodError":
            assert ours is None or ours.is_abstract, (answer, ours)
        elif detail == "IncompatibleClassChangeError":
            assert ours is None, (answer, ours)
        elif detail == "IllegalAccessError":  # invokeinterface selected a non-public method
            assert kind == "S" and ours is not None and not ours.is_public and not ours.is_private
        else:
            pytest.fail(f"unexpected oracle answer {answer}")
    elif verdict == "=":
        assert expected is None, f"the JVM answered {answer} directly"
        assert ours is not None and ours.owner == detail, (answer, ours)
        assert (ours.name, ours.descriptor) == (name, desc) or ours.owner == "java/lang/invoke/MethodHandle"
    elif verdict == "!":
        assert detail in _RESOLUTION_ERRORS, answer
        assert ours is None, (answer, ours)
    else:
        # HotSpot answered through a hidden method or cannot name the interface: JVMS
        # answers an interface method that is not declared in the referencing class.
        assert verdict == "~" and expected is not None, answer
        assert ours is not None and ours.owner in expected, (answer, ours)
        assert h.info(ours.owner).is_interface and h.is_subtype(owner, ours.owner)
        assert h.info(owner).declared_method(name, desc) is None
        if detail.startswith("inherited abstract"):
            assert ours.is_abstract
        maximal = h.maximally_specific_methods(owner, name, desc)
        assert ours in maximal
    assert not h.missing, h.missing
    assert not h.broken, h.broken


def test_oracle_saw_the_interesting_cases(world):
    """Guard against a silently weakened oracle: these answers are what the JVMS requires."""
    o = world.oracle
    assert o[("M", "r/Diamond", "d", S)] == "= r/Left"
    assert o[("M", "java/util/ArrayList", "stream", "()Ljava/util/stream/Stream;")] == "= java/util/Collection"
    assert o[("I", "java/util/List", "stream", "()Ljava/util/stream/Stream;")] == "= java/util/Collection"
    assert o[("F", "r/FSub", "X", "I")] == "= r/FI"
    assert o[("V", "pa/PA", "pp", S, "pb/PB")] == "= pa/PA"
    assert o[("V", "ta/TA", "t", S, "tc/TC")] == "= tc/TC"
    assert o[("V", "ta/TA", "t", S, "tc/UC")] == "= ta/UB"
    assert o[("V", "r/TwoDefaults", "ad", S, "r/TwoDefaults")] == "! IncompatibleClassChangeError"
    # JVMS 17 invokeinterface says IncompatibleClassChangeError here; HotSpot's itable has no
    # entry for the conflict and throws AbstractMethodError. Either way nothing is selected.
    assert o[("S", "r/Dflt", "ad", S, "r/TwoDefaults")] == "! AbstractMethodError"
    # HotSpot resolves an inherited abstract method to a hidden method in the interface itself
    assert o[("I", "java/util/Deque", "isEmpty", "()Z")] == "~ overpass"
    assert o[("S", "r/CD", "cd", S, "r/ClassAbstractWins")] == "! AbstractMethodError"
    assert (
        o[("P", "java/lang/invoke/MethodHandle", "invokeExact", "(Ljava/lang/String;I)J")]
        == "= java/lang/invoke/MethodHandle"
    )


def test_overriding_rules(hierarchy):
    h = hierarchy
    pa = h.info("pa/PA").declared_method("pp", S)
    pb = h.info("pb/PB").declared_method("pp", S)
    pc = h.info("pa/PC").declared_method("pp", S)
    ta = h.info("ta/TA").declared_method("t", S)
    tc = h.info("tc/TC").declared_method("t", S)
    uc = h.info("tc/UC").declared_method("t", S)
    assert not h.can_override(pb, pa)  # package-private, other package
    assert h.can_override(pc, pa) and h.can_override(pc, pb)
    assert h.can_override(tc, ta)  # transitively, through ta/TB.t
    assert not h.can_override(uc, ta)  # ta/UB.t is package-private: no chain
    static = h.info("r/Mid").declared_method("sm", S)
    assert not h.can_override(static, h.info("r/Base").declared_method("sm", S))


def test_supertypes(hierarchy):
    h = hierarchy
    assert [c.name for c in h.superclasses("r/Leaf")] == ["r/Leaf", "r/Mid", "r/Base", "java/lang/Object"]
    assert {i.name for i in h.all_superinterfaces("r/DiamondSub")} == {"r/Left", "r/Right", "r/Top"}
    assert h.is_subtype("r/DiamondSub", "r/Top") is True
    assert h.is_subtype("r/Top", "r/DiamondSub") is False
    assert h.is_subtype("java/util/ArrayList", "java/util/Collection") is True
    assert h.is_subtype("[Lr/Leaf;", "[Lr/Base;") is True
    assert h.is_subtype("[[Lr/Leaf;", "[Ljava/lang/Object;") is True
    assert h.is_subtype("[I", "java/io/Serializable") is True
    assert h.is_subtype("[I", "[J") is False
    assert h.is_subtype("[Lr/Base;", "[Lr/Leaf;") is False
    assert h.info("java/util/ArrayList").from_jdk and not h.info("r/Leaf").from_jdk


# --------------------------------------------------------------------------- sources and missing classes


class _BytesSource:
    def __init__(self, root: Path) -> None:
        self.root = root

    def find_class(self, name: str) -> bytes | None:
        p = self.root / (name + ".class")
        return p.read_bytes() if p.is_file() else None


def test_sources_may_return_bytes_or_entries(world):
    for source in (_BytesSource(world.classes), open_container(world.classes)):
        h = ClassHierarchy([source])
        assert str(h.resolve_method("r/Leaf", "m", S)) == "r/Mid.m()Ljava/lang/String;"
        assert h.resolve_field("r/FOrder", "X", "I").owner == "r/FI"
        assert str(h.resolve_interface_method("r/Top", "d", S)) == "r/Top.d()Ljava/lang/String;"
        assert not h.missing
        # without a JDK, java/lang/Object is missing: reported, not fatal, and not guessed
        # around (Object could declare d(), which would then win over the interface default)
        assert h.resolve_method("r/Diamond", "d", S) is None
        assert h.resolve_method("r/Leaf", "toString", S) is None
        assert h.resolve_interface_method("r/Right", "d", S) is None  # Object is searched first
        assert h.missing == {"java/lang/Object"}


class _ListedSource:
    """A source with ``class_names()``, counting the questions it is asked."""

    def __init__(self, classes: dict[str, bytes], listed: list[str] | None = None) -> None:
        self.classes = classes
        self.listed = list(classes) if listed is None else listed
        self.asked: list[str] = []

    def class_names(self) -> list[str]:
        return self.listed

    def find_class(self, name: str) -> bytes | None:
        self.asked.append(name)
        return self.classes.get(name)


def test_listed_sources_are_asked_only_about_their_names_and_the_class_path_order_holds(world):
    """A long class path is indexed by the sources' ``class_names()``; the first source that has a
    class still defines it, an unlisted source (asked about every name) keeps its place in the
    order, and a listed name whose source then finds nothing falls through to the next source."""
    leaf, mid = ((world.classes / "r" / f"{n}.class").read_bytes() for n in ("Leaf", "Mid"))
    empty = [_ListedSource({}) for _ in range(50)]
    first = _ListedSource({"r/Leaf": leaf})
    unlisted = SimpleNamespace(find_class={"r/Mid": mid}.get)
    later = _ListedSource({"r/Leaf": mid, "r/Mid": leaf})  # never wins: both names are found earlier
    stale = _ListedSource({}, listed=["r/Base"])  # lists a name it cannot find
    base = _ListedSource({"r/Base": (world.classes / "r" / "Base.class").read_bytes()})
    h = ClassHierarchy([*empty, first, unlisted, later, stale, base])
    assert h.info("r/Leaf").super_name == "r/Mid"  # first's copy, not later's (r/Mid's bytes)
    assert h.info("r/Mid").super_name == "r/Base"  # the unlisted source comes before later
    assert h.info("r/Base").name == "r/Base"  # stale answers nothing; base, after it, does
    assert h.info("r/Nowhere") is None and "r/Nowhere" in h.missing
    assert all(not s.asked for s in empty)
    assert first.asked == ["r/Leaf"] and later.asked == [] and stale.asked == ["r/Base"]
    assert base.asked == ["r/Base"]


def test_broken_and_misnamed_classes_are_reported(world):
    good = (world.classes / "r" / "Leaf.class").read_bytes()
    classes = {"x/Garbage": b"\xca\xfe\xba\xbe...", "x/Alias": good}
    h = ClassHierarchy([SimpleNamespace(find_class=classes.get)])
    assert h.info("x/Garbage") is None and h.info("x/Alias") is None
    assert set(h.broken) == {"x/Garbage", "x/Alias"} and not h.missing


def test_missing_superclass_jar(world):
    h = ClassHierarchy([open_container(world.app_jar)], world.jdk, cache=False)
    own = h.resolve_method("m/MChild", "own", S)
    assert str(own) == "m/MChild.own()Ljava/lang/String;"
    assert not h.missing  # answered before the superclass was needed
    assert h.resolve_method("m/MChild", "inherited", S) is None
    assert h.missing == {"m/MBase"} and not h.broken
    # MBase could declare dm(): the interface default cannot be chosen without it
    assert h.resolve_method("m/MChild", "dm", S) is None
    assert h.resolve_field("m/MChild", "mf", "I") is None
    dm = h.resolve_interface_method("m/MIface", "dm", S)
    assert dm is not None and dm.owner == "m/MIface"
    assert h.select_method("m/MChild", dm) is None
    assert h.select_method("m/MChild", own) == own
    assert h.is_subtype("m/MChild", "m/MIface") is True
    assert h.is_subtype("m/MChild", "java/lang/Runnable") is None
    assert h.maximally_specific_methods("m/MChild", "dm", S) is None
    assert h.missing == {"m/MBase"}


# --------------------------------------------------------------------------- the JDK summary cache

_JDK_QUESTIONS = [
    ("M", "java/util/ArrayList", "size", "()I"),
    ("M", "java/util/ArrayList", "stream", "()Ljava/util/stream/Stream;"),
    ("I", "java/util/List", "stream", "()Ljava/util/stream/Stream;"),
    ("F", "java/util/ArrayList", "modCount", "I"),
    ("M", "r/Leaf", "toString", S),
    ("M", "r/Diamond", "d", S),
    ("I", "r/Right", "hashCode", "()I"),
]


def _ask(h: ClassHierarchy) -> list[str]:
    answers = [str(_ours(h, q)) for q in _JDK_QUESTIONS]
    answers.append(
        str(h.select_method("java/util/ArrayList", h.resolve_method("java/util/AbstractList", "hashCode", "()I")))
    )
    answers.append(str(h.is_subtype("r/DiamondSub", "java/lang/Object")))
    return answers


class _NoImage:
    """A JDK whose image must not be read: every answer has to come from the cache."""

    def __init__(self, build_id: str) -> None:
        self.build_id = build_id

    def find_class(self, name: str):
        raise AssertionError(f"the JDK image was read for {name}")

    def module_of_package(self, package: str):
        raise AssertionError(f"the JDK image was read for package {package}")


def _warm(world, directory: Path) -> list[str]:
    h = ClassHierarchy([open_container(world.classes)], world.jdk, cache=JdkSummaryCache(world.jdk.build_id, directory))
    answers = _ask(h)
    h.save_cache()
    return answers


def test_cache_round_trip(world, tmp_path):
    answers = _warm(world, tmp_path)
    assert "None" not in answers[:4]
    files = list(tmp_path.iterdir())
    assert [f.name for f in files] == [cache_file_name(world.jdk.build_id)]  # no temporary files left
    with ClassHierarchy(
        [open_container(world.classes)],
        _NoImage(world.jdk.build_id),
        cache=JdkSummaryCache(world.jdk.build_id, tmp_path),
    ) as h:
        assert _ask(h) == answers
        assert h.info("java/util/Collection").from_jdk
        assert not h.missing and not h.broken


def test_cache_is_keyed_by_build_and_format(world, tmp_path, monkeypatch):
    build = world.jdk.build_id
    name = cache_file_name(build)
    assert f"-v{CACHE_FORMAT_VERSION}-" in name and build[:40] in name
    assert cache_file_name(build + "x") != name
    assert cache_file_name("a/b") != cache_file_name("a_b")  # sanitising cannot collide
    _warm(world, tmp_path)
    # a file of another build (copied or renamed) is not believed
    other = tmp_path / cache_file_name("other-build")
    (tmp_path / name).rename(other)
    assert len(JdkSummaryCache("other-build", tmp_path)) == 0
    # the default cache lives under XDG_CACHE_HOME, keyed by the JDK's build id
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    h = ClassHierarchy([], world.jdk)
    assert h.cache.path == tmp_path / "xdg" / "jprewrite" / name
    assert ClassHierarchy([], world.jdk, cache=False).cache is None


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "flipped", "directory"])
def test_corrupt_cache_is_rebuilt(world, tmp_path, damage):
    answers = _warm(world, tmp_path)
    path = tmp_path / cache_file_name(world.jdk.build_id)
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(os.urandom(4096))
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "flipped":
        path.write_bytes(data[:-100] + bytes([data[-100] ^ 0x55]) + data[-99:])
    else:
        path.unlink()
        path.mkdir()
    assert _warm(world, tmp_path) == answers
    if damage != "directory":
        # rewritten whole: a cold image is not needed any more
        h = ClassHierarchy(
            [open_container(world.classes)],
            _NoImage(world.jdk.build_id),
            cache=JdkSummaryCache(world.jdk.build_id, tmp_path),
        )
        assert _ask(h) == answers


def test_damaged_cache_entry_is_reread_from_the_image(world, tmp_path):
    cache = JdkSummaryCache(world.jdk.build_id, tmp_path)
    cache.put("java/util/ArrayList", ("java/util/ArrayList", 42))
    cache.put("java/util/List", ClassInfo("java/util/Nope", None, (), 0, 0, (), ()).to_tuple())
    cache.save()
    h = ClassHierarchy([], world.jdk, cache=JdkSummaryCache(world.jdk.build_id, tmp_path))
    assert h.resolve_method("java/util/ArrayList", "size", "()I").owner == "java/util/ArrayList"
    assert (
        h.resolve_interface_method("java/util/List", "stream", "()Ljava/util/stream/Stream;").owner
        == "java/util/Collection"
    )


def test_concurrent_writers(world, tmp_path):
    """Writers merge and replace atomically: readers never see a torn file, nothing is lost."""
    build = world.jdk.build_id
    _warm(world, tmp_path)
    stop = threading.Event()
    failures = []

    def reader():
        while not stop.is_set():
            if len(JdkSummaryCache(build, tmp_path)) == 0:
                failures.append("empty or torn cache file")

    def writer(k: int):
        for i in range(20):
            c = JdkSummaryCache(build, tmp_path)
            c.put(f"fake/W{k}x{i}", ClassInfo(f"fake/W{k}x{i}", None, (), 0, 0, (), ()).to_tuple())
            c.save()

    t_read = threading.Thread(target=reader)
    t_read.start()
    writers = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    t_read.join()
    assert not failures
    # sequential saves merge: a later writer keeps what an earlier one saved
    a, b = JdkSummaryCache(build, tmp_path), JdkSummaryCache(build, tmp_path)
    a.put("fake/A", ClassInfo("fake/A", None, (), 0, 0, (), ()).to_tuple())
    b.put("fake/B", ClassInfo("fake/B", None, (), 0, 0, (), ()).to_tuple())
    a.save()
    b.save()
    final = JdkSummaryCache(build, tmp_path)
    assert final.get("fake/A") and final.get("fake/B") and final.get("java/util/ArrayList")
    assert [p.name for p in tmp_path.iterdir()] == [cache_file_name(build)]
