"""The sentence-transformers embedder adapter: the one module that imports torch.

`load_embedder(registry, settings)` is the factory the composition root calls. Backends:
- `onnx` (what `auto` means): ONNX Runtime fp32 (see `embedder_onnx`), exported from this model
  by `export_onnx` once (at set-up, else at first use) and verified against torch fp32: cosine
  0.9999999, so the same embedding space (a library embedded through torch keeps working), 1.25x
  torch fp32's throughput here, and a query path that never imports torch (5 s of a cold start);
- `onnx-int8`: dynamically quantised, about 1.7-1.9x fp32 on any x86 CPU, but cosine 0.994 to
  fp32 and SciFact nDCG@10 0.7660 vs 0.7731 (more than the 0.005 allowed), so only on request;
- `torch`: sentence-transformers on the CPU in fp32 (the reference; the fallback when ONNX
  Runtime or the export fails);
- `torch-bf16`: the same under bf16 autocast; a speed-up only where the CPU has native bf16
  (AMX or AVX512-BF16): 1.6-2.6x the fp32 throughput on this project's (busy) machine,
  cosine 0.99998 to fp32, SciFact dense nDCG@10 0.7748 vs 0.7731 (bench_embedder, subset).
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from desktop_rag.domain.errors import ConfigError, ModelNotFoundError
from desktop_rag.domain.protocols import Embedder, Vector, WordPieceCounter
from desktop_rag.retrieval.embedder_onnx import load_onnx_embedder
from desktop_rag.retrieval.embedder_parts import (
    TokenizerCounter,
    count_with,
    model_name,
    with_prefixes,
)

if TYPE_CHECKING:
    from desktop_rag.config import Settings
    from desktop_rag.models import ModelRegistry

log = logging.getLogger(__name__)

BATCH_SIZE = 32
BACKENDS = ("auto", "onnx", "onnx-int8", "torch", "torch-bf16")
Precision = Literal["fp32", "bf16"]  # bf16: under autocast, a speed-up only with native bf16


def cpu_threads() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def native_bf16() -> bool:
    """Whether this CPU computes bf16 natively (AMX or AVX512-BF16), so bf16 is a speed-up."""
    import torch

    checks = ("_is_amx_tile_supported", "_is_avx512_bf16_supported")
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in checks)


class TorchEmbedder:
    """A sentence-transformers model on the CPU, fp32 or bf16 autocast."""

    def __init__(self, model_dir: Path, precision: Precision = "fp32", threads: int = 0) -> None:
        import torch
        import transformers
        from sentence_transformers import SentenceTransformer

        transformers.logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # quiet CLI
        torch.set_num_threads(threads or cpu_threads())
        self._model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
        self._model.eval()
        self.precision = precision
        self.backend = "torch" if precision == "fp32" else f"torch-{precision}"
        self.dim = int(self._model.get_embedding_dimension() or 0)
        self.max_word_pieces = int(self._model.max_seq_length or 512)
        self.name = f"{model_name(model_dir)} ({self.backend})"

    def _autocast(self) -> AbstractContextManager[Any]:
        if self.precision != "bf16":
            return nullcontext()
        import torch

        return torch.autocast("cpu", dtype=torch.bfloat16)

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._autocast():  # sentence-transformers sorts by length: few pad tokens
            vectors = self._model.encode(
                list(texts),
                batch_size=BATCH_SIZE,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def embed_query(self, text: str) -> Vector:
        result: Vector = self.embed_documents([text])[0]
        return result

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        return count_with(self._model.tokenizer, texts)

    def thread_counter(self) -> WordPieceCounter:
        """A word-piece counter with its own copy of the tokenizer (a fast tokenizer must not be
        used by two threads at once), so chunking on another thread never waits for embedding."""
        return TokenizerCounter(self._model.tokenizer, self.max_word_pieces)


def export_onnx(model_dir: Path, target: Path) -> None:
    """Exports the model (BERT + mean pooling + L2 normalisation) to an fp32 ONNX file.

    Eager attention gives the graph ONNX Runtime's BERT optimizer fuses into its Attention op.
    """
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    transformers.logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # quiet set-up
    model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    bert: Any = model[0].auto_model
    bert.set_attn_implementation("eager")
    pooled = _pooled_bert(bert.eval())
    sample = torch.ones((2, 8), dtype=torch.long)
    axes = {"batch": 0, "seq": 1}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # tracer and deprecation chatter
        torch.onnx.export(
            pooled,
            (sample, sample),
            str(target),
            input_names=["input_ids", "attention_mask"],
            output_names=["embedding"],
            dynamic_axes={
                "input_ids": {v: k for k, v in axes.items()},
                "attention_mask": {v: k for k, v in axes.items()},
                "embedding": {0: "batch"},
            },
            opset_version=17,
            dynamo=False,
        )


def _pooled_bert(bert: Any) -> Any:
    """The BERT followed by the model's mean pooling and normalisation, as one torch module."""
    import torch

    class PooledBert(torch.nn.Module):
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            hidden = self.bert(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=torch.zeros_like(input_ids),
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2.0, dim=1)

    return PooledBert(bert)


def torch_reference(model_dir: Path) -> Callable[[Sequence[str]], Vector]:
    """Torch fp32 embeddings of texts: what an ONNX build is verified against."""

    def embed(texts: Sequence[str]) -> Vector:
        return TorchEmbedder(model_dir, "fp32", cpu_threads()).embed_documents(texts)

    return embed


def onnx_cache(registry: ModelRegistry) -> Path:
    return registry.paths.model_cache_dir / "onnx"


def _load_onnx(model_dir: Path, registry: ModelRegistry, threads: int, variant: str) -> Embedder:
    embedder: Embedder = load_onnx_embedder(
        model_dir, onnx_cache(registry), export_onnx, threads, variant, torch_reference(model_dir)
    )
    return embedder


def _choose(backend: str, model_dir: Path, registry: ModelRegistry, threads: int) -> Embedder:
    if backend == "torch-bf16":
        return TorchEmbedder(model_dir, "bf16", threads)
    if backend == "torch":
        return TorchEmbedder(model_dir, "fp32", threads)
    try:
        variant = "int8" if backend == "onnx-int8" else "fp32"
        return _load_onnx(model_dir, registry, threads, variant)
    except Exception as exc:  # a missing runtime, a failed export or verification
        log.warning("ONNX embedder unavailable (%s); using torch fp32", exc, exc_info=True)
        return TorchEmbedder(model_dir, "fp32", threads)


def prepare_embedder(registry: ModelRegistry, settings: Settings) -> str:
    """Builds what the configured embedder needs before its first use (the set-up runs this, so
    the first question does not wait for an export); returns the embedder's name."""
    return load_embedder(registry, settings).name


def load_embedder(registry: ModelRegistry, settings: Settings) -> Embedder:
    """Builds the embedder the settings ask for (models.embedder_backend)."""
    backend = settings.models.embedder_backend
    if backend not in BACKENDS:
        raise ConfigError(
            f"Invalid setting models.embedder_backend = {backend!r}",
            f"allowed values: {', '.join(BACKENDS)}",
        )
    model_dir = registry.embedder_path()
    if not (model_dir / "config.json").exists():
        raise ModelNotFoundError(
            f"No sentence-transformers model in {model_dir}", "check models.embedder"
        )
    embedder = with_prefixes(_choose(backend, model_dir, registry, cpu_threads()), model_dir)
    log.info("embedder %s loaded (dim %d)", embedder.name, embedder.dim)
    return embedder
