"""The only module that imports llama_cpp: loading a GGUF model (with the work-arounds its
kernels need) and the build's capabilities, for `llama_adapter.LlamaEngine`.

It imports nothing heavy itself, so a cold command can begin mapping the model file
(`begin_load`) before the rest of the engine's modules are even imported: the load runs in
llama.cpp's C code, which lets the imports go on meanwhile."""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import logging
import os
import platform
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_rag.config import LLMSettings
from desktop_rag.domain.errors import LLMError

log = logging.getLogger(__name__)


def llama_cpp_module() -> Any:
    # Busy-waiting OpenMP threads starve everything else on a small shared CPU (measured on 2
    # loaded cores: 0.8 tokens/s spinning vs 23 passive). libgomp reads this when it loads.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import llama_cpp

    _keep_stdio(llama_cpp)
    return llama_cpp


class _StdioKept:
    """Stands in for llama-cpp-python's `suppress_stdout_stderr`, which, while a model loads,
    points the process's file descriptors 1 and 2 and `sys.stdout`/`sys.stderr` at /dev/null
    and afterwards puts back what it saw before. A model loads on a thread of its own here
    (while retrieval runs), so that swap swallowed what the other threads printed meanwhile (a
    cold `ask`'s "Searching your documents…" line went missing) and could put back a stream
    another thread had replaced since. llama.cpp's own messages go through its log callback,
    which llama-cpp-python keeps at errors only when it is not verbose."""

    def __init__(self, disable: bool = True) -> None:
        self.disable = disable

    def __enter__(self) -> _StdioKept:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None


def _keep_stdio(module: Any) -> None:
    """Turns the stdio swap off (_StdioKept) and sends llama.cpp's messages to this logger at
    debug level: they were printed to stderr ("control-looking token …" on every load of the
    default model) by llama-cpp-python's callback, which only the swap had kept quiet. Once per
    process: `llama_cpp_module()` is called for every generated token."""
    if getattr(module, "_desktop_rag_log", None) is not None:
        return
    for name in ("llama", "_internals", "llama_chat_format"):
        part = getattr(module, name, None)
        if part is not None and hasattr(part, "suppress_stdout_stderr"):
            part.suppress_stdout_stderr = _StdioKept

    def to_log(_level: int, text: bytes, _data: Any) -> None:
        log.debug("llama.cpp: %s", text.decode("utf-8", errors="replace").rstrip())

    callback = module.llama_log_callback(to_log)
    module._desktop_rag_log = callback  # ctypes needs it alive as long as llama.cpp logs
    module.llama_log_set(callback, ctypes.c_void_p(0))


GPU_BACKENDS = ("cuda", "vulkan", "metal", "hip", "sycl", "opencl", "musa", "cann", "kompute")


def gpu_offload_supported() -> bool:
    """Whether this llama.cpp build can offload layers to a GPU (False if it is not installed).
    A build whose library folder holds no GPU backend answers without importing llama_cpp
    (84 ms of every cold `search`, which asks only to pick a re-ranker)."""
    if cpu_only_build():
        return False
    try:
        return bool(llama_cpp_module().llama_supports_gpu_offload())
    except ImportError:
        return False


def cpu_only_build() -> bool:
    """The installed llama_cpp ships ggml's CPU backend and no GPU backend library."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        return False
    libs = [p.name.lower() for p in (Path(spec.origin).parent / "lib").glob("*ggml*")]
    has_cpu = any("ggml-cpu" in name for name in libs)
    return has_cpu and not any(f"ggml-{gpu}" in name for name in libs for gpu in GPU_BACKENDS)


def library_version() -> str:
    """The installed llama-cpp-python version, without importing it ('' if absent)."""
    try:
        from importlib import metadata  # 49 ms to import: not on every command's path

        return metadata.version("llama-cpp-python")
    except ImportError:  # metadata.PackageNotFoundError is an ImportError
        return ""


@dataclass(frozen=True, slots=True)
class EngineOptions:
    model_path: Path
    gpu_layers: int = 0  # -1: all layers
    context_size: int = 8192
    threads: int = 2
    batch_size: int = 512
    temperature: float = 0.0
    kv_type: str = "f16"  # llama.cpp's default K and V cache type
    repack: bool = True  # llama.cpp's extra buffer types: weights repacked for its CPU kernels


def resolve_gpu_layers(value: str, supported: bool) -> int:
    """auto: all layers (-1) when the build can offload, else 0 (CPU); N: N layers."""
    if value == "auto":
        return -1 if supported else 0
    layers = int(value)
    if layers != 0 and not supported:
        log.warning("llm.gpu_layers = %s but this llama.cpp build has no GPU offload", value)
    return layers


def resolve_threads(threads: int) -> int:
    return threads if threads > 0 else max(1, os.cpu_count() or 1)


def engine_options(model_path: Path, llm: LLMSettings) -> EngineOptions:
    return EngineOptions(
        model_path=model_path,
        gpu_layers=resolve_gpu_layers(llm.gpu_layers, gpu_offload_supported()),
        context_size=llm.context_size,
        threads=resolve_threads(llm.threads),
        batch_size=llm.batch_size,
        temperature=llm.temperature,
        repack=repack_helps(llm.repack_weights),
    )


@dataclass(frozen=True, slots=True)
class ModelLoad:
    """A model file being loaded on a thread of its own (`begin_load`), for these options."""

    options: EngineOptions
    future: Future[Any]

    def result(self) -> Any:
        """The loaded `Llama`, once it is; a failed load raises its LLMError here."""
        return self.future.result()

    def discard(self) -> None:
        """Nobody will take the model: it is closed as soon as it has loaded."""

        def close(done: Future[Any]) -> None:
            if done.exception() is None:
                done.result().close()

        self.future.add_done_callback(close)


def begin_load(options: EngineOptions) -> ModelLoad:
    """Starts `load_model(options)` at once on a daemon thread. Measured on a cold `ask`: the
    load began 0.6-0.7 s after the process started when it waited for the engine's modules
    to import, because they import numpy, the domain and the server client first."""
    future: Future[Any] = Future()

    def load() -> None:
        try:
            future.set_result(load_model(options))
        except BaseException as exc:  # handed to whoever waits for the model
            future.set_exception(exc)

    threading.Thread(target=load, name="model-load", daemon=True).start()
    return ModelLoad(options, future)


def amx_kernels_active() -> bool:
    """Whether llama.cpp's AMX matrix kernels would run: the build has them and the CPU has AMX.

    Those kernels crash (SIGSEGV in ggml_backend_amx_mul_mat) on multi-token batches on the
    machines this was developed on, so the engine then loads without extra buffer types.
    """
    info = bytes(llama_cpp_module().llama_print_system_info()).decode(errors="replace")
    if "AMX_INT8 = 1" not in info:
        return False
    try:
        return "amx_int8" in Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return True


@contextlib.contextmanager
def _extra_buffers(enabled: bool) -> Iterator[None]:
    """Loads with `use_extra_bufts` set; llama-cpp-python's constructor has no argument for it."""
    module = llama_cpp_module().llama_cpp
    original = module.llama_model_default_params

    def params() -> Any:
        value = original()
        value.use_extra_bufts = enabled
        return value

    module.llama_model_default_params = params
    try:
        yield
    finally:
        module.llama_model_default_params = original


def repack_helps(choice: str, cpuinfo: str | None = None, machine: str | None = None) -> bool:
    """Whether to load with the weights repacked for llama.cpp's CPU kernels ("auto": not on an
    x86 CPU without AVX-512). Measured on this project's 2-core AVX2 machines with the default
    Q4_K_M model: repacking made the load 1.7-1.9 s instead of 0.6-1.0 s and the prompt 45-51
    tokens/s instead of 54-61, with the same generation speed; CPUs with AVX-512 or ARM are
    where its kernels are made for, so there it stays llama.cpp's default."""
    if choice != "auto":
        return choice == "on"
    arch = (machine or platform.machine()).lower()
    if arch not in ("x86_64", "amd64", "i686", "x86"):
        return True
    flags = cpuinfo if cpuinfo is not None else _cpuinfo()
    return " avx512f" in flags


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return " avx512f"  # unknown: llama.cpp's default


def load_model(options: EngineOptions) -> Any:
    extra = options.repack and not amx_kernels_active()
    if options.repack and not extra:
        log.info("AMX kernels present: loading without extra buffer types (they crash)")
    try:
        with _extra_buffers(extra):
            return llama_cpp_module().Llama(
                model_path=str(options.model_path),
                n_gpu_layers=options.gpu_layers,
                n_ctx=options.context_size,
                n_batch=options.batch_size,
                n_ubatch=options.batch_size,
                n_threads=options.threads,
                n_threads_batch=options.threads,
                verbose=False,
            )
    except (ValueError, RuntimeError) as exc:
        raise LLMError(
            f"Could not load the chat model {options.model_path.name}: {exc}",
            "the file may be damaged, or too large for the memory; try llm.context_size lower",
        ) from exc


CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def chat_template(llm: Any) -> str:
    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        log.warning("%s has no chat template; using ChatML", llm.model_path)
        return CHATML
    return str(template)


def chat_formatter(llm: Any, template: str) -> Any:
    from llama_cpp import llama_chat_format

    def text(token: int) -> str:
        return str(llm._model.token_get_text(token)) if token != -1 else ""

    eos, bos = llm.token_eos(), llm.token_bos()
    return llama_chat_format.Jinja2ChatFormatter(
        template=template, eos_token=text(eos), bos_token=text(bos), stop_token_ids=[eos]
    )
