#!/usr/bin/env bash
# Builds the one-folder GUI bundle into packaging/dist/desktop-rag/ with PyInstaller, then
# (unless --no-smoke) runs the frozen app's --smoke-test offscreen against the model packages
# installed in the venv, and prints the bundle size and the cold start time.
# Usage: packaging/build.sh [--no-smoke]   (needs: .venv/bin/pip install -e '.[dev]')
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
OUT=packaging/dist/desktop-rag
if ! "$VENV/bin/python" -c "import PyInstaller" 2>/dev/null; then
  echo "PyInstaller is not installed: $VENV/bin/pip install pyinstaller" >&2
  exit 2
fi
start=$(date +%s)
# CLEAN=1 rebuilds from scratch; otherwise PyInstaller reuses what it can from packaging/build.
nice -n 10 "$VENV/bin/pyinstaller" --noconfirm ${CLEAN:+--clean} --log-level WARN \
  --workpath packaging/build --distpath packaging/dist packaging/desktop-rag.spec
echo "built $OUT in $(( $(date +%s) - start )) s; size: $(du -sh "$OUT" | cut -f1)"
[[ "${1:-}" == "--no-smoke" ]] && exit 0
exec "$VENV/bin/python" packaging/smoke_frozen.py "$OUT"
