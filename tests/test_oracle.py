"""The JDI oracle (tests/support/oracle/CctOracle.java) against hand counts.

The oracle runs the ORIGINAL program under the debugger and is what the profiler's output is
compared with, so here it is checked against numbers worked out by hand from ``javap -c``, on
the program of Fig. 4 of the JP paper and on one small program per special case of its
semantics (callbacks, calls that only look like callbacks, exceptions, reflection, overrides
outside the instrumented classes, threads, static initialisers, lambdas, System.exit, uncaught
exceptions, deep recursion). The programs live in tests/oracle_cases/. The oracle's two
breakpoint granularities (per block, per instruction) and its breakpoint eviction are also
checked against each other. Nothing here imports jprewrite.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from support.jdk import javac, run, tool
from support.oracle import OracleResult, diff_profiles, node_at, paths, run_oracle

CASES = Path(__file__).parent / "oracle_cases"
JDK = "jdk"


@pytest.fixture(scope="module")
def classes(tmp_path_factory) -> Path:
    """Every program of tests/oracle_cases/, compiled once (packages keep them apart)."""
    sources = {str(p.relative_to(CASES)).split("/", 1)[1]: p.read_text() for p in sorted(CASES.rglob("*.java"))}
    return javac(sources, tmp_path_factory.mktemp("oracle") / "classes")


def oracle(classes: Path, main: str, *args: str, **kw) -> OracleResult:
    return run_oracle([classes], main, args, **kw)


def method(cls: str, sig: str) -> str:
    """method("a.Main", "f()V") and, for nested classes, method("a.Main", "$Inner.f()V")."""
    return f"com.example.{cls}{'' if sig.startswith('$') else '.'}{sig}"


def check_node(
    profile: dict, path: tuple[str, ...], calls: int, bytecodes: int | None = None, kind: str | None = None
) -> dict:
    node = node_at(profile, path)
    assert node is not None, f"no node {' > '.join(path)}"
    assert node["calls"] == calls, f"{path[-1]}: calls {node['calls']} != {calls}"
    if bytecodes is not None:
        assert node["bytecodes"] == bytecodes, f"{path[-1]}: bytecodes {node['bytecodes']} != {bytecodes}"
    assert node.get("kind") == kind, f"{path[-1]}: kind {node.get('kind')!r} != {kind!r}"
    return node


def opcodes(classes: Path, cls: str) -> dict[str, list[str]]:
    """{method name: mnemonics} from javap -c (to pin down the code the hand counts assume)."""
    text = run([tool("javap"), "-c", "-p", "-cp", str(classes), cls]).stdout
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"\s+(?:[\w.$<>\[\]]+\s+)*([\w$<>]+)\(.*\);$", line)
        if m:
            current = m.group(1)
            out[current] = []
            continue
        m = re.match(r"\s+\d+: (\w+)", line)
        if m and current is not None:
            out[current].append(m.group(1))
    return out


# ------------------------------------------------------------------------------ Fig. 4
FIG4_F = [
    "iconst_1",
    "istore_1",  # i = 1           (entry: 2)
    "iload_1",
    "bipush",
    "if_icmpgt",  # i <= 10 ?       (test: 3)
    "aload_0",
    "invokevirtual",
    "aload_0",
    "iload_1",  # h(); g(i); ++i  (body: 7)
    "invokevirtual",
    "iinc",
    "goto",
    "return",
]  #                 (exit: 1)
FIG4_G = [
    "iconst_1",
    "istore_2",  # j = 1           (entry: 2)
    "iload_2",
    "iload_1",
    "if_icmpgt",  # j <= i ?        (test: 3)
    "aload_0",
    "invokevirtual",
    "iinc",
    "goto",  # h(); ++j        (body: 4)
    "return",
]  #                 (exit: 1)


def test_fig4_of_the_jp_paper(classes):
    code = opcodes(classes, "com.example.fig4.Foo")
    assert code["f"] == FIG4_F and code["g"] == FIG4_G and code["h"] == ["return"], code
    r = oracle(classes, "com.example.fig4.Main")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    main = method("fig4.Main", "main([Ljava/lang/String;)V")
    f, g, h = (method("fig4.Foo", s) for s in ("f()V", "g(I)V", "h()V"))
    # main: new, dup, invokespecial <init>, invokevirtual f, return
    check_node(r.profile, (main,), 1, 5)
    # <init>: aload_0, invokespecial Object.<init>, return; Object.<init> is a JDK boundary
    check_node(r.profile, (main, method("fig4.Foo", "<init>()V")), 1, 3)
    check_node(r.profile, (main, method("fig4.Foo", "<init>()V"), "java.lang.Object.<init>()V"), 1, 0, JDK)
    # f: entry 2 + test 3 x 11 + body 7 x 10 + exit 1 = 2 + 33 + 70 + 1 = 106
    check_node(r.profile, (main, f), 1, 106)
    # h: one return per call
    check_node(r.profile, (main, f, h), 10, 10)
    # g(i): entry 2 + test 3 x (i + 1) + body 4 x i + exit 1 = 6 + 7i;
    # sum over i = 1..10: 10 x 6 + 7 x 55 = 445
    check_node(r.profile, (main, f, g), 10, 445)
    # g(i) calls h() i times: 1 + 2 + ... + 10 = 55
    check_node(r.profile, (main, f, g, h), 55, 55)
    assert len(paths(r.profile)) == 7
    assert [t["name"] for t in r.profile["threads"]] == ["main"]
    assert diff_profiles(r.profile, {"root": r.profile["threads"][0]["root"]}) == []


def test_fig4_without_bytecodes(classes):
    r = oracle(classes, "com.example.fig4.Main", count_bytecodes=False)
    counted = paths(r.profile)
    assert all(bc == 0 for _, bc in counted.values())
    assert sorted(c for c, _ in counted.values()) == [1, 1, 1, 1, 10, 10, 55]


# ------------------------------------------------------------------------------ rule 3 by hand
def test_bytecodes_by_hand(classes):
    """Loops, tableswitch, lookupswitch, athrow caught in place, an exception from a callee, a
    JDK method throwing, idiv by zero: every executed instruction once, the throwing one too."""
    r = oracle(classes, "com.example.bytecodes.Main")
    assert r.stdout == "47\n"
    m = lambda s: method("bytecodes.Main", s)  # noqa: E731
    main = (m("main([Ljava/lang/String;)V"),)
    expected = {
        # iconst_0 istore_1 iconst_0 istore_2 = 4; test (iload_2 iload_0 if_icmpge) 3 x 4 = 12;
        # body (iload_1 iload_2 iadd istore_1 iinc goto) 6 x 3 = 18; iload_1 ireturn = 2: 36
        "loop(I)I": (1, 36),
        # iload_0 tableswitch bipush|iconst_m1 ireturn = 4, for x = 0, 1, 2, 3 (default): 16
        "table(I)I": (4, 16),
        # iload_0 lookupswitch iconst_2|iconst_0 ireturn = 4, for 2000 and 7 (default): 8
        "lookup(I)I": (2, 8),
        # new dup invokespecial athrow | astore_0 iconst_1 ireturn: 7
        "catchHere()I": (1, 7),
        # iconst_1 invokestatic | astore_0 iconst_2 ireturn: 5
        "catchCallee()I": (1, 5),
        # ldc invokestatic | astore_0 iconst_3 ireturn: 5
        "catchJdk()I": (1, 5),
        # iload_0 iload_1 idiv (throws) | astore_2 iconst_4 ireturn: 6
        "divide(II)I": (1, 6),
    }
    for sig, (calls, bc) in expected.items():
        check_node(r.profile, main + (m(sig),), calls, bc)
    # iload_0 ifle new dup invokespecial athrow: 6
    check_node(r.profile, main + (m("catchCallee()I"), m("thrower(I)I")), 1, 6)
    check_node(r.profile, main + (m("catchJdk()I"), "java.lang.Integer.parseInt(Ljava/lang/String;)I"), 1, 0, JDK)
    # main: iconst_3 invokestatic istore_1 iconst_0 istore_2 = 5; test (iload_2 iconst_4
    # if_icmpge) 3 x 5 = 15; body (iload_1 iload_2 invokestatic iadd istore_1 iinc goto)
    # 7 x 4 = 28; from 25 to the return (javap: 25 ... 67) 24 instructions: 72
    check_node(r.profile, main, 1, 72)


def test_block_and_instruction_breakpoints_agree(classes):
    """Blocks counted in full and corrected at exceptions == one event per instruction; and
    evicting instrumented methods (budget 1) loses nothing."""
    for main, args in (
        ("com.example.bytecodes.Main", ()),
        ("com.example.mixed.Main", ()),  # many shapes, a failing <clinit>
        ("com.example.recursion.Main", ("30",)),
    ):
        block = oracle(classes, main, *args)
        per_insn = oracle(classes, main, *args, granularity="instruction")
        assert diff_profiles(per_insn.profile, block.profile, threads=True) == []
        assert per_insn.stats["blockEvents"] == per_insn.stats["bytecodes"] == block.stats["bytecodes"]
        assert block.stats["blockEvents"] < block.stats["bytecodes"]
    for main in ("com.example.fig4.Main", "com.example.callbacks.Main"):
        evicting = oracle(classes, main, breakpoint_budget=1)
        assert evicting.stats["evictedMethods"] > 0
        assert diff_profiles(oracle(classes, main).profile, evicting.profile, threads=True) == []


def test_patterns_and_uninstrumented_boundaries(classes):
    """Exact class names as patterns; classes outside them are "uninstrumented" boundaries."""
    by_prefix = oracle(classes, "com.example.fig4.Main")
    by_name = oracle(classes, "com.example.fig4.Main", app_patterns=("com.example.fig4.Foo", "com.example.fig4.Main"))
    assert diff_profiles(by_prefix.profile, by_name.profile) == []

    r = oracle(classes, "com.example.callbacks.Main", app_patterns=("com.example.callbacks.Main",))
    main = (method("callbacks.Main", "main([Ljava/lang/String;)V"),)
    check_node(r.profile, main + (method("callbacks.Main", "$ByLength.<init>()V"),), 1, 0, "uninstrumented")
    # nothing beneath: compare is not application code any more
    check_node(r.profile, main + ("java.util.Collections.sort(Ljava/util/List;Ljava/util/Comparator;)V",), 1, 0, JDK)
    assert (
        node_at(r.profile, main + ("java.util.Collections.sort(Ljava/util/List;Ljava/util/Comparator;)V",))["children"]
        == []
    )
    # Named.toString is not instrumented: the call through Object.toString is a boundary now
    check_node(r.profile, main + ("java.lang.Object.toString()Ljava/lang/String;",), 1, 0, JDK)
    check_node(r.profile, main + ("java.lang.Runnable.run()V",), 1, 0, JDK)


def test_override_outside_the_patterns(classes):
    """A class outside the patterns (Fancy) overrides an application method and calls super:
    that entry of Base.value is a callback beneath the boundary of the call fancy.value(),
    named by what the call resolves to (Base.value) and marked "uninstrumented"."""
    r = oracle(classes, "com.example.foreign.app.Main", app_patterns=("com.example.foreign.app.",))
    assert r.stdout == "1 11 22\n"
    m = lambda s: f"com.example.foreign.app.{s}"  # noqa: E731
    value, twice = m("Base.value()I"), m("Base.twice()I")

    def children(node, method):
        return {c.get("kind"): c for c in node["children"] if c["method"] == method}

    main = node_at(r.profile, (m("Main.main([Ljava/lang/String;)V"),))
    direct, boundary = children(main, value)[None], children(main, value)["uninstrumented"]
    assert (direct["calls"], direct["bytecodes"]) == (1, 2)  # plain.value(): iconst_1 ireturn
    assert (boundary["calls"], boundary["bytecodes"]) == (1, 0)  # fancy.value()
    assert [(c["method"], c["calls"], c["bytecodes"]) for c in boundary["children"]] == [(value, 1, 2)]
    # fancy.twice(): Base.twice (direct: iconst_2 aload_0 invokevirtual imul ireturn = 5) calls
    # value(), which Fancy overrides: a boundary again, and super.value() beneath it
    tw = children(main, twice)[None]
    assert (tw["calls"], tw["bytecodes"]) == (1, 5)
    inner = children(tw, value)
    assert list(inner) == ["uninstrumented"] and inner["uninstrumented"]["children"][0]["method"] == value
    assert children(main, "com.example.foreign.plugin.Fancy.<init>()V")["uninstrumented"]["calls"] == 1


# ------------------------------------------------------------------------------ rule 2 cases
def test_callbacks_and_direct_calls(classes):
    r = oracle(classes, "com.example.callbacks.Main")
    lines = r.stdout.splitlines()
    assert lines[1:] == ["Named(x) Named(x)", "2"]
    compares = int(lines[0].rsplit(" ", 1)[1])
    m = lambda s: method("callbacks.Main", s)  # noqa: E731
    main = (m("main([Ljava/lang/String;)V"),)
    # Collections.sort calls back the comparator (its bridge, which calls the real compare)
    sort = main + ("java.util.Collections.sort(Ljava/util/List;Ljava/util/Comparator;)V",)
    check_node(r.profile, sort, 1, 0, JDK)
    bridge = sort + (m("$ByLength.compare(Ljava/lang/Object;Ljava/lang/Object;)I"),)
    # bridge: aload_0 aload_1 checkcast aload_2 checkcast invokevirtual ireturn = 7
    check_node(r.profile, bridge, compares, 7 * compares)
    real = bridge + (m("$ByLength.compare(Ljava/lang/String;Ljava/lang/String;)I"),)
    # getstatic iconst_1 iadd putstatic aload_1 invokevirtual aload_2 invokevirtual isub ireturn
    check_node(r.profile, real, compares, 10 * compares)
    check_node(r.profile, real + ("java.lang.String.length()I",), 2 * compares, 0, JDK)
    assert node_at(r.profile, main + (bridge[-1],)) is None
    # o.toString() through Object.toString dispatches straight to Named.toString: no boundary
    to_string = m("$Named.toString()Ljava/lang/String;")
    check_node(r.profile, main + (to_string,), 1, 4)
    assert node_at(r.profile, main + ("java.lang.Object.toString()Ljava/lang/String;",)) is None
    # String.valueOf(o) calls it back (valueOf also runs once for the first println's concat)
    value_of = main + ("java.lang.String.valueOf(Ljava/lang/Object;)Ljava/lang/String;",)
    check_node(r.profile, value_of + (to_string,), 1, 4)
    # r.run() through Runnable.run: direct; new Thread(t).run(): Thread.run calls Task.run back
    run_ = m("$Task.run()V")
    check_node(r.profile, main + (run_,), 1, 7)  # aload_0 dup getfield iconst_1 iadd putfield return
    assert node_at(r.profile, main + ("java.lang.Runnable.run()V",)) is None
    check_node(r.profile, main + ("java.lang.Thread.run()V",), 1, 0, JDK)
    check_node(r.profile, main + ("java.lang.Thread.run()V", run_), 1, 7)


def test_exceptions(classes):
    r = oracle(classes, "com.example.exceptions.Main")
    assert r.stdout == "12\n" and r.returncode == 0
    m = lambda s: method("exceptions.Main", s)  # noqa: E731
    main = (m("main([Ljava/lang/String;)V"),)
    # parse("12"): aload_0 invokestatic ireturn = 3; parse("zz"): aload_0 invokestatic (throws)
    # astore_1 iconst_m1 ireturn = 5; Integer.parseInt counts both calls
    parse = main + (m("parse(Ljava/lang/String;)I"),)
    check_node(r.profile, parse, 2, 8)
    check_node(r.profile, parse + ("java.lang.Integer.parseInt(Ljava/lang/String;)I",), 2, 0, JDK)
    # an exception thrown by a callback propagates through Collections.sort
    sort = main + (m("sortThrowing()I"), "java.util.Collections.sort(Ljava/util/List;Ljava/util/Comparator;)V")
    check_node(r.profile, sort, 1, 0, JDK)
    lam = sort + (m("lambda$sortThrowing$0(Ljava/lang/String;Ljava/lang/String;)I"),)
    # new dup aload_0 aload_1 invokedynamic invokespecial athrow = 7
    check_node(r.profile, lam, 1, 7)
    check_node(r.profile, lam + ("java.lang.IllegalStateException.<init>(Ljava/lang/String;)V",), 1, 0, JDK)
    # b.get() on null: the invoke throws, nothing is called: no boundary, one real call.
    # null: aload_0 invokevirtual | astore_1 bipush ireturn = 5; Box: aload_0 invokevirtual ireturn = 3
    null_app = main + (m("nullApp(Lcom/example/exceptions/Main$Box;)I"),)
    check_node(r.profile, null_app, 2, 8)
    assert [c["method"] for c in node_at(r.profile, null_app)["children"]] == [m("$Box.get()I")]
    check_node(r.profile, null_app + (m("$Box.get()I"),), 1, 2)
    # s.length() on null: a JDK method's call counts even though it throws at once
    null_jdk = main + (m("nullJdk(Ljava/lang/String;)I"),)
    check_node(r.profile, null_jdk, 2, 8)
    check_node(r.profile, null_jdk + ("java.lang.String.length()I",), 2, 0, JDK)


def test_reflection(classes):
    r = oracle(classes, "com.example.reflection.Main")
    assert r.stdout == "-10\n"
    m = lambda s: method("reflection.Main", s)  # noqa: E731
    call = (m("main([Ljava/lang/String;)V"), m("call(Ljava/lang/reflect/Method;I)I"))
    # no exception: aload_0 aconst_null iconst_1 anewarray dup iconst_0 iload_1 invokestatic
    # aastore invokevirtual checkcast invokevirtual ireturn = 13; InvocationTargetException: the
    # first 10 of those, then astore_2 iconst_m1 ireturn = 13; 20 calls
    check_node(r.profile, call, 20, 20 * 13)
    invoke = call + ("java.lang.reflect.Method.invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;",)
    check_node(r.profile, invoke, 20, 0, JDK)
    # boom(0): iload_0 ifle iload_0 ireturn = 4; boom(1): iload_0 ifle new dup ldc invokespecial athrow = 7
    check_node(r.profile, invoke + (m("boom(I)I"),), 20, 10 * 4 + 10 * 7)


def test_threads(classes):
    r = oracle(classes, "com.example.threads.Main")
    assert r.stdout == "30\n"
    assert [t["name"] for t in r.profile["threads"]] == ["main", "worker"]
    main = (method("threads.Main", "main([Ljava/lang/String;)V"),)
    for callee in (
        "java.lang.Thread.<init>(Ljava/lang/Runnable;Ljava/lang/String;)V",
        "java.lang.Thread.start()V",
        "java.lang.Thread.join()V",
    ):
        check_node(r.profile, main + (callee,), 1, 0, JDK)
    # the worker's first application frame hangs under its own root (Thread.run is below it).
    # run: iconst_0 istore_1 = 2; test (iload_1 iconst_5 if_icmpge) 3 x 6 = 18; body (aload_0
    # dup getfield iload_1 invokestatic iadd putfield iinc goto) 9 x 5 = 45; return 1: 66
    run_ = method("threads.Main$Worker", "run()V")
    square = method("threads.Main$Worker", "square(I)I")
    assert paths(r.profile, "worker") == {(run_,): (1, 66), (run_, square): (5, 20)}
    assert node_at(r.profile, (run_,))["calls"] == 1  # merged root: both threads
    assert node_at(r.profile, main) is not None


def test_static_initialisers(classes):
    r = oracle(classes, "com.example.clinit.Main")
    assert r.stdout == "52\n"
    m = lambda s: method("clinit.Main", s)  # noqa: E731
    main = (m("main([Ljava/lang/String;)V"),)
    # getstatic Config.value runs <clinit> (invokestatic compute putstatic return = 3) under
    # main; HotSpot hides single steps there (class initialisation during resolution)
    check_node(r.profile, main + (m("$Config.<clinit>()V"),), 1, 3)
    check_node(r.profile, main + (m("$Config.<clinit>()V"), m("$Config.compute()I")), 1, 2)
    # new Made(): <clinit> (iconst_1 putstatic return) then the constructor
    check_node(r.profile, main + (m("$Made.<clinit>()V"),), 1, 3)
    check_node(r.profile, main + (m("$Made.<init>()V"),), 1, 7)
    # Sub.helper() resolves to Base.helper: Base is initialised, not Sub; a direct call
    check_node(r.profile, main + (m("$Base.<clinit>()V"),), 1, 3)
    check_node(r.profile, main + (m("$Base.helper()I"),), 1, 2)
    assert not any(p[-1] == m("$Sub.<clinit>()V") for p in paths(r.profile))
    # Class.forName initialises Lazy: a callback under the JDK method
    for_name = main + ("java.lang.Class.forName(Ljava/lang/String;)Ljava/lang/Class;",)
    check_node(r.profile, for_name, 1, 0, JDK)
    check_node(r.profile, for_name + (m("$Lazy.<clinit>()V"),), 1, 3)
    # main: getstatic istore_1 new dup invokespecial pop iload_1 invokestatic iadd istore_1 ldc
    # invokestatic pop iload_1 getstatic iadd istore_1 getstatic iload_1 invokevirtual return
    check_node(r.profile, main, 1, 21)


def test_lambdas(classes):
    r = oracle(classes, "com.example.lambdas.Main")
    assert r.stdout == "8\n"
    m = lambda s: method("lambdas.Main", s)  # noqa: E731
    main = (m("main([Ljava/lang/String;)V"),)
    check_node(r.profile, main + ("invokedynamic.run()Ljava/lang/Runnable;",), 1, 0, JDK)
    run_ = main + ("java.lang.Runnable.run()V",)
    check_node(r.profile, run_, 2, 0, JDK)
    # getstatic iconst_1 iadd putstatic return, twice (the proxy class is not application code)
    check_node(r.profile, run_ + (m("lambda$main$0()V"),), 2, 10)
    for_each = main + ("java.lang.Iterable.forEach(Ljava/util/function/Consumer;)V",)
    check_node(r.profile, for_each, 1, 0, JDK)
    body = for_each + (m("lambda$main$1(Ljava/lang/Integer;)V"),)
    check_node(r.profile, body, 3, 18)
    check_node(r.profile, body + ("java.lang.Integer.intValue()I",), 3, 0, JDK)
    assert not any("$$Lambda" in step for p in paths(r.profile) for step in p)


def test_system_exit_and_uncaught_exception(classes):
    m = lambda s: method("exits.Main", s)  # noqa: E731
    main = (m("main([Ljava/lang/String;)V"),)
    leave = m("leave(II)V")
    r = oracle(classes, "com.example.exits.Main", "exit")
    assert (r.returncode, r.stdout) == (3, "bye\n")
    # iload_0 ifne getstatic ldc invokevirtual iload_1 invokestatic: the call in progress counts
    innermost = main + (leave, leave, leave)
    check_node(r.profile, innermost, 1, 7)
    check_node(r.profile, innermost + ("java.lang.System.exit(I)V",), 1, 0, JDK)

    r = oracle(classes, "com.example.exits.Main", "fail")
    assert r.returncode == 1
    assert "java.lang.IllegalStateException: boom" in r.stderr
    fail = m("fail(I)V")
    # iload_0 ifne iload_0 iconst_1 isub invokestatic = 6 (the return never runs)
    check_node(r.profile, main + (fail,), 1, 6)
    check_node(r.profile, main + (fail, fail), 1, 6)
    # iload_0 ifne new dup ldc invokespecial athrow = 7
    check_node(r.profile, main + (fail, fail, fail), 1, 7)


def test_deep_recursion(classes):
    depth = 10_000
    t = time.monotonic()
    r = oracle(classes, "com.example.recursion.Main", str(depth), jvm_args=("-Xss64m",))
    elapsed = time.monotonic() - t
    assert r.stdout == f"{depth} 3\n"
    m = lambda s: method("recursion.Main", s)  # noqa: E731
    main = m("main([Ljava/lang/String;)V")
    down = m("down(I)I")
    counted = paths(r.profile)
    # down(n > 0): iload_0 ifne iconst_1 iload_0 iconst_1 isub invokestatic iadd ireturn = 9;
    # down(0): iload_0 ifne iconst_0 ireturn = 4
    for level in range(1, depth + 2):
        assert counted[(main,) + (down,) * level] == (1, 9 if level <= depth else 4)
    # rethrow(4) .. rethrow(0): rethrow(0) throws, 1 and 2 catch and rethrow, 3 returns 3.
    # 4: iload_0 ifne iload_0 iconst_1 isub invokestatic ireturn = 7
    # 3, 2, 1: 6 up to the invoke + astore_1 iload_0 iconst_3 irem ifne (iload_0 ireturn |
    # aload_1 athrow) = 13;  0: iload_0 ifne new dup invokespecial athrow = 6
    rethrow = m("rethrow(I)I")
    assert [counted[(main,) + (rethrow,) * k] for k in range(1, 6)] == [(1, 7), (1, 13), (1, 13), (1, 13), (1, 6)]
    assert elapsed < 60, f"{depth}-deep recursion took {elapsed:.1f}s"


# ------------------------------------------------------------------------------ speed, helpers
def test_speed(classes):
    r = oracle(classes, "com.example.speed.Main", "20000")
    # the rates include starting the debugged JVM; measured ~40,000 events/s, ~150,000
    # bytecodes/s on an idle 2-core machine
    assert r.stats["bytecodes"] > 250_000
    assert r.bytecodes_per_second > 20_000, r.stats
    assert r.events_per_second > 5_000, r.stats


def test_paths_and_diff_profiles():
    def n(method, calls, bc, *children, kind=None):
        d = {"method": method, "calls": calls, "bytecodes": bc, "children": list(children)}
        if kind:
            d["kind"] = kind
        return d

    a = {
        "root": n("<root>", 0, 0, n("A.main", 1, 5, n("B.f", 2, 4), n("java.X.y", 1, 0, n("B.g", 3, 3), kind="jdk"))),
        "threads": [{"name": "main", "root": n("<root>", 0, 0, n("A.main", 1, 5))}],
    }
    assert paths(a) == {
        ("A.main",): (1, 5),
        ("A.main", "B.f"): (2, 4),
        ("A.main", "java.X.y"): (1, 0),
        ("A.main", "java.X.y", "B.g"): (3, 3),
    }
    assert paths(a, "main") == {("A.main",): (1, 5)}
    assert diff_profiles(a, a, threads=True) == []
    b = {
        "root": n(
            "<root>",
            0,
            0,
            n(
                "A.main",
                1,
                6,
                n("B.f", 2, 4),
                n("java.X.y", 1, 0, n("B.g", 3, 3), kind="uninstrumented"),
                n("B.h", 1, 1),
            ),
        )
    }
    assert sorted(diff_profiles(a, b)) == [
        "A.main > java.X.y: kind 'uninstrumented' != expected 'jdk'",
        "A.main: bytecodes 6 != expected 5",
        "unexpected: A.main > B.h (calls=1 bytecodes=1)",
    ]
    assert "missing: A.main > B.h (expected calls=1 bytecodes=1)" in diff_profiles(b, a)
    assert diff_profiles(a, {"root": a["root"], "threads": []}, threads=True) == ["thread 'main': missing"]
