#!/usr/bin/env bash
# Runs the checks CI runs: ruff, mypy --strict, the Qt-free core contract, then pytest.
# Extra arguments go to pytest. Assumes scripts/setup.sh has run.
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
VENV=.venv
"$VENV/bin/ruff" check desktop_rag tests bench
"$VENV/bin/mypy" desktop_rag
"$VENV/bin/lint-imports"
exec "$VENV/bin/pytest" "$@"
