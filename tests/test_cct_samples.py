"""Every sample program, rewritten: same output under -Xverify:all, and a profile; natives and plugins.

The comparison with the JDI oracle is in test_cct_oracle.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.profiling import make_jar, rewrite, run_java
from support.samples import build_native, compile_sample, gcc_available, sample_main, sample_names

# Samples that need more than the JDK to build or that check something else (own tests below).
SPECIAL = {"jni", "plugin", "uninstrumented", "uninstrumented-plugin"}
NAMES = [n for n in sample_names() if n not in SPECIAL and not n.endswith("-plugin")]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("samples")
    cache: dict[str, tuple[Path, Path]] = {}

    def get(name: str) -> tuple[Path, Path]:
        if name not in cache:
            classes = compile_sample(name, root / name / "classes")
            jar = make_jar(classes, root / name / f"{name}.jar")
            cache[name] = (root / name, jar)
        return cache[name]

    return get


@pytest.mark.parametrize("counting", ["default", "precise"])
@pytest.mark.parametrize("name", NAMES)
def test_sample_runs_unchanged(built, name: str, counting: str) -> None:
    work, jar = built(name)
    out = work / f"{name}-{counting}.jar"
    rewrite([jar], out, "--counting", counting, "--allocations")
    main = sample_main(name)
    original = run_java([jar], main, jvm=())
    rewritten = run_java([out], main, profile=work / f"profile-{counting}.json")
    assert rewritten.returncode == original.returncode == 0, rewritten.stderr
    assert rewritten.stdout == original.stdout
    assert rewritten.profile["root"]["children"]


def _walk(node: dict, path: tuple = ()):
    for child in node.get("children", ()):
        yield path + (child["method"],), child
        yield from _walk(child, path + (child["method"],))


def test_native_methods_get_b2n_nodes_and_callbacks_land_beneath(built, tmp_path) -> None:
    if not gcc_available():
        pytest.skip(
            "NO C COMPILER: gcc is needed to build the JNI sample's library "
            "(B2N wrappers are still exercised by the natives sample through the JDK)"
        )
    work, jar = built("jni")
    native = build_native("jni", tmp_path / "native")
    out = work / "jni-rewritten.jar"
    rewrite([jar], out, "--counting", "precise")
    jvm = ("-Xverify:all", f"-Djava.library.path={native}")
    original = run_java([jar], sample_main("jni"), jvm=jvm)
    assert original.returncode == 0, original.stderr
    rewritten = run_java([out], sample_main("jni"), jvm=jvm, profile=work / "jni.json")
    assert rewritten.returncode == 0, rewritten.stderr
    assert rewritten.stdout == original.stdout
    nodes = dict(_walk(rewritten.profile["root"]))
    main = "com.example.jni.Main.main([Ljava/lang/String;)V"
    native_node = nodes[(main, "com.example.jni.NativeOps.sumWithCallback(I)J")]
    assert native_node["kind"] == "native" and native_node["calls"] == 1
    callback = nodes[(main, "com.example.jni.NativeOps.sumWithCallback(I)J", "com.example.jni.NativeOps.onValue(I)J")]
    assert callback["calls"] == 10 and callback["bytecodes"] > 0
    checked = nodes[(main, "com.example.jni.NativeOps.checked(I)I", "com.example.jni.NativeOps.check(I)I")]
    assert checked["calls"] == 2  # once returning, once throwing through the native frame
    assert nodes[(main, "com.example.jni.NativeOps.add(II)I")]["kind"] == "native"


def test_uninstrumented_subclasses_run_their_overrides(built, tmp_path) -> None:
    """Only the base package is rewritten; plugin classes (another jar) override part of it."""
    work, jar = built("uninstrumented")
    plugin_classes = compile_sample("uninstrumented-plugin", tmp_path / "plugin")
    plugin_jar = make_jar(plugin_classes, tmp_path / "plugin.jar")
    out = work / "base-rewritten.jar"
    rewrite([jar], out, "--counting", "precise", "--classpath", str(plugin_jar))
    main = sample_main("uninstrumented")
    original = run_java([jar, plugin_jar], main)
    assert original.returncode == 0, original.stderr
    rewritten = run_java([out, plugin_jar], main, profile=work / "plugin.json")
    assert rewritten.returncode == 0, rewritten.stderr
    assert rewritten.stdout == original.stdout
    nodes = dict(_walk(rewritten.profile["root"]))
    redirected = [(p, n) for p, n in nodes.items() if p[-1].startswith("com.example.plugin.Fancy.")]
    assert redirected, "the uninstrumented overrides should appear as boundary nodes"
    assert all(n.get("kind") == "uninstrumented" and n["bytecodes"] == 0 for _, n in redirected)
    # Fancy's overrides call super methods: those run instrumented, beneath the override's node
    assert any(
        len(p) >= 2
        and p[-2].startswith("com.example.plugin.Fancy.")
        and p[-1].startswith("com.example.uninstrumented.Base.")
        for p in nodes
    )
