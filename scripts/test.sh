#!/usr/bin/env bash
# Runs what CI runs: ruff, mypy --strict, the import contracts (Qt-free core, layers), then pytest
# (every test, slow and GUI ones included). Extra arguments go to pytest, e.g. `-x -q`,
# `-m "not slow"` or `tests/test_hub.py`. Exits non-zero when any step fails.
# Assumes scripts/setup.sh has run (./run test does that first).
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
VENV=.venv
step() { printf '\n== %s\n' "$*" >&2; }

step "ruff"
"$VENV/bin/ruff" check desktop_rag tests bench
step "mypy --strict"
"$VENV/bin/mypy"  # the files in pyproject: the package, the GUI fake and its tests
step "import-linter (the core never imports Qt; each layer imports only those below it)"
"$VENV/bin/lint-imports"
step "pytest"
exec "$VENV/bin/pytest" --durations=15 "$@"
