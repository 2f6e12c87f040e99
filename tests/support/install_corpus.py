"""Install the Debian packages whose real jars the corpus tests read.

Run by ``run-tests.sh`` before pytest. Idempotent and quiet when everything is
there. When a package cannot be had (not root, no apt, a refused download) it
says so loudly; the tests that need it then skip with the same message.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.corpus import missing_packages, refresh_installed  # noqa: E402

# Debian packages the tests need for tools rather than jars: the shared workloads (../shared/bench,
# when it is there) time runs with /usr/bin/time and build their drivers against these jars.
TOOL_PACKAGES = {
    "time": "/usr/bin/time",
    "libjacoco-java": "/usr/share/java/org.jacoco.agent.jar",
    "libcommons-math3-java": "/usr/share/java/commons-math3.jar",
    "junit4": "/usr/share/java/junit4.jar",
    "junit5": "/usr/share/java/junit-jupiter-api.jar",  # the JUnit budgets jar and its tests
    "libxerces2-java": "/usr/share/java/xercesImpl.jar",
}


def main() -> int:
    missing = missing_packages() + [pkg for pkg, path in TOOL_PACKAGES.items() if not Path(path).exists()]
    if not missing:
        return 0
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        print(
            f"WARNING: cannot install Debian packages {' '.join(missing)} (need root and apt-get); "
            "corpus tests that need them will skip",
            file=sys.stderr,
        )
        return 0
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print(f"installing Debian packages for the corpus tests: {' '.join(missing)}", file=sys.stderr)
    subprocess.run(
        ["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    for pkg in missing:
        r = subprocess.run(
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", pkg],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["?"])[-1]
            print(f"WARNING: apt-get install {pkg} failed: {last}", file=sys.stderr)
    refresh_installed()
    still = missing_packages() + [pkg for pkg, path in TOOL_PACKAGES.items() if not Path(path).exists()]
    if still:
        print(f"WARNING: still missing: {' '.join(still)}; their corpus tests will skip", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
