"""Builds the chat engine from settings: a local llama.cpp model owned by one worker thread, or
(`settings.llm.backend == "server"`) an OpenAI-compatible server engine.
"""

from __future__ import annotations

import logging
from pathlib import Path

from desktop_rag.config import LLMSettings, Settings
from desktop_rag.domain.protocols import ChatEngine
from desktop_rag.llm.compute_thread import ComputeThread
from desktop_rag.llm.llama_adapter import LlamaEngine
from desktop_rag.llm.llama_loading import ModelLoad, engine_options
from desktop_rag.llm.server_engine import load_server_engine
from desktop_rag.llm.worker import EngineWorker
from desktop_rag.models import ModelRegistry

log = logging.getLogger(__name__)


def load_local_engine(
    model_path: Path,
    llm: LLMSettings,
    compute: ComputeThread | None = None,
    loading: ModelLoad | None = None,
) -> ChatEngine:
    """A llama.cpp engine for `model_path`, owned by the compute thread (its own worker thread
    when none is given); `loading`: the model file's load, begun already for these options."""
    options = engine_options(model_path, llm)
    begun = loading if loading is not None and loading.options == options else None
    if loading is not None and begun is None:
        loading.discard()  # begun for other options: not this engine's model
    return EngineWorker(lambda: LlamaEngine(options, begun), compute, load_here=True)


def load_engine(
    registry: ModelRegistry,
    settings: Settings,
    compute: ComputeThread | None = None,
    loading: ModelLoad | None = None,
) -> ChatEngine:
    if settings.llm.backend == "server":
        return load_server_engine(settings, registry.token_counter())
    return load_local_engine(registry.chat_model_path(), settings.llm, compute, loading)
