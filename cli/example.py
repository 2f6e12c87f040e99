"""The bundled example (``run-example.sh``): build the demo jar, rewrite it, run it, print its profile.

Compiles ``sample-classes/demo`` (JP's Fig. 4 methods f/g/h, recursion,
sorting with a comparator, lambdas, an enum, an exception) with the JDK's
javac, runs the original, rewrites it with ``jprewrite demo.jar
demo-profiled.jar --counting precise``, runs the rewritten jar under
``-Xverify:all`` (same output) and prints the profile it wrote with
``jprewrite report``.
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
    subprocess.run([str(bin_dir / "javac"), "-g", "--release", "11", "-d", str(classes), *sources], check=True)
    jar = out_dir / "demo.jar"
    subprocess.run(
        [str(bin_dir / "jar"), "--create", "--file", str(jar), "--main-class", MAIN_CLASS, "-C", str(classes), "."],
        check=True,
    )
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
    original = subprocess.run([java, "-jar", str(jar)], check=True, capture_output=True, text=True).stdout
    print(original, end="")
    profiled = out_dir / "demo-profiled.jar"
    print(f"\n== jprewrite {jar.name} {profiled.name} --counting precise")
    sys.stdout.flush()
    rc = cli_main.main([str(jar), str(profiled), "--counting", "precise"])
    if rc:
        return rc
    profile = out_dir / "demo-profile.json"
    print(f"\n== java -Xverify:all -Djprewrite.output={profile.name} -jar {profiled.name}")
    sys.stdout.flush()
    run = subprocess.run(
        [java, "-Xverify:all", f"-Djprewrite.output={profile}", "-jar", str(profiled)],
        check=True,
        capture_output=True,
        text=True,
    )
    print(run.stdout, end="")
    print(
        "(output identical to the original run)"
        if run.stdout == original
        else "!! OUTPUT DIFFERS FROM THE ORIGINAL RUN"
    )
    print(f"\n== jprewrite report {profile.name} --top 6")
    sys.stdout.flush()
    rc = cli_main.main(["report", str(profile), "--top", "6", "--depth", "6"])
    print(f"\nprofile written to {profile}")
    return rc if run.stdout == original else 1


if __name__ == "__main__":
    sys.exit(main())
