"""Byte-identical round trips of every class of the JDK runtime image and of real Debian jars.

Two round trips are checked on each class:

* LAZY: ``read_class(d).to_bytes() == d`` -- nothing decoded, everything copied.
* FULL: ``cf = read_class(d); cf.decode_all(); cf.to_bytes() == d`` -- every
  attribute, instruction and stack map frame jprewrite understands is decoded
  and encoded again, exactly what ``jprewrite check`` does.

A failing test lists *every* bad class (with the reason, or where the bytes
first differ), never just the first one.  The full round trip of the JDK is
split into groups of modules, and that of the two biggest packages into
shards, so ``pytest -n 2`` spreads the work; the shards of a package together
cover every class (nothing is sampled: the kotlin compiler, the largest jar,
takes ~30 s of full decoding on one core, which fits the budget).

Cost (Python 3.11): about 140 CPU-seconds in all -- JDK full ~65 s, jars full
~65 s (kotlin compiler ~30 s of it), lazy round trips ~12 s -- so roughly 1.5
minutes with ``-n 2`` on an idle 2-core machine, ~3 minutes on a busy one.
The packages of other compilers (clojure, jython, jruby, rhino, ecj, bcel,
javassist, cglib, proguard, aspectj: ~27,000 classes) add about 85 s with
``-n 2`` on a busy machine (jython ~35 s, aspectj ~27 s, jruby 2 x ~16 s of full
decoding).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from jprewrite.archive.jdk_image import JdkImage, find_java_home
from jprewrite.classfile.model import read_class

from support.corpus import PACKAGES, jar_classes, package_jars

pytestmark = pytest.mark.corpus

# --------------------------------------------------------------------------- checking one class


def _lazy_failure(data: bytes) -> str | None:
    """None when the lazy round trip is byte-identical, else why not."""
    try:
        out = read_class(data).to_bytes()
    except Exception as e:  # noqa: BLE001 -- every failure, library bug or not, is reported per class
        return f"{type(e).__name__}: {e}"
    return None if out == data else _difference(data, out)


def _full_failure(data: bytes) -> str | None:
    """None when the full (decode everything) round trip is byte-identical, else why not."""
    try:
        cf = read_class(data)
        cf.decode_all()
        out = cf.to_bytes()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    if out == data:
        return None
    try:  # name the method/attribute that differs, as `jprewrite check` does
        from jprewrite.cli.roundtrip import locate_difference

        return locate_difference(data, out)
    except Exception:  # noqa: BLE001 -- the diagnosis must not hide the failure
        return _difference(data, out)


def _difference(original: bytes, produced: bytes) -> str:
    first = next((i for i, (a, b) in enumerate(zip(original, produced)) if a != b), min(len(original), len(produced)))
    return f"first difference at byte {first} ({len(original)} -> {len(produced)} bytes)"


def _report(what: str, failures: list[tuple[str, str]], checked: int) -> str:
    lines = [f"{len(failures)} of {checked} classes fail the {what} round trip:"]
    lines += [f"  {name}: {why[:300]}" for name, why in failures]
    return "\n".join(lines)


# --------------------------------------------------------------------------- the JDK runtime image

# Modules big enough (in full-decode time) to be a test of their own; the rest
# are dealt round-robin (in sorted order) into JDK_OTHER_SHARDS groups.
JDK_BIG_MODULES = ("jdk.localedata", "java.base", "java.desktop", "java.xml", "jdk.compiler", "jdk.hotspot.agent")
JDK_OTHER_SHARDS = 3
JDK_GROUPS = [*JDK_BIG_MODULES, *(f"others-{i + 1}of{JDK_OTHER_SHARDS}" for i in range(JDK_OTHER_SHARDS))]
JDK_MIN_CLASSES = 20_000  # JDK 17 has ~26,600 classes (module-info included); any JDK 11+ has over 20,000


@pytest.fixture(scope="module")
def jdk_image():
    with JdkImage(find_java_home()) as image:
        yield image


def _group_modules(group: str, all_modules: list[str]) -> list[str]:
    if group in JDK_BIG_MODULES:
        if group not in all_modules:
            if group == "java.base":
                pytest.fail(f"the JDK image {find_java_home()} has no java.base module")
            pytest.skip(f"module {group} is not in this JDK image ({find_java_home()})")
        return [group]
    shard = int(group.split("-")[1].split("of")[0]) - 1
    others = [m for m in sorted(all_modules) if m not in JDK_BIG_MODULES]
    return others[shard::JDK_OTHER_SHARDS]


def test_jdk_lazy_round_trip_all_modules(jdk_image, record_property):
    failures: list[tuple[str, str]] = []
    checked = 0
    modules_seen: set[str] = set()
    module_infos = 0
    for module, name, data in jdk_image.iter_classes():
        checked += 1
        modules_seen.add(module)
        module_infos += name == "module-info"
        why = _lazy_failure(data)
        if why is not None:
            failures.append((f"/{module}/{name}", why))
    record_property("classes", checked)
    assert checked >= JDK_MIN_CLASSES, f"only {checked} classes in the JDK image {jdk_image.path}"
    assert modules_seen == set(jdk_image.modules())
    assert module_infos == len(modules_seen), "every module's module-info.class must be checked"
    assert not failures, _report("lazy", failures, checked)


@pytest.mark.parametrize("group", JDK_GROUPS)
def test_jdk_full_round_trip(jdk_image, group, record_property):
    modules = _group_modules(group, jdk_image.modules())
    assert modules, f"group {group} is empty"
    failures: list[tuple[str, str]] = []
    checked = 0
    for module in modules:
        in_module = 0
        for _module, name, data in jdk_image.iter_classes(module):
            in_module += 1
            why = _full_failure(data)
            if why is not None:
                failures.append((f"/{module}/{name}", why))
        assert in_module >= 1, f"module {module} yielded no classes (not even module-info)"
        checked += in_module
    record_property("classes", checked)
    if group == "java.base":
        assert checked >= 5000, f"java.base has only {checked} classes"
    assert not failures, _report("full", failures, checked)


def test_jdk_groups_cover_every_module(jdk_image):
    modules = jdk_image.modules()
    covered = [m for g in JDK_GROUPS if g not in JDK_BIG_MODULES for m in _group_modules(g, modules)]
    covered += [m for m in JDK_BIG_MODULES if m in modules]
    assert sorted(covered) == sorted(modules)


# --------------------------------------------------------------------------- Debian packages

# Observed class counts (Debian 12): xalan2+serializer 1708, h2 1026, lucene 4.10 2404,
# scala 2.11 15639, kotlin 1.3.31 23135, groovy 2.4 4472, asm 9.4 115.  The minimums
# leave room for other package versions but catch an empty or wrong jar.
MIN_CLASSES = {
    "libxalan2-java": 1500,
    "libh2-java": 900,
    "liblucene4.10-java": 2000,
    "scala": 14000,
    "kotlin": 20000,
    "groovy": 4000,
    "libasm-java": 100,
    "libbatik-java": 2400,
    "libfop-java": 2400,
    "libsunflow-java": 250,
    # observed (Debian 12): clojure 1.11 3600, jython 2.7.3 4697, jruby-core 9.3 9178, rhino 1.7.14 549,
    # ecj 3.16 715, bcel 6.5 444, javassist 3.27 426, cglib 3.3 249, proguard 6.2.2 887,
    # aspectj 1.9.5 130+1077+5338
    "libclojure-java": 3000,
    "jython": 4000,
    "jruby": 8000,
    "librhino-java": 450,
    "libecj-java": 600,
    "libbcel-java": 380,
    "libjavassist-java": 350,
    "libcglib-java": 200,
    "libproguard-java": 750,
    "libaspectj-java": 5500,
    # observed (Debian 12): janino 2.7 366+22, mockito 2.23 544, byte-buddy 1.12 2687, guice 4.2 588
    "libjanino-java": 330,
    "libmockito-java": 450,
    "libbyte-buddy-java": 2300,
    "libguice-java": 500,
    # observed (Debian 12): jackson-databind 2.14 770, gson 2.10 212, xstream 1.4.20 496
    "libjackson2-databind-java": 650,
    "libgoogle-gson-java": 180,
    "libxstream-java": 420,
    "abcl": 950,  # observed (Debian 12): abcl 1.9.0 1119 (and 10,852 .cls entries, classes too, not read)
}
MIN_CLASSES_PER_JAR = 10
# The full round trip of these packages is split into shards (every n-th class,
# by position in the package's jars) so that xdist can run them side by side.
FULL_SHARDS = {"kotlin": 2, "scala": 2, "jruby": 2, "jython": 2}

assert set(MIN_CLASSES) == set(PACKAGES), "every corpus package needs a minimum class count"


def _package_classes(pkg: str):
    """(jar, entry name, bytes) for every class of every jar of the package, in order."""
    for jar in package_jars(pkg):
        for name, data in jar_classes(jar):
            yield jar, name, data


def _zipfile_class_count(jar: Path) -> int:
    """Class entries as Python's zipfile sees them (an independent reader)."""
    with zipfile.ZipFile(jar) as z:
        return len({n for n in z.namelist() if n.endswith(".class")})


@pytest.mark.parametrize("pkg", list(PACKAGES))
def test_package_lazy_round_trip(pkg, record_property):
    failures: list[tuple[str, str]] = []
    per_jar: dict[Path, int] = {}
    versioned = module_infos = 0
    for jar, name, data in _package_classes(pkg):
        per_jar[jar] = per_jar.get(jar, 0) + 1
        versioned += name.startswith("META-INF/versions/")
        module_infos += name.endswith("module-info.class")
        why = _lazy_failure(data)
        if why is not None:
            failures.append((f"{jar}!{name}", why))
    checked = sum(per_jar.values())
    record_property("classes", checked)
    record_property("versioned_classes", versioned)
    record_property("module_infos", module_infos)
    for jar in package_jars(pkg):
        count = per_jar.get(jar, 0)
        assert count >= MIN_CLASSES_PER_JAR, f"{jar}: only {count} classes"
        assert count == _zipfile_class_count(jar), f"{jar}: jprewrite and zipfile disagree on the classes"
    assert checked >= MIN_CLASSES[pkg], f"{pkg}: only {checked} classes in {package_jars(pkg)}"
    assert not failures, _report("lazy", failures, checked)


def _full_params() -> list:
    params = []
    for pkg in PACKAGES:
        n = FULL_SHARDS.get(pkg, 1)
        for shard in range(n):
            params.append(pytest.param(pkg, shard, n, id=pkg if n == 1 else f"{pkg}-shard{shard + 1}of{n}"))
    return params


@pytest.mark.parametrize("pkg, shard, shards", _full_params())
def test_package_full_round_trip(pkg, shard, shards, record_property):
    failures: list[tuple[str, str]] = []
    checked = 0
    for position, (jar, name, data) in enumerate(_package_classes(pkg)):
        if position % shards != shard:
            continue
        checked += 1
        why = _full_failure(data)
        if why is not None:
            failures.append((f"{jar}!{name}", why))
    record_property("classes", checked)
    assert checked >= MIN_CLASSES[pkg] // shards, f"{pkg} (shard {shard + 1}/{shards}): only {checked} classes"
    assert not failures, _report("full", failures, checked)
