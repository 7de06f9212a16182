"""Builds the chat engine from settings: a local llama.cpp model owned by one worker thread, or
(`settings.llm.backend == "server"`) an OpenAI-compatible server engine.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from desktop_rag.compute import ComputeThread
from desktop_rag.config import LLMSettings, Settings
from desktop_rag.llm.llama_adapter import EngineOptions, LlamaEngine, gpu_offload_supported
from desktop_rag.llm.llama_loading import repack_helps
from desktop_rag.llm.server_engine import load_server_engine
from desktop_rag.llm.worker import EngineWorker
from desktop_rag.models import ModelRegistry
from desktop_rag.protocols import ChatEngine

log = logging.getLogger(__name__)


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


def load_local_engine(
    model_path: Path, llm: LLMSettings, compute: ComputeThread | None = None
) -> ChatEngine:
    """A llama.cpp engine for `model_path`, built on and owned by the compute thread (its own
    worker thread when none is given)."""
    options = engine_options(model_path, llm)
    return EngineWorker(lambda: LlamaEngine(options), compute, load_here=True)


def load_engine(
    registry: ModelRegistry, settings: Settings, compute: ComputeThread | None = None
) -> ChatEngine:
    if settings.llm.backend == "server":
        return load_server_engine(settings, registry.token_counter())
    return load_local_engine(registry.chat_model_path(), settings.llm, compute)
