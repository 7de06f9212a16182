"""The ONNX Runtime embedder adapter: the one module that imports onnxruntime (and onnx).

The model is exported from the sentence-transformers folder once (by a torch-side exporter the
caller passes in), optimised (fused attention, GELU, layer norms) and dynamically quantised,
into `<model cache>/onnx/<model>-<source hash>/`. The build is atomic (a temporary folder, then
renames, the manifest last) and keyed by the source files' hash; a cached file whose hash no
longer matches its manifest is rebuilt. Inference batches texts of similar length together.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from desktop_rag.protocols import Vector
from desktop_rag.retrieval.embedder_parts import TokenizerCounter, model_name

log = logging.getLogger(__name__)

FORMAT = "minilm-onnx-v1"  # bump when the export or quantisation recipe changes
MODEL_FILE = "model.onnx"
MANIFEST = "manifest.json"
BATCH_SIZE = 32
SOURCE_FILES = ("config.json", "tokenizer.json", "model.safetensors", "pytorch_model.bin")
Exporter = Callable[[Path, Path], None]  # (model folder, target .onnx file)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_key(model_dir: Path, variant: str) -> str:
    """Hash of the model's weights, config and tokenizer, plus the build recipe."""
    digest = hashlib.sha256(f"{FORMAT}/{variant}".encode())
    for name in SOURCE_FILES:
        if (model_dir / name).exists():
            digest.update(f"{name}:{file_sha256(model_dir / name)}".encode())
    return digest.hexdigest()


def cached_model(folder: Path, key: str) -> Path | None:
    """The cached ONNX file if it is complete and unmodified, else None."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    model = folder / MODEL_FILE
    if manifest.get("source") != key or not model.exists():
        return None
    if file_sha256(model) != manifest.get("sha256"):
        log.warning("cached ONNX model %s is damaged; rebuilding it", model)
        return None
    return model


def build_model(model_dir: Path, folder: Path, key: str, export: Exporter, variant: str) -> Path:
    """Exports, optimises and (for int8) quantises into `folder`, atomically."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".build-", dir=folder.parent) as tmp:
        work = Path(tmp)
        export(model_dir, work / "exported.onnx")
        _optimise(work / "exported.onnx", work / "optimised.onnx", model_dir)
        final = work / MODEL_FILE
        if variant == "int8":
            _quantise(work / "optimised.onnx", final)
        else:
            (work / "optimised.onnx").replace(final)
        manifest = {"source": key, "sha256": file_sha256(final), "format": FORMAT}
        (work / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        folder.mkdir(exist_ok=True)
        (folder / MANIFEST).unlink(missing_ok=True)  # invalid until the new manifest lands
        final.replace(folder / MODEL_FILE)
        (work / MANIFEST).replace(folder / MANIFEST)
    log.info("built the ONNX embedder model in %s", folder)
    return folder / MODEL_FILE


def _optimise(source: Path, target: Path, model_dir: Path) -> None:
    from onnxruntime.transformers.optimizer import optimize_model

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = optimize_model(
            str(source),
            model_type="bert",
            num_heads=int(config["num_attention_heads"]),
            hidden_size=int(config["hidden_size"]),
            opt_level=1,
        )
        model.save_model_to_file(str(target))


def _quantise(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul", "Attention"],
            extra_options={"DefaultTensorType": 1},  # FLOAT, for the fused ops' outputs
        )


def ensure_model(model_dir: Path, cache_root: Path, export: Exporter, variant: str) -> Path:
    """The cached ONNX model for `model_dir`, built first if missing or damaged."""
    key = source_key(model_dir, variant)
    folder = cache_root / f"{_short_name(model_dir)}-{variant}-{key[:16]}"
    return cached_model(folder, key) or build_model(model_dir, folder, key, export, variant)


def _short_name(model_dir: Path) -> str:
    return model_dir.parent.name if model_dir.name == "model" else model_dir.name


def _max_seq_length(model_dir: Path) -> int:
    try:
        config = json.loads((model_dir / "sentence_bert_config.json").read_text("utf-8"))
        return int(config["max_seq_length"])
    except (OSError, ValueError, KeyError):
        return 512


class OnnxEmbedder:
    """The exported model under ONNX Runtime on the CPU, with length-bucketed batches."""

    def __init__(self, onnx_file: Path, model_dir: Path, name: str, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.name = name
        self.max_word_pieces = _max_seq_length(model_dir)
        self._counter = TokenizerCounter(
            Tokenizer.from_file(str(model_dir / "tokenizer.json")), self.max_word_pieces
        )
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(self.max_word_pieces)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = ort.InferenceSession(
            str(onnx_file), options, providers=["CPUExecutionProvider"]
        )
        self.dim = int(self._run([[101, 102]])[0].shape[0])

    def _run(self, rows: Sequence[Sequence[int]]) -> Vector:
        width = max(len(row) for row in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        out = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        return np.asarray(out, dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return result
        rows = [enc.ids for enc in self._tokenizer.encode_batch(list(texts))]
        for batch in length_buckets([len(row) for row in rows], BATCH_SIZE):
            result[batch] = self._run([rows[i] for i in batch])
        norms = np.linalg.norm(result, axis=1, keepdims=True)
        return np.asarray(result / np.maximum(norms, 1e-12), dtype=np.float32)

    def embed_query(self, text: str) -> Vector:
        result: Vector = self.embed_documents([text])[0]
        return result

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        return self._counter.count_word_pieces(texts)

    def thread_counter(self) -> TokenizerCounter:
        """A word-piece counter with its own tokenizer, for chunking on another thread."""
        return self._counter.copy()


def length_buckets(lengths: Sequence[int], batch_size: int) -> Iterator[list[int]]:
    """Indices in batches of similar length (longest first), so batches carry little padding."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


def load_onnx_embedder(
    model_dir: Path, cache_root: Path, export: Exporter, threads: int, variant: str = "int8"
) -> OnnxEmbedder:
    """The ONNX embedder, building its model on first use; rebuilds once if it fails to load."""
    name = f"{model_name(model_dir)} (onnx-{variant})"
    onnx_file = ensure_model(model_dir, cache_root, export, variant)
    try:
        return OnnxEmbedder(onnx_file, model_dir, name, threads)
    except Exception:  # a file that hashes right but does not load: rebuild it once
        log.warning("cached ONNX model %s does not load; rebuilding it", onnx_file, exc_info=True)
        shutil.rmtree(onnx_file.parent, ignore_errors=True)
        onnx_file = ensure_model(model_dir, cache_root, export, variant)
        return OnnxEmbedder(onnx_file, model_dir, name, threads)
