"""Runs llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`) for tests and
benchmarks, with one change: on CPUs where llama.cpp's AMX kernels would run, the model loads
without extra buffer types, as `desktop_rag.llm.llama_adapter` does (those kernels crash on
multi-token batches on the machines this was developed on). Same arguments as the server.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any


def amx_kernels_active() -> bool:
    import llama_cpp

    info = bytes(llama_cpp.llama_print_system_info()).decode(errors="replace")
    try:
        cpu = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        cpu = "amx_int8"
    return "AMX_INT8 = 1" in info and "amx_int8" in cpu


def disable_extra_buffers() -> None:
    import llama_cpp.llama_cpp as module

    original = module.llama_model_default_params

    def params() -> Any:
        value = original()
        value.use_extra_bufts = False
        return value

    module.llama_model_default_params = params


if __name__ == "__main__":
    if amx_kernels_active():
        disable_extra_buffers()
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
