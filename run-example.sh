#!/usr/bin/env bash
# Installs jprewrite into a virtualenv and runs it on the bundled example:
# compiles sample-classes/demo into a jar, runs it, rewrites it for exact
# calling-context profiling, runs the rewritten jar and prints its profile.
set -euo pipefail
cd "$(dirname "$0")"
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e .
exec .venv/bin/python -m jprewrite.cli.example "$@"
