#!/usr/bin/env bash
# Runs on the lent GPU machine (no network): builds llama-cpp-python with CUDA from the carried,
# trimmed sdist, installs it, rebuilds the Qwen-shaped model from its template, benchmarks
# offload, and returns the wheel in parts so a later run can skip the build.
set -uo pipefail
export PYTHONUNBUFFERED=1
CARRY=.devcarry
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site
nvidia-smi -L; nproc
mkdir -p /tmp/src && tar xzf $CARRY/llama_cpp_python-0.3.36-trim.tar.gz -C /tmp/src
SRC=/tmp/src/llama_cpp_python-0.3.36
if ls $CARRY/wheel.part* >/dev/null 2>&1; then
  cat $CARRY/wheel.part* > /tmp/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl
else
  start=$(date +%s)
  CMAKE_ARGS="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL=16 python3 -m pip wheel -q --no-build-isolation --no-deps $SRC -w /tmp \
    > $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
  echo "build_seconds=$(( $(date +%s) - start ))"
fi
ls -la /tmp/*.whl
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl
PYTHONPATH=$SRC/vendor/llama.cpp/gguf-py:/tmp/site python3 bench/gpu/gguf_shape_clone.py build $CARRY/qwen.template.json.gz /tmp/qwen_shape.gguf
[ "${SKIP_RAW:-0}" = 1 ] || python3 bench/gpu/raw_offload_bench.py /tmp/qwen_shape.gguf 3000 | tee $OUT/raw_offload.json
PYTHONPATH=/tmp/site:. python3 -m bench.gpu.adapter_check /tmp/qwen_shape.gguf $CARRY/core_text.txt \
  | tee $OUT/adapter_check.json
