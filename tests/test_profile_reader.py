"""Reading profiles into node tables (``jprewrite.profile.load``), checked against ``json.load``.

The streaming reader must give exactly what the plain JSON reading gives, on real profiles
written by the runtime, gzipped or not, pretty-printed by another tool (the fallback), and
deep; bad input must be one line and exit 2 on every command that reads profiles.
"""

from __future__ import annotations

import gzip
import json
import sys

import pytest

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.errors import JprewriteError
from jprewrite.profile import Tree, from_dict, load, load_json, write_compact

from support.profile_runs import profile_of


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("profile-reader")


@pytest.fixture(scope="module")
def profile_path(work):
    return profile_of(work)


def _rows(tree: Tree) -> list[tuple]:
    """Everything a tree holds, as comparable rows (names, not frame numbers)."""
    metrics = sorted(tree.values)
    return [
        (
            tree.parent[i],
            tree.name(i),
            tree.frames.kinds[tree.frame[i]],
            tuple(tree.value(m)[i] for m in metrics),
            tuple(sorted(tree.allocations_of(i).items())),
        )
        for i in range(len(tree))
    ]


def _same(a, b) -> None:
    assert _rows(a.merged) == _rows(b.merged)
    assert list(a.merged.end) == list(b.merged.end)
    assert [n for n, _ in a.threads] == [n for n, _ in b.threads]
    for (_, ta), (_, tb) in zip(a.threads, b.threads):
        assert _rows(ta) == _rows(tb)


def test_streaming_reader_equals_json_load(profile_path):
    fast = load(str(profile_path))
    plain = from_dict(load_json(str(profile_path)))
    _same(fast, plain)
    assert {n for n, _ in fast.threads} >= {"main", "worker"}
    assert set(fast.metrics) >= {"bytecodes", "calls", "allocations"}
    assert fast.header["format"] == "jprewrite-profile"


def test_inclusive_values_match_the_runtime(profile_path):
    """The runtime writes inclusive_bytecodes on inner nodes: the node tables compute the same."""
    data = load_json(str(profile_path))
    tree = load(str(profile_path), threads=False).merged
    inc = tree.inclusive("bytecodes")
    expected, stack = [], [data["root"]]
    while stack:
        n = stack.pop()
        expected.append(n.get("inclusive_bytecodes", n["bytecodes"]))
        stack.extend(reversed(n["children"]))
    assert list(inc) == expected
    assert tree.total("bytecodes") == data["root"]["inclusive_bytecodes"] > 0


def test_gzip_and_pretty_printed_files_read_the_same(profile_path, work):
    fast = load(str(profile_path))
    gz = work / "p.json.gz"
    gz.write_bytes(gzip.compress(profile_path.read_bytes()))
    _same(load(str(gz)), fast)
    pretty = work / "pretty.json"  # another tool's layout: keys sorted, indented (the json.load fallback)
    pretty.write_text(json.dumps(load_json(str(profile_path)), indent=2, sort_keys=True))
    _same(load(str(pretty)), fast)


def test_only_the_trees_asked_for(profile_path):
    merged_only = load(str(profile_path), threads=False)
    assert merged_only.threads == [] and merged_only.merged is not None
    one = load(str(profile_path), merged=False, threads=["worker"])
    assert one.merged is None and [n for n, _ in one.threads] == ["worker"]
    assert "main" in one.thread_names
    with pytest.raises(KeyError):
        one.tree("main")


def test_deep_recursion_reads_without_recursion_limits(work):
    """50,000 levels: far beyond Python's recursion limit; the reader has no recursion."""
    depth = 50_000
    node = '{"method":"a.B.f()V","calls":1,"bytecodes":3,"children":['
    text = (
        '{"format":"jprewrite-profile","version":1,\n"root":{"method":"<root>","calls":0,"bytecodes":0,'
        '"children":[\n' + "\n".join([node] * depth) + "]}" * depth + ']},\n"threads":[]}\n'
    )
    path = work / "deep.json"
    path.write_text(text)
    tree = load(str(path)).merged
    assert len(tree) == depth + 1
    assert tree.inclusive("bytecodes")[0] == 3 * depth
    assert max(tree.depths()) == depth
    assert sys.getrecursionlimit() < depth


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "not a JSON profile"),
        (b"PK\x03\x04 not json", "not a JSON profile"),
        (b'{"hello": 1}', "not a jprewrite profile"),
        (b"[1, 2, 3]", "not a jprewrite profile"),
        (b'{"format":"other","root":{"method":"x","children":[]}}', "not a jprewrite profile"),
        (b"\x1f\x8b\x08\x00garbage", "compressed profile"),
    ],
)
def test_bad_input_is_one_line(work, content, message, capsys):
    path = work / "bad.json"
    path.write_bytes(content)
    with pytest.raises(JprewriteError, match=message):
        load(str(path))
    for command in (
        ["report", str(path)],
        ["export", str(path), "--format", "collapsed", "-o", "-"],
        ["flamegraph", str(path), "-o", str(work / "x.html")],
        ["diff", str(path), str(path)],
    ):
        assert jprewrite_main(command) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err and str(path) in err, err


def test_truncated_profiles_are_one_line_naming_the_offset(profile_path, work, capsys):
    data = profile_path.read_bytes()
    cut = work / "cut.json"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(JprewriteError, match="truncated profile") as e:
        load(str(cut))
    assert e.value.offset is not None and 0 < e.value.offset <= len(data) // 2
    cut_gz = work / "cut.json.gz"
    cut_gz.write_bytes(gzip.compress(data)[: len(data) // 20])
    assert jprewrite_main(["report", str(cut_gz)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(cut_gz) in err, err
    missing = work / "missing.json"
    assert jprewrite_main(["report", str(missing)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_a_profile_cut_anywhere_in_its_tree_is_called_truncated(profile_path, work, capsys):
    """Wherever the file ends inside the merged tree (just after a line break, after the comma before
    one, inside a line, inside the first context), the reader and the report say the file ends
    early: not "malformed" (a report of a profile cut after a context's closing brackets said so),
    nor "not a JSON profile"."""
    data = profile_path.read_bytes()
    start = data.index(b'"root"')
    end = data.rindex(b"\n", start, data.index(b'"threads"'))  # the line break after the merged tree
    breaks = [i for i in range(start, end) if data[i] == ord("\n")]
    cuts = sorted({c for i in breaks[:: max(1, len(breaks) // 20)] for c in (i - 1, i, i + 1, i + 9)})
    cut = work / "cut.json"
    for n in cuts:
        cut.write_bytes(data[:n])
        with pytest.raises(JprewriteError, match="truncated profile"):
            load(str(cut))
        assert jprewrite_main(["report", str(cut)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "truncated profile" in err, (n, err)


def test_a_profile_cut_after_its_merged_tree_is_not_reported_as_whole(profile_path, work, capsys):
    """``report`` and ``flamegraph`` read the merged tree only; a file cut later, in the threads'
    trees, must still be one "truncated profile" line and exit 2 (they said nothing and exited 0),
    in the JSON and the compact format alike; the whole files still report."""
    data = profile_path.read_bytes()
    after = data.index(b'"threads"')
    compact = work / "whole.jpprof"
    with open(compact, "wb") as out:
        write_compact(load(str(profile_path)), out)
    packed = compact.read_bytes()
    cases = [(".json", data, [after + 20, (after + len(data)) // 2, len(data) - 2])]
    cases.append((".jpprof", packed, [len(packed) - 1, len(packed) - 7]))
    for suffix, whole, cuts in cases:
        for n in cuts:
            cut = work / f"cut-late{suffix}"
            cut.write_bytes(whole[:n])
            for command in (["report", str(cut)], ["flamegraph", str(cut), "-o", str(work / "cut.html")]):
                assert jprewrite_main(command) == 2, (suffix, n, command)
                err = capsys.readouterr().err
                assert err.count("\n") == 1 and "truncated profile" in err, (suffix, n, err)
            assert not (work / "cut.html").exists()
        good = work / f"whole-again{suffix}"
        good.write_bytes(whole)
        assert jprewrite_main(["report", str(good)]) == 0
        capsys.readouterr()


def test_pruned_reading_keeps_what_a_report_shows(profile_path, work, capsys):
    """load(prune=f) passes over subtrees below f of the bytecodes: the contexts above the cut and
    every inclusive value stay exact, and the report (which prunes) prints what a full read prints."""
    full = load(str(profile_path), threads=False).merged
    pruned = load(str(profile_path), threads=False, prune=0.02).merged
    assert pruned.pruned and not full.pruned and len(pruned) < len(full)
    fi, pi = full.inclusive("bytecodes"), pruned.inclusive("bytecodes")

    def names(tree, i):
        return tuple(tree.frames.names[f] for f in tree.path(i))

    where = {names(full, i): i for i in range(len(full))}
    for i in range(len(pruned)):
        j = where[names(pruned, i)]
        assert pi[i] == fi[j]
        if pi[i] >= 0.02 * fi[0]:
            assert pruned.value("bytecodes")[i] == full.value("bytecodes")[j]
            assert pruned.value("calls")[i] == full.value("calls")[j]
            assert len(list(pruned.children(i))) == len(list(full.children(j)))
    assert list(pruned.end) == list(Tree(pruned.frames, pruned.parent, pruned.frame, pruned.values).end)
    # the same report from a copy in another layout, which the reader reads whole (json.load)
    pretty = work / "pretty-for-report.json"
    pretty.write_text(json.dumps(load_json(str(profile_path)), indent=1))
    for options in (["--min", "2", "--top", "50", "--depth", "100"], ["--min", "0.01", "--thread", "main"]):
        assert jprewrite_main(["report", str(profile_path), *options]) == 0
        pruned_report = capsys.readouterr().out
        assert jprewrite_main(["report", str(pretty), *options]) == 0
        assert capsys.readouterr().out == pruned_report


def test_pruning_a_subtree_that_ends_its_tree(work):
    """The line that closes a skipped subtree may close its ancestors and the tree, with the
    file's own text after it on the same line (the runtime's layout)."""
    depth = 2000
    node = '{"method":"a.B.f()V","calls":1,"bytecodes":3,"inclusive_bytecodes":%d,"children":['
    lines = [node % (3 * (depth - d)) for d in range(depth)]
    text = (
        '{"format":"jprewrite-profile","version":1,\n"root":{"method":"<root>","calls":0,"bytecodes":0,'
        f'"inclusive_bytecodes":{3 * depth},"children":[\n'
        + "\n".join(lines)
        + "]}" * depth
        + ']},\n"threads":[\n{"name":"main","root":{"method":"<root>","calls":0,"bytecodes":0,"children":[]}}]}\n'
    )
    path = work / "deep-pruned.json"
    path.write_text(text)
    p = load(str(path), prune=0.5)
    tree = p.merged
    assert len(tree) == 1 + (depth // 2 + 1) + 1  # the root, the contexts at or above half, one folded leaf
    assert tree.inclusive("bytecodes")[0] == 3 * depth and tree.value("bytecodes")[-1] == 3 * (depth // 2 - 1)
    assert [n for n, _ in p.threads] == ["main"]


def test_fields_of_other_modes_and_later_versions(work):
    """Sampling (a top-level object, samples and fresh on nodes) and fields unknown today, before
    or after inclusive_bytecodes, read the same by both readers; a sample-mode profile's first
    metric is samples."""
    text = (
        '{"format":"jprewrite-profile","version":1,\n"sampling":{"mode":"sample","interval_ms":10},\n'
        '"root":{"method":"<root>","calls":0,"bytecodes":0,"inclusive_bytecodes":0,"later":[1,{"a":2}],'
        '"children":[\n{"method":"a.B.c()V","calls":0,"bytecodes":0,"kind":"jdk","samples":3,"fresh":1,'
        '"allocations":{"[I":2},"children":[]},\n{"method":"a.B.d()V","calls":0,"bytecodes":0,"samples":5,'
        '"children":[]}]},\n"threads":[]}\n'
    )
    path = work / "sampled.json"
    path.write_text(text)
    fast, plain = load(str(path)), from_dict(json.loads(text))
    _same(fast, plain)
    assert fast.header["sampling"] == {"mode": "sample", "interval_ms": 10}
    assert list(fast.merged.value("samples")) == [0, 3, 5] and list(fast.merged.value("fresh")) == [0, 1, 0]
    assert fast.merged.allocations_of(1) == {"[I": 2} and fast.default_metric() == "samples"
