"""``jprewrite import-jfr`` on a recording made here: a small busy program compiled with javac, run
under ``-XX:StartFlightRecording=...,settings=profile``; its execution samples become a profile on
which ``report --metric samples``, ``flamegraph``, ``export``, ``diff`` and ``compare`` work.

The program spends three quarters of its main thread's work in ``Busy.hot`` (called through a
lambda, so JFR's stacks hold hidden lambda-proxy frames) and a quarter in ``Busy.cold``; a
second thread, ``worker``, runs ``Busy.warm`` part of the time. Sampling is statistical: the
checks are that the busiest method dominates, not exact shares.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.profile import load
from jprewrite.profile.jfr import TRUNCATED, find_jfr_tool, import_jfr
from jprewrite.profile.views import by_method

from support.jdk import javac, tool

SOURCE = """
import java.util.function.IntToLongFunction;

public class Busy {
    static volatile long sink;

    static long hot(int n) { long s = 0; for (int i = 0; i < n; i++) { s += (i * 31L) ^ (s >>> 3); } return s; }
    static long cold(int n) { long s = 0; for (int i = 0; i < n; i++) { s += (i * 17L) ^ (s >>> 5); } return s; }
    static long warm(int n) { long s = 0; for (int i = 0; i < n; i++) { s += (i * 13L) ^ (s >>> 2); } return s; }

    public static void main(String[] args) throws Exception {
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
        IntToLongFunction op = n -> hot(n);
        Thread worker = new Thread(() -> {
            while (System.nanoTime() < end) {
                sink += warm(200_000);
                try { Thread.sleep(2); } catch (InterruptedException e) { return; }
            }
        }, "worker");
        worker.start();
        while (System.nanoTime() < end) {
            sink += op.applyAsLong(300_000);
            sink += cold(100_000);
        }
        worker.join();
    }
}
"""

HOT, COLD, WARM = "Busy.hot(I)J", "Busy.cold(I)J", "Busy.warm(I)J"


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    work = tmp_path_factory.mktemp("jfr")
    classes = javac({"Busy.java": SOURCE}, work / "classes")
    rec = work / "busy.jfr"
    p = subprocess.run(
        [
            tool("java"),
            f"-XX:StartFlightRecording=filename={rec},settings=profile",
            "-cp",
            str(classes),
            "Busy",
            "2500",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert rec.exists()
    return rec


@pytest.fixture(scope="module")
def imported(recording):
    out = recording.with_name("busy.json")
    assert jprewrite_main(["import-jfr", str(recording), "-o", str(out)]) == 0
    return out


def test_the_busiest_method_dominates(imported):
    p = load(str(imported))
    tree = p.merged
    total = tree.total("samples")
    assert total >= 20, f"only {total} samples"
    assert p.default_metric() == "samples" and tree.total("bytecodes") == 0
    stats = by_method(tree, "samples")
    names = [tree.frames.names[s.frame] for s in stats]
    assert names[0] == HOT, names[:5]
    share = {tree.frames.names[s.frame]: s.self_value / total for s in stats}
    assert share[HOT] > 0.45 and share[HOT] > 1.5 * share.get(COLD, 0.0), share
    # JVM names throughout, JDK frames marked, hidden lambda-proxy frames gone
    # (hidden classes: lambda proxies Foo$$Lambda$14+0x…/…, LambdaForm$MH+0x…; the JDK's own
    # java.lang.invoke.LambdaForm is a class like any other)
    assert not [n for n in tree.frames.names if "$$Lambda" in n or re.search(r"[+/]0x[0-9a-f]+", n)]
    assert any(n.startswith("Busy.lambda$main$") and n.endswith(")J") for n in tree.frames.names)
    # the worker is runnable a tenth of the time, and a loaded machine may sample it never (a CI
    # run did): its stacks start at Thread.run when it was sampled at all
    if "worker" in [n for n, _ in p.threads]:
        assert tree.frames.find("java.lang.Thread.run()V") is not None
    jdk = [i for i, n in enumerate(tree.frames.names) if n.startswith(("java.", "jdk."))]
    assert all(tree.frames.kinds[i] == 1 for i in jdk), [tree.frames.names[i] for i in jdk]  # KIND_JDK
    sampling = p.header["sampling"]
    assert sampling["sampler"] == "jfr" and sampling["samples"] == total and sampling["hidden_frames_dropped"] > 0


def test_threads_and_the_merged_tree(imported):
    p = load(str(imported))
    names = [n for n, _ in p.threads]
    assert "main" in names and len(names) == len(set(names))
    assert sum(t.total("samples") for _, t in p.threads) == p.merged.total("samples")
    main = p.tree("main")
    main_paths = {tuple(main.frames.names[f] for f in main.path(i)) for i in range(1, len(main))}
    assert ("Busy.main([Ljava/lang/String;)V", "Busy.lambda$main$0(I)J", HOT) in main_paths
    if "worker" in names:
        worker = p.tree("worker")
        assert worker.frames.names[worker.frame[1]] == "java.lang.Thread.run()V"


def test_hidden_frames_kept_on_request(recording, tmp_path):
    profile, stats = import_jfr(str(recording), drop_hidden=False)
    assert stats.hidden_frames == 0
    used = {profile.frames.names[f] for f in profile.merged.frame}
    # the program's own lambdas (a JDK one may be sampled too, e.g. CgroupUtil's while JFR starts)
    hidden = [n for n in used if n.startswith("Busy$$Lambda")]
    assert hidden and all(n.endswith(")J") or n.endswith(")V") for n in hidden)
    assert TRUNCATED not in {profile.frames.names[f] for f in profile.merged.frame}  # shallow stacks


def test_report_and_viewers_work_on_samples(imported, tmp_path, capsys):
    assert jprewrite_main(["report", str(imported), "--metric", "samples", "--color", "never"]) == 0
    out = capsys.readouterr().out
    assert "context (samples)" in out and "Busy.hot" in out
    assert jprewrite_main(["report", str(imported), "--by", "method", "--color", "never"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].endswith("Busy.hot"), out  # the default metric of a sampled profile
    assert jprewrite_main(["report", str(imported), "--thread", "main", "--color", "never"]) == 0
    assert "Busy.main" in capsys.readouterr().out
    html = tmp_path / "flame.html"
    assert jprewrite_main(["flamegraph", str(imported), "-o", str(html)]) == 0
    assert "Busy.hot" in html.read_text()
    folded = tmp_path / "busy.folded"
    assert jprewrite_main(["export", str(imported), "--format", "collapsed", "-o", str(folded)]) == 0
    lines = folded.read_text().splitlines()
    assert sum(int(ln.rsplit(" ", 1)[1]) for ln in lines) == load(str(imported)).merged.total("samples")
    speedscope = tmp_path / "busy.speedscope.json"
    assert jprewrite_main(["export", str(imported), "--format", "speedscope", "-o", str(speedscope)]) == 0
    assert json.loads(speedscope.read_text())["profiles"][0]["type"] == "sampled"
    assert jprewrite_main(["export", str(imported), "--format", "pprof", "-o", str(tmp_path / "busy.pb.gz")]) == 0
    capsys.readouterr()
    assert jprewrite_main(["diff", str(imported), str(imported), "--metric", "samples"]) == 0
    assert "0 changed, 0 new, 0 vanished" in capsys.readouterr().out
    assert jprewrite_main(["compare", str(imported), str(imported), "--app-only", "Busy."]) == 0
    assert "degree of overlap             100.0%" in capsys.readouterr().out


def test_gzipped_output(recording, tmp_path):
    out = tmp_path / "busy.json.gz"
    assert jprewrite_main(["import-jfr", str(recording), "-o", str(out)]) == 0
    assert out.read_bytes()[:2] == b"\x1f\x8b" and load(str(out)).merged.total("samples") > 0


def test_bad_input_is_one_line_and_exit_2(recording, tmp_path, capsys, monkeypatch):
    text = tmp_path / "not.jfr"
    text.write_text("hello")
    cases = [
        ([str(text)], "jfr print failed: could not read recording"),
        ([str(tmp_path / "missing.jfr")], "cannot read: no such file"),
        ([str(recording), "--jfr", str(tmp_path / "nojfr")], "no such jfr tool"),
    ]
    for args, message in cases:
        out = tmp_path / "out.json"
        assert jprewrite_main(["import-jfr", *args, "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and message in err, err
        assert not out.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(Exception, match="cannot find the JDK's jfr tool"):
        find_jfr_tool()
    assert jprewrite_main(["import-jfr", str(recording), "-o", str(tmp_path / "x.json")]) == 2
    assert "cannot find the JDK's jfr tool" in capsys.readouterr().err


DEEP = """
public class Deep {
    static volatile long sink;
    static long rec(int d) { if (d == 0) { long s = 0; for (int i = 0; i < 200_000; i++) s += i ^ (s >>> 2); return s; }
                             return rec(d - 1) + 1; }
    public static void main(String[] a) {
        long end = System.nanoTime() + 1_500_000_000L;
        while (System.nanoTime() < end) sink += rec(100);
    }
}
"""


def test_truncated_stacks_go_under_their_own_context(tmp_path, capsys):
    """JFR keeps 64 frames by default: 100-deep stacks lack their outer frames and must not pose as
    contexts at the top level."""
    classes = javac({"Deep.java": DEEP}, tmp_path / "classes")
    rec = tmp_path / "deep.jfr"
    p = subprocess.run(
        [tool("java"), f"-XX:StartFlightRecording=filename={rec},settings=profile", "-cp", str(classes), "Deep"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    out = tmp_path / "deep.json"
    assert jprewrite_main(["import-jfr", str(rec), "-o", str(out)]) == 0
    assert "truncated stacks under <truncated>" in capsys.readouterr().err
    tree = load(str(out)).merged
    top = {tree.frames.names[tree.frame[c]]: tree.inclusive("samples")[c] for c in tree.children(0)}
    assert top[TRUNCATED] >= 0.8 * tree.total("samples"), top
    # every other top-level context is the JDK's own threads (JFR's start-up command, the JIT...)
    others = {k: v for k, v in top.items() if k not in (TRUNCATED, "Deep.main([Ljava/lang/String;)V")}
    assert all(k.startswith(("jdk.", "java.", "sun.")) for k in others), others
    deepest = max(len(tree.path(i)) for i in range(len(tree)))
    assert deepest <= 65  # <truncated> and at most 64 frames


def test_a_recording_without_execution_samples(tmp_path, capsys):
    """A recording with the sampler off: one line, not an empty profile."""
    classes = javac({"Busy.java": SOURCE}, tmp_path / "classes")
    rec = tmp_path / "quiet.jfr"
    p = subprocess.run(
        [
            tool("java"),
            f"-XX:StartFlightRecording=filename={rec},settings=profile,jdk.ExecutionSample#enabled=false",
            "-cp",
            str(classes),
            "Busy",
            "200",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert jprewrite_main(["import-jfr", str(rec), "-o", str(tmp_path / "q.json")]) == 2
    assert "the recording has no jdk.ExecutionSample events" in capsys.readouterr().err
