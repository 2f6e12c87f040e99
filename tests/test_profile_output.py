"""The runtime's profile output (issue 14): streamed from the live trees, thread options, gzip,
output-name placeholders, append from several JVMs, ``jprewrite merge``, bytes per context.

Real programs, compiled with javac, rewritten by jprewrite and run on java 17. The streamed
merged tree is checked against an independent computation: the sum of the per-thread trees,
path by path, in Python.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.errors import JprewriteError
from jprewrite.profile import load, load_json
from jprewrite.rewrite.runtime_build import runtime_classes

from support.jdk import tool
from support.profiling import make_jar, rewrite

MULTI = r"""
import java.util.ArrayList;
import java.util.List;

public class Multi {
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    static long work(int k) {
        long s = 0;
        for (int i = 0; i < k; i++) { s += fib(8 + (i % 4)); s += new StringBuilder().append(i).length(); }
        return s;
    }
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        List<Thread> ts = new ArrayList<>();
        final long[] out = new long[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            Thread th = new Thread(() -> { out[id] = work(20 + id * 5); }, "worker-" + (t % 3));
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) th.join();
        long s = work(15);
        for (long v : out) s += v;
        System.out.println("sum=" + s);
    }
}
"""

NODE_SIZE = r"""
package jprewrite.runtime;

/** Heap bytes per context: N contexts (8 children per node, no call sites: no caches), heap after GC. */
public class NodeSize {
    public static void main(String[] a) {
        int n = Integer.parseInt(a[0]);
        MethodId[] mids = new MethodId[8];
        for (int i = 0; i < 8; i++) mids[i] = new MethodId("C", "m" + i, "()V", 0, 0);
        Node[] nodes = new Node[n + 1];
        nodes[0] = ThreadRoot.current().enter(0, new MethodId("P", "p", "()V", 0, 0));
        long before = used();
        // site 0 of methods without call sites: no child caches, only the contexts themselves
        // (an unknown site, -1, would give every parent a cache of its own)
        for (int i = 1; i <= n; i++) nodes[i] = nodes[(i - 1) / 8].enter(0, mids[(i - 1) % 8]);
        long after = used();
        System.out.println((double) (after - before) / n);
    }
    static long used() {
        for (int i = 0; i < 4; i++) System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }
}
"""


def rewritten_program(tmp_path_factory, name: str, source: str) -> Path:
    """Class ``name`` compiled by javac and rewritten by jprewrite (the jar carries the runtime)."""
    work = tmp_path_factory.mktemp(name.lower())
    (work / "src").mkdir()
    (work / "src" / f"{name}.java").write_text(source)
    subprocess.run([tool("javac"), "-d", str(work / "classes"), str(work / "src" / f"{name}.java")], check=True)
    out = work / f"{name.lower()}-rw.jar"
    rewrite([make_jar(work / "classes", work / f"{name.lower()}.jar")], out)
    return out


@pytest.fixture(scope="module")
def multi(tmp_path_factory) -> Path:
    return rewritten_program(tmp_path_factory, "Multi", MULTI)


def java(jar: Path, cwd: Path, workers: int, **props: str) -> subprocess.CompletedProcess:
    """Run Multi with ``workers`` threads; ``props`` are ``jprewrite.*`` system properties."""
    cmd = [tool("java"), *[f"-Djprewrite.{k}={v}" for k, v in props.items()], "-cp", str(jar), "Multi", str(workers)]
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.startswith("sum="), p
    return p


def raw(path: Path) -> dict:
    """The file as written (no alias resolution), gzip or not."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def paths(root: dict) -> dict[tuple[str, ...], list[int]]:
    """Counters per method path (the root excluded), checking each inclusive_bytecodes on the way."""
    out: dict[tuple[str, ...], list[int]] = {}
    post: list[tuple[dict, tuple[str, ...]]] = []
    stack: list[tuple[dict, tuple[str, ...]]] = [(root, ())]
    while stack:
        n, p = stack.pop()
        post.append((n, p))
        for c in n["children"]:
            q = (*p, c["method"])
            acc = out.setdefault(q, [0, 0, 0])
            acc[0] += c["calls"]
            acc[1] += c["bytecodes"]
            acc[2] += sum(c.get("allocations", {}).values())
            stack.append((c, q))
    inc: dict[int, int] = {}
    for n, _ in reversed(post):
        inc[id(n)] = n["bytecodes"] + sum(inc[id(c)] for c in n["children"])
        if n["children"]:
            assert n["inclusive_bytecodes"] == inc[id(n)]
            keys = [(-inc[id(c)], -c["calls"], c["method"]) for c in n["children"]]
            assert keys == sorted(keys)  # hottest first
    return out


def summed(trees: list[dict]) -> dict[tuple[str, ...], list[int]]:
    total: dict[tuple[str, ...], list[int]] = {}
    for t in trees:
        for k, v in paths(t).items():
            acc = total.setdefault(k, [0, 0, 0])
            for i in range(3):
                acc[i] += v[i]
    return total


def test_streamed_merged_tree_is_the_sum_of_the_thread_trees(multi, tmp_path) -> None:
    java(multi, tmp_path, 7, output="p.json")
    p = raw(tmp_path / "p.json")
    assert sorted(t["name"] for t in p["threads"]) == ["main", "worker-0", "worker-1", "worker-2"]
    merged = paths(p["root"])
    assert merged == summed([t["root"] for t in p["threads"]])
    # and both are what the threads did: 7 workers, and main once
    work = [v for k, v in merged.items() if k[-1] == "Multi.work(I)J"]
    assert sum(v[0] for v in work) == 8
    lines = (tmp_path / "p.json").read_text().splitlines()
    assert all(line.count('"method"') <= 1 for line in lines)  # one context a line (the fast reader's layout)


def test_one_thread_name_is_written_once(multi, tmp_path) -> None:
    java(multi, tmp_path, 0, output="one.json")
    p = raw(tmp_path / "one.json")
    assert p["threads"] == [{"name": "main", "same_as_root": True}]
    assert load_json(str(tmp_path / "one.json"))["threads"][0]["root"] is not None
    prof = load(str(tmp_path / "one.json"), merged=False, threads=["main"])
    assert len(prof.tree("main")) == len(load(str(tmp_path / "one.json")).tree())
    assert jprewrite_main(["report", str(tmp_path / "one.json"), "--thread", "main", "--color", "never"]) == 0


@pytest.mark.parametrize("mode", ["all", "merged-only", "none"])
def test_threads_option(multi, tmp_path, mode) -> None:
    java(multi, tmp_path, 4, output="t.json", threads=mode)
    p = raw(tmp_path / "t.json")
    names = sorted(t["name"] for t in p["threads"])
    if mode == "none":
        assert p["threads"] == []
    elif mode == "merged-only":
        assert names == ["main", "worker-0", "worker-1", "worker-2"]
        assert all(set(t) == {"name"} for t in p["threads"])
        assert load(str(tmp_path / "t.json")).thread_names == [t["name"] for t in p["threads"]]
    else:
        assert all("root" in t for t in p["threads"])
    assert sum(v[0] for k, v in paths(p["root"]).items() if k[-1] == "Multi.work(I)J") == 5


def test_gzip_output_reads_like_plain(multi, tmp_path) -> None:
    java(multi, tmp_path, 3, output="a.json")
    java(multi, tmp_path, 3, output="b.json.gz")
    assert (tmp_path / "b.json.gz").read_bytes()[:2] == b"\x1f\x8b"
    a, b = raw(tmp_path / "a.json"), raw(tmp_path / "b.json.gz")
    assert paths(a["root"]) == paths(b["root"])
    ta, tb = load(str(tmp_path / "a.json")), load(str(tmp_path / "b.json.gz"))
    assert list(ta.tree().values["calls"]) == list(tb.tree().values["calls"])


def test_output_name_placeholders(multi, tmp_path) -> None:
    p = java(multi, tmp_path, 0, output="prof-%p-%h-%t-100%%.json", collapsed="c-%p.txt")
    files = sorted(f.name for f in tmp_path.iterdir())
    (prof,) = [f for f in files if f.startswith("prof-")]
    m = re.fullmatch(r"prof-(\d+)-(.+)-(\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d)-100%\.json", prof)
    assert m, files
    assert f"c-{m.group(1)}.txt" in files
    assert p.stderr == ""


def test_append_from_concurrent_jvms(multi, tmp_path) -> None:
    java(multi, tmp_path, 2, output="single.json")
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: java(multi, tmp_path, 2, output="shared.json.gz", append="true"), range(4)))
    shared, single = raw(tmp_path / "shared.json.gz"), raw(tmp_path / "single.json")
    assert shared["runs"] == 4
    one = paths(single["root"])
    assert paths(shared["root"]) == {k: [4 * x for x in v] for k, v in one.items()}
    threads = {t["name"]: paths(t["root"]) for t in shared["threads"]}
    assert sorted(threads) == ["main", "worker-0", "worker-1"]
    for t in single["threads"]:
        assert threads[t["name"]] == {k: [4 * x for x in v] for k, v in paths(t["root"]).items()}
    assert paths(shared["root"]) == summed([t["root"] for t in shared["threads"]])


def test_append_keeps_a_file_that_is_not_a_profile(multi, tmp_path) -> None:
    (tmp_path / "x.json").write_text('{"format": "something else"')
    p = java(multi, tmp_path, 0, output="x.json", append="true")
    assert (tmp_path / "x.json").read_text() == '{"format": "something else"'
    assert "cannot append to" in p.stderr and p.stderr.count("\n") == 1
    (aside,) = [f for f in tmp_path.iterdir() if re.fullmatch(r"x-\d+\.json", f.name)]
    assert raw(aside)["threads"] == [{"name": "main", "same_as_root": True}]


def test_merge_command(multi, tmp_path, capsys) -> None:
    java(multi, tmp_path, 0, output="one.json")
    java(multi, tmp_path, 4, output="four.json.gz")
    out = tmp_path / "m.json"
    assert jprewrite_main(["merge", str(tmp_path / "one.json"), str(tmp_path / "four.json.gz"), "-o", str(out)]) == 0
    m, one, four = raw(out), raw(tmp_path / "one.json"), raw(tmp_path / "four.json.gz")
    assert m["runs"] == 2
    assert paths(m["root"]) == summed([one["root"], four["root"]])
    threads = {t["name"]: t["root"] for t in m["threads"]}
    assert sorted(threads) == ["main", "worker-0", "worker-1", "worker-2"]
    main_four = next(t["root"] for t in four["threads"] if t["name"] == "main")
    assert paths(threads["main"]) == summed([one["root"], main_four])
    # two single-thread profiles stay one tree
    assert jprewrite_main(["merge", str(tmp_path / "one.json"), str(tmp_path / "one.json"), "-o", str(out)]) == 0
    assert raw(out)["threads"] == [{"name": "main", "same_as_root": True}]


@pytest.mark.parametrize("bad", ["garbage", "truncated", "missing", "truncated-gz"])
def test_merge_bad_input_is_one_line_and_writes_nothing(multi, tmp_path, capsys, bad) -> None:
    java(multi, tmp_path, 0, output="one.json")
    good = tmp_path / "one.json"
    text = good.read_bytes()
    b = tmp_path / "bad.json"
    if bad == "garbage":
        b.write_text("not json at all\n")
    elif bad == "truncated":
        b.write_bytes(text[: len(text) // 2])
    elif bad == "truncated-gz":
        b = tmp_path / "bad.json.gz"
        b.write_bytes(gzip.compress(text)[:-40])
    capsys.readouterr()
    out = tmp_path / "out.json"
    assert jprewrite_main(["merge", str(good), str(b), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("jprewrite: ") and "Traceback" not in err
    assert not out.exists()
    assert sorted(f.name for f in tmp_path.iterdir() if f.name.startswith(".out")) == []


def test_bytes_per_context(tmp_path) -> None:
    """A context is 56 bytes of heap (compressed oops), measured in a real JVM."""
    rt = tmp_path / "rt"
    for name, data in runtime_classes().items():
        f = rt / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(data)
    src = tmp_path / "src" / "jprewrite" / "runtime" / "NodeSize.java"
    src.parent.mkdir(parents=True)
    src.write_text(NODE_SIZE)
    subprocess.run([tool("javac"), "-cp", str(rt), "-d", str(tmp_path / "cls"), str(src)], check=True)
    p = subprocess.run(
        [
            tool("java"),
            "-Xmx1g",
            "-XX:+UseCompressedOops",
            "-Djprewrite.output=none",
            "-cp",
            f"{rt}:{tmp_path / 'cls'}",
            "jprewrite.runtime.NodeSize",
            "2000000",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert 52 <= float(p.stdout) <= 57, p.stdout


# --------------------------------------------------------------------------- the compact format (.jpprof)


def same_profile(a, b) -> None:
    """Two profiles as node tables: the same trees (names, kinds, every counter), threads, header."""
    assert a.header == b.header
    assert sorted(a.thread_names) == sorted(b.thread_names)  # in the order the threads started: a race
    trees_a = [("", a.merged)] + sorted(a.threads, key=lambda t: t[0])
    trees_b = [("", b.merged)] + sorted(b.threads, key=lambda t: t[0])
    assert [n for n, _ in trees_a] == [n for n, _ in trees_b]
    for (name, ta), (_, tb) in zip(trees_a, trees_b):
        if ta is None or tb is None:
            assert ta is tb
            continue
        assert (ta is a.merged) == (tb is b.merged), name  # same_as_root both ways
        same_tree(ta, tb, name)


def same_tree(ta, tb, name: str) -> None:
    """Two trees as node tables: the same rows, names, kinds, every counter and allocation."""
    assert list(ta.parent) == list(tb.parent), name
    assert list(ta.end) == list(tb.end), name  # the compact file's subtree sizes
    assert list(ta.inclusive("bytecodes")) == list(tb.inclusive("bytecodes")), name  # and its inclusive column
    assert [ta.name(i) for i in range(len(ta))] == [tb.name(i) for i in range(len(tb))]
    assert [ta.frames.kinds[f] for f in ta.frame] == [tb.frames.kinds[f] for f in tb.frame]
    assert set(ta.values) == set(tb.values), name
    for m in ta.values:
        assert list(ta.values[m]) == list(tb.values[m]), (name, m)
    assert [ta.allocations_of(i) for i in range(len(ta))] == [tb.allocations_of(i) for i in range(len(tb))]


@pytest.mark.parametrize("workers,threads", [(4, "all"), (0, "all"), (3, "merged-only"), (2, "none")])
def test_compact_output_loads_like_json(multi, tmp_path, workers, threads) -> None:
    java(multi, tmp_path, workers, output="p.json", collapsed="c.txt", threads=threads)
    java(multi, tmp_path, workers, output="p.jpprof", threads=threads)
    data = (tmp_path / "p.jpprof").read_bytes()
    assert data[:8] == b"JPPROF\x00\x02"
    assert len(data) * 3 < (tmp_path / "p.json").stat().st_size
    # the same program, run twice: the same trees (Multi is deterministic per thread name)
    same_profile(load(str(tmp_path / "p.json")), load(str(tmp_path / "p.jpprof")))
    # sniffed by the magic, not the name
    (tmp_path / "renamed.json").write_bytes(data)
    same_profile(load(str(tmp_path / "p.jpprof")), load(str(tmp_path / "renamed.json")))
    if threads != "all" or workers == 0:  # no selection (tag 3) in it: what version 1 wrote, still read
        (tmp_path / "v1.jpprof").write_bytes(data[:7] + b"\x01" + data[8:])
        same_profile(load(str(tmp_path / "p.jpprof")), load(str(tmp_path / "v1.jpprof")))


WRITE_BOTH = r"""
package jprewrite.runtime;

/** Run Multi, then write its profile twice from the same trees: as args[1], then as args[2]. */
public class WriteBoth {
    public static void main(String[] a) throws Exception {
        Class.forName("Multi").getMethod("main", String[].class).invoke(null, (Object) new String[] {a[0]});
        Sampler.stop();
        Profiles.write(a[1]);
        Profiles.write(a[2]);
    }
}
"""


@pytest.fixture(scope="module")
def sampled(tmp_path_factory) -> tuple[Path, Path]:
    """Multi rewritten with every counter (hybrid: samples and fresh; allocations; weights), and WriteBoth."""
    work = tmp_path_factory.mktemp("sampled")
    (work / "src").mkdir()
    (work / "src" / "Multi.java").write_text(MULTI)
    subprocess.run([tool("javac"), "-d", str(work / "classes"), str(work / "src" / "Multi.java")], check=True)
    (work / "weights.txt").write_text("default 1\ninvokestatic 5\n")
    jar = work / "multi-rw.jar"
    rewrite(
        [make_jar(work / "classes", work / "multi.jar")],
        jar,
        "--mode",
        "hybrid",
        "--allocations",
        "--weights",
        str(work / "weights.txt"),
    )
    src = work / "src" / "WriteBoth.java"
    src.write_text(WRITE_BOTH)
    subprocess.run([tool("javac"), "-cp", str(jar), "-d", str(work / "both"), str(src)], check=True)
    return jar, work / "both"


def test_compact_carries_every_counter_and_the_sampling_block(sampled, tmp_path) -> None:
    jar, both = sampled
    cmd = [tool("java"), "-Djprewrite.output=none", "-Djprewrite.interval=0.1ms", "-cp", f"{jar}:{both}"]
    p = subprocess.run(
        [*cmd, "jprewrite.runtime.WriteBoth", "40", str(tmp_path / "a.json"), str(tmp_path / "a.jpprof")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    a, b = load(str(tmp_path / "a.json")), load(str(tmp_path / "a.jpprof"))
    assert thread_record((tmp_path / "a.jpprof").read_bytes(), "main")[1] == 3  # a selection, every counter
    assert {"weighted", "allocations"} <= set(a.metrics), a.metrics
    assert "samples" in a.metrics or a.header["sampling"]["samples"] == 0  # a loaded machine may take none
    assert a.merged is not None and a.merged.allocs is not None
    # the sampler's own CPU time goes on between the two writes; every other field is the same
    for h in (a.header, b.header):
        h["sampling"] = {k: v for k, v in h["sampling"].items() if "cpu" not in k}
    same_profile(a, b)


def thread_record(data: bytes, name: str) -> tuple[int, int]:
    """Offset and tag byte of thread ``name``'s record in a compact profile (names are short)."""
    key = b"T" + bytes([len(name)]) + name.encode()
    at = data.rindex(key)
    return at, data[at + len(key)]


DOMINANT = r"""
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class Dominant {
    static final long SEED = seed();   // <clinit> runs before main: a second top-level context of main
    static volatile long sink;
    static long seed() { long s = 0; for (int i = 0; i < 50; i++) s += i * 7; return s; }
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    static void helper() { long s = 0; for (int i = 0; i < 30; i++) s += fib(5 + i % 3); sink += s; }
    public static void main(String[] args) throws Exception {
        Thread t = new Thread(Dominant::helper, "helper");   // a top-level method of its own
        t.start();
        t.join();
        long s = SEED;
        for (int i = 0; i < 40; i++) s += fib(8 + i % 5);
        List<Integer> l = new ArrayList<>(Arrays.asList(3, 1, 2));
        l.sort((x, y) -> Integer.compare(x, y));   // callbacks from the JDK, beneath main
        System.out.println("sum=" + s + " " + sink + " " + l);
    }
}
"""


@pytest.fixture(scope="module")
def dominant(tmp_path_factory) -> Path:
    return rewritten_program(tmp_path_factory, "Dominant", DOMINANT)


def test_compact_threads_with_own_top_level_contexts(dominant, tmp_path) -> None:
    """main has two top-level contexts (its class's initialiser and main), helper one: each thread
    is written as a selection of the merged tree, and reads back as its own walk wrote it in JSON."""
    for name in ("d.json", "d.jpprof"):
        cmd = [tool("java"), f"-Djprewrite.output={name}", "-cp", str(dominant), "Dominant"]
        p = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and p.stdout.startswith("sum="), p
    data = (tmp_path / "d.jpprof").read_bytes()
    assert thread_record(data, "main")[1] == 3 and thread_record(data, "helper")[1] == 3
    a, b = load(str(tmp_path / "d.json")), load(str(tmp_path / "d.jpprof"))
    same_profile(a, b)
    main = b.tree("main")
    assert [main.name(c) for c in main.children(0)] == ["Dominant.main([Ljava/lang/String;)V", "Dominant.<clinit>()V"]


def test_compact_dominant_thread_is_a_selection_of_the_merged_tree(multi, tmp_path) -> None:
    """main's top-level contexts are its own (the workers share theirs), so its tree is written as
    its root and the positions of its subtrees in the merged tree (tag 3), not a second time. The
    JSON of another run (the workers' and main's own walks) is the independent oracle, for the
    Python reader, for the runtime's reader (append), and for a reader that skips the merged tree."""
    java(multi, tmp_path, 4, output="p.json")
    java(multi, tmp_path, 4, output="p.jpprof")
    data = (tmp_path / "p.jpprof").read_bytes()
    at, tag = thread_record(data, "main")
    assert tag == 3
    assert {thread_record(data, f"worker-{i}")[1] for i in range(3)} == {2}
    json_p, compact = load(str(tmp_path / "p.json")), load(str(tmp_path / "p.jpprof"))
    same_profile(json_p, compact)
    only = load(str(tmp_path / "p.jpprof"), merged=False, threads=["main"])
    assert only.merged is None
    same_tree(only.tree("main"), json_p.tree("main"), "main")
    # the runtime reads the selection back when it appends: the same as appending to the JSON
    for name in ("a.json", "a.jpprof"):
        for _ in range(2):
            java(multi, tmp_path, 4, output=name, append="true")
    same_profile(load(str(tmp_path / "a.json")), load(str(tmp_path / "a.jpprof")))
    # damage anywhere in the thread records is one error, never another exception
    bad = tmp_path / "bad.jpprof"
    for cut in range(at, len(data) - 1, max(1, (len(data) - at) // 64)):
        bad.write_bytes(data[:cut])
        with pytest.raises(JprewriteError):
            load(str(bad))
    # the selection after the root's tree (E, one context, its subtree size 1): a count, positions
    tail = data.index(b"E\x01\x03\x5a\x01\x01", at) + 6
    picks = data[tail]
    assert 0 < picks < 0x80 and all(b < 0x80 for b in data[tail + 1 : tail + 1 + picks])
    for wrong in (bytes([picks, *range(100, 100 + picks)]), bytes([2, 1, 0])):  # out of range; not ascending
        bad.write_bytes(data[:tail] + wrong + data[tail + 1 + picks :])
        with pytest.raises(JprewriteError, match="malformed thread entry"):
            load(str(bad))


@pytest.mark.parametrize("damage", ["truncated", "cut-in-header", "flipped", "bad-version", "trailing"])
def test_compact_damaged_file_is_one_line(multi, tmp_path, capsys, damage) -> None:
    java(multi, tmp_path, 2, output="p.jpprof")
    data = (tmp_path / "p.jpprof").read_bytes()
    bad = tmp_path / "bad.jpprof"
    if damage == "truncated":
        bad.write_bytes(data[: len(data) * 2 // 3])
    elif damage == "cut-in-header":
        bad.write_bytes(data[:20])
    elif damage == "flipped":  # inside the first chunk's columns
        mid = bytearray(data)
        for i in range(len(data) // 3, len(data) // 3 + 16):
            mid[i] ^= 0xFF
        bad.write_bytes(bytes(mid))
    elif damage == "bad-version":
        bad.write_bytes(data[:7] + b"\x09" + data[8:])
    else:
        bad.write_bytes(data + b"more")
    capsys.readouterr()
    cmds = [["merge", str(bad), "-o", str(tmp_path / "m.json")]]
    if damage != "trailing":  # report and export read the merged tree only, and stop after it
        cmds += [["report", str(bad)], ["export", str(bad), "--format", "collapsed", "-o", str(tmp_path / "c.txt")]]
    for cmd in cmds:
        assert jprewrite_main(cmd) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("jprewrite: ") and "Traceback" not in err, err


def test_compact_report_export_merge_and_append(multi, tmp_path, capsys) -> None:
    java(multi, tmp_path, 3, output="p.json")
    java(multi, tmp_path, 3, output="p.jpprof.gz")
    assert (tmp_path / "p.jpprof.gz").read_bytes()[:2] == b"\x1f\x8b"
    capsys.readouterr()
    assert jprewrite_main(["report", str(tmp_path / "p.jpprof.gz"), "--color", "never"]) == 0
    text = capsys.readouterr().out
    assert "Multi.work" in text
    assert jprewrite_main(["report", str(tmp_path / "p.json"), "--color", "never"]) == 0
    assert capsys.readouterr().out == text
    for fmt in ("collapsed", "speedscope"):
        out_c, out_j = tmp_path / f"c.{fmt}", tmp_path / f"j.{fmt}"
        assert jprewrite_main(["export", str(tmp_path / "p.jpprof.gz"), "--format", fmt, "-o", str(out_c)]) == 0
        assert jprewrite_main(["export", str(tmp_path / "p.json"), "--format", fmt, "-o", str(out_j)]) == 0
        if fmt == "collapsed":
            assert out_c.read_bytes() == out_j.read_bytes()
        else:  # names the source file, threads in the order they started
            frames_c, frames_j = (json.loads(f.read_text())["shared"]["frames"] for f in (out_c, out_j))
            assert sorted(map(str, frames_c)) == sorted(map(str, frames_j))
    # merge reads and writes the format; the runtime appends to it
    m = tmp_path / "m.jpprof"
    assert jprewrite_main(["merge", str(tmp_path / "p.jpprof.gz"), str(tmp_path / "p.json"), "-o", str(m)]) == 0
    assert m.read_bytes()[:7] == b"JPPROF\x00"
    mj = tmp_path / "m.json"
    assert jprewrite_main(["merge", str(tmp_path / "p.json"), str(tmp_path / "p.json"), "-o", str(mj)]) == 0
    same_profile(load(str(m)), load(str(mj)))
    java(multi, tmp_path, 3, output="m.jpprof", append="true")
    appended = load(str(m))
    assert appended.header["runs"] == 3
    assert appended.merged is not None and load(str(mj)).merged is not None
    single = load(str(tmp_path / "p.json"))
    assert appended.merged.total("calls") == 3 * single.merged.total("calls")
    assert appended.merged.total("bytecodes") == 3 * single.merged.total("bytecodes")


def test_append_to_a_damaged_compact_profile_keeps_it(multi, tmp_path) -> None:
    java(multi, tmp_path, 0, output="x.jpprof")
    data = (tmp_path / "x.jpprof").read_bytes()
    (tmp_path / "x.jpprof").write_bytes(data[: len(data) // 2])
    p = java(multi, tmp_path, 0, output="x.jpprof", append="true")
    assert (tmp_path / "x.jpprof").read_bytes() == data[: len(data) // 2]
    assert "cannot append to" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    (aside,) = [f for f in tmp_path.iterdir() if re.fullmatch(r"x-\d+\.jpprof", f.name)]
    assert load(str(aside)).thread_names == ["main"]
    # a method of an unknown kind (the byte before the first name's length): both readers refuse it
    at = data.index(b"<root>") - 2
    assert data[at] == 0
    unknown = data[:at] + b"\x07" + data[at + 1 :]
    (tmp_path / "k.jpprof").write_bytes(unknown)
    with pytest.raises(JprewriteError, match="unknown method kind 7"):
        load(str(tmp_path / "k.jpprof"))
    p = java(multi, tmp_path, 0, output="k.jpprof", append="true")
    assert (tmp_path / "k.jpprof").read_bytes() == unknown
    assert "unknown method kind 7" in p.stderr and p.stderr.count("\n") == 1, p.stderr
