"""The real-world corpus: jars of Debian packages, found by package name.

A corpus test asks for a package's jars with :func:`package_jars`; when the
package is not installed it skips, naming the package, so a machine without
it is visible in the test report rather than silently passing.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

# package -> jars (under /usr/share/java or elsewhere) that the corpus tests read
PACKAGES: dict[str, list[str]] = {
    "libxalan2-java": ["/usr/share/java/xalan2.jar", "/usr/share/java/serializer.jar"],
    "libh2-java": ["/usr/share/java/h2.jar"],
    "liblucene4.10-java": [
        "/usr/share/java/lucene-core-4.10.4.jar",
        "/usr/share/java/lucene-analyzers-common-4.10.4.jar",
        "/usr/share/java/lucene-queryparser-4.10.4.jar",
    ],
    "scala": [
        "/usr/share/scala/lib/scala-library.jar",
        "/usr/share/scala/lib/scala-compiler.jar",
        "/usr/share/scala/lib/scala-reflect.jar",
    ],
    "kotlin": ["/usr/share/java/kotlin-stdlib.jar", "/usr/share/java/kotlin-compiler.jar"],
    "groovy": ["/usr/share/java/groovy-all.jar"],
    "libbatik-java": ["/usr/share/java/batik-all.jar"],
    "libfop-java": ["/usr/share/java/fop.jar"],
    "libsunflow-java": ["/usr/share/java/sunflow.jar"],
    "libasm-java": [
        "/usr/share/java/asm.jar",
        "/usr/share/java/asm-tree.jar",
        "/usr/share/java/asm-analysis.jar",
        "/usr/share/java/asm-util.jar",
    ],
    # compilers and generators other than javac (tests/test_corpus_compilers.py)
    # Clojure: AOT-compiled by Clojure's compiler through its ASM with COMPUTE_FRAMES (dead code as nop...athrow);
    # the package depends on spec.alpha/core.specs.alpha, whose jars the compiler tests add
    "libclojure-java": ["/usr/share/java/clojure-1.11.jar"],
    # Jython: the runtime, and Lib/*$py.class compiled by Jython's ASM-based compiler (COMPUTE_FRAMES)
    "jython": ["/usr/share/java/jython.jar"],
    # JRuby: javac-compiled; at run time it generates classes with ASM (COMPUTE_FRAMES); jruby-base is a subset
    "jruby": ["/usr/share/java/jruby-core.jar"],
    # Rhino: JavaScript compiled to JVM classes at run time by its own class-file writer
    "librhino-java": ["/usr/share/java/rhino.jar"],
    # Armed Bear Common Lisp: Lisp compiled to classes by its own class-file writer (ahead of time and at run time)
    "abcl": ["/usr/share/java/abcl.jar"],
    "libecj-java": ["/usr/share/java/ecj.jar"],  # the Eclipse compiler (and a second compiler for tests)
    "libbcel-java": ["/usr/share/java/bcel.jar"],
    "libjavassist-java": ["/usr/share/java/javassist.jar"],
    # Janino: a Java compiler of its own (version 45.3 classes, finally as JSR/RET), used at run time too
    "libjanino-java": ["/usr/share/java/janino.jar", "/usr/share/java/commons-compiler.jar"],
    # Mockito's mocks and ByteBuddy's classes, generated at run time from rewritten classes (tests/test_frameworks.py)
    "libmockito-java": ["/usr/share/java/mockito-core.jar"],
    "libbyte-buddy-java": ["/usr/share/java/byte-buddy.jar"],
    # Guice's method interceptors: its own cglib and ASM subclass rewritten classes (tests/test_frameworks.py)
    "libguice-java": ["/usr/share/java/guice.jar"],
    # serialisers that reflect over rewritten classes' getters and fields (tests/test_frameworks.py)
    "libjackson2-databind-java": ["/usr/share/java/jackson-databind.jar"],
    "libgoogle-gson-java": ["/usr/share/java/gson.jar"],
    "libxstream-java": ["/usr/share/java/xstream.jar"],
    "libcglib-java": ["/usr/share/java/cglib.jar"],
    "libproguard-java": ["/usr/share/java/proguard.jar"],  # a shrinker/optimiser/obfuscator
    "libaspectj-java": [
        "/usr/share/java/aspectjrt.jar",
        "/usr/share/java/aspectjweaver.jar",
        "/usr/share/java/aspectjtools.jar",
    ],  # ajc and its weaver
}


@cache
def _installed(pkg: str) -> bool:
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
    except OSError:
        return False
    return r.returncode == 0 and "install ok installed" in r.stdout


def missing_packages() -> list[str]:
    return [p for p in PACKAGES if not _installed(p) or not any(Path(j).exists() for j in PACKAGES[p])]


def package_jars(pkg: str) -> list[Path]:
    """The package's jars that exist; skips the calling test loudly if there are none."""
    jars = [Path(j) for j in PACKAGES[pkg] if Path(j).exists()]
    if not jars:
        pytest.skip(
            f"CORPUS PACKAGE MISSING: Debian package {pkg} is not installed "
            f"(run tests/support/install_corpus.py as root)"
        )
    return jars


def jar_classes(jar: Path | str) -> Iterator[tuple[str, bytes]]:
    """(entry name, bytes) of every class file of a jar, in entry order, read with jprewrite's own reader.

    Every entry whose name ends in ``.class`` counts: base classes,
    ``META-INF/versions/N/...`` classes of multi-release jars and
    ``module-info.class`` alike.
    """
    from jprewrite.archive.jars import open_container

    with open_container(jar) as container:
        for entry in container.entries():
            if entry.is_class:
                yield entry.name, entry.read()


def refresh_installed() -> None:
    """Forget what dpkg said: after an install the cached answers are stale."""
    _installed.cache_clear()
