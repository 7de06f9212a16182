"""The ONNX Runtime embedder adapter: the one module that imports onnxruntime (and onnx).

The model is exported from the sentence-transformers folder once (by a torch-side exporter the
caller passes in), optimised (fused attention, GELU, layer norms) and, for `int8`, dynamically
quantised, into `<model cache>/onnx/<model>-<variant>-<key>/`. fp32 is the default: its vectors
match torch's (cosine 0.9999999 over 400 SciFact passages), so it is the same embedding space and
a library embedded through torch needs no re-embedding; int8 is faster but moves vectors (0.994).

A build is verified before it is kept: the probe texts are embedded by the new file and by the
reference (torch) and must agree (`MIN_COSINE`). The build is atomic (a temporary folder, then
renames, the manifest last). Opening it is cheap, because every cold start of the CLI pays for it:
the folder is keyed by the source files' content (the weights by their size, first and last MiB),
the file is checked against the manifest's size and mtime, and one probe
text is embedded and compared with the vector recorded at build (3 ms), which catches damaged
transformer weights and a runtime that computes differently. Hashing the 90 MB file took 70 ms on a
quiet machine and over a second on a busy one, so the full sha256 is checked by `doctor --check`
(`verify_file`), and whenever the probe fails. Inference batches texts of similar length together.
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
from typing import Any

import numpy as np

from desktop_rag.config.files import file_sha256
from desktop_rag.domain.protocols import Vector
from desktop_rag.retrieval.embedder_parts import TokenizerCounter, model_name

log = logging.getLogger(__name__)

FORMAT = "minilm-onnx-v2"  # bump when the export, quantisation or verification recipe changes
MODEL_FILE = "model.onnx"
MANIFEST = "manifest.json"
BATCH_SIZE = 32
SOURCE_FILES = ("config.json", "tokenizer.json", "model.safetensors", "pytorch_model.bin")
VARIANTS = ("fp32", "int8")
MIN_COSINE = {"fp32": 0.9999, "int8": 0.98}  # the build against the reference, per probe text
PROBE_COSINE = 0.99999  # the same file on the same probe at load: only damage moves it
PROBES = (
    "Vitamin D supplementation reduces the risk of fractures in elderly women.",
    "Error code E1234 appears when the printer runs out of toner; replace the cartridge.",
    "Revenues $ 4,180,339 | $ 3,431,434 | $ 2,751,375 (in thousands)",
    "Die Entkalkung dauert etwa 30 Minuten.",
)
Exporter = Callable[[Path, Path], None]  # (model folder, target .onnx file)
Reference = Callable[[Sequence[str]], Vector]  # the reference embeddings of texts (torch fp32)


class OnnxVerificationError(RuntimeError):
    """A fresh build whose vectors do not match the reference's: it is not kept."""


def source_key(model_dir: Path, variant: str) -> str:
    """The source files' content, plus the build recipe. Small files are hashed whole; a large
    one (the weights) by its size and its first and last MiB, so a cold start does not hash
    90 MB (76 ms) and two environments with the same model package share one build (keying by
    mtime made each environment's install a new key, and each rebuilt and removed the other's)."""
    digest = hashlib.sha256(f"{FORMAT}/{variant}".encode())
    for name in SOURCE_FILES:
        if (model_dir / name).exists():
            digest.update(f"{name}:{_content_sample(model_dir / name)}".encode())
    return digest.hexdigest()


def _content_sample(path: Path, block: int = 1 << 20) -> str:
    size = path.stat().st_size
    if size <= 4 * block:
        return file_sha256(path)
    digest = hashlib.sha256(str(size).encode())
    with path.open("rb") as handle:
        digest.update(handle.read(block))
        handle.seek(size - block)
        digest.update(handle.read(block))
    return digest.hexdigest()


def _file_identity(path: Path) -> list[int]:
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns]


def read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def cached_model(folder: Path, key: str) -> Path | None:
    """The cached ONNX file if its manifest is for `key` and the file is the one it describes
    (size and mtime), else None. The probe check at load catches what this cannot."""
    manifest = read_manifest(folder)
    model = folder / MODEL_FILE
    if manifest is None or manifest.get("source") != key or not model.exists():
        return None
    if _file_identity(model) != manifest.get("file"):
        log.warning("cached ONNX model %s is damaged or was changed; rebuilding it", model)
        return None
    return model


def verify_file(folder: Path) -> bool:
    """The full check: the file's sha256 against the manifest (seconds for large models)."""
    manifest = read_manifest(folder)
    model = folder / MODEL_FILE
    return manifest is not None and model.exists() and file_sha256(model) == manifest.get("sha256")


def remove_damaged_builds(cache_root: Path) -> tuple[int, list[str]]:
    """(builds checked, the damaged ones): a build whose file no longer matches its manifest's
    sha256 is removed, so the next use builds it again (it is only a cache)."""
    folders = [f for f in sorted(cache_root.glob("*")) if (f / MANIFEST).exists()]
    damaged = [f for f in folders if not verify_file(f)]
    for folder in damaged:
        shutil.rmtree(folder, ignore_errors=True)
    return len(folders), [f.name for f in damaged]


def build_model(
    model_dir: Path, folder: Path, key: str, export: Exporter, variant: str,
    reference: Reference | None = None,
) -> Path:
    """Exports, optimises and (for int8) quantises into `folder`, verifies the result against
    `reference` when given, and moves it into place atomically."""
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
        probes, cosine = _verified_probes(final, model_dir, variant, reference)
        folder.mkdir(exist_ok=True)
        (folder / MANIFEST).unlink(missing_ok=True)  # invalid until the new manifest lands
        final.replace(folder / MODEL_FILE)
        manifest = {
            "source": key, "format": FORMAT, "variant": variant,
            "sha256": file_sha256(folder / MODEL_FILE), "file": _file_identity(folder / MODEL_FILE),
            "probe": probes[0].tolist(), "reference_cosine": cosine,
        }
        (work / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        (work / MANIFEST).replace(folder / MANIFEST)
    log.info("built the ONNX embedder model in %s", folder)
    _remove_older_builds(folder)
    return folder / MODEL_FILE


def _remove_older_builds(folder: Path) -> None:
    """Other builds of the same model and variant (an older recipe or install): never used again."""
    prefix = folder.name.rsplit("-", 1)[0] + "-"
    for other in folder.parent.glob(f"{prefix}*"):
        if other != folder and other.is_dir() and not other.name.startswith("."):
            shutil.rmtree(other, ignore_errors=True)


def _verified_probes(
    onnx_file: Path, model_dir: Path, variant: str, reference: Reference | None
) -> tuple[Vector, float | None]:
    """The new file's probe vectors, and their worst cosine to the reference's (None: none)."""
    got = OnnxEmbedder(onnx_file, model_dir, "verifying", 1).embed_each(PROBES)
    if reference is None:
        return got, None
    cosine = float(np.min(np.sum(got * reference(PROBES), axis=1)))
    if cosine < MIN_COSINE[variant]:
        raise OnnxVerificationError(
            f"the exported {variant} model's vectors differ from the reference's "
            f"(cosine {cosine:.5f} < {MIN_COSINE[variant]})"
        )
    return got, cosine


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


def model_folder(model_dir: Path, cache_root: Path, variant: str) -> tuple[Path, str]:
    key = source_key(model_dir, variant)
    return cache_root / f"{_short_name(model_dir)}-{variant}-{key[:16]}", key


def ensure_model(
    model_dir: Path, cache_root: Path, export: Exporter, variant: str,
    reference: Reference | None = None,
) -> Path:
    """The cached ONNX model for `model_dir`, built first if missing or damaged."""
    folder, key = model_folder(model_dir, cache_root, variant)
    found = cached_model(folder, key)
    if found is not None:
        return found
    log.warning("Preparing the embedder for ONNX Runtime (once, about 10-30 s)...")
    return build_model(model_dir, folder, key, export, variant, reference)


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

    def embed_each(self, texts: Sequence[str]) -> Vector:
        """Each text in a batch of its own: what a verification compares (int8's activation
        scale is shared by a batch, so neighbours move a vector slightly)."""
        return np.stack([self.embed_query(text) for text in texts])

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
    model_dir: Path, cache_root: Path, export: Exporter, threads: int, variant: str = "fp32",
    reference: Reference | None = None,
) -> OnnxEmbedder:
    """The ONNX embedder, building its model on first use; a cached file that does not load, or
    whose probe vector moved (damaged weights), is rebuilt once."""
    name = f"{model_name(model_dir)} (onnx-{variant})"
    onnx_file = ensure_model(model_dir, cache_root, export, variant, reference)
    try:
        return _checked(OnnxEmbedder(onnx_file, model_dir, name, threads), onnx_file.parent)
    except Exception:  # a file that looks right but does not load or embeds wrongly
        log.warning("cached ONNX model %s is damaged; rebuilding it", onnx_file, exc_info=True)
        shutil.rmtree(onnx_file.parent, ignore_errors=True)
        onnx_file = ensure_model(model_dir, cache_root, export, variant, reference)
        return OnnxEmbedder(onnx_file, model_dir, name, threads)


def _checked(embedder: OnnxEmbedder, folder: Path) -> OnnxEmbedder:
    """`embedder` if it still embeds the first probe as it did when it was built."""
    manifest = read_manifest(folder) or {}
    expected = np.asarray(manifest.get("probe", []), dtype=np.float32)
    got = embedder.embed_query(PROBES[0])
    if expected.shape != got.shape or float(expected @ got) < PROBE_COSINE:
        raise OnnxVerificationError(f"the ONNX model in {folder} no longer embeds as it did")
    return embedder
