"""The rewriter's yieldpoints (issue 12): sample and hybrid modes on real programs.

* hybrid mode keeps the exact tree: the JDI oracle's CCT, calls and precise counts, with a
  sampler taking samples every 100 us while the program runs (the samples ride on the nodes);
* sample mode changes nothing but the yieldpoints: every sample program prints what it printed,
  under ``-Xverify:all``, and its classes pass the verification gate;
* both find the busy method of a program that spends most of its time in it.

The runtime's samplers themselves (shares, blocked threads, lost samples) are tested with
hand-placed yieldpoints in ``tests/test_sampling.py``.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from jprewrite.cli.main import main as jprewrite_main

from support.jdk import javac, tool
from support.oracle import diff_profiles, run_oracle
from support.profiling import make_jar, rewrite, run_java
from support.samples import compile_sample, sample_main, sample_names
from test_cct_oracle import without_object_init

SAMPLING = ("-Djprewrite.interval=100us", "-Djprewrite.sampler=incremental")
HYBRID_SAMPLES = ["callbacks", "exceptions", "lambdas", "recursion", "sorting", "threads", "bigmethod"]
PLAIN_SAMPLES = [n for n in sample_names() if n not in ("jni", "uninstrumented")]

BUSY = """
public class Busy {
    static volatile long sink;
    static long hot(int n) { long s = 0; for (int i = 0; i < n; i++) { s += (i * 31L) % 7; } return s; }
    static long cold(int n) { long s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }
    public static void main(String[] args) {
        long end = System.nanoTime() + 1_500_000_000L;
        while (System.nanoTime() < end) { sink += hot(400_000); sink += cold(20_000); }
        System.out.println("done");
    }
}
"""


def _samples(node: dict) -> dict[str, int]:
    """Samples per method (summed over contexts)."""
    out: dict[str, int] = {}
    stack = [node]
    while stack:
        n = stack.pop()
        if n.get("samples"):
            out[n["method"]] = out.get(n["method"], 0) + n["samples"]
        stack.extend(n.get("children", ()))
    return out


@pytest.mark.parametrize("name", HYBRID_SAMPLES)
def test_hybrid_keeps_the_exact_tree(tmp_path, name: str) -> None:
    classes = compile_sample(name, tmp_path / "classes")
    jar = make_jar(classes, tmp_path / f"{name}.jar")
    out = tmp_path / f"{name}-hybrid.jar"
    rewrite([jar], out, "--counting", "precise", "--mode", "hybrid")
    main = sample_main(name)
    jvm = ("-Xss64m",) if name == "recursion" else ()
    rewritten = run_java([out], main, profile=tmp_path / "profile.json", jvm=("-Xverify:all", *SAMPLING, *jvm))
    assert rewritten.returncode == 0, rewritten.stderr
    assert rewritten.profile is not None and rewritten.profile["sampling"]["mode"] == "hybrid"
    oracle = run_oracle([jar], main, app_patterns=("com.example.",), timeout=600, jvm_args=jvm)
    assert rewritten.stdout == oracle.stdout
    expected = {**oracle.profile, "root": without_object_init(oracle.profile["root"])}
    differences = diff_profiles(expected, rewritten.profile)
    assert not differences, "\n".join(differences[:40])


@pytest.mark.parametrize("name", PLAIN_SAMPLES)
def test_sample_mode_changes_nothing_but_time(tmp_path, name: str) -> None:
    classes = compile_sample(name, tmp_path / "classes")
    jar = make_jar(classes, tmp_path / f"{name}.jar")
    out = tmp_path / f"{name}-sample.jar"
    rewrite([jar], out, "--mode", "sample", "--verify")
    main = sample_main(name)
    jvm = ("-Xss64m",) if name == "recursion" else ()
    plain = run_java([jar], main, jvm=jvm)
    sampled = run_java([out], main, profile=tmp_path / "profile.json", jvm=("-Xverify:all", *SAMPLING, *jvm))
    assert sampled.returncode == plain.returncode == 0, sampled.stderr
    assert sampled.stdout == plain.stdout
    assert sampled.profile is not None and sampled.profile["sampling"]["mode"] == "sample"


@pytest.mark.parametrize("mode", ["sample", "hybrid"])
def test_the_busy_method_gets_the_samples(tmp_path, mode: str) -> None:
    jar = make_jar(javac({"Busy.java": BUSY}, tmp_path / "classes"), tmp_path / "busy.jar")
    out = tmp_path / f"busy-{mode}.jar"
    rewrite([jar], out, "--mode", mode)
    run = run_java([out], "Busy", profile=tmp_path / "p.json", jvm=("-Djprewrite.interval=1ms",))
    assert run.returncode == 0 and run.stdout == "done\n", run.stderr
    assert run.profile is not None
    samples = _samples(run.profile["root"])
    hot, cold = samples.get("Busy.hot(I)J", 0), samples.get("Busy.cold(I)J", 0)
    info = run.profile["sampling"]
    # 1.5 s at 1 ms would give ~1500; a loaded 2-core machine (the suite runs 2 workers) gives far
    # fewer, and rounds the busy thread misses count as lost: ask only for enough to judge shares
    assert info["samples"] >= 30, info
    assert hot > 3 * max(cold, 1), samples  # hot runs about 20x longer per round than cold
    assert info["latency_ns"]["p97_5"] > 0


def _ops(n: int, salt: int) -> str:
    """``n`` dependent multiply-adds, each stored (a store keeps compiled code from moving the work past
    a yieldpoint; work that touches no memory may move, whatever the placement)."""
    return "".join(f"        x = x * m + {salt * 1000 + k}L; a[{k % 16}] = x;\n" for k in range(n))


LEAF = f"""
public class Leaf {{
    static final long[] a = new long[16];
    static long leaf(long x, long m) {{
{_ops(120, 1)}        return x;
    }}
    static long caller(long x, long m) {{
        for (int i = 0; i < 64; i++) {{
{_ops(60, 2)}            x = leaf(x, m);
        }}
        return x;
    }}
    public static void main(String[] args) {{
        long end = System.nanoTime() + 1_500_000_000L, x = 1;
        while (System.nanoTime() < end) {{ x = caller(x, 0x9E3779B97F4A7C15L); }}
        System.out.println(x != 0 ? "done" : "zero");
    }}
}}
"""


@pytest.mark.parametrize("mode", ["sample", "hybrid"])
def test_a_leaf_methods_time_lands_in_the_leaf(tmp_path, mode: str) -> None:
    """A loop-free leaf does two thirds of the work (120 of 180 multiply-adds per call), its caller's loop
    the rest. The yieldpoints sit before returns and at entries whose samples are the caller's (sample
    mode's ``Sampling.entry()``, hybrid mode's ``Node.enterSampled``), so each stretch of work is
    charged to its own frame. With yieldpoints at entries (charged to the entered method) and loop
    headers, the leaf got the caller's stretch before the call and the caller the leaf's own: the
    shares came out the other way round (a third to the leaf, in both modes)."""
    jar = make_jar(javac({"Leaf.java": LEAF}, tmp_path / "classes"), tmp_path / "leaf.jar")
    out = tmp_path / f"leaf-{mode}.jar"
    rewrite([jar], out, "--mode", mode)
    jvm = ("-Djprewrite.interval=1ms", "-Djprewrite.sample-grace=500us")
    run = run_java([out], "Leaf", profile=tmp_path / "p.json", jvm=jvm)
    assert run.returncode == 0 and run.stdout == "done\n", run.stderr
    assert run.profile is not None
    samples = _samples(run.profile["root"])
    leaf, caller = samples.get("Leaf.leaf(JJ)J", 0), samples.get("Leaf.caller(JJ)J", 0)
    assert leaf + caller >= 30, samples  # a loaded machine loses many tickets: enough to judge shares
    assert 0.5 <= leaf / (leaf + caller) <= 0.85, samples


def _leaf_bodies(tmp_path, mode: str) -> dict[str, str]:
    """``Leaf`` rewritten in ``mode``: each static method's name (a twin's with ``$jp``) -> its ``javap -c``
    listing."""
    jar = make_jar(javac({"Leaf.java": LEAF}, tmp_path / "classes"), tmp_path / "leaf.jar")
    out = tmp_path / f"leaf-{mode}.jar"
    rewrite([jar], out, "--mode", mode)
    text = subprocess.run(
        [tool("javap"), "-c", "-p", "-cp", str(out), "Leaf"], capture_output=True, text=True, check=True
    ).stdout
    # (not the slot twins, ``m$jp(…, LeafNode, int)``: a static method's other ``$jp``, see shape_slot)
    return {
        m.group(1): m.group(3)
        for m in re.finditer(r"static \S+ ([\w$]+)\((.*?)\n((?:.*\n)*?)\n", text)
        if "LeafNode" not in m.group(2)
    }


def test_sample_mode_places_entry_and_exit_yieldpoints(tmp_path) -> None:
    """The leaf: ``Sampling.entry()`` first, a pinned read (twice, or'ed) before its return, none at the
    stores; the caller: its entry, its loop header, and no yieldpoint before its return, which follows
    the call of an instrumented method (that call ended at the leaf's own); main: its loop header and
    before its return (after a call into the JDK)."""
    bodies = _leaf_bodies(tmp_path, "sample")
    leaf = bodies["leaf"].splitlines()
    assert "Sampling.entry" in leaf[3], leaf[:4]
    assert "Sampling.requested" in leaf[-6] and "Sampling.requested" in leaf[-5] and "ior" in leaf[-4], leaf[-6:]
    assert bodies["leaf"].count("Sampling.") == 5
    caller = bodies["caller"]
    assert caller.count("Sampling.entry") == 1 and caller.count("Sampling.yieldpoint") == 1, caller
    assert bodies["main"].count("Sampling.yieldpoint") == 2, bodies["main"]


def test_hybrid_mode_places_exit_yieldpoints_in_twins(tmp_path) -> None:
    """Hybrid mode: the leaf's twin takes its entry yieldpoint in ``enterSampled`` (whose sample is the
    caller's) and a pinned one with its node before its return; the caller's twin one at its loop
    header and none before its return (the loop's exit test, then the return: a stretch too short to
    matter)."""
    bodies = _leaf_bodies(tmp_path, "hybrid")
    leaf = bodies["leaf$jp"].splitlines()
    assert bodies["leaf$jp"].count("Node.enterSampled") == 1, leaf[:8]
    assert bodies["leaf$jp"].count("Sampling.yieldpoint") == 1 and "lreturn" in leaf[-1], leaf[-9:]
    assert "Sampling.requested" in leaf[-7] and "Sampling.requested" in leaf[-6] and "ior" in leaf[-5], leaf[-9:]
    caller = bodies["caller$jp"]
    assert caller.count("Node.enterSampled") == 1 and caller.count("Sampling.yieldpoint") == 1, caller


SHORT = """
public class Short {
    final long total;
    Short(int n) { total = sum(n); }
    static int square(int x) { return x * x; }
    static long sum(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) { s += square(i); }
        return s;
    }
    public static void main(String[] args) { System.out.println(new Short(1000).total); }
}
"""


def test_hybrid_mode_leaves_short_leaves_without_yieldpoints(tmp_path) -> None:
    """Hybrid mode: a yieldpoint at the node's entry (``enterSampled``, a constructor's
    ``ctorEnterSampled``) and at each loop header, but none in a short leaf (``square``: no calls
    or loops, a few instructions), whose time goes to the next sample, as in sample mode. The
    program's output and its exact counts are those of exact mode."""
    jar = make_jar(javac({"Short.java": SHORT}, tmp_path / "classes"), tmp_path / "short.jar")
    texts = {}
    profiles = {}
    for mode in ("exact", "hybrid"):
        out = tmp_path / f"short-{mode}.jar"
        rewrite([jar], out, "--mode", mode)
        texts[mode] = subprocess.run(
            [tool("javap"), "-c", "-p", "-cp", str(out), "Short"], capture_output=True, text=True, check=True
        ).stdout
        run = run_java([out], "Short", profile=tmp_path / f"{mode}.json", jvm=("-Xverify:all",))
        assert run.returncode == 0 and run.stdout == "332833500\n", run.stderr
        profiles[mode] = run.profile
    bodies = {  # (the ESI twins, not the slot twins beside them: see shape_slot)
        m.group(1): m.group(3)
        for m in re.finditer(r"static \S+ (\w+\$jp)\((.*?)\n((?:.*\n)*?)\n", texts["hybrid"])
        if "LeafNode" not in m.group(2)
    }
    square, total = bodies["square$jp"], bodies["sum$jp"]
    assert "Sampling.yieldpoint" not in square and "enterSampled" not in square and "Node.enter" in square, square
    # the entry's yieldpoint is in enterSampled (the twin as long as in exact mode), the loop's in the body
    assert total.count("Node.enterSampled") == 1 and total.count("Sampling.yieldpoint") == 1, total
    assert "Sampling" not in texts["exact"] and "enterSampled" not in texts["exact"]
    ctor = re.search(r"\n  Short\(int\);\n((?:.*\n)*?)\n", texts["hybrid"])
    assert ctor is not None, texts["hybrid"]
    # a constructor's entry yieldpoint is in ctorEnterSampled, as a twin's is in enterSampled
    assert "ThreadRoot.ctorEnterSampled" in ctor.group(1) and "Sampling" not in ctor.group(1), ctor.group(1)
    assert "ThreadRoot.ctorEnter" in texts["exact"]
    assert profiles["exact"] is not None and profiles["hybrid"] is not None
    differences = diff_profiles(profiles["exact"], profiles["hybrid"])
    assert not differences, "\n".join(differences[:40])


def test_sample_mode_on_a_library_passes_the_gate(tmp_path, capsys) -> None:
    """Every method of a real jar gets its yieldpoints and the verifier accepts them all."""
    jar = Path("/usr/share/java/commons-math3.jar")
    if not jar.exists():
        pytest.skip("Debian's libcommons-math3-java is not installed")
    code = jprewrite_main([str(jar), str(tmp_path / "m.jar"), "--mode", "sample", "--verify"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "yieldpoints in" in err and "verification gate rejected" not in err, err
    assert "left uninstrumented" not in err, err


def test_bad_mode_is_one_line(tmp_path, capsys) -> None:
    code = jprewrite_main(["a.jar", str(tmp_path / "b.jar"), "--mode", "sometimes"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "--mode" in err, err
    assert not json.dumps(err).startswith('"Traceback')
