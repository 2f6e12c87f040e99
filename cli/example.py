"""The bundled example (``run-example.sh``): build the demo jar, run it, show what jprewrite sees.

Today this exercises the class-file core end to end on a real jar: compile
``sample-classes/demo`` with the JDK's javac, run it, list it with ``info`` and
prove with ``check`` that every class survives jprewrite's decode/encode.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ..archive.jdk_image import find_java_home
from ..errors import JprewriteError
from . import main as cli_main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample-classes" / "demo"
MAIN_CLASS = "com.example.demo.Main"


def build_sample_jar(out_dir: Path) -> Path:
    """Compile the demo sources and package them as ``demo.jar`` (with a Main-Class manifest)."""
    bin_dir = find_java_home() / "bin"
    classes = out_dir / "classes"
    if classes.exists():
        shutil.rmtree(classes)
    classes.mkdir(parents=True)
    sources = sorted(str(p) for p in SAMPLE.rglob("*.java"))
    subprocess.run([str(bin_dir / "javac"), "-g", "--release", "11", "-d", str(classes), *sources],
                   check=True)
    jar = out_dir / "demo.jar"
    subprocess.run([str(bin_dir / "jar"), "--create", "--file", str(jar), "--main-class", MAIN_CLASS,
                    "-C", str(classes), "."], check=True)
    return jar


def main() -> int:
    out_dir = Path(os.environ.get("JPREWRITE_EXAMPLE_DIR", ROOT / "build" / "example"))
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        jar = build_sample_jar(out_dir)
        java = str(find_java_home() / "bin" / "java")
    except JprewriteError as e:
        print(f"jprewrite: {e}", file=sys.stderr)
        return 2
    print(f"== built {jar}\n== java -jar {jar.name}")
    sys.stdout.flush()
    subprocess.run([java, "-Xverify:all", "-jar", str(jar)], check=True)
    print(f"\n== jprewrite info {jar.name}")
    sys.stdout.flush()
    rc = cli_main.main(["info", "--methods", str(jar)])
    if rc:
        return rc
    print(f"\n== jprewrite check {jar.name}")
    sys.stdout.flush()
    return cli_main.main(["check", str(jar)])


if __name__ == "__main__":
    sys.exit(main())
