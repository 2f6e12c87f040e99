"""The sample programs of ``sample-classes/`` compile, verify, run and are deterministic.

They are the programs the rewriter is judged on (original against rewritten
output; the rewritten program's profile against a JDI single-step oracle), so
each must run under ``-Xverify:all``, exit 0, print something, and print
exactly the same thing every time. Beyond that: the big-method sample's method
really is just under the 64 KB code limit (read from ``javap -c``), the plugin
of the uninstrumented-subclass sample is really separate, and the JNI sample is
built with gcc and run (skipped, loudly, without gcc).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from jprewrite.classfile.model import read_class

from support.jdk import run, tool
from support.samples import (
    PLUGIN_SUFFIX,
    SAMPLES_DIR,
    build_native,
    compile_sample,
    gcc_available,
    jar_sample,
    java_command,
    needs_native,
    plugin_of,
    sample_classpath,
    sample_main,
    sample_names,
)

NAMES = sample_names()
BIG = "bigmethod"
PLUGIN_HOST = "uninstrumented"
JNI = "jni"


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("samples")


_classpaths: dict[str, list[Path]] = {}


def classpath(name: str, work: Path) -> list[Path]:
    if name not in _classpaths:
        _classpaths[name] = sample_classpath(name, work)
    return _classpaths[name]


def native_dir(name: str, work: Path) -> Path | None:
    if not needs_native(name):
        return None
    if not gcc_available():
        pytest.skip(
            f"JNI SAMPLE NOT RUN: gcc is not installed, so {SAMPLES_DIR / name / 'build.sh'} "
            "cannot build its native library (apt-get install gcc)"
        )
    return build_native(name, work / name / "native")


def _stderr(text: str) -> str:
    # a JAVA_TOOL_OPTIONS in the environment makes every JVM say so on stderr
    return "\n".join(line for line in text.splitlines() if not line.startswith("Picked up "))


def test_there_are_samples():
    assert len(NAMES) >= 12, NAMES
    for required in ("demo", BIG, PLUGIN_HOST, JNI):
        assert required in NAMES
    assert plugin_of(PLUGIN_HOST) == PLUGIN_HOST + PLUGIN_SUFFIX
    assert not any(n.endswith(PLUGIN_SUFFIX) for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_sample_runs_verified_and_deterministic(name, work):
    cp = classpath(name, work)
    assert any(cp[0].rglob("Main.class"))
    cmd = java_command(name, cp, "-Xverify:all", native_dir=native_dir(name, work))
    outputs = []
    for _ in range(2):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"{name} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"
        assert _stderr(r.stderr) == "", f"{name} wrote to stderr:\n{r.stderr}"
        assert r.stdout.strip(), f"{name} printed nothing"
        outputs.append(r.stdout)
    assert outputs[0] == outputs[1], f"{name} is not deterministic"


def test_readme_lists_every_sample():
    readme = (SAMPLES_DIR / "README.md").read_text()
    for name in NAMES:
        assert f"`{name}`" in readme, f"sample-classes/README.md does not describe {name}"


def test_main_class_names():
    for name in NAMES:
        main = SAMPLES_DIR / name / Path(*sample_main(name).split(".")).with_suffix(".java")
        assert main.is_file(), main
        assert "public static void main(String[]" in main.read_text()


# ------------------------------------------------------------------ the 64 KB method
def _javap_code_lengths(classes: Path, class_name: str) -> dict[str, int]:
    """Code length per method, from ``javap -c``: the last instruction's offset plus its length."""
    out = run([tool("javap"), "-c", "-p", "-cp", str(classes), class_name]).stdout
    lengths = {}
    for block in re.split(r"\n(?=  \S)", out):
        header = block.strip().splitlines()[0]
        instructions = re.findall(r"^\s+(\d+): (\w+)", block, re.M)
        if not instructions:
            continue
        offset, opcode = instructions[-1]
        # every method here ends with a one-byte return or athrow
        assert opcode in ("ireturn", "lreturn", "freturn", "dreturn", "areturn", "return", "athrow"), header
        lengths[header] = int(offset) + 1
    return lengths


def test_big_method_is_just_under_the_limit(work):
    classes = classpath(BIG, work)[0]
    lengths = _javap_code_lengths(classes, "com.example.bigmethod.BigMethod")
    compute = next(v for k, v in lengths.items() if "compute(int)" in k)
    assert 60_000 <= compute <= 65_535, compute
    # the same length in the class file, read with jprewrite
    cf = read_class((classes / "com" / "example" / "bigmethod" / "BigMethod.class").read_bytes())
    assert len(cf.method("compute", "(I)I").code().code) == compute


def test_big_method_source_matches_its_generator():
    spec = importlib.util.spec_from_file_location("gen_big_method", SAMPLES_DIR / BIG / "gen_big_method.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    committed = (SAMPLES_DIR / BIG / "com" / "example" / BIG / "BigMethod.java").read_text()
    assert committed == gen.generate(), (
        "BigMethod.java is stale: run python3 sample-classes/bigmethod/gen_big_method.py"
    )
    assert 65_000 <= gen.TARGET <= 65_535


# ------------------------------------------------------------------ uninstrumented plugin
def test_plugin_is_compiled_and_jarred_separately(tmp_path):
    base_jar = jar_sample(PLUGIN_HOST, tmp_path / "base.jar")
    plugin_jar = jar_sample(plugin_of(PLUGIN_HOST), tmp_path / "plugin.jar")
    with zipfile.ZipFile(base_jar) as z:
        base = [n for n in z.namelist() if n.endswith(".class")]
    with zipfile.ZipFile(plugin_jar) as z:
        plugin = [n for n in z.namelist() if n.endswith(".class")]
    assert base and all(n.startswith("com/example/uninstrumented/") for n in base)
    assert plugin and all(n.startswith("com/example/plugin/") for n in plugin)
    # the program needs the plugin jar at run time (it loads the plugin by name) ...
    alone = subprocess.run(java_command(PLUGIN_HOST, [base_jar]), capture_output=True, text=True)
    assert alone.returncode != 0 and "ClassNotFoundException" in alone.stderr
    # ... and runs from the two jars as from the two class directories
    both = subprocess.run(
        java_command(PLUGIN_HOST, [base_jar, plugin_jar], "-Xverify:all"), capture_output=True, text=True
    )
    assert both.returncode == 0, both.stderr
    assert "Fancy" in both.stdout and "Plain" in both.stdout


def test_compile_sample_gives_only_that_folders_classes(tmp_path):
    out = compile_sample(plugin_of(PLUGIN_HOST), tmp_path / "plugin")
    names = sorted(str(p.relative_to(out)) for p in out.rglob("*.class"))
    assert names and all(n.startswith("com/example/plugin/") for n in names), names


# ------------------------------------------------------------------ JNI
def test_jni_sample_needs_its_library(work):
    """Without the native library the JNI sample fails to link (so the run above really used it)."""
    cp = classpath(JNI, work)
    r = subprocess.run(java_command(JNI, cp), capture_output=True, text=True)
    assert r.returncode != 0 and "UnsatisfiedLinkError" in r.stderr
    lib = native_dir(JNI, work)
    assert (lib / "libjnisample.so").is_file()
    r = subprocess.run(java_command(JNI, cp, native_dir=lib), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "exception through native frame: negative: -1" in r.stdout
