"""Frameworks that generate classes from rewritten classes while the program runs, or read them.

Mockito (libmockito-java) makes its mocks and spies as ByteBuddy subclasses of the mocked types,
and ByteBuddy (libbyte-buddy-java) implements its own ``Invoker`` interface at start-up by
generating a method for every method the interface has: under the agent, the rewritten
interface's ESI methods (``invoke$jp``) too. Such a class already declares what the rewriting
would add; it must stay as it is (it was once defined with two ``invoke$jp`` methods: a
``ClassFormatError`` inside ``Mockito.mock``).

Guice (libguice-java 4.2, with its own copy of cglib and ASM) intercepts methods of a class with
a cglib subclass. Two things once broke it: cglib's ``KeyFactory`` refuses a key interface that
does not declare exactly one method, and a rewritten key interface had a second, its default ESI
method (an interface declaring one instance method now gets none, and publishes); and cglib reads
the class file of a class with bridge methods to resolve them, which its ASM cannot for Java 17
class files, and the ESI methods were marked bridge (they are only synthetic now).

``support/programs/mocks/MockMain.java``: mocks with stubbed and verified calls, a spy whose real
method calls a protected one, a mocked interface whose default method is called for real, a
mocked ``List``, and ByteBuddy subclasses with a fixed value and a delegation.
``support/programs/guice/GuiceMain.java``: an injector with a singleton binding, field injection
and a method interceptor. ``support/programs/ser/SerMain.java``: Jackson, Gson and XStream write
and read beans of the program (getters and setters, public fields, arrays, maps), which reflect
over what the rewriting added (ESI methods, the marker field, the holder). Each prints the same lines with the program rewritten alone, with the
program and the libraries rewritten, and under the agent; the profile has the program's calls.
"""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from jprewrite.agent.build import agent_jar

from support.agent import agent_options, run_with_agent
from support.compilers import new_failures, rewrite_cli
from support.corpus import package_jars
from support.jdk import tool
from support.profiling import make_jar, run_java
from support.profiling import methods as methods_of
from support.verifier import verify_jvm

PROGRAMS = Path(__file__).resolve().parent / "support" / "programs"
PROGRAM = PROGRAMS / "mocks" / "MockMain.java"
MAIN = "mocks.MockMain"
EXPECTED = ["mock 1011", "spy 87", "repo 3 0 6", "list 42", "bytebuddy 25", "delegation 17"]


@pytest.fixture(scope="module")
def mocks(tmp_path_factory) -> tuple[Path, list[Path]]:
    """(the program's jar, the libraries' jars)."""
    libs = package_jars("libmockito-java") + package_jars("libbyte-buddy-java")
    libs += [Path("/usr/share/java/objenesis.jar")]  # Mockito's dependency, installed with it
    return _program_jar(PROGRAM, libs, tmp_path_factory.mktemp("mocks")), libs


def _program_jar(source: Path, libs: list[Path], tmp: Path) -> Path:
    """``source`` compiled by javac against ``libs``, in a jar of its own under ``tmp``."""
    classes = tmp / f"{source.stem}-classes"
    cmd = [tool("javac"), "-nowarn", "-d", str(classes), "-cp", ":".join(map(str, libs)), str(source)]
    subprocess.run(cmd, check=True, capture_output=True)
    return make_jar(classes, tmp / f"{source.stem}.jar")


def _agent_methods(cp: list[Path], main: str, expected: str, tmp: Path, jvm: tuple[str, ...] = ()) -> set[str]:
    """``main`` under the agent as users run it (the verification gate off): it prints ``expected``,
    the agent says nothing; the methods of its profile."""
    profile = tmp / "agent.json"
    options = agent_options(tmp / "cache", profile, progress="false", verify="false")
    run = run_with_agent(cp, [main], options, profile=profile, jvm=("-Xverify:all", *jvm))
    assert run.returncode == 0 and run.stdout == expected, f"exit {run.returncode}\n{run.stderr[-4000:]}"
    assert "jprewrite agent:" not in run.stderr, run.stderr[-3000:]
    return methods_of(json.loads(profile.read_text()))


def _plain(jar: Path, libs: list[Path]) -> str:
    run = run_java([jar, *libs], MAIN)
    assert run.returncode == 0 and run.stdout.splitlines() == EXPECTED, run.stdout + run.stderr[-2000:]
    return run.stdout


def test_mocks_of_rewritten_classes_offline(mocks, tmp_path) -> None:
    """The program alone rewritten (Mockito subclasses rewritten classes: override checks), then
    the program and both libraries (ByteBuddy's generator itself rewritten); HotSpot verifies
    every rewritten class of the libraries."""
    jar, libs = mocks
    plain = _plain(jar, libs)
    alone = tmp_path / "alone"
    rewrite_cli([jar], alone, "default", classpath=libs)
    run = run_java([alone / jar.name, *libs], MAIN, profile=tmp_path / "alone.json")
    assert run.returncode == 0 and run.stdout == plain, run.stderr[-3000:]
    assert "mocks.MockMain$Client.run(I)I" in methods_of(run.profile)

    everything = tmp_path / "all"
    result = rewrite_cli([jar, *libs], everything, "default")
    assert not result.failed, result.failed
    rewritten = [everything / p.name for p in [jar, *libs]]
    new = new_failures(verify_jvm(rewritten[1:], threads=2), verify_jvm(libs, threads=2))
    assert not new, "\n".join(f"{c}: {m[:800]}" for c, m in sorted(new.items())[:20])
    run = run_java(rewritten, MAIN, profile=tmp_path / "all.json")
    assert run.returncode == 0 and run.stdout == plain, run.stderr[-3000:]
    assert "org.mockito.Mockito.mock(Ljava/lang/Class;)Ljava/lang/Object;" in methods_of(run.profile)


def test_mocks_under_the_agent(mocks, tmp_path) -> None:
    """Everything outside the JDK rewritten as it loads, the classes ByteBuddy and Mockito generate
    too (except ByteBuddy's ``Invoker`` implementation, which declares ``invoke$jp`` itself). With
    the verification gate off, as users run the agent: the gate would catch the duplicate method
    and keep the class as it was, the rewriting alone must not make it."""
    jar, libs = mocks
    plain = _plain(jar, libs)
    methods = _agent_methods([jar, *libs], MAIN, plain, tmp_path)
    assert "mocks.MockMain$Client.run(I)I" in methods
    # the mock's own work(int), generated by ByteBuddy and rewritten as it loaded, beneath run
    assert any(m.startswith("mocks.MockMain$Service$MockitoMock$") and ".work(I)I" in m for m in methods), sorted(
        m for m in methods if "MockMain" in m
    )


def test_a_class_declaring_an_injected_name_stays_as_it_was(tmp_path, monkeypatch) -> None:
    """A class that declares a member the rewriting would add (here the marker field
    ``$jprewrite$instrumented``, legal Java) is never written with it twice, gate or no gate: it
    stays uninstrumented, named on stderr, and the program runs as before."""
    monkeypatch.setenv("JPREWRITE_VERIFY", "0")  # the users' default; the gate would catch it too
    src = tmp_path / "src" / "Odd.java"
    src.parent.mkdir()
    src.write_text(
        "public class Odd { static boolean $jprewrite$instrumented = true;"
        " static int f(int n) { return n * 2; }"
        ' public static void main(String[] a) { System.out.println(f(21) + " " + $jprewrite$instrumented); } }'
    )
    classes = tmp_path / "classes"
    subprocess.run([tool("javac"), "-d", str(classes), str(src)], check=True, capture_output=True)
    jar = make_jar(classes, tmp_path / "odd.jar")
    result = rewrite_cli([jar], tmp_path / "out", "default")
    assert "twice" in result.failed.get("Odd", ""), result.stderr[-2000:]
    run = run_java([tmp_path / "out" / jar.name], "Odd")
    assert run.returncode == 0 and run.stdout == "42 true\n", run.stderr[-2000:]


GUICE_MAIN = "guice.GuiceMain"
GUICE_OPENS = ("--add-opens", "java.base/java.lang=ALL-UNNAMED")  # cglib defines its classes by reflection
GUICE_OUTPUT = "total 3078 intercepted 3 fin 1 true\n"


@pytest.fixture(scope="module")
def guice(tmp_path_factory) -> tuple[Path, list[Path]]:
    """(the program's jar, compiled for Java 17; the libraries' jars)."""
    libs = package_jars("libguice-java") + [
        Path(p)
        for p in (
            "/usr/share/java/aopalliance.jar",  # Guice's dependencies, installed with it
            "/usr/share/java/atinject-jsr330-api.jar",
            "/usr/share/java/guava.jar",
        )
    ]
    jar = _program_jar(PROGRAMS / "guice" / "GuiceMain.java", libs, tmp_path_factory.mktemp("guice"))
    plain = run_java([jar, *libs], GUICE_MAIN, jvm=GUICE_OPENS)
    assert plain.returncode == 0 and plain.stdout == GUICE_OUTPUT, plain.stdout + plain.stderr[-2000:]
    return jar, libs


def test_guice_interceptor_offline(guice, tmp_path) -> None:
    """The program alone, then with Guice, Guava and their dependencies rewritten."""
    jar, libs = guice
    alone = tmp_path / "alone"
    rewrite_cli([jar], alone, "default", classpath=libs)
    run = run_java([alone / jar.name, *libs], GUICE_MAIN, profile=tmp_path / "alone.json", jvm=GUICE_OPENS)
    assert run.returncode == 0 and run.stdout == GUICE_OUTPUT, run.stderr[-3000:]
    assert "guice.GuiceMain$Service.helper(Ljava/lang/String;)I" in methods_of(run.profile)

    everything = tmp_path / "all"
    result = rewrite_cli([jar, *libs], everything, "default")
    assert not result.failed, result.failed
    run = run_java(
        [everything / p.name for p in [jar, *libs]], GUICE_MAIN, profile=tmp_path / "all.json", jvm=GUICE_OPENS
    )
    assert run.returncode == 0 and run.stdout == GUICE_OUTPUT, run.stderr[-3000:]
    assert "com.google.inject.Guice.createInjector([Lcom/google/inject/Module;)Lcom/google/inject/Injector;" in (
        methods_of(run.profile)
    )


def test_guice_interceptor_under_the_agent(guice, tmp_path) -> None:
    """Everything outside the JDK rewritten as it loads (Guice's cglib and the classes it generates),
    the verification gate off as users run it."""
    jar, libs = guice
    methods = _agent_methods([jar, *libs], GUICE_MAIN, GUICE_OUTPUT, tmp_path, GUICE_OPENS)
    assert "guice.GuiceMain$MemStore.put(Ljava/lang/String;)I" in methods


def test_a_loader_that_isolates_its_classes_under_the_agent(tmp_path) -> None:
    """``support/programs/isolated``: a loader that asks its parent for ``java.*`` only (Ant's
    ``<java fork="false">``, OSGi) cannot resolve ``jprewrite.runtime.Node``; its classes, once
    rewritten, failed with ``NoClassDefFoundError`` when they ran. They stay as they are now, one
    line at exit names the loader, and the same class from the class path is profiled."""
    classes = tmp_path / "classes"
    sources = sorted((PROGRAMS / "isolated").glob("*.java"))
    subprocess.run([tool("javac"), "-d", str(classes), *map(str, sources)], check=True, capture_output=True)
    plain = run_java([classes], "isolated.Main", str(classes))
    assert plain.returncode == 0 and plain.stdout == "isolated 285 285\n", plain.stderr[-2000:]
    profile = tmp_path / "agent.json"
    run = run_with_agent(
        [classes],
        ["isolated.Main", str(classes)],
        agent_options(tmp_path / "cache", profile, progress="false"),
        profile=profile,
    )
    assert run.returncode == 0 and run.stdout == plain.stdout, f"exit {run.returncode}\n{run.stderr[-3000:]}"
    assert (
        run.stderr.strip()
        .splitlines()[-1]
        .startswith("jprewrite agent: classes of isolated.Main$Isolating stayed uninstrumented")
    ), run.stderr[-2000:]
    methods = methods_of(json.loads(profile.read_text()))
    assert "isolated.Work.square(I)I" in methods


def _jacoco_agent(tmp: Path) -> Path:
    """JaCoCo's ``-javaagent`` jar, as Debian ships it: inside ``org.jacoco.agent.jar``."""
    outer = Path("/usr/share/java/org.jacoco.agent.jar")
    if not outer.exists():
        pytest.skip("CORPUS PACKAGE MISSING: Debian package libjacoco-java is not installed")
    with zipfile.ZipFile(outer) as z:
        (tmp / "jacocoagent.jar").write_bytes(z.read("jacocoagent.jar"))
    return tmp / "jacocoagent.jar"


@pytest.mark.parametrize("order", ["jprewrite-first", "jacoco-first"])
def test_another_agent_beside_ours_keeps_working(order, tmp_path) -> None:
    """JaCoCo's agent and ours in one JVM, in either order. Classes of another ``-javaagent``'s jar
    (JaCoCo's runtime and instrumenter, loaded by the application class loader) stay as they are:
    with its instrumenter classes rewritten, JaCoCo's coverage came out empty, silently. Now both
    report: the program's class in JaCoCo's data, its methods and none of JaCoCo's in our profile."""
    classes = tmp_path / "classes"
    src = tmp_path / "Cov.java"
    src.write_text(
        "public class Cov { static int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i % 3; return s; }"
        ' public static void main(String[] a) { System.out.println("cov " + f(100)); } }'
    )
    subprocess.run([tool("javac"), "-d", str(classes), str(src)], check=True, capture_output=True)
    jacoco = f"-javaagent:{_jacoco_agent(tmp_path)}=destfile={tmp_path / 'jacoco.exec'}"
    profile = tmp_path / "agent.json"
    ours = f"-javaagent:{agent_jar()}={agent_options(tmp_path / 'cache', profile, progress='false')}"
    agents = [ours, jacoco] if order == "jprewrite-first" else [jacoco, ours]
    cmd = [tool("java"), "-Xverify:all", *agents, "-cp", str(classes), "Cov"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and run.stdout == "cov 99\n", run.stderr[-3000:]
    assert b"Cov" in (tmp_path / "jacoco.exec").read_bytes(), "JaCoCo recorded no class"
    methods = methods_of(json.loads(profile.read_text()))
    assert "Cov.f(I)I" in methods
    assert not [m for m in methods if m.startswith("org.jacoco.")], sorted(methods)[:20]


SER_MAIN = "ser.SerMain"
SER_OPENS = ("--add-opens", "java.base/java.util=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED")


def test_serialisers_offline_and_under_the_agent(tmp_path) -> None:
    """Jackson, Gson and XStream see the rewritten beans as the originals: the same JSON and XML."""
    libs = [
        *package_jars("libjackson2-databind-java"),
        *package_jars("libgoogle-gson-java"),
        *package_jars("libxstream-java"),
        *[Path(p) for p in ("/usr/share/java/jackson-core.jar", "/usr/share/java/jackson-annotations.jar")],
        Path("/usr/share/java/xpp3.jar"),  # XStream's parser, installed with it
    ]
    jar = _program_jar(PROGRAMS / "ser" / "SerMain.java", libs, tmp_path)
    plain = run_java([jar, *libs], SER_MAIN, jvm=SER_OPENS)
    assert plain.returncode == 0 and plain.stdout.count("\n") == 6 and '"tags":["b","c"]' in plain.stdout, (
        plain.stdout + plain.stderr[-2000:]
    )
    out = tmp_path / "out"
    rewrite_cli([jar], out, "default", classpath=libs)
    run = run_java([out / jar.name, *libs], SER_MAIN, profile=tmp_path / "offline.json", jvm=SER_OPENS)
    assert run.returncode == 0 and run.stdout == plain.stdout, run.stderr[-3000:]
    assert "ser.SerMain$Item.getTags()Ljava/util/List;" in methods_of(run.profile)
    methods = _agent_methods([jar, *libs], SER_MAIN, plain.stdout, tmp_path, SER_OPENS)
    assert "ser.SerMain$Item.getTags()Ljava/util/List;" in methods
