"""``jprewrite report`` on a real profile: short names, the method view, focus, threads, colours."""

from __future__ import annotations

import re

import pytest

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.profile import load, load_json
from jprewrite.profile.names import short_descriptor, short_names, split_method
from jprewrite.profile.views import by_method

from support.profile_runs import profile_of

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def profile_path(tmp_path_factory):
    return profile_of(tmp_path_factory.mktemp("profile-report"))


def report(capsys, *args) -> str:
    assert jprewrite_main(["report", *map(str, args)]) == 0
    return capsys.readouterr().out


def test_short_names():
    assert split_method("com.acme.Foo$Bar.g(I)V") == ("com.acme.Foo$Bar", "g", "(I)V")
    assert short_descriptor("(I[[Ljava/lang/String;J)V") == "(int, String[][], long)"
    names = [
        "<root>",
        "com.a.Foo$Bar.g(I)V",
        "com.a.Foo$Bar.g(Ljava/lang/String;)V",
        "x.Foo.h()V",
        "y.Foo.h()V",
        "a.B.get()Ljava/lang/Object;",
        "a.B.get()La/B;",
        "a.C.run()V",
    ]
    assert short_names(names) == [
        "<root>",
        "Foo$Bar.g(int)",
        "Foo$Bar.g(String)",
        "x.Foo.h",
        "y.Foo.h",
        "B.get():Object",
        "B.get():B",
        "C.run",
    ]


def test_context_tree_with_short_names(profile_path, capsys):
    out = report(capsys, profile_path)
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["inclusive", "self", "calls"] and "(bytecodes)" in lines[0]
    assert re.search(r"^\s*[\d,]+\s+0\s+0  <root> \(100\.0%\)$", lines[1]), lines[1]
    assert any(" Main.main (" in line for line in lines), out
    assert "Main.work(int)" in out and "Main.work(long)" in out  # overloads keep their arguments
    assert "Main.fib (" in out and "shop.Main" not in out and "(I)J" not in out
    assert "\x1b[" not in out  # piped: plain
    full = report(capsys, profile_path, "--full")
    assert "shop.Main.work(I)J" in full and "shop.Main.main([Ljava/lang/String;)V" in full
    # the numbers are the profile's: the root's inclusive value is the total
    data = load_json(str(profile_path))
    assert f"{data['root']['inclusive_bytecodes']:,}" in lines[1]


def test_depth_top_and_min(profile_path, capsys):
    shallow = report(capsys, profile_path, "--depth", "1")
    assert all(len(line) - len(line.lstrip(" ")) for line in shallow.splitlines()[1:])
    assert "Main.fib" not in shallow  # fib is two levels down (main > fib)
    top1 = report(capsys, profile_path, "--top", "1", "--depth", "2")
    assert "more" in top1
    everything = report(capsys, profile_path, "--min", "0", "--top", "1000", "--depth", "1000")
    assert everything.count("Main.fib") > report(capsys, profile_path).count("Main.fib")
    legacy = report(capsys, profile_path, "--min-percent", "0", "--top", "6", "--depth", "6")
    assert "Main.main" in legacy


def test_method_view_counts_recursion_once(profile_path, capsys):
    tree = load(str(profile_path), threads=False).merged
    stats = {tree.frames.names[s.frame]: s for s in by_method(tree, "bytecodes")}
    fib = stats["shop.Main.fib(I)I"]
    inc = tree.inclusive("bytecodes")
    outermost = [
        i
        for i in range(len(tree))
        if tree.name(i) == "shop.Main.fib(I)I" and tree.name(tree.parent[i]) != "shop.Main.fib(I)I"
    ]
    assert fib.inclusive == sum(inc[i] for i in outermost) == fib.self_value  # fib calls only itself
    assert fib.contexts == 12 and fib.calls == 465  # fib(12): 2 fib(13) - 1 calls, 12 levels deep
    out = report(capsys, profile_path, "--by", "method")
    assert out.splitlines()[0].split()[:4] == ["self", "self%", "inclusive", "incl%"]
    first = out.splitlines()[1]
    assert first.rstrip().endswith("Main.work(int)"), out  # 3000 + 5000 iterations: the hottest method
    row = next(line for line in out.splitlines() if line.rstrip().endswith("Main.fib"))
    assert f"{fib.self_value:,}" in row and f"{fib.calls:,}" in row


def test_focus_thread_and_metric(profile_path, capsys):
    focused = report(capsys, profile_path, "--focus", r"Main\.checkout", "--min", "0")
    assert focused.startswith("focus /Main\\.checkout/")
    body = focused.splitlines()[2:]
    assert "<root>" in body[0] and "Main.checkout" in body[1] and not any("Main.fib" in line for line in body)
    worker = report(capsys, profile_path, "--thread", "worker")
    assert "Main.lambda$main$0" in worker and "Main.fib" not in worker
    calls = report(capsys, profile_path, "--metric", "calls")
    assert "(calls)" in calls.splitlines()[0]
    allocs = report(capsys, profile_path, "--by", "method", "--metric", "allocations")
    assert "Main$Basket.add" in allocs


def test_colours_only_when_asked_or_on_a_terminal(profile_path, capsys):
    coloured = report(capsys, profile_path, "--color", "always")
    assert "\x1b[" in coloured
    assert ANSI.sub("", coloured) == report(capsys, profile_path, "--color", "never")


def test_bad_options_are_one_line(profile_path, capsys):
    assert jprewrite_main(["report", str(profile_path), "--thread", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no thread named 'nope'" in err and "worker" in err and err.count("\n") == 1
    assert jprewrite_main(["report", str(profile_path), "--focus", "("]) == 2
    assert "not a regular expression" in capsys.readouterr().err
