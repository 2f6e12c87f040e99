"""``jprewrite diff`` and ``jprewrite.profile.compare`` on profiles of real runs.

The same program run twice gives identical counts (exit 0, no change); run with a knob that
makes one method loop longer, the grown context is named first and the exit status is 3;
markdown and JSON say the same; ``--threshold``, ``--app-only`` and bad input behave.
"""

from __future__ import annotations

import json

import pytest

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.profile import load
from jprewrite.profile.compare import compare, format_markdown, format_text

from support.profile_runs import profile_of

CHECKOUT = ("shop.Main.main([Ljava/lang/String;)V", "shop.Main.checkout(I)J")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("profile-diff")
    return {"base": profile_of(work, 0), "again": profile_of(work, 0, "again.json"), "slower": profile_of(work, 100)}


def diff(capsys, *args) -> tuple[int, str]:
    code = jprewrite_main(["diff", *map(str, args)])
    return code, capsys.readouterr().out


def test_identical_runs_compare_equal(runs, capsys):
    code, out = diff(capsys, runs["base"], runs["again"])
    assert code == 0, out
    assert out.splitlines()[2].startswith("OK:") and "0 changed, 0 new, 0 vanished" in out


def test_the_regression_is_named_first_and_exits_3(runs, capsys):
    code, out = diff(capsys, runs["base"], runs["slower"])
    assert code == 3, out
    lines = out.splitlines()
    assert lines[2].startswith("REGRESSED:")
    first = lines[4]
    assert first.rstrip().endswith("Main.main > Main.checkout") and first.lstrip().startswith("+"), out
    cmp = compare(load(runs["base"]), load(runs["slower"]))
    top = cmp.changes[0]
    assert top.path == CHECKOUT and top.status == "changed" and top.regressed
    # 100 more iterations of a loop body of fixed length: the growth is a multiple of 100
    assert top.delta > 0 and top.delta % 100 == 0 and cmp.new_total - cmp.base_total == top.delta
    assert [c.path for c in cmp.regressions][:1] == [CHECKOUT]


def test_markdown_and_json(runs, capsys):
    code, md = diff(capsys, runs["base"], runs["slower"], "--format", "markdown")
    assert code == 3
    assert md.startswith("### :x: jprewrite diff: bytecodes +")
    table = [line for line in md.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| | self change") and "`Main.main > Main.checkout`" in table[1]
    code, text = diff(capsys, runs["base"], runs["slower"], "--format", "json")
    doc = json.loads(text)
    assert code == 3 and doc["regressed"] and doc["changes"][0]["path"] == list(CHECKOUT)
    assert doc["new_total"] - doc["base_total"] == doc["changes"][0]["delta"]
    cmp = compare(load(runs["base"]), load(runs["again"]))
    assert ":white_check_mark:" in format_markdown(cmp) and format_text(cmp).splitlines()[2].startswith("OK")


def test_threshold_app_only_and_metric(runs, capsys):
    base = load(runs["base"])
    growth = compare(base, load(runs["slower"])).changes[0].delta
    pct = 100.0 * growth / base.merged.total("bytecodes")
    code, _ = diff(capsys, runs["base"], runs["slower"], "--threshold", f"{pct * 1.01:.6f}")
    assert code == 0
    code, _ = diff(capsys, runs["base"], runs["slower"], "--threshold", f"{pct * 0.99:.6f}")
    assert code == 3
    # only application frames: JDK frames (StringBuilder, Thread...) fold into their callers
    cmp = compare(base, load(runs["slower"]), app_only=["shop."])
    assert all(p.startswith("shop.") for c in cmp.changes for p in c.path)
    assert cmp.changes[0].path == CHECKOUT
    calls = compare(base, load(runs["again"]), metric="calls")
    assert not calls.regressed and calls.base_total == calls.new_total > 0


def test_new_and_vanished_contexts(runs, tmp_path, capsys):
    """A context only one side has is reported as new (a regression when it counts) or vanished."""
    data = json.loads(runs["base"].read_text())
    main = next(c for c in data["root"]["children"] if c["method"].startswith("shop.Main.main"))
    main["children"].append({"method": "shop.Extra.added()V", "calls": 1, "bytecodes": 7, "children": []})
    grown = tmp_path / "grown.json"
    grown.write_text(json.dumps(data))
    cmp = compare(load(runs["base"]), load(str(grown)))
    assert [(c.path[-1], c.status, c.delta) for c in cmp.changes] == [("shop.Extra.added()V", "new", 7)]
    assert cmp.regressed
    back = compare(load(str(grown)), load(runs["base"]))
    assert back.changes[0].status == "vanished" and not back.regressed
    code, out = diff(capsys, grown, runs["base"])
    assert code == 0 and "[vanished]" in out


def test_bad_input_exits_2(runs, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert jprewrite_main(["diff", str(runs["base"]), str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err
    assert jprewrite_main(["diff", str(runs["base"]), str(runs["base"]), "--threshold", "-1"]) == 2
    assert jprewrite_main(["diff", str(runs["base"]), str(runs["base"]), "--thread", "nope"]) == 2
    assert "no thread named" in capsys.readouterr().err
