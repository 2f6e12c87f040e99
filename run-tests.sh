#!/usr/bin/env bash
# Installs what the test suite needs (a virtualenv with jprewrite and its test
# dependencies, ruff and mypy among them; the Debian packages whose jars the
# corpus tests read), checks the sources with ruff (lint and format) and mypy (settings in
# pyproject.toml), then runs the whole suite. Needs Python 3.11+ and a JDK 17+.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'
.venv/bin/python tests/support/install_corpus.py
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python tests/support/typecheck.py
exec .venv/bin/python -m pytest -q -n 2 "$@"
