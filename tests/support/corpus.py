"""The real-world corpus: jars of Debian packages, found by package name.

A corpus test asks for a package's jars with :func:`package_jars`; when the
package is not installed it skips, naming the package, so a machine without
it is visible in the test report rather than silently passing.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pytest

# package -> jars (under /usr/share/java or elsewhere) that the corpus tests read
PACKAGES: dict[str, list[str]] = {
    "libxalan2-java": ["/usr/share/java/xalan2.jar", "/usr/share/java/serializer.jar"],
    "libh2-java": ["/usr/share/java/h2.jar"],
    "liblucene4.10-java": ["/usr/share/java/lucene-core-4.10.4.jar",
                           "/usr/share/java/lucene-analyzers-common-4.10.4.jar",
                           "/usr/share/java/lucene-queryparser-4.10.4.jar"],
    "scala": ["/usr/share/scala/lib/scala-library.jar", "/usr/share/scala/lib/scala-compiler.jar",
              "/usr/share/scala/lib/scala-reflect.jar"],
    "kotlin": ["/usr/share/java/kotlin-stdlib.jar", "/usr/share/java/kotlin-compiler.jar"],
    "groovy": ["/usr/share/java/groovy-all.jar"],
    "libbatik-java": ["/usr/share/java/batik-all.jar"],
    "libfop-java": ["/usr/share/java/fop.jar"],
    "libsunflow-java": ["/usr/share/java/sunflow.jar"],
    "libasm-java": ["/usr/share/java/asm.jar", "/usr/share/java/asm-tree.jar",
                    "/usr/share/java/asm-analysis.jar", "/usr/share/java/asm-util.jar"],
}


@lru_cache(maxsize=None)
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
        pytest.skip(f"CORPUS PACKAGE MISSING: Debian package {pkg} is not installed "
                    f"(run tests/support/install_corpus.py as root)")
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
