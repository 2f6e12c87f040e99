"""The sampling backend of the Java runtime (issue 12), with real JVMs.

The programs in ``tests/sampling_cases/`` place yieldpoints by hand (``if (Sampling.requested != 0)
Sampling.yieldpoint(...)`` after a method's entry and at loop headers, where hybrid mode's rewriting
places them; ``Fresh``'s ``entries`` as sample mode's does: ``Sampling.entry()`` at the entry, a
yieldpoint before the return), so these tests do not wait for the rewriter: they check the runtime's
side of the contract (docs/runtime-contract.md, "Sampling"). The safepoint sampler needs no
yieldpoints and runs under the real agent.

The machine these run on is shared and loaded, so nothing here asserts timings; shares are asserted
within a stated tolerance, counts of samples only loosely.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from jprewrite.agent import agent_jar
from jprewrite.agent.options import interval_ns, parse_options
from jprewrite.errors import JprewriteError
from jprewrite.rewrite.runtime_build import runtime_classes

from support.jdk import javac_tree, tool

CASES = Path(__file__).parent / "sampling_cases"
#: shares of CPU time within this many percentage points of 70/20/10
TOLERANCE = 0.08
SELF = ("partial", "incremental")
#: for tests that count samples at 1 ms: the default grace period (50 µs) loses the ticket of a thread
#: that waits for a CPU, which on the loaded test machine is most rounds
GRACE = {"jprewrite.sample-grace": "500us"}


@pytest.fixture(scope="session")
def runtime_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runtime")
    for name, data in runtime_classes().items():
        p = out / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return out


@pytest.fixture(scope="session")
def agent() -> Path:
    return agent_jar()


@pytest.fixture(scope="session")
def cases(tmp_path_factory, agent) -> Path:
    out = tmp_path_factory.mktemp("sampling-cases")
    return javac_tree(CASES, out, agent)


class Java:
    """Runs a case program in its own directory; returns the process and the profile it wrote."""

    def __init__(self, runtime_dir: Path, cases: Path, agent: Path, tmp: Path) -> None:
        self.runtime_dir, self.cases, self.agent, self.tmp = runtime_dir, cases, agent, tmp
        self.runs = 0

    def __call__(
        self,
        main: str,
        *args: str,
        props: dict[str, str] | None = None,
        agent: str | None = None,
        returncode: int = 0,
        stdin: bool = False,
        classpath: Path | None = None,
        timeout: float = 120,
        jvm: tuple[str, ...] = (),
    ) -> tuple[subprocess.CompletedProcess, dict]:
        self.runs += 1
        profile = self.tmp / f"profile-{self.runs}.json"
        props = {"jprewrite.output": str(profile), **(props or {})}
        cmd = [tool("java"), "-Xshare:auto", *jvm]
        if classpath is not None:
            cp = str(classpath)  # a rewritten jar: it carries the runtime
        elif agent is not None:
            cmd.append(f"-javaagent:{self.agent}={agent},output={profile}")
            cp = str(self.cases)
        else:
            cp = os.pathsep.join([str(self.cases), str(self.runtime_dir)])
        cmd += ["-cp", cp, *[f"-D{k}={v}" for k, v in props.items()], main, *args]
        proc = subprocess.run(
            cmd,
            cwd=self.tmp,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            env={**os.environ, "XDG_CACHE_HOME": str(self.tmp / "cache")},
        )
        assert proc.returncode == returncode, (proc.returncode, proc.stdout, proc.stderr)
        data = json.loads(profile.read_text()) if profile.exists() else {}
        return proc, data


@pytest.fixture
def java(runtime_dir, cases, agent, tmp_path) -> Java:
    return Java(runtime_dir, cases, agent, tmp_path)


# ------------------------------------------------------------------------------------------ helpers


def short(node: dict) -> str:
    return node["method"].split("(")[0].rsplit(".", 1)[-1]


def inclusive(node: dict, key: str = "samples") -> int:
    return node.get(key, 0) + sum(inclusive(c, key) for c in node["children"])


def by_method(root: dict, names: tuple[str, ...]) -> dict[str, int]:
    """Inclusive samples of the outermost contexts of each named method (short name)."""
    out = dict.fromkeys(names, 0)
    stack = [root]
    while stack:
        n = stack.pop()
        if short(n) in names:
            out[short(n)] += inclusive(n)
        else:
            stack.extend(n["children"])
    return out


def nodes(root: dict):
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n["children"])


def strip(node: dict) -> dict:
    """A tree without its samples, children in a fixed order: what exact mode would have written."""
    return {
        **{k: v for k, v in node.items() if k not in ("samples", "fresh", "children")},
        "children": sorted((strip(c) for c in node["children"]), key=lambda c: c["method"]),
    }


def assert_shares(profile: dict) -> dict[str, int]:
    counts = by_method(profile["root"], ("a", "b", "c", "blocked"))
    total = counts["a"] + counts["b"] + counts["c"]
    assert total >= 300, (counts, profile["sampling"])
    shares = {k: counts[k] / total for k in "abc"}
    for k, want in zip("abc", (0.7, 0.2, 0.1)):
        assert abs(shares[k] - want) <= TOLERANCE, (shares, counts, profile["sampling"])
    return counts


def check_sampling(profile: dict, sampler: str, mode: str) -> dict:
    s = profile["sampling"]
    assert {"sampler", "interval_ns", "rounds", "samples", "lost", "latency_ns"} <= set(s)
    assert s["sampler"] == sampler and s["mode"] == mode
    assert set(s["latency_ns"]) >= {"median", "p97_5", "max"}
    assert s["latency_ns"]["median"] <= s["latency_ns"]["p97_5"] <= s["latency_ns"]["max"]
    assert s["rounds"] > 0 and s["samples"] > 0
    # every sample is on some node: the tree's samples add up to the count (give or take a sample
    # finished after its round was closed: a thread descheduled in the middle of sampling itself)
    assert 0 <= inclusive(profile["root"]) - s["samples"] <= 2, (inclusive(profile["root"]), s)
    for n in nodes(profile["root"]):
        assert n.get("fresh", 0) <= n.get("samples", 0) or n["children"], n["method"]
    return s


# ------------------------------------------------------------------------------------------ samplers


def test_safepoint_sampler_finds_the_shares_without_rewriting_or_python(java) -> None:
    # python= a path that does not exist: had the agent started its worker, it would have said so
    proc, p = java(
        "Shares",
        "plain",
        "2500",
        agent="mode=sample,sampler=safepoint,interval=1ms,python=/nonexistent/python,cache=none",
    )
    assert proc.stderr == "", proc.stderr
    counts = assert_shares(p)
    assert counts["blocked"] <= 4, counts  # caught at its start, still runnable; never while blocked
    s = check_sampling(p, "safepoint", "sample")
    assert s["lost"] == 0
    # no rewriting: no calls, no bytecodes, no MethodIds of rewritten code
    assert all(n["calls"] == 0 and n["bytecodes"] == 0 for n in nodes(p["root"]))


def test_stack_trace_frames_get_the_descriptor_of_their_overload(java) -> None:
    """A stack trace names methods without descriptors: overloads are told apart by the frame's line."""
    proc, p = java("Overloads", "1500", agent="mode=sample,sampler=safepoint,interval=1ms,cache=none")
    hot = {
        n["method"]: inclusive(n) for n in nodes(p["root"]) if "spin" in n["method"] or "Long.toString" in n["method"]
    }
    assert hot.get("Overloads.spin(J)V", 0) >= 0.8 * p["sampling"]["samples"], hot
    assert hot.get("java.lang.Long.toString(J)Ljava/lang/String;", 0) > 0, hot
    assert not {"Overloads.spin()V", "Overloads.spin(I)V", "java.lang.Long.toString()Ljava/lang/String;"} & set(hot)


@pytest.mark.parametrize("sampler", SELF)
def test_self_sampling_finds_the_shares_and_leaves_blocked_threads_alone(java, sampler) -> None:
    proc, p = java(
        "Shares",
        "yield",
        "2500",
        props={"jprewrite.mode": "sample", "jprewrite.sampler": sampler, "jprewrite.interval": "1ms", **GRACE},
    )
    counts = assert_shares(p)
    # a blocked thread may take a sample at the yieldpoint where its method starts, while it still
    # runs; never one while blocked
    assert counts["blocked"] <= 4, counts
    s = check_sampling(p, sampler, "sample")
    assert s["waiting_samples"] == 0
    assert s["threads_seen"] >= 3


@pytest.mark.parametrize("sampler", ("safepoint", *SELF))
def test_waiting_threads_are_sampled_when_asked(java, sampler) -> None:
    if sampler == "safepoint":
        proc, p = java(
            "Shares", "plain", "1500", agent="mode=sample,sampler=safepoint,interval=1ms,sample-waiting=true,cache=none"
        )
    else:
        proc, p = java(
            "Shares",
            "yield",
            "1500",
            props={
                "jprewrite.mode": "sample",
                "jprewrite.sampler": sampler,
                "jprewrite.interval": "1ms",
                **GRACE,
                "jprewrite.sample-waiting": "true",
            },
        )
    counts = by_method(p["root"], ("a", "b", "c", "blocked"))
    s = check_sampling(p, sampler, "sample")
    assert counts["blocked"] >= 20, (counts, s)
    assert s["waiting_samples"] >= counts["blocked"] - 4
    blocked = [t for t in p["threads"] if t["name"].startswith("blocked-")]
    assert len(blocked) == 4 and all(inclusive(t["root"]) > 0 for t in blocked)


@pytest.mark.parametrize("sampler", ("safepoint", *SELF))
def test_hybrid_samples_land_on_the_exact_nodes(java, sampler) -> None:
    proc, p = java(
        "Hybrid",
        "shares",
        "2000",
        props={"jprewrite.mode": "hybrid", "jprewrite.sampler": sampler, "jprewrite.interval": "1ms", **GRACE},
    )
    counts = assert_shares(p)
    assert counts["blocked"] <= 4, counts
    check_sampling(p, sampler, "hybrid")
    work = [n for n in nodes(p["root"]) if short(n) == "work"]
    assert len(work) == 1 and work[0]["calls"] == 3
    calls = {short(c): c["calls"] for c in work[0]["children"]}
    assert set(calls) == {"a", "b", "c"} and calls["a"] == calls["b"] == calls["c"] > 0
    # samples only on contexts the exact tree has: every node was entered
    assert all(n["calls"] > 0 for n in nodes(p["root"]) if n["method"] != "<root>")


def test_hybrid_fresh_tells_frequently_called_from_long_running(java) -> None:
    proc, p = java(
        "Hybrid",
        "fresh",
        "1500",
        props={"jprewrite.mode": "hybrid", "jprewrite.sampler": "incremental", "jprewrite.interval": "1ms", **GRACE},
    )
    check_sampling(p, "incremental", "hybrid")
    n = {short(c): c for c in nodes(p["root"])}
    quick, slow = n["quick"], n["slow"]
    # 1.5 s of the thread's CPU time, about half each: hundreds of samples each on a quiet machine
    assert quick["samples"] >= 20 and slow["samples"] >= 20, (quick, slow)
    # every sample of quick is in an activation begun since the previous sample; slow's only the first
    assert quick["fresh"] >= 0.9 * quick["samples"], quick
    assert slow["fresh"] <= slow["calls"] + 1, slow


@pytest.mark.parametrize("sampler", SELF)
def test_sample_mode_fresh_frames(java, sampler) -> None:
    proc, p = java(
        "Fresh",
        "1500",
        props={"jprewrite.mode": "sample", "jprewrite.sampler": sampler, "jprewrite.interval": "1ms", **GRACE},
    )
    check_sampling(p, sampler, "sample")
    n = {short(c): c for c in nodes(p["root"])}
    slow = n["slow"]
    activations = int(re.search(r"slow activations (\d+)", proc.stdout).group(1))
    # the run is 1.5 s of the thread's CPU time, half of it in slow, 20 ms an activation: even with
    # most tickets lost to a loaded machine, several samples an activation
    assert slow["samples"] >= max(60, 2 * activations), (slow, activations)
    # the first sample of an activation may be fresh, the others are not
    assert slow["fresh"] <= activations + 1, (slow, activations)
    # the thread's outer frames stay on the stack: fresh once, at the first sample
    run = next(c for c in nodes(p["root"]) if short(c) == "alternate")
    assert run["fresh"] <= inclusive(run) // 2


@pytest.mark.parametrize("sampler", SELF)
def test_sample_mode_a_sample_at_a_methods_entry_is_its_callers(java, sampler) -> None:
    """``Sampling.entry()``: nothing of the entered activation has run, so the time since the previous
    yieldpoint was the caller's. The caller's loop (no yieldpoint) and tiny's loop (a yieldpoint only
    before tiny's return) take about as long each: about half the samples each. Charged to the
    entered frame, as before, tiny took them all."""
    proc, p = java(
        "Fresh",
        "1500",
        "entries",
        props={"jprewrite.mode": "sample", "jprewrite.sampler": sampler, "jprewrite.interval": "1ms", **GRACE},
    )
    check_sampling(p, sampler, "sample")
    tiny = next(c for c in nodes(p["root"]) if short(c) == "tiny")
    entries = next(c for c in nodes(p["root"]) if short(c) == "entries")
    both = tiny.get("samples", 0) + entries.get("samples", 0)
    assert both >= 20, (tiny, entries)  # few on a loaded machine: a thread not running loses its ticket
    assert 0.25 <= entries.get("samples", 0) / both <= 0.75, (tiny, entries)
    # the caller stays on the stack all along: fresh once, at the first sample
    assert entries.get("fresh", 0) <= 2, entries


def test_hybrid_keeps_the_exact_counts(java) -> None:
    """The deterministic program's exact tree is the same with and without sampling (at 0.1 ms)."""
    _, exact = java("Hybrid", "exact", props={"jprewrite.mode": "exact"})
    _, hybrid = java("Hybrid", "exact", props={"jprewrite.mode": "hybrid", "jprewrite.interval": "100us"})
    assert "sampling" not in exact
    assert all("samples" not in n and "fresh" not in n for n in nodes(exact["root"]))
    assert hybrid["sampling"]["samples"] > 0

    assert strip(exact["root"]) == strip(hybrid["root"])
    # the same threads (in registration order, which the two det threads race for)
    assert sorted(t["name"] for t in exact["threads"]) == sorted(t["name"] for t in hybrid["threads"])
    exact_threads = {t["name"]: strip(t["root"]) for t in exact["threads"]}
    assert exact_threads == {t["name"]: strip(t["root"]) for t in hybrid["threads"]}


def rewritten_jars(cases: Path, out: Path, prefix: str) -> dict[str, Path]:
    """The case classes named ``prefix*`` in a jar, and that jar rewritten by the real rewriter in each mode."""
    plain = out / f"{prefix.lower()}.jar"
    with zipfile.ZipFile(plain, "w") as jar:
        for cls in sorted(cases.glob(f"{prefix}*.class")):
            jar.write(cls, cls.name)
    jars = {"plain": plain}
    for mode in ("exact", "sample", "hybrid"):
        jars[mode] = out / f"{prefix.lower()}-{mode}.jar"
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "jprewrite"), str(plain), str(jars[mode]), "--mode", mode, "-q"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
    return jars


@pytest.fixture(scope="module")
def det_jars(cases, tmp_path_factory) -> dict[str, Path]:
    """Det's classes rewritten by the real rewriter in each mode."""
    return rewritten_jars(cases, tmp_path_factory.mktemp("det"), "Det")


@pytest.fixture(scope="module")
def jdk_call_jars(cases, tmp_path_factory) -> dict[str, Path]:
    return rewritten_jars(cases, tmp_path_factory.mktemp("jdk-call"), "JdkCall")


#: sorting's share of the samples within this of its share of the thread's CPU time when every round
#: may take stack traces (observed: within 2.5 points on a quiet machine, 3 with two CPU hogs beside
#: the JVM; before the fix: 0 %)
JDK_CALL_TOLERANCE = 0.10
#: the same with one round in ten taking them (the default at 1 ms), over twice the CPU time: each trace
#: counts ten times, so the sort's count varies more (observed at 1.5 s: within 5.4 points quiet, 10.7
#: with two CPU hogs beside the JVM)
WEIGHTED_TOLERANCE = 0.15


@pytest.mark.parametrize("mode, sampler", [("sample", "partial"), ("sample", "incremental"), ("hybrid", "incremental")])
def test_time_in_a_long_jdk_call_is_sampled_under_its_caller(java, jdk_call_jars, mode, sampler) -> None:
    """A thread inside ``Arrays.sort`` reaches no yieldpoint for milliseconds: the sampler takes its stack
    trace once the round's grace period is over, so that the sort's time lands under ``sortPart`` (in
    sample mode with the JDK's frames beneath it, in hybrid mode on its ``Arrays.sort`` boundary node)."""
    proc, p = java(
        "JdkCall",
        "1500",
        classpath=jdk_call_jars[mode],
        # every round may take stack traces (k = 1): the mechanism itself, without k's variance
        props={"jprewrite.sampler": sampler, "jprewrite.interval": "1ms", "jprewrite.trace-interval": "1ms"},
    )
    s = check_sampling(p, sampler, mode)
    true_share = float(re.search(r"sort share ([0-9.]+)", proc.stdout).group(1))
    counts = by_method(p["root"], ("sortPart", "ownPart"))
    total = counts["sortPart"] + counts["ownPart"]
    assert total >= 200, (counts, s)
    assert abs(counts["sortPart"] / total - true_share) <= JDK_CALL_TOLERANCE, (counts, true_share, s)
    assert s["uninstrumented_samples"] > 0, s
    sort = next(n for n in nodes(p["root"]) if short(n) == "sortPart")
    below = {c["method"].split("(")[0] for c in nodes(sort) if c is not sort}
    assert "java.util.Arrays.sort" in below, below


@pytest.fixture(scope="module")
def native_call_jars(cases, tmp_path_factory) -> dict[str, Path]:
    return rewritten_jars(cases, tmp_path_factory.mktemp("native-call"), "NativeCall")


@pytest.mark.parametrize("mode, sampler", [("sample", "partial"), ("sample", "incremental"), ("hybrid", "incremental")])
def test_a_thread_in_native_code_costs_no_safepoint_and_keeps_its_own_samples(
    java, native_call_jars, mode, sampler, tmp_path
) -> None:
    """A thread spends about 70 % of its CPU time in ``Deflater``'s native zlib and the rest in a loop of
    its own. Native code is not sampled without ``sample-waiting``, but two things were wrong (measured
    at 1 ms, every round allowed to take stack traces): a stack trace (``Thread.getStackTrace()``, a
    global safepoint) in most rounds that found it there, 84-94 a run where the JVM now logs 3-7, and
    the thread was then marked quiet, so its own loop got 42-57 samples instead of about 470. The
    JVM's own safepoint log is the oracle for the pauses: those within the thread's run (main's own JDK
    calls before and after it, sampled by stack traces as they should be, took 20-30 more beside the
    suite's workers)."""
    log = tmp_path / "safepoints.log"
    proc, p = java(
        "NativeCall",
        "1500",
        classpath=native_call_jars[mode],
        props={"jprewrite.sampler": sampler, "jprewrite.interval": "1ms", "jprewrite.trace-interval": "1ms", **GRACE},
        jvm=(f"-Xlog:safepoint=info:file={log}:timenanos",),
    )
    s = check_sampling(p, sampler, mode)
    begin, end = map(int, re.search(r"window (\d+) (\d+)", proc.stdout).groups())
    times = [int(m) for m in re.findall(r'^\[(\d+)ns\] Safepoint "ThreadDump"', log.read_text(), re.M)]
    dumps = sum(begin <= t <= end for t in times)
    assert s["trace_every"] == 1 and len(times) >= s["stack_traces"], (times, s)
    assert dumps <= 20, (dumps, len(times), s)
    own_share = 1 - float(re.search(r"native share ([0-9.]+)", proc.stdout).group(1))
    own = by_method(p["root"], ("ownPart",))["ownPart"]
    # at most one sample per millisecond of the loop's CPU time (1,500 ms in all); a loaded machine loses
    # the tickets of a thread waiting for a CPU, and a thread that did not run is made quiet for a while:
    # observed 0.97 of that on a quiet machine, 0.24-0.5 beside the suite's two workers with the default
    # grace, 0.38-0.43 with three CPU hogs and this grace (before the fix: 0.09-0.12 quiet, 0.05-0.09
    # with the hogs)
    assert own >= NATIVE_OWN_FLOOR * 1500 * own_share, (own, own_share, s)


#: the least share of its expected samples the thread's own loop must get (see the test above)
NATIVE_OWN_FLOOR = 0.2


def test_stack_traces_of_jdk_code_are_taken_in_one_round_in_trace_every(java, jdk_call_jars) -> None:
    """At 1 ms with the default trace interval (10 ms) one round in ten may take stack traces, each
    counting ten times: the sort's share stays right, at a tenth of the global safepoints."""
    proc, p = java(
        "JdkCall",
        "3000",
        classpath=jdk_call_jars["sample"],
        props={"jprewrite.interval": "1ms"},
    )
    s = check_sampling(p, "incremental", "sample")
    assert s["trace_every"] == 10, s
    true_share = float(re.search(r"sort share ([0-9.]+)", proc.stdout).group(1))
    counts = by_method(p["root"], ("sortPart", "ownPart"))
    total = counts["sortPart"] + counts["ownPart"]
    assert abs(counts["sortPart"] / total - true_share) <= WEIGHTED_TOLERANCE, (counts, true_share, s)
    # the JDK-code samples come in multiples of ten, from at most a tenth of the rounds or so
    assert s["uninstrumented_samples"] >= 10 * 5, s
    assert s["stack_traces"] <= s["rounds"] / 5, s


def test_rewritten_hybrid_keeps_the_exact_tree_and_samples_it(java, det_jars) -> None:
    # 150 repetitions: about 0.1 s of CPU a thread (30, 20 ms, once took no sample on a loaded CI
    # machine: the sampler thread did not run while the workers did)
    _, exact = java("Det", "150", classpath=det_jars["exact"])
    _, hybrid = java("Det", "150", classpath=det_jars["hybrid"], props={"jprewrite.interval": "100us"})
    assert "sampling" not in exact
    assert hybrid["sampling"]["mode"] == "hybrid" and hybrid["sampling"]["samples"] > 0  # inferred
    assert strip(exact["root"]) == strip(hybrid["root"])
    assert {t["name"]: strip(t["root"]) for t in exact["threads"]} == {
        t["name"]: strip(t["root"]) for t in hybrid["threads"]
    }


@pytest.mark.parametrize("sampler", SELF)
def test_rewritten_sample_mode_samples_itself(java, det_jars, sampler) -> None:
    _, p = java(
        "Det",
        "400",  # about 0.3 s of CPU a thread: a loaded machine's sampler thread wakes late, and rarely
        classpath=det_jars["sample"],
        props={"jprewrite.sampler": sampler, "jprewrite.interval": "1ms", **GRACE},
    )
    s = check_sampling(p, sampler, "sample")  # mode inferred: no MethodIds in sample mode
    assert all(n["calls"] == 0 and n["bytecodes"] == 0 for n in nodes(p["root"]))
    names = {short(n) for n in nodes(p["root"]) if n.get("samples")}
    assert names & {"fib", "loop", "text", "toString", "hashCode"}, names
    assert s["threads_seen"] >= 1


@pytest.mark.parametrize("sampler", SELF)
def test_threads_that_cannot_reach_a_yieldpoint_never_hang_the_sampler(java, sampler) -> None:
    # stdin stays open and empty: one thread sits in a native read (RUNNABLE) all along
    proc, p = java(
        "Stuck",
        "1500",
        "200",
        stdin=True,
        timeout=90,
        props={"jprewrite.mode": "sample", "jprewrite.sampler": sampler, "jprewrite.interval": "1ms"},
    )
    s = check_sampling(p, sampler, "sample")
    names = {t["name"] for t in p["threads"]}
    assert "busy" in names
    assert not names & {"native-read", "sleeper", "no-yieldpoints"}, names
    # thread start and end under sampling: ended threads' samples are kept
    assert sum(1 for n in names if n.startswith("churn-")) >= 10, names
    # a round never outlives its interval by much: the latency is bounded (a sample started before the
    # deadline finishes after it), and tickets nobody could take are counted lost, not waited for
    assert s["rounds"] >= 300


@pytest.mark.parametrize("sampler", SELF)
def test_a_round_waiting_for_a_thread_that_never_comes_stays_armed_only_its_grace(java, sampler) -> None:
    """Four tickets, three runnable threads of which only ``busy`` reaches yieldpoints: the round
    cannot complete. ``busy`` samples itself, and then every yieldpoint it passes calls into the
    sampler until the round stops arming them: after its grace period (100 µs here), not at the next
    tick (20 ms), which on a busy machine is later still. Before this was fixed a round stayed armed
    to the tick: up to a million calls per such round (one loop iteration of ``busy`` takes at least
    a ``System.nanoTime()``, 15-40 ns); now busy ends the round itself, at the first 256th pass after
    the grace: at most 100 µs / 15 ns + 256 calls, about 7,000."""
    proc, p = java(
        "Stuck",
        "1500",
        "0",
        stdin=True,
        timeout=90,
        props={
            "jprewrite.mode": "sample",
            "jprewrite.sampler": sampler,
            "jprewrite.interval": "20ms",
            "jprewrite.sample-threads": "4",
            "jprewrite.sample-grace": "100us",
        },
    )
    s = check_sampling(p, sampler, "sample")
    assert s["grace_ns"] == 100_000
    assert s["rounds_expired"] >= 1, s  # the first round at least: the stuck threads were counted runnable
    assert s["armed_ns"]["count"] >= 0.9 * s["rounds"] - 2, s
    # every taken yieldpoint is counted: busy's first call of a round, then its passes through the
    # per-thread check while the round stays armed
    assert s["samples"] <= s["yieldpoint_calls"] <= s["samples"] + s["rounds"] + 20_000 * s["rounds_expired"], s


def test_the_yieldpoints_slow_path_is_never_inlined(runtime_dir) -> None:
    """``Sampler.pass`` must stay above C2's FreqInlineSize (325 bytes of bytecode): inlined, the
    sampler's code lands in every yieldpoint of every compiled method once rounds make the branch
    hot, and C2 falls behind (sunflow took 60 % more CPU for a few hundred samples)."""
    from jprewrite.classfile import read_class

    cf = read_class((runtime_dir / "jprewrite/runtime/Sampler.class").read_bytes())
    size = len(next(m for m in cf.methods if m.name == "pass").code().code)
    assert size > 325, size
    sampling = read_class((runtime_dir / "jprewrite/runtime/Sampling.class").read_bytes())
    for m in sampling.methods:
        if m.name == "yieldpoint":  # only forwards, below MaxInlineSize (35): inlined even where cold
            assert len(m.code().code) < 35, (m.descriptor, len(m.code().code))


def test_sample_waiting_takes_threads_stuck_in_native_code_too(java) -> None:
    """With sample-waiting, a thread that stays runnable but never reaches a yieldpoint (a native
    read) is sampled by the sampler thread, like a waiting one (Hofer §3.1 counts native as waiting)."""
    proc, p = java(
        "Stuck",
        "1500",
        "0",
        stdin=True,
        timeout=90,
        props={
            "jprewrite.mode": "sample",
            "jprewrite.sampler": "incremental",
            "jprewrite.interval": "1ms",
            "jprewrite.sample-waiting": "true",
        },
    )
    check_sampling(p, "incremental", "sample")
    samples = {t["name"]: inclusive(t["root"]) for t in p["threads"]}
    assert samples.get("busy", 0) > 0 and samples.get("sleeper", 0) > 0, samples
    assert samples.get("native-read", 0) + samples.get("no-yieldpoints", 0) > 0, samples
    assert not any(n.startswith(("Common-Cleaner", "Reference", "Signal")) for n in samples), samples


def test_collapsed_stacks_count_samples(java, tmp_path) -> None:
    collapsed = tmp_path / "stacks.txt"
    proc, p = java(
        "Fresh",
        "600",
        props={
            "jprewrite.mode": "sample",
            "jprewrite.sampler": "incremental",
            "jprewrite.interval": "1ms",
            "jprewrite.collapsed": str(collapsed),
        },
    )
    lines = collapsed.read_text().splitlines()
    total = sum(int(line.rsplit(" ", 1)[1]) for line in lines)
    assert total == p["sampling"]["samples"]
    assert any(line.split(" ")[0].endswith("Fresh.slow(J)V") for line in lines)


def test_exact_mode_writes_no_sampling(java) -> None:
    proc, p = java("Hybrid", "exact")  # no jprewrite.mode: hybrid inferred (MethodIds made first)
    assert p["sampling"]["mode"] == "hybrid"
    proc, p = java("Hybrid", "exact", props={"jprewrite.mode": "exact"})
    assert "sampling" not in p


# ------------------------------------------------------------------------------------------ options

BAD_PROPS = [
    ("jprewrite.mode", "fast"),
    ("jprewrite.interval", "10"),
    ("jprewrite.interval", "1s"),
    ("jprewrite.interval", "5us"),
    ("jprewrite.sampler", "jvmti"),
    ("jprewrite.sample-threads", "0"),
    ("jprewrite.sample-waiting", "yes"),
    ("jprewrite.sample-grace", "2"),
    ("jprewrite.sample-grace", "20ms"),  # longer than the default interval
    ("jprewrite.trace-interval", "1s"),
    ("jprewrite.trace-interval", "-10ms"),
]


@pytest.mark.parametrize(("key", "value"), BAD_PROPS)
def test_bad_system_property_is_one_line_and_exit_2(java, key, value) -> None:
    proc, p = java("Fresh", "100", props={key: value}, returncode=2)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"jprewrite: bad -D{key}={value}: "), proc.stderr
    assert proc.stdout == ""


BAD_AGENT = [
    "mode=fast",
    "interval=10",
    "interval=0.001us",
    "sampler=jvmti",
    "sample-threads=x",
    "sample-threads=0",
    "sample-waiting=1",
    "sampler",
]


@pytest.mark.parametrize("option", BAD_AGENT)
def test_bad_agent_option_is_one_line_and_exit_2(java, option) -> None:
    proc = subprocess.run(
        [tool("java"), f"-javaagent:{java.agent}={option}", "-version"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "known options:" in lines[0] and "sample-waiting" in lines[0], proc.stderr
    with pytest.raises(JprewriteError):
        parse_options(option)


def test_run_command_rejects_bad_sampling_options() -> None:
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "jprewrite"),
            "run",
            "--mode",
            "sample",
            "--interval",
            "5s",
            "--",
            "-version",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc
    assert len(proc.stderr.strip().splitlines()) == 1 and "interval" in proc.stderr


INTERVALS = [
    "10ms",
    "1ms",
    "0.1ms",
    "100us",
    "10us",
    "9us",
    "60000ms",
    "60001ms",
    "0.5ms",
    "1.25us",
    "10",
    "ms",
    "1.ms",
    ".5ms",
    "1e3us",
    "10MS",
    " 10ms",
    "1s",
    "-1ms",
    "0.0000001ms",
    "999999999999us",
]


def test_interval_rule_is_the_same_in_python_agent_and_runtime(cases, agent) -> None:
    runtime = subprocess.run(
        [tool("java"), "-cp", os.pathsep.join([str(cases), str(agent)]), "jprewrite.runtime.IntervalCheck", *INTERVALS],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    in_agent = subprocess.run(
        [
            tool("java"),
            "-cp",
            os.pathsep.join([str(cases), str(agent)]),
            "jprewrite.agent.AgentIntervalCheck",
            *INTERVALS,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    python = [str(interval_ns(i) if interval_ns(i) is not None else -1) for i in INTERVALS]
    assert runtime == in_agent == python, list(zip(INTERVALS, runtime, in_agent, python))
    assert python[:5] == ["10000000", "1000000", "100000", "100000", "10000"]


def test_agent_option_string_round_trips_the_sampling_keys() -> None:
    text = "mode=hybrid,interval=0.5ms,sampler=partial,sample-threads=3,sample-waiting=true"
    opts = parse_options(text)
    assert (opts.mode, opts.interval, opts.sampler, opts.sample_threads, opts.sample_waiting) == (
        "hybrid",
        "0.5ms",
        "partial",
        3,
        True,
    )
    assert opts.to_string() == text and opts.rewrites()
    assert not parse_options("mode=sample,sampler=safepoint").rewrites()
    assert parse_options("").to_string() == ""
