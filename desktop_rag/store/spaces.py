"""Embedding spaces: which model made a library's vectors, and the Chroma collection named by it.

Vectors made by two models, or by one model with another query prefix, cannot be compared, so
each space has a collection of its own. A space is what changes the vectors: the model folder's
name, a short hash of its weights, config and tokenizer files, whether it L2-normalises (a
Normalize module), and its query/passage prefixes (e5 wants "query: " / "passage: "; a wrong
prefix silently costs recall). Not the inference backend: torch fp32 and ONNX fp32 of one model
are one space, so changing the backend never re-embeds a library.

Prefixes come from a small sidecar file in the model folder (SIDECAR), else from the prompts a
sentence-transformers folder declares in `config_sentence_transformers.json`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

SIDECAR = "desktop_rag_embedder.json"  # {"query_prefix": "query: ", "passage_prefix": "passage: "}
LEGACY_COLLECTION = "chunks"  # the one collection of libraries made before spaces had names
HASHED_SUFFIXES = (".json", ".txt", ".model", ".safetensors", ".bin")
_NOT_HASHED = {SIDECAR, "README.md", "data_config.json"}
_MAX_NAME = 63  # Chroma's limit on older releases (3-63 characters, alphanumeric at both ends)
_hashes: dict[tuple[object, ...], str] = {}


@dataclass(frozen=True, slots=True)
class Prefixes:
    """What an embedder puts before a query and before a passage ("" for most models)."""

    query: str = ""
    passage: str = ""


@dataclass(frozen=True, slots=True)
class EmbeddingSpace:
    """The identity of the vectors a model makes; equal spaces share a collection."""

    model: str
    weights: str
    normalize: bool
    query_prefix: str = ""
    passage_prefix: str = ""

    @property
    def key(self) -> str:
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    @property
    def collection(self) -> str:
        """The collection's name: readable (the model) and unique (the key)."""
        slug = re.sub(r"[^A-Za-z0-9_-]+", "-", self.model).strip("-_") or "model"
        room = _MAX_NAME - len("chunks--") - len(self.key)
        return f"chunks-{slug[:room].rstrip('-_')}-{self.key}"

    @property
    def prefixes(self) -> Prefixes:
        return Prefixes(self.query_prefix, self.passage_prefix)

    def describe(self) -> str:
        prefixes = (f"prefixes {self.query_prefix!r}/{self.passage_prefix!r}"
                    if self.query_prefix or self.passage_prefix else "no prefixes")  # fmt: skip
        norm = "normalised" if self.normalize else "not normalised"
        return f"{self.model} (weights {self.weights}, {norm}, {prefixes})"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EmbeddingSpace:
        data = json.loads(text)
        return cls(
            str(data["model"]), str(data["weights"]), bool(data["normalize"]),
            str(data.get("query_prefix", "")), str(data.get("passage_prefix", "")),
        )


def model_name(model_dir: Path) -> str:
    """A readable model name: the folder's name, or its package's for the packaged model."""
    if model_dir.name != "model":
        return model_dir.name
    return model_dir.parent.name.removeprefix("gt_").replace("_", "-")


def read_prefixes(model_dir: Path) -> Prefixes:
    """The model's query/passage prefixes: the sidecar's, else the folder's declared prompts."""
    sidecar = _json(model_dir / SIDECAR)
    if sidecar is not None:
        return Prefixes(str(sidecar.get("query_prefix", "")),
                        str(sidecar.get("passage_prefix", "")))  # fmt: skip
    prompts = (_json(model_dir / "config_sentence_transformers.json") or {}).get("prompts") or {}
    if not isinstance(prompts, dict):
        return Prefixes()
    passage = prompts.get("passage", prompts.get("document", ""))
    return Prefixes(str(prompts.get("query", "")), str(passage))


def write_prefixes(model_dir: Path, prefixes: Prefixes) -> None:
    """Writes the sidecar (the model catalog knows e5's prefixes; the folder often does not)."""
    data = {"query_prefix": prefixes.query, "passage_prefix": prefixes.passage}
    tmp = model_dir / f".{SIDECAR}.tmp"
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    tmp.replace(model_dir / SIDECAR)


def space_of(model_dir: Path) -> EmbeddingSpace:
    """The space a model folder's vectors live in (hashes its files: cached per process)."""
    prefixes = read_prefixes(model_dir)
    return EmbeddingSpace(
        model_name(model_dir), weights_hash(model_dir), normalizes(model_dir),
        prefixes.query, prefixes.passage,
    )


def normalizes(model_dir: Path) -> bool:
    """Whether the sentence-transformers pipeline ends in a Normalize module."""
    modules = _json_list(model_dir / "modules.json")
    return any(str(m.get("type", "")).endswith("Normalize") for m in modules)


def weights_hash(model_dir: Path) -> str:
    """A short hash of the files that decide the vectors (weights, configs, tokenizer), of the
    folder and of each module's sub-folder; cached by the files' sizes and times."""
    files = _hashed_files(model_dir)
    stamp = tuple((str(f.relative_to(model_dir)), f.stat().st_size, f.stat().st_mtime_ns)
                  for f in files)  # fmt: skip
    key = (str(model_dir.resolve()), stamp)
    if key not in _hashes:
        digest = hashlib.sha256()
        for path in files:
            digest.update(f"{path.relative_to(model_dir).as_posix()}:".encode())
            digest.update(_file_sha(path).encode())
        _hashes[key] = digest.hexdigest()[:16]
    return _hashes[key]


def _hashed_files(model_dir: Path) -> list[Path]:
    folders = [model_dir] + [model_dir / str(m.get("path", "")) for m in
                             _json_list(model_dir / "modules.json") if m.get("path")]  # fmt: skip
    found = {
        path for folder in folders if folder.is_dir() for path in folder.iterdir()
        if path.is_file() and path.suffix in HASHED_SUFFIXES and path.name not in _NOT_HASHED
    }
    return sorted(found)


def _file_sha(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _json(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _json_list(path: Path) -> list[dict[str, object]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []
