"""Measures llama.cpp prefill/generation speed and KV-state file save/restore with all layers
offloaded to the GPU versus none, on one GGUF. Prints one JSON document.

Usage: python raw_offload_bench.py MODEL.gguf [PROMPT_TOKENS]
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import tempfile
import time

import llama_cpp
from llama_cpp import Llama


def measure(path: str, gpu_layers: int, prompt_tokens: int) -> dict[str, float]:
    t0 = time.perf_counter()
    llm = Llama(path, n_ctx=prompt_tokens + 256, n_gpu_layers=gpu_layers, n_batch=512,
                verbose=False, seed=1)
    load_s = time.perf_counter() - t0
    vocab = llm.n_vocab()
    tokens = [(i * 7919) % (vocab - 1000) + 500 for i in range(prompt_tokens)]
    t0 = time.perf_counter()
    llm.eval(tokens)
    prefill_s = time.perf_counter() - t0
    state_file = os.path.join(tempfile.mkdtemp(), "state.bin")
    n = len(tokens)
    arr = (llama_cpp.llama_token * n)(*tokens)
    t0 = time.perf_counter()
    llama_cpp.llama_state_save_file(llm._ctx.ctx, state_file.encode(), arr, n)
    save_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = (llama_cpp.llama_token * (n + 8))()
    count = ctypes.c_size_t(0)
    llama_cpp.llama_state_load_file(llm._ctx.ctx, state_file.encode(), out, n + 8,
                                    ctypes.byref(count))
    load_state_s = time.perf_counter() - t0
    llm.n_tokens = n
    gen = 64
    t0 = time.perf_counter()
    for _ in range(gen):
        tok = llm.sample(temp=0.0)
        llm.eval([tok])
    gen_s = time.perf_counter() - t0
    return {"gpu_layers": gpu_layers, "load_s": load_s, "prompt_tokens": prompt_tokens,
            "prefill_tok_s": prompt_tokens / prefill_s, "gen_tok_s": gen / gen_s,
            "state_save_s": save_s, "state_restore_s": load_state_s,
            "state_file_mb": os.path.getsize(state_file) / 2**20,
            "restored_tokens": int(count.value)}


def main() -> None:
    path = sys.argv[1]
    prompt_tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    result = {"llama_cpp": llama_cpp.__version__,
              "gpu_offload_supported": bool(llama_cpp.llama_supports_gpu_offload()),
              "runs": [measure(path, -1, prompt_tokens), measure(path, 0, prompt_tokens)]}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
