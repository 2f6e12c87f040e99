"""``jprewrite export``: speedscope validated against speedscope's own schema, pprof read back with
the protobuf descriptor, collapsed stacks summed; every format carries exactly the profile's counts.

The schema is ``dist/release/file-format-schema.json`` of the npm package ``speedscope`` 1.25.0,
vendored under ``tests/data/speedscope/`` with its licence.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.profile import load

from support.profile_runs import profile_of

SCHEMA = Path(__file__).parent / "data" / "speedscope" / "file-format-schema.json"


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("profile-export")


@pytest.fixture(scope="module")
def profile_path(work):
    return profile_of(work)


def export(path, fmt: str, out: Path, *more: str) -> Path:
    assert jprewrite_main(["export", str(path), "--format", fmt, "-o", str(out), *more]) == 0
    return out


def test_speedscope_is_valid_and_exact(profile_path, work):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (the test extra) validates speedscope files")
    doc = json.loads(export(profile_path, "speedscope", work / "p.speedscope.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    profile = load(str(profile_path))
    assert [p["name"] for p in doc["profiles"]] == ["all threads"] + [n for n, _ in profile.threads]
    frames = doc["shared"]["frames"]
    for p, tree in zip(doc["profiles"], [profile.merged] + [t for _, t in profile.threads]):
        assert p["type"] == "sampled" and p["unit"] == "none"
        assert len(p["samples"]) == len(p["weights"])
        assert sum(p["weights"]) == p["endValue"] == tree.total("bytecodes")
    # a stack is a real calling context: main calls checkout
    merged = doc["profiles"][0]
    stacks = [[frames[f]["name"] for f in s] for s in merged["samples"]]
    assert ["Main.main", "Main.checkout"] in stacks
    assert frames[0]["name"] == "<root>" and any(f.get("file") == "shop.Main" for f in frames)
    calls = json.loads(export(profile_path, "speedscope", work / "calls.json", "--metric", "calls").read_text())
    assert calls["profiles"][0]["endValue"] == profile.merged.total("calls")


def test_pprof_reads_back_with_the_descriptor(profile_path, work):
    pytest.importorskip("google.protobuf", reason="the protobuf package writes and reads pprof files")
    from jprewrite.profile.pprof import message_classes

    out = export(profile_path, "pprof", work / "p.pb.gz")
    assert out.read_bytes()[:2] == b"\x1f\x8b"  # gzip, as pprof requires
    msg = message_classes()["Profile"]()
    msg.ParseFromString(gzip.decompress(out.read_bytes()))
    st = msg.string_table
    assert st[0] == ""
    types = [(st[t.type], st[t.unit]) for t in msg.sample_type]
    assert types == [("bytecodes", "count"), ("calls", "count"), ("allocations", "count")]
    assert st[msg.default_sample_type] == "bytecodes"
    profile = load(str(profile_path))
    for k, metric in enumerate(["bytecodes", "calls", "allocations"]):
        assert sum(s.value[k] for s in msg.sample) == profile.merged.total(metric)
    functions = {f.id: f for f in msg.function}
    locations = {loc.id: loc for loc in msg.location}

    def stack(sample) -> list[str]:  # leaf first, as pprof stores it
        return [st[functions[locations[i].line[0].function_id].system_name] for i in sample.location_id]

    threads = {st[lab.str] for s in msg.sample for lab in s.label if st[lab.key] == "thread"}
    assert threads == {n for n, _ in profile.threads}
    leaf_up = ["shop.Main.checkout(I)J", "shop.Main.main([Ljava/lang/String;)V"]
    checkout = [s for s in msg.sample if stack(s)[:2] == leaf_up]
    assert len(checkout) == 1 and checkout[0].value[0] > 200
    assert st[functions[locations[checkout[0].location_id[0]].line[0].function_id].name] == "Main.checkout"


def test_collapsed_stacks_sum_to_the_total(profile_path, work):
    out = export(profile_path, "collapsed", work / "p.collapsed")
    lines = out.read_text().splitlines()
    profile = load(str(profile_path))
    assert sum(int(line.rsplit(" ", 1)[1]) for line in lines) == profile.merged.total("bytecodes")
    assert any(line.startswith("Main.main;Main.checkout ") for line in lines)
    full = export(profile_path, "collapsed", work / "full.collapsed.gz", "--full")
    text = gzip.decompress(full.read_bytes()).decode()
    assert "shop.Main.main([Ljava,lang,String,)V" not in text  # only ';' is replaced, by ','
    assert "shop.Main.main([Ljava/lang/String,)V;shop.Main.checkout(I)J " in text
    worker = export(profile_path, "collapsed", work / "worker.collapsed", "--thread", "worker")
    assert all(line.startswith("Main.lambda$main$0") for line in worker.read_text().splitlines())


def test_bad_export_requests(profile_path, work, capsys):
    assert jprewrite_main(["export", str(profile_path), "--format", "pprof", "-o", "-"]) == 2
    assert "binary" in capsys.readouterr().err
    assert (
        jprewrite_main(
            ["export", str(profile_path), "--format", "speedscope", "-o", str(work / "no-such-dir" / "x.json")]
        )
        == 2
    )
    assert "cannot write" in capsys.readouterr().err
    assert jprewrite_main(["export", str(profile_path), "--format", "svg", "-o", str(work / "x")]) == 2


def test_pprof_in_batches_is_one_message(profile_path):
    """The samples go out a batch at a time; concatenated, the pieces are the same Profile."""
    pytest.importorskip("google.protobuf", reason="the protobuf package writes and reads pprof files")
    from jprewrite.profile.export import export_trees
    from jprewrite.profile.pprof import message_classes, profile_chunks

    profile = load(str(profile_path))
    trees = export_trees(profile, merged=False)
    whole = b"".join(profile_chunks(profile, trees, default_metric="bytecodes", batch=1_000_000))
    pieces = list(profile_chunks(profile, trees, default_metric="bytecodes", batch=3))
    assert len(pieces) > 5
    a, b = message_classes()["Profile"](), message_classes()["Profile"]()
    a.ParseFromString(whole)
    b.ParseFromString(b"".join(pieces))
    assert a == b and len(a.sample) > 10
