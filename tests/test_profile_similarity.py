"""``jprewrite compare`` and ``jprewrite.profile.similarity``: the measures of Gnedt's thesis (Figures
5.5 and 5.6) and Whaley's correlation, checked on small trees computed by hand, on properties that
hold for any trees (hypothesis), through ``--app-only`` folding, and at the command line (text,
JSON, bad input as one line with exit 2). The writer that ``import-jfr`` uses is checked here too:
what it writes reads back the same, in the runtime's layout.
"""

from __future__ import annotations

import io
import json
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jprewrite.cli.main import main as jprewrite_main
from jprewrite.profile import from_dict, load
from jprewrite.profile.similarity import (
    ContextSpace,
    correlation,
    hot_edge_coverage,
    hot_method_agreement,
    hotset,
    method_correlation,
    overlap,
    similarity,
    top_methods,
)
from jprewrite.profile.writer import write_profile

ROOT = "<root>"


def node(method: str, samples: int = 0, *children: dict, calls: int = 0, fresh: int = 0) -> dict:
    out = {"method": method, "calls": calls, "bytecodes": 0, "children": list(children)}
    if samples:
        out["samples"] = samples
    if fresh:
        out["fresh"] = fresh
    return out


def profile(*children: dict, root_samples: int = 0):
    return from_dict({"format": "jprewrite-profile", "version": 1, "root": node(ROOT, root_samples, *children)})


def sides(a, b, metric: str = "samples", app_only: tuple[str, ...] = ()):
    space = ContextSpace(app_only)
    sa = space.side(a.merged, metric)
    sb = space.side(b.merged, metric)
    return sa.padded(), sb.padded()


# A: main 1, main>f 6, main>g 3 (10 samples); B: main 2, main>f 4, main>h 4 (10 samples)
A = profile(node("m.M.main()V", 1, node("m.M.f()V", 6), node("m.M.g()V", 3)))
B = profile(node("m.M.main()V", 2, node("m.M.f()V", 4), node("m.M.h()V", 4)))


def test_hand_computed_overlap_and_coverage():
    sa, sb = sides(A, B)
    # weights A: main .1, f .6, g .3; B: main .2, f .4, h .4 -> min: .1 + .4 (g, h in one tree only)
    assert overlap(sa, sb) == pytest.approx(0.5)
    # T = 0.5: hot(A) = {f .6, g .3 (= .5 x .6)}, hot(B) = {main .2, f, h}; shared: f
    assert hot_edge_coverage(sa, sb, 0.5) == pytest.approx(1 / 3)
    assert hot_edge_coverage(sb, sa, 0.5) == pytest.approx(1 / 2)
    # T = 0.1: hot(A) = {main, f, g}, hot(B) = {main, f, h}: 2 of 3 either way
    assert hot_edge_coverage(sa, sb, 0.1) == pytest.approx(2 / 3) == hot_edge_coverage(sb, sa, 0.1)
    # T = 0: every edge of each tree (the root carries nothing: not an edge)
    assert len(hotset(sa, 0.0)) == 3 and hot_edge_coverage(sa, sb, 0.0) == pytest.approx(2 / 3)


def test_hand_computed_correlation_and_top_methods():
    sa, sb = sides(A, B)
    # the contexts of either tree: main, f, g, h; relative weights
    assert correlation(sa, sb) == pytest.approx(statistics.correlation([0.1, 0.6, 0.3, 0], [0.2, 0.4, 0, 0.4]))
    assert method_correlation(sa, sb) == pytest.approx(statistics.correlation([1, 6, 3, 0], [2, 4, 0, 4]))
    assert top_methods(sa, 2) == ["m.M.f()V", "m.M.g()V"]
    assert top_methods(sb, 2) == ["m.M.f()V", "m.M.h()V"]  # f and h tie at 4: by name
    assert hot_method_agreement(sa, sb, 2) == pytest.approx(0.5)
    assert hot_method_agreement(sa, sb, 3) == pytest.approx(2 / 3)


def test_methods_sum_over_contexts_and_contexts_do_not():
    """f in two contexts: one method counter of 6, two edges of 3 each."""
    a = profile(node("m.M.main()V", 0, node("m.M.f()V", 3), node("m.M.g()V", 0, node("m.M.f()V", 3))))
    b = profile(node("m.M.main()V", 0, node("m.M.f()V", 6)))
    sa, sb = sides(a, b)
    assert overlap(sa, sb) == pytest.approx(0.5)
    assert method_correlation(sa, sb) is None  # one method on each side: no variance
    assert hot_method_agreement(sa, sb) == 1.0
    # contexts main, f, g, g>f: a = 0 .5 0 .5, b = 0 1 0 0
    assert correlation(sa, sb) == pytest.approx(statistics.correlation([0, 0.5, 0, 0.5], [0, 1, 0, 0]))


def test_fresh_counts_are_whaleys_edge_counts():
    """With fresh on both sides, the correlation's data set is the node counts then the edge counts."""
    a = profile(node("m.M.main()V", 1, node("m.M.f()V", 3, fresh=3), fresh=1))
    b = profile(node("m.M.main()V", 2, node("m.M.f()V", 2, fresh=1), fresh=2))
    sa, sb = sides(a, b)
    want = statistics.correlation([0.25, 0.75, 0.25, 0.75], [0.5, 0.5, 2 / 3, 1 / 3])
    assert correlation(sa, sb) == pytest.approx(want)
    assert similarity(a, b).correlation_uses_fresh


def test_app_only_drops_frames_and_attaches_their_children():
    """JDK frames go; their samples and callees go to the nearest application caller; samples of
    stacks with no application frame go to the root, which then counts as an edge."""
    jdk = profile(
        node(
            "java.lang.Thread.run()V", 1, node("app.W.work()V", 5, node("java.util.X.y()V", 5, node("app.W.cb()V", 2)))
        )
    )
    direct = profile(node("app.W.work()V", 10, node("app.W.cb()V", 2)), root_samples=1)
    sa, sb = sides(jdk, direct, app_only=("app.",))
    assert overlap(sa, sb) == pytest.approx(1.0)
    assert len(sa.space) == 3 and sa.present[0] and hot_edge_coverage(sa, sb, 0.0) == 1.0
    sim = similarity(jdk, direct, app_only=("app.",))
    assert sim.contexts_a == sim.contexts_b == 3 and sim.overlap == pytest.approx(1.0)
    plain = similarity(jdk, direct)
    assert plain.overlap == pytest.approx(0.0) and plain.shared_contexts == 0


def test_app_only_keeps_truncated_stacks_apart():
    """An imported recording's <truncated> context survives --app-only: its stacks lack their outer
    frames, and attached to the root they would match real top-level contexts."""
    a = profile(node("app.W.run()V", 4), node("<truncated>", 0, node("java.X.y()V", 0, node("app.W.run()V", 4))))
    sa, _ = sides(a, a, app_only=("app.",))
    assert sorted(sa.space.path(r) for r in range(1, len(sa.space))) == [
        ("<truncated>",),
        ("<truncated>", "app.W.run()V"),
        ("app.W.run()V",),
    ]


# --------------------------------------------------------------------------- properties

METHODS = [f"p.C.m{i}()V" for i in range(5)]


@st.composite
def trees(draw, max_nodes: int = 12):
    """A random CCT: paths over five methods (recursion allowed), each with a sample count."""
    paths = draw(
        st.lists(
            st.tuples(st.lists(st.sampled_from(METHODS), min_size=1, max_size=4), st.integers(0, 50)),
            min_size=1,
            max_size=max_nodes,
        )
    )
    root: dict = node(ROOT)
    for path, samples in paths:
        cur = root
        for m in path:
            nxt = next((c for c in cur["children"] if c["method"] == m), None)
            if nxt is None:
                nxt = node(m)
                cur["children"].append(nxt)
            cur = nxt
        cur["samples"] = cur.get("samples", 0) + samples
    if not any(s for _, s in paths):
        root["children"][0]["samples"] = 1
    return from_dict({"format": "jprewrite-profile", "version": 1, "root": root})


def scaled(p, k: int):
    out = load_text(dump(p))
    col = out.merged.values["samples"]
    for i in range(len(col)):
        col[i] *= k
    return out


def dump(p) -> str:
    buf = io.StringIO()
    write_profile(p, buf)
    return buf.getvalue()


def load_text(text: str):
    return from_dict(json.loads(text))


@settings(max_examples=150, deadline=None)
@given(trees())
def test_a_tree_is_identical_to_itself(a):
    sim = similarity(a, a, threshold=0.1)
    assert sim.overlap == pytest.approx(1.0)
    assert sim.coverage_a_over_b == sim.coverage_b_over_a == 1.0
    assert sim.top_agreement == 1.0
    assert sim.correlation is None or sim.correlation == pytest.approx(1.0)
    assert sim.method_correlation is None or sim.method_correlation == pytest.approx(1.0)


@settings(max_examples=150, deadline=None)
@given(trees(), trees(), st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_symmetry_and_bounds(a, b, t):
    ab, ba = similarity(a, b, threshold=t), similarity(b, a, threshold=t)
    assert 0.0 <= ab.overlap <= 1.0 + 1e-12
    assert ab.overlap == pytest.approx(ba.overlap)  # Figure 5.5 is symmetric
    assert ab.coverage_a_over_b == ba.coverage_b_over_a  # Figure 5.6 is not; its mirror is
    assert ab.hot_both * 1.0 == pytest.approx((ab.coverage_a_over_b or 0) * ab.hot_b)
    assert ab.top_agreement == ba.top_agreement
    for x, y in ((ab.correlation, ba.correlation), (ab.method_correlation, ba.method_correlation)):
        assert (x is None) == (y is None) and (x is None or x == pytest.approx(y))


@settings(max_examples=100, deadline=None)
@given(trees(), trees(), st.integers(2, 1000), st.sampled_from([0.0, 0.1, 0.3]))
def test_invariant_under_scaling(a, b, k, t):
    """A run k times as long (or sampled k times as often, in expectation) compares the same."""
    one, many = similarity(a, b, threshold=t), similarity(scaled(a, k), b, threshold=t)
    assert many.overlap == pytest.approx(one.overlap)
    assert (many.coverage_a_over_b, many.coverage_b_over_a) == (one.coverage_a_over_b, one.coverage_b_over_a)
    assert many.top_agreement == one.top_agreement and many.top_a == one.top_a
    assert (many.correlation is None) == (one.correlation is None)
    if one.correlation is not None:
        assert many.correlation == pytest.approx(one.correlation)


@settings(max_examples=60, deadline=None)
@given(trees())
def test_disjoint_trees_do_not_overlap(a):
    renamed = load_text(dump(a).replace("p.C.", "q.D."))
    sim = similarity(a, renamed)
    assert sim.overlap == 0.0 and sim.coverage_a_over_b == 0.0 and sim.top_agreement == 0.0


@settings(max_examples=60, deadline=None)
@given(a=trees())
def test_the_writer_round_trips(tmp_path_factory, a):
    path = tmp_path_factory.mktemp("writer") / "p.json"
    text = dump(a)
    path.write_text(text)
    back = load(str(path))
    assert list(back.merged.parent) == list(load_text(text).merged.parent)
    assert similarity(a, back).overlap == pytest.approx(1.0)
    assert back.merged.total("samples") == a.merged.total("samples")
    # the runtime's layout: one context per line (the streaming reader's fast path)
    assert all(line.startswith(('{"method":', '"root":{"method":')) for line in text.splitlines()[1:-1])


# --------------------------------------------------------------------------- the command


@pytest.fixture()
def files(tmp_path):
    out = {}
    for name, p in (("a", A), ("b", B)):
        path = tmp_path / f"{name}.json"
        path.write_text(dump(p))
        out[name] = path
    return out


def run(capsys, *args) -> tuple[int, str, str]:
    code = jprewrite_main(["compare", *map(str, args)])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_command_text_and_json(files, capsys):
    code, out, err = run(capsys, files["a"], files["b"])
    assert code == 0 and not err
    assert "degree of overlap              50.0%" in out
    assert "hot-edge coverage A over B     66.7%" in out and "(2 of B's 3 hot edges are hot in A; T = 0.1)" in out
    assert "top-10 hot methods agree" in out and "M.g" in out and "!" in out
    code, out, _ = run(capsys, files["a"], files["b"], "--json", "--threshold", "0.5")
    doc = json.loads(out)
    assert doc["metric"] == "samples" and doc["overlap"] == pytest.approx(0.5)
    assert doc["coverage_a_over_b"] == pytest.approx(1 / 3) and doc["coverage_b_over_a"] == pytest.approx(0.5)
    assert {tuple(e["path"]) for e in doc["hot_edges"]} >= {("m.M.main()V", "m.M.f()V")}


def test_command_on_calls(tmp_path, capsys):
    """Exact profiles compare on calls or bytecodes (an edge's weight: its calls, as in Zhuang et al.)."""
    a = profile(node("m.M.main()V", 0, node("m.M.f()V", calls=30), node("m.M.g()V", calls=10), calls=1))
    path = tmp_path / "calls.json"
    path.write_text(dump(a))
    code, out, _ = run(capsys, path, path)
    assert code == 0 and "degree of overlap             100.0%" in out and "0 calls" not in out


def test_samples_against_bytecodes_of_one_hybrid_profile(tmp_path, capsys):
    """--metric-b: a hybrid profile's samples against its own exact bytecodes, context by context."""

    def ctx(name: str, bytecodes: int, samples: int, *children: dict) -> dict:
        return dict(node(name, samples, *children, calls=1), bytecodes=bytecodes)

    p = from_dict(
        {
            "format": "jprewrite-profile",
            "version": 1,
            "root": node(ROOT, 0, ctx("m.M.main()V", 100, 1, ctx("m.M.f()V", 300, 3), ctx("m.M.g()V", 600, 6))),
        }
    )
    sim = similarity(p, p, metric="samples", metric_b="bytecodes")
    assert sim.overlap == pytest.approx(1.0) and sim.correlation == pytest.approx(1.0)
    path = tmp_path / "hybrid.json"
    path.write_text(dump(p))
    code, out, _ = run(capsys, path, path, "--metric", "samples", "--metric-b", "bytecodes")
    assert code == 0 and "10 samples in 3 contexts" in out and "1,000 bytecodes in 3 contexts" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["{a}", "{missing}"], "cannot read"),
        (["{a}", "{bad}"], "not a JSON profile"),
        (["{a}", "{b}", "--threshold", "2"], "--threshold must be between 0 and 1"),
        (["{a}", "{b}", "--metric", "bytecodes"], "the profile has no bytecodes"),
        (["{a}", "{b}", "--thread", "main"], "no thread named 'main'"),
        (["{a}", "{b}", "--app-only", "zzz."], "no samples left in the application frames"),
        (["{a}", "{b}", "--metric", "weighted"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(files, tmp_path, capsys, args, message):
    (tmp_path / "bad.json").write_text("{not json")
    names = {"a": files["a"], "b": files["b"], "missing": tmp_path / "nope.json", "bad": tmp_path / "bad.json"}
    code, out, err = run(capsys, *[a.format(**names) for a in args])
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and message in err, err
