"""The Java runtime (``runtime-java/src``) with real javac/java.

The programs in ``tests/runtime_java_cases/`` are "rewritten" by hand: they call the runtime
exactly as the rewriter's output does (``docs/runtime-contract.md``), so every count below is
known in advance. Each runs in its own JVM; the profile it writes at exit is parsed and checked
node by node. Also covers ``jprewrite.rewrite.runtime_build`` (compilation, cache, errors).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from jprewrite.errors import JprewriteError
from jprewrite.profile import load, resolve_threads
from jprewrite.rewrite import runtime_build
from jprewrite.rewrite.runtime_build import runtime_classes, runtime_source_dir

from support.jdk import javac_tree, tool

CASES = Path(__file__).parent / "runtime_java_cases"
ROOT = "<root>"
MAIN = "([Ljava/lang/String;)V"


# ---------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def runtime_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runtime")
    for name, data in runtime_classes().items():
        p = out / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return out


@pytest.fixture(scope="session")
def cases_dir(tmp_path_factory, runtime_dir) -> Path:
    out = tmp_path_factory.mktemp("cases")
    return javac_tree(CASES, out, runtime_dir)


class Run:
    """Runs one case program in its own working directory."""

    def __init__(self, runtime_dir: Path, cases_dir: Path, tmp_path: Path) -> None:
        self.cp = os.pathsep.join([str(cases_dir), str(runtime_dir)])
        self.tmp = tmp_path

    def __call__(
        self,
        main: str,
        *args: str,
        props: dict[str, str] | None = None,
        jvm: tuple[str, ...] = (),
        returncode: int = 0,
        output: bool = True,
    ) -> subprocess.CompletedProcess:
        props = dict(props or {})
        if output:
            props.setdefault("jprewrite.output", str(self.tmp / "profile.json"))
        cmd = [
            tool("java"),
            "-Xshare:auto",
            "-XX:TieredStopAtLevel=1",
            *jvm,
            "-cp",
            self.cp,
            *[f"-D{k}={v}" for k, v in props.items()],
            main,
            *args,
        ]
        proc = subprocess.run(cmd, cwd=self.tmp, capture_output=True, text=True, timeout=60)
        assert proc.returncode == returncode, (proc.returncode, proc.stdout, proc.stderr)
        return proc

    def profile(self, name: str = "profile.json") -> dict:
        # a single thread name's tree is written once, as the merged tree ("same_as_root")
        return resolve_threads(load_profile((self.tmp / name).read_text()))


@pytest.fixture
def run(runtime_dir, cases_dir, tmp_path) -> Run:
    return Run(runtime_dir, cases_dir, tmp_path)


# ---------------------------------------------------------------------------------------- helpers


def load_profile(text: str) -> dict:
    """json.loads on a big stack: profiles of deep recursion nest 20,000 levels."""
    result: dict = {}

    def parse() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 200_000))
        try:
            result["value"] = json.loads(text)
        finally:
            sys.setrecursionlimit(old)

    old_size = threading.stack_size(512 * 1024 * 1024)
    try:
        t = threading.Thread(target=parse)
        t.start()
        t.join()
    finally:
        threading.stack_size(old_size)
    assert "value" in result, "profile did not parse"
    return result["value"]


def nodes(root: dict, paths: dict | None = None):
    """Every (path key, node) of a tree, iteratively.

    A path key is an int naming the path of method strings from the root (the same int for the
    same path in every tree sharing ``paths``): tuples of the methods would make deep trees
    quadratic.
    """
    paths = {} if paths is None else paths
    stack = [(paths.setdefault((-1, ROOT), len(paths)), root)]
    while stack:
        key, n = stack.pop()
        yield key, n
        for c in n["children"]:
            stack.append((paths.setdefault((key, c["method"]), len(paths)), c))


def at(root: dict, *path: str) -> dict:
    n = root
    for method in path:
        matches = [c for c in n["children"] if c["method"] == method]
        assert len(matches) == 1, (method, [c["method"] for c in n["children"]])
        n = matches[0]
    return n


def children(n: dict) -> list[str]:
    return [c["method"] for c in n["children"]]


ALLOWED_KEYS = {
    "method",
    "calls",
    "bytecodes",
    "children",
    "kind",
    "allocations",
    "weighted",
    "inclusive_bytecodes",
    "counted",
}


def check_tree(root: dict) -> None:
    """Invariants of every node: keys, inclusive sums, child order, no duplicate siblings."""
    inclusive: dict[int, int] = {}
    order = list(nodes(root))
    for _, n in reversed(order):
        assert set(n) <= ALLOWED_KEYS, set(n) - ALLOWED_KEYS
        assert isinstance(n["calls"], int) and isinstance(n["bytecodes"], int)
        inc = n["bytecodes"] + sum(inclusive[id(c)] for c in n["children"])
        inclusive[id(n)] = inc
        if n["children"]:
            assert n["inclusive_bytecodes"] == inc
        else:
            assert "inclusive_bytecodes" not in n
        for key in ("weighted", "allocations"):
            assert n.get(key, 1), f"{key} present but zero/empty"
        assert n.get("kind", "jdk") in ("jdk", "uninstrumented", "native")
        # application code whose bytecodes nobody counted says so (its 0 is no measurement)
        assert ("counted" in n) == (n.get("kind") in ("uninstrumented", "native"))
        assert n.get("counted", False) is False
        keys = [(-inclusive[id(c)], -c["calls"], c["method"]) for c in n["children"]]
        assert keys == sorted(keys), "children not in output order"
        assert len(set(children(n))) == len(n["children"]), "duplicate siblings"


def check_profile(p: dict, *, exact_merge: bool = True) -> None:
    assert p["format"] == "jprewrite-profile" and p["version"] == 1
    assert p["root"]["method"] == ROOT
    check_tree(p["root"])
    for t in p["threads"]:
        assert set(t) == {"name", "root"}
        assert t["root"]["method"] == ROOT
        check_tree(t["root"])
    if exact_merge:  # the merged root is the sum of the threads, path by path
        paths: dict = {}
        merged: dict[int, list[int]] = {}
        for t in p["threads"]:
            for path, n in nodes(t["root"], paths):
                acc = merged.setdefault(path, [0, 0])
                acc[0] += n["calls"]
                acc[1] += n["bytecodes"]
        assert {path: [n["calls"], n["bytecodes"]] for path, n in nodes(p["root"], paths)} == merged


def counts(n: dict) -> tuple[int, int]:
    return n["calls"], n["bytecodes"]


# ---------------------------------------------------------------------------------------- profiles


def fig4_expectations(root: dict) -> None:
    main = at(root, "Fig4.main" + MAIN)
    assert counts(main) == (1, 4)
    f = at(main, "Fig4.f()V")
    assert counts(f) == (1, 2 + 3 * 11 + 7 * 10 + 1)
    assert counts(at(f, "Fig4.h()V")) == (10, 10)
    g = at(f, "Fig4.g(I)V")
    assert counts(g) == (10, sum(2 + 3 * (i + 1) + 4 * i + 1 for i in range(1, 11)))
    assert counts(at(g, "Fig4.h()V")) == (55, 55)
    assert children(f) == ["Fig4.g(I)V", "Fig4.h()V"]  # by inclusive bytecodes: 500 > 10
    assert f["inclusive_bytecodes"] == 106 + 10 + 445 + 55
    assert root["inclusive_bytecodes"] == 4 + 616
    assert "kind" not in f and "weighted" not in f and "allocations" not in f


def test_fig4_exact_counts(run):
    proc = run("Fig4")
    assert proc.stdout == "" and proc.stderr == ""  # the runtime prints nothing when all is well
    p = run.profile()
    check_profile(p)
    fig4_expectations(p["root"])
    assert [t["name"] for t in p["threads"]] == ["main"]
    fig4_expectations(p["threads"][0]["root"])


def test_fig4_with_verify_all_and_interpreter(run):
    run("Fig4", jvm=("-Xverify:all", "-Xint"))
    fig4_expectations(run.profile()["root"])


def test_boundaries_allocations_clinit_native(run):
    proc = run("Basics")
    out = dict(re.findall(r"(\w+)=(\S+)", proc.stdout))
    assert proc.stdout.startswith("sorted=[1, 3, 5, 9] ") and out["max"] == "2" and out["init"] == "7"
    compares = int(out["compares"])
    p = run.profile()
    check_profile(p)
    main = at(p["root"], "Basics.main" + MAIN)
    assert counts(main) == (1, 10)
    assert main["weighted"] == 25
    assert main["allocations"] == {"Basics$Cmp": 1, "[Ljava/lang/Integer;": 1, "java/lang/StringBuilder": 4}
    mx = at(main, "java.lang.Math.max(II)I")
    assert counts(mx) == (3, 0) and mx["kind"] == "jdk" and mx["children"] == []
    sort = at(main, "java.util.Arrays.sort([Ljava/lang/Object;Ljava/util/Comparator;)V")
    assert sort["kind"] == "jdk" and sort["calls"] == 1
    cmp_in_sort = at(sort, "Basics$Cmp.compare(Ljava/lang/Integer;Ljava/lang/Integer;)I")
    native = at(main, "Basics.nativeWork(LBasics$Cmp;)V")
    assert native["kind"] == "native" and native["calls"] == 1
    assert counts(at(native, "Basics$Cmp.compare(Ljava/lang/Integer;Ljava/lang/Integer;)I")) == (2, 12)
    assert cmp_in_sort["calls"] == compares - 2 and cmp_in_sort["bytecodes"] == 6 * (compares - 2)
    assert counts(at(main, "Basics$Init.<clinit>()V")) == (1, 3)
    assert counts(at(main, "Basics$Square.area()I")) == (2, 4)
    assert counts(at(main, "Basics$Circle.area()I")) == (3, 15)
    assert len(main["children"]) == 6


def test_pending_calls(run):
    proc = run("Pending")
    out = dict(re.findall(r"(\w+)=(\S+)", proc.stdout))
    assert proc.stdout.startswith("sorted=[apple, banana, cherry, fig, kiwi, pear]")
    n = int(out["sortCompares"])
    assert n > 5 and out["r"] == "-1" and out["size"] == "6" and out["caught"] == "IOOBE"
    assert "mySize=42" in proc.stdout
    # published still holds the innermost boundary node (List.sort): N2B wrappers restore it
    assert "published=java.util.List.sort(Ljava/util/Comparator;)V calls=1" in proc.stdout
    p = run.profile()
    check_profile(p)
    main = at(p["root"], "Pending.main" + MAIN)
    compare = "Pending$Cmp.compare(Ljava/lang/Object;Ljava/lang/Object;)I"
    to_string = "java.lang.Object.toString()Ljava/lang/String;"
    # materialised: a callback from ArrayList.sort creates the boundary node first
    sort = at(main, "java.util.List.sort(Ljava/util/Comparator;)V")
    assert counts(sort) == (1, 0) and sort["kind"] == "jdk"
    assert children(sort) == [compare]
    assert counts(at(sort, compare)) == (n, 4 * n)
    assert counts(at(sort, compare, to_string)) == (n, 0)  # nested pending call closed by endPending
    # consumed: dispatch went straight to the instrumented compare, no Comparator.compare node
    assert counts(at(main, compare)) == (1, 4)
    assert counts(at(main, compare, to_string)) == (1, 0)
    assert "java.util.Comparator.compare(Ljava/lang/Object;Ljava/lang/Object;)I" not in children(main)
    # no callback: endPending makes the boundary node; also from the catch-all handler
    assert counts(at(main, "java.util.List.size()I")) == (3, 0)
    assert counts(at(main, "java.util.List.get(I)Ljava/lang/Object;")) == (1, 0)
    # an instrumented override in a subclass of a JDK class: consumed
    assert counts(at(main, "Pending$MyList.size()I")) == (1, 1)
    assert sorted(children(main)) == sorted(
        [
            "java.util.List.sort(Ljava/util/Comparator;)V",
            compare,
            "java.util.List.size()I",
            "java.util.List.get(I)Ljava/lang/Object;",
            "Pending$MyList.size()I",
        ]
    )


def redirect_expectations(proc, p) -> None:
    assert proc.stdout.split() == [
        "Base.m=2",
        "Sub.m=20",
        "Sub.m=20",
        "Other.m=2",
        "Sub2.m=20",
        "PkgPriv.n=Base.n",
        "SamePkg.n=SamePkg.n",
        "Base.n=Base.n",
    ]
    check_profile(p)
    main = at(p["root"], "RedirectMain.main" + MAIN)
    assert counts(at(main, "p1.Base.m(I)I")) == (2, 6)  # Base and Other (overrides nothing)
    sub = at(main, "p1.Sub.m(I)I")  # Sub twice, Sub2 inherits Sub's override
    assert counts(sub) == (3, 0) and sub["kind"] == "uninstrumented"
    assert counts(at(sub, "p1.Base.m(I)I")) == (3, 9)  # super.m() back into the ESI, once each
    # PkgPriv.n() (another package) does not override package-private Base.n(); SamePkg.n() does
    assert counts(at(main, "p1.Base.n()Ljava/lang/String;")) == (2, 4)
    same = at(main, "p1.SamePkg.n()Ljava/lang/String;")
    assert counts(same) == (1, 0) and same["kind"] == "uninstrumented" and same["children"] == []
    assert len(main["children"]) == 4


def test_redirect_to_uninstrumented_overrides(run):
    proc = run("RedirectMain")
    redirect_expectations(proc, run.profile())


def test_redirect_with_verify_all(run):
    proc = run("RedirectMain", jvm=("-Xverify:all",))
    redirect_expectations(proc, run.profile())


def test_ended_threads_are_folded_into_the_merged_root(run):
    proc = run("Threads")
    assert proc.stdout.strip() == "live=1"  # only main's root is still registered: the rest were folded
    p = run.profile()
    check_profile(p)
    root = p["root"]
    worker = at(root, "Threads$Worker.run()V")
    assert counts(worker) == (8, 8)
    assert counts(at(worker, "Threads$Worker.work(I)V")) == (8000, 40000)
    assert counts(at(root, "Threads.main" + MAIN)) == (1, 2)
    names = [t["name"] for t in p["threads"]]
    assert sorted(names) == ["main", "worker-0", "worker-1", "worker-2", "worker-3"]
    for t in p["threads"]:
        if t["name"] != "main":  # two threads of each name, merged
            assert counts(at(t["root"], "Threads$Worker.run()V", "Threads$Worker.work(I)V")) == (2000, 10000)


def test_system_exit_from_another_thread_while_main_grows_its_tree(run):
    run("ExitFromThread", returncode=3)
    p = run.profile()
    check_profile(p, exact_merge=False)  # main kept running between the two passes of the snapshot
    exiter = at(p["root"], "ExitFromThread$Exiter.run()V")
    assert counts(exiter) == (1, 0)
    assert counts(at(exiter, "ExitFromThread$Exiter.step()V")) == (500, 1000)
    main = at(p["root"], "ExitFromThread.main" + MAIN)
    assert main["inclusive_bytecodes"] >= 20000
    assert sorted(t["name"] for t in p["threads"]) == ["exiter", "main"]
    assert not list(run.tmp.glob(".*.tmp"))


def test_recursion_20000_deep(run):
    proc = run("Deep")
    assert proc.stdout.startswith("json-length=")
    p = run.profile()
    check_profile(p)
    n = at(p["root"], "Deep$1.run()V")
    depth = 0
    while n["children"]:
        assert len(n["children"]) == 1
        n = n["children"][0]
        depth += 1
        assert n["method"] == "Deep.rec(I)V"
        assert counts(n) == (2, 6)
        assert n.get("inclusive_bytecodes", n["bytecodes"]) == 6 * (20000 - depth + 1)
    assert depth == 20000


def test_profiles_api_mid_run_and_collapsed(run):
    snap, written, bad = run.tmp / "snap.json", run.tmp / "snap.collapsed", run.tmp / "no-such-dir-file"
    bad.write_text("a file, so that the directory below it cannot be created")
    compact = run.tmp / "snap.jpprof"
    proc = run("MidRun", str(snap), str(written), str(bad / "x.json"), str(compact))
    text = proc.stdout
    mid = load_profile(text[text.index("BEGIN-JSON") + 10 : text.index("END-JSON")])
    check_profile(mid)
    step = ("MidRun.main" + MAIN, "MidRun.step(Ljava/lang/String;)V")
    # two MIDs of step (10 calls through one, 3 through the other) are one context
    assert [c["method"] for c in at(mid["root"], step[0])["children"]] == [step[1]]
    assert counts(at(mid["root"], *step)) == (13, 23)
    assert counts(at(run.profile("snap.json")["root"], *step)) == (13, 23)
    tree = load(str(compact)).tree()
    main = next(c for c in tree.children(0) if tree.name(c) == step[0])
    (only,) = tree.children(main)
    assert tree.name(only) == step[1]
    assert (tree.value("calls")[only], tree.value("bytecodes")[only]) == (13, 23)
    assert sorted(t["name"] for t in mid["threads"]) == ["main", 'we"ird\\ n\u00e4me\n\x01']
    assert counts(at(mid["root"], "MidRun$W.run()V")) == (1, 2)
    assert written.read_text() == (
        "MidRun.main([Ljava/lang/String,)V;MidRun.step(Ljava/lang/String,)V 23\nMidRun$W.run()V 2\n"
    )
    assert snap.read_bytes().isascii()
    assert text.rstrip().endswith("IOException")
    assert counts(at(run.profile()["root"], *step)) == (18, 33)  # at exit: the later calls too


def test_collapsed_stacks_at_exit(run):
    run("Fig4", props={"jprewrite.collapsed": str(run.tmp / "fig4.collapsed")})
    main = "Fig4.main([Ljava/lang/String,)V"  # ';' inside descriptors would split frames
    assert (run.tmp / "fig4.collapsed").read_text().splitlines() == [
        f"{main} 4",
        f"{main};Fig4.f()V 106",
        f"{main};Fig4.f()V;Fig4.g(I)V 445",
        f"{main};Fig4.f()V;Fig4.g(I)V;Fig4.h()V 55",
        f"{main};Fig4.f()V;Fig4.h()V 10",
    ]


def test_collapsed_counts_calls_without_bytecodes(run):
    run("CallsOnly", props={"jprewrite.collapsed": str(run.tmp / "c.collapsed"), "jprewrite.output": "none"})
    main = "CallsOnly.main([Ljava/lang/String,)V"
    assert (run.tmp / "c.collapsed").read_text().splitlines() == [
        f"{main} 1",
        f"{main};CallsOnly.a(Ljava/lang/String,)V 3",
        f"{main};CallsOnly.a(Ljava/lang/String,)V;CallsOnly.b()V 6",
    ]
    assert sorted(p.name for p in run.tmp.iterdir()) == ["c.collapsed"]


def test_output_none_and_default_name(run):
    run("Fig4", props={"jprewrite.output": "none"})
    assert list(run.tmp.iterdir()) == []
    run("Fig4", output=False)
    assert [p.name for p in run.tmp.iterdir()] == ["jprewrite-profile.json"]
    fig4_expectations(run.profile("jprewrite-profile.json")["root"])


def test_custom_profiler_activation(run):
    proc = run("Activation", props={"jprewrite.profiler": "CountingProfiler"})
    assert proc.stdout.split() == [
        "registers=1",
        "reports=66",
        "last=Activation.loop()V",
        "wrongRoot=false",
        "activation=30",
    ]
    assert proc.stderr == ""
    assert counts(at(run.profile()["root"], "Activation.main" + MAIN, "Activation.loop()V")) == (1, 7000)


def test_failing_profiler_never_reaches_the_application(run):
    proc = run("Activation", props={"jprewrite.profiler": "ThrowingProfiler"})
    assert f"activation={2**31 - 1 - 7 * 998}" in proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("jprewrite: ") and "agent bug" in lines[0]
    proc = run("Activation", props={"jprewrite.profiler": "NoSuchProfiler"})
    assert "reports=0" in proc.stdout and "NoSuchProfiler" in proc.stderr
    assert counts(at(run.profile()["root"], "Activation.main" + MAIN, "Activation.loop()V")) == (1, 7000)


def test_custom_mid_factory(run):
    proc = run("FactoryMain", props={"jprewrite.midFactory": "TaggingFactory"})
    # MIDs: FactoryMain.main, p1.Base.m, p1.Base.n, the boundary of p1.Sub.m (redirect), the probe
    assert proc.stdout.split() == [
        "class=TaggingFactory$TaggedMid",
        "serial=5",
        "created=5",
        "r=50",
        "methodString=X.y()V",
        "selector=y()V",
    ]
    main = at(run.profile()["root"], "FactoryMain.main" + MAIN)
    assert counts(at(main, "p1.Sub.m(I)I", "p1.Base.m(I)I")) == (1, 3)
    proc = run("FactoryMain", props={"jprewrite.midFactory": "NoSuchFactory"})
    assert "class=jprewrite.runtime.MethodId serial=-1 created=0 r=50" in proc.stdout
    assert proc.stderr.count("jprewrite: ") == 1 and "NoSuchFactory" in proc.stderr


# ---------------------------------------------------------------------------------------- runtime_build


def test_runtime_classes_are_java8_and_complete():
    classes = runtime_classes()
    for name in ("MethodId", "MethodIdFactory", "Node", "ThreadRoot", "Profiler", "Profiles"):
        assert f"jprewrite/runtime/{name}.class" in classes
    assert all(n.startswith("jprewrite/runtime/") and n.endswith(".class") for n in classes)
    for data in classes.values():
        assert data[:4] == b"\xca\xfe\xba\xbe" and int.from_bytes(data[6:8], "big") == 52
    assert runtime_source_dir() == Path(__file__).resolve().parent.parent / "runtime-java" / "src"


def _tiny_sources(root: Path, body: str = "") -> Path:
    d = root / "jprewrite" / "runtime"
    d.mkdir(parents=True)
    (d / "Tiny.java").write_text(f"package jprewrite.runtime;\npublic class Tiny {{ {body} }}\n")
    return root


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """A fresh cache directory and no in-process memo, so builds really happen."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(runtime_build, "_memo", {})
    return tmp_path


def test_build_cache_per_source_hash(isolated, monkeypatch):
    src = _tiny_sources(isolated / "src")
    monkeypatch.setenv("JPREWRITE_RUNTIME_SOURCES", str(src))
    assert runtime_source_dir() == src
    first = runtime_classes()
    assert list(first) == ["jprewrite/runtime/Tiny.class"]
    entries = list((isolated / "cache" / "jprewrite").iterdir())
    assert len(entries) == 1 and entries[0].name.startswith("runtime-") and len(entries[0].name) == 8 + 16
    monkeypatch.setattr(runtime_build, "_memo", {})
    assert runtime_classes() == first  # from the cache directory
    (src / "jprewrite" / "runtime" / "Tiny.java").write_text(
        "package jprewrite.runtime;\npublic class Tiny { int x; }\n"
    )
    assert runtime_classes() != first
    assert len(list((isolated / "cache" / "jprewrite").iterdir())) == 2


def test_build_races_between_processes(isolated):
    src = _tiny_sources(isolated / "src", "static int f() { return 1; }")
    env = dict(os.environ, JPREWRITE_RUNTIME_SOURCES=str(src), XDG_CACHE_HOME=str(isolated / "cache"))
    code = "from jprewrite.rewrite.runtime_build import runtime_classes; print(sorted(runtime_classes()))"

    def build(_):
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)

    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(build, range(3)))
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    assert {r.stdout for r in results} == {"['jprewrite/runtime/Tiny.class']\n"}
    assert [p.name.startswith("runtime-") for p in (isolated / "cache" / "jprewrite").iterdir()] == [True]


def test_build_errors_are_one_line(isolated, monkeypatch):
    src = _tiny_sources(isolated / "src", "int x = ;")
    monkeypatch.setenv("JPREWRITE_RUNTIME_SOURCES", str(src))
    with pytest.raises(JprewriteError) as e:
        runtime_classes()
    assert "javac failed" in str(e.value) and "\n" not in str(e.value)
    assert list((isolated / "cache" / "jprewrite").iterdir()) == []  # nothing half-built left behind
    monkeypatch.setenv("JAVA_HOME", str(isolated / "no-jdk"))
    monkeypatch.setenv("PATH", str(isolated / "empty"))
    with pytest.raises(JprewriteError, match="javac not found"):
        runtime_classes()
    monkeypatch.setenv("JPREWRITE_RUNTIME_SOURCES", str(isolated / "nothing-here"))
    with pytest.raises(JprewriteError, match="no Java runtime sources"):
        runtime_classes()


def test_traces_cleaned_as_the_original_program_would_print_them(run) -> None:
    """``Traces.clean`` on hand-made traces of each shape (``docs/runtime-contract.md``, "Stack
    traces"): twins named as their methods, N2B wrapper, holder, outlined-part, delegating and B2N
    frames dropped, the program's own ``$jp`` names left alone; ``cleanThrowable`` in place on a
    throwable, its cause and a suppressed one, and quietly nothing where it cannot."""
    out = run("TraceShapes", output=False).stdout.splitlines()
    assert out == [
        "A.m:3 A.m:4 java.util.ArrayList.sort:10",
        "B.run:30 C.go:7",
        "D.abs:5 E.nat:-2 F.main:9",
        "true",
        "H.a$jpb:1",
        "J.t:2",
        "I.c:1",
        "K.s:8",
        "0 done",
        "m m a$jpb n $jp",
    ]
