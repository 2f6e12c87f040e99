"""``python tests/support/typecheck.py``: mypy over the ``jprewrite`` package as it is installed.

The sources are laid out differently from the package (``rewriter/`` is ``jprewrite``, ``cli/``
is ``jprewrite.cli``, see ``pyproject.toml``'s ``package-dir``), and mypy finds modules only by
their place on disk. So this links the installed layout under ``build/typecheck/jprewrite``
(one symbolic link per entry of ``rewriter/``, plus ``cli``), runs mypy with the settings of
``[tool.mypy]`` in ``pyproject.toml``, and prints its findings with the real source paths.
Extra arguments go to mypy. The exit status is mypy's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["link_tree", "main"]

REPO = Path(__file__).resolve().parents[2]
TREE = REPO / "build" / "typecheck"


def link_tree(tree: Path = TREE) -> Path:
    """(Re)make ``tree/jprewrite`` with links into ``rewriter/`` and ``cli/``; the package directory."""
    package = tree / "jprewrite"
    if tree.exists():
        shutil.rmtree(tree)
    package.mkdir(parents=True)
    for entry in sorted((REPO / "rewriter").iterdir()):
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "cli").symlink_to(REPO / "cli")
    return package


def main(argv: list[str]) -> int:
    package = link_tree()
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), *argv]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    prefix = os.path.relpath(package, REPO) + os.sep
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith(prefix + "cli" + os.sep):
            line = line[len(prefix) :]
        elif line.startswith(prefix):
            line = "rewriter" + os.sep + line[len(prefix) :]
        print(line)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
