"""Load-time profiling with the -javaagent jar: same program output, the offline rewrite's CCT, a cache
that makes the second run start without Python, and failures that never break the application.

Everything is real: the agent jar built from runtime-java/, the Python worker it starts, javac/java,
-Xverify:all.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from jprewrite.cli.main import main as jprewrite_main

from support.agent import agent_options, run_with_agent
from support.jdk import javac, tool
from support.oracle import diff_profiles, run_oracle
from support.profiling import find, rewrite, run_java
from support.samples import sample_main, sample_names
from test_cct_oracle import built  # noqa: F401  (fixture: compiled sample jars)

# jni needs gcc and a library path; the uninstrumented samples need their plugin: own tests elsewhere
NAMES = [n for n in sample_names() if n not in ("jni", "uninstrumented")]
WARNING = "jprewrite agent:"


def _cache_files(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*") if p.is_file() and not p.name.startswith("."))


@pytest.mark.parametrize("name", NAMES)
def test_sample_under_agent_equals_offline_rewrite_and_warm_run_needs_no_python(built, name: str) -> None:  # noqa: F811
    work, jar = built(name)
    main = sample_main(name)
    jvm = ("-Xss64m",) if name == "recursion" else ()
    plain = run_java([jar], main, jvm=jvm)
    assert plain.returncode == 0, plain.stderr
    offline_jar = work / f"{name}-offline.jar"
    rewrite([jar], offline_jar, "--counting", "precise")
    offline = run_java([offline_jar], main, profile=work / "offline.json", jvm=("-Xverify:all", *jvm))
    assert offline.returncode == 0 and offline.stdout == plain.stdout, offline.stderr

    cache = work / "agent-cache"
    cold = run_with_agent(
        [jar],
        [main],
        agent_options(cache, work / "cold.json", counting="precise", progress="false"),
        profile=work / "cold.json",
        jvm=("-Xverify:all", *jvm),
    )
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout == plain.stdout
    assert WARNING not in cold.stderr, cold.stderr
    differences = diff_profiles(offline.profile, cold.profile, threads=True)
    assert not differences, "\n".join(differences[:40])
    assert _cache_files(cache), "the cold run stored nothing"

    # warm: every class comes from the cache; a worker would have to be started with a Python that
    # does not exist, which the agent would report
    warm_options = agent_options(cache, work / "warm.json", counting="precise", python="/nonexistent/python")
    warm = run_with_agent([jar], [main], warm_options, profile=work / "warm.json", jvm=("-Xverify:all", *jvm))
    assert warm.returncode == 0 and warm.stdout == plain.stdout, warm.stderr
    assert WARNING not in warm.stderr, warm.stderr
    assert not diff_profiles(offline.profile, warm.profile, threads=True)


def test_fig4_counts_under_agent_match_the_paper_and_the_jdi_oracle(tmp_path) -> None:
    case = Path(__file__).parent / "oracle_cases" / "fig4"
    classes = tmp_path / "classes"
    subprocess.run([tool("javac"), "-g", "-d", str(classes), *map(str, case.rglob("*.java"))], check=True)
    main = "com.example.fig4.Main"
    run = run_with_agent(
        [classes],
        [main],
        agent_options(tmp_path / "cache", tmp_path / "p.json", counting="precise"),
        profile=tmp_path / "p.json",
    )
    assert run.returncode == 0, run.stderr
    oracle = run_oracle([classes], main, app_patterns=("com.example.",), timeout=600)
    from test_cct_oracle import without_object_init

    expected = {**oracle.profile, "root": without_object_init(oracle.profile["root"])}
    assert not diff_profiles(expected, run.profile)
    f = find(run.profile, "Main.main([Ljava/lang/String;)V", "Foo.f()V")
    assert f["calls"] == 1
    assert find(run.profile, "Main.main([Ljava/lang/String;)V", "Foo.f()V", "Foo.h()V")["calls"] == 10
    g = find(run.profile, "Main.main([Ljava/lang/String;)V", "Foo.f()V", "Foo.g(I)V")
    assert g["calls"] == 10
    assert find(run.profile, "Main.main([Ljava/lang/String;)V", "Foo.f()V", "Foo.g(I)V", "Foo.h()V")["calls"] == 55


def test_agent_path_and_run_command(built, tmp_path, capsys) -> None:  # noqa: F811
    assert jprewrite_main(["agent-path"]) == 0
    jar = Path(capsys.readouterr().out.strip())
    with zipfile.ZipFile(jar) as z:
        manifest = z.read("META-INF/MANIFEST.MF").decode()
        names = set(z.namelist())
    assert "Premain-Class: jprewrite.agent.Agent" in manifest
    assert "jprewrite/runtime/Node.class" in names and "jprewrite/agent/build.properties" in names
    work, sample = built("demo")
    profile = tmp_path / "demo.json"
    cmd = [
        sys.executable,
        "-m",
        "jprewrite.cli.main",
        "run",
        "--output",
        str(profile),
        "--cache",
        str(tmp_path / "cache"),
        "--counting",
        "precise",
        "--",
        "-cp",
        str(sample),
        sample_main("demo"),
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout == run_java([sample], sample_main("demo"), jvm=()).stdout
    assert profile.exists()
    bad = subprocess.run(
        [sys.executable, "-m", "jprewrite.cli.main", "run", "--counting", "bogus", "--", "-version"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


# ----------------------------------------------------------------------------- failures

PHASES = {
    "com/example/phases/Main.java": """
package com.example.phases;
import java.nio.file.*;
public class Main {
    public static void main(String[] args) throws Exception {
        System.out.println("early " + Early.work(7));
        System.out.flush();
        Path go = Paths.get(args[0]);
        long deadline = System.currentTimeMillis() + 120_000;
        while (!Files.exists(go) && System.currentTimeMillis() < deadline) Thread.sleep(10);
        System.out.println("late " + LateA.work(5) + " " + new LateB().work(3) + " " + LateC.work(2));
        ((Runnable) Class.forName("com.example.phases.Task").getDeclaredConstructor().newInstance()).run();
    }
}
""",
    "com/example/phases/Early.java": """
package com.example.phases;
public class Early { static int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * i; return s; } }
""",
    "com/example/phases/LateA.java": """
package com.example.phases;
public class LateA { static int work(int n) { return n <= 1 ? 1 : n * work(n - 1); } }
""",
    "com/example/phases/LateB.java": """
package com.example.phases;
public class LateB {
  int work(int n) {
    StringBuilder b = new StringBuilder(); for (int i = 0; i < n; i++) b.append(i); return b.toString().hashCode();
  }
}
""",
    "com/example/phases/Task.java": """
package com.example.phases;
public class Task implements Runnable { public void run() { System.out.println("task " + LateA.work(4)); } }
""",
    "com/example/phases/LateC.java": """
package com.example.phases;
public class LateC { static int work(int n) { return LateA.work(n) + 1; } }
""",
}


@pytest.fixture(scope="module")
def phases(tmp_path_factory) -> Path:
    return javac(PHASES, tmp_path_factory.mktemp("phases") / "classes")


def _expected_phases(phases: Path, tmp_path: Path) -> str:
    go = tmp_path / "go-plain"
    go.touch()
    return run_java([phases], "com.example.phases.Main", str(go), jvm=()).stdout


def _worker_pids(java_pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(java_pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def test_worker_killed_mid_run_keeps_the_application_running(phases, tmp_path) -> None:
    expected = _expected_phases(phases, tmp_path)
    go = tmp_path / "go"
    profile = tmp_path / "p.json"
    proc = run_with_agent(
        [phases], ["com.example.phases.Main", str(go)], agent_options(tmp_path / "cache", profile), wait=False
    )
    try:
        first = proc.stdout.readline()
        assert first.startswith("early"), first + proc.stderr.read()
        pids = _worker_pids(proc.pid)
        assert pids, "no worker process was started"
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
        go.touch()
        rest, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert first + rest == expected
    assert err.count(WARNING) >= 1 and "worker" in err, err
    from jprewrite.cli.report_command import load_profile

    data = load_profile(str(profile))
    # classes loaded after the kill are profiled by the restarted worker
    assert find(data, "Main.main([Ljava/lang/String;)V", "LateC.work(I)I", "LateA.work(I)I")["calls"] == 1


@pytest.mark.parametrize("worker", ["/bin/false", "/nonexistent/worker", "sleep 600"])
def test_a_worker_that_fails_or_hangs_leaves_the_program_uninstrumented(phases, tmp_path, worker) -> None:
    expected = _expected_phases(phases, tmp_path)
    go = tmp_path / "go"
    go.touch()
    started = time.monotonic()
    run = run_with_agent(
        [phases],
        ["com.example.phases.Main", str(go)],
        agent_options("none", tmp_path / "p.json", worker=worker, timeout="3"),
        profile=tmp_path / "p.json",
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == expected
    lines = [line for line in run.stderr.splitlines() if line.startswith(WARNING)]
    assert 1 <= len(lines) <= 2, run.stderr  # one warning, and the one of the failed restart
    assert time.monotonic() - started < 60


def test_corrupt_cache_entries_are_rewritten_again(phases, tmp_path) -> None:
    expected = _expected_phases(phases, tmp_path)
    go = tmp_path / "go"
    go.touch()
    cache = tmp_path / "cache"
    first = run_with_agent(
        [phases],
        ["com.example.phases.Main", str(go)],
        agent_options(cache, tmp_path / "a.json"),
        profile=tmp_path / "a.json",
    )
    assert first.returncode == 0 and first.stdout == expected
    entries = _cache_files(cache)
    assert len(entries) >= 5
    for i, p in enumerate(entries):
        data = bytearray(p.read_bytes())
        if i % 3 == 0:
            p.write_bytes(bytes(data[: len(data) // 2]))  # truncated
        elif i % 3 == 1:
            data[len(data) // 2] ^= 0xFF  # a flipped byte
            p.write_bytes(bytes(data))
        else:
            p.write_bytes(b"garbage")
    second = run_with_agent(
        [phases],
        ["com.example.phases.Main", str(go)],
        agent_options(cache, tmp_path / "b.json"),
        profile=tmp_path / "b.json",
    )
    assert second.returncode == 0 and second.stdout == expected, second.stderr
    assert not diff_profiles(first.profile, second.profile)
    # and the entries were replaced by good ones: a third run needs no Python
    third = run_with_agent(
        [phases],
        ["com.example.phases.Main", str(go)],
        agent_options(cache, tmp_path / "c.json", python="/nonexistent/python"),
        profile=tmp_path / "c.json",
    )
    assert third.returncode == 0 and WARNING not in third.stderr, third.stderr
    assert not diff_profiles(first.profile, third.profile)


def test_a_class_that_cannot_be_rewritten_keeps_its_contract(phases, tmp_path) -> None:
    """The injected failure makes LateA's full rewrite fail: it gets delegating ESI methods only, so
    LateC (rewritten, passing it nodes) still links; reported once."""
    expected = _expected_phases(phases, tmp_path)
    go = tmp_path / "go"
    go.touch()
    env_fail = {"JPREWRITE_AGENT_FAIL": "com.example.phases.LateA"}
    run = _run_env(phases, go, tmp_path, env_fail)
    assert run.returncode == 0 and run.stdout == expected, run.stderr
    reports = [line for line in run.stderr.splitlines() if "LateA" in line]
    assert len(reports) == 1 and "stays uninstrumented" in reports[0], run.stderr
    late_a = find(run.profile, "Main.main([Ljava/lang/String;)V", "LateA.work(I)I")
    assert late_a["kind"] == "uninstrumented" and late_a["calls"] == 1
    # both Python forms fail: the agent gives the class its contract itself, in Java (one report;
    # tests/test_agent_fallback.py covers callers rewritten earlier; see docs/agent.md)
    both = {
        "JPREWRITE_AGENT_FAIL": "com.example.phases.Task",
        "JPREWRITE_AGENT_FAIL_CONTRACT": "com.example.phases.Task",
    }
    run = _run_env(phases, go, tmp_path, both)
    assert run.returncode == 0 and run.stdout == expected, run.stderr
    assert sum("Task" in line for line in run.stderr.splitlines()) == 1, run.stderr


def _run_env(phases: Path, go: Path, tmp_path: Path, env: dict[str, str]):
    profile = tmp_path / f"p{len(list(tmp_path.glob('p*.json')))}.json"
    cmd = [
        tool("java"),
        "-Xverify:all",
        f"-javaagent:{_agent()}={agent_options('none', profile)}",
        "-cp",
        str(phases),
        "com.example.phases.Main",
        str(go),
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, **env})
    from jprewrite.cli.report_command import load_profile

    from support.agent import AgentRun

    return AgentRun(p.stdout, p.stderr, p.returncode, load_profile(str(profile)) if profile.exists() else None)


def _agent() -> Path:
    from jprewrite.agent.build import agent_jar

    return agent_jar()


@pytest.mark.parametrize(
    "options,message",
    [
        ("foo=1", "unknown"),
        ("counting=bogus", "counting"),
        ("allocations=maybe", "allocations"),
        ("timeout=-3", "timeout"),
        ("weights=/nonexistent/weights.txt", "weights"),
        ("output", "output"),
    ],
)
def test_bad_options_fail_fast_at_start_up(phases, tmp_path, options, message) -> None:
    go = tmp_path / "go"
    go.touch()
    run = run_with_agent([phases], ["com.example.phases.Main", str(go)], options, timeout=60)
    assert run.returncode != 0
    assert run.stdout == ""  # main never ran
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(WARNING) and message in lines[0], run.stderr


GENERATED = {
    "com/example/gen/Main.java": """
package com.example.gen;
import java.nio.file.*;
public class Main {
    public interface Op { int apply(int x); }
    static final class Loader extends ClassLoader {
        Loader() { super(Main.class.getClassLoader()); }
        Class<?> define(String name, byte[] b) { return defineClass(name, b, 0, b.length); }
    }
    public static void main(String[] args) throws Exception {
        byte[] bytes = Files.readAllBytes(Paths.get(args[0]));   // a class that is on no class path
        Class<?> c = new Loader().define("com.example.gen.Twice", bytes);
        Op op = (Op) c.getDeclaredConstructor().newInstance();
        int s = 0;
        for (int i = 0; i < 10; i++) s += op.apply(i);
        System.out.println("sum " + s);
    }
}
""",
    "com/example/gen/Twice.java": """
package com.example.gen;
public class Twice implements Main.Op {
    public int apply(int x) { return helper(x) * 2; }
    private static int helper(int x) { return x + 1; }
}
""",
}


def test_classes_defined_at_run_time_are_instrumented(tmp_path) -> None:
    """A class defined from bytes by the program's own loader (no .class on any class path) goes
    through the worker like any other: it gets a node under its caller, with its own callees."""
    classes = javac(GENERATED, tmp_path / "classes")
    generated = tmp_path / "Twice.class"
    (classes / "com" / "example" / "gen" / "Twice.class").rename(generated)
    plain = run_java([classes], "com.example.gen.Main", str(generated), jvm=())
    assert plain.returncode == 0 and plain.stdout == "sum 110\n", plain.stderr
    profile = tmp_path / "p.json"
    run = run_with_agent(
        [classes],
        ["com.example.gen.Main", str(generated)],
        agent_options(tmp_path / "cache", profile, counting="precise", progress="false"),
        profile=profile,
    )
    assert run.returncode == 0 and run.stdout == plain.stdout, run.stderr
    assert WARNING not in run.stderr, run.stderr
    apply = find(run.profile, "Main.main([Ljava/lang/String;)V", "Twice.apply(I)I")
    assert apply["calls"] == 10 and apply.get("kind", "instrumented") == "instrumented"
    assert find(run.profile, "Main.main([Ljava/lang/String;)V", "Twice.apply(I)I", "Twice.helper(I)I")["calls"] == 10
