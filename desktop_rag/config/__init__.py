"""Typed, validated settings stored as TOML in the config folder.

Settings are frozen: an edit builds a new object (`updated`) that replaces the old one whole, so
a worker thread reading them mid-edit never sees half of a change."""

from __future__ import annotations

import dataclasses
import logging
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from desktop_rag.domain.errors import ConfigError

Profile = Literal["default", "tiny"]
RerankerChoice = Literal["auto", "none", "cross-encoder", "llm"]
Fusion = Literal["zscore", "rrf"]
OcrMode = Literal["auto", "off"]
TableMode = Literal["auto", "off"]
PictureMode = Literal["auto", "off"]
SearchMode = Literal["hybrid", "dense", "bm25"]
RepackChoice = Literal["auto", "on", "off"]
SummaryMap = Literal["sentences", "model"]
StoreMode = Literal["embedded", "server"]
LlmBackend = Literal["local", "server"]
PROFILES: tuple[Profile, ...] = get_args(Profile)
RERANKERS: tuple[RerankerChoice, ...] = get_args(RerankerChoice)
FUSIONS: tuple[Fusion, ...] = get_args(Fusion)
OCR_MODES: tuple[OcrMode, ...] = get_args(OcrMode)
TABLE_MODES: tuple[TableMode, ...] = get_args(TableMode)
PICTURE_MODES: tuple[PictureMode, ...] = get_args(PictureMode)
SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)
STORE_MODES: tuple[StoreMode, ...] = get_args(StoreMode)
LLM_BACKENDS: tuple[LlmBackend, ...] = get_args(LlmBackend)
REPACK_CHOICES: tuple[RepackChoice, ...] = get_args(RepackChoice)
SUMMARY_MAPS: tuple[SummaryMap, ...] = get_args(SummaryMap)
T = TypeVar("T")
log = logging.getLogger(__name__)

# Settings that existed once and were removed: a file that still names one is read without it,
# with a warning that says why (an experiment measured not to help), never refused.
REMOVED = {
    "llm.second_look": "the second look before a refusal was measured not to help; removed",
    "llm.refusal_threshold": "reconsidering unsure refusals was measured not to help; removed",
    "retrieval.passage_sentences": "cutting passages to their best sentences was measured not "
    "to help; passages are always given whole",
}


@dataclass(frozen=True, slots=True)
class ModelSettings:
    chat_model: str = ""  # empty: the profile's packaged model; else a GGUF file path
    embedder: str = ""  # empty: packaged all-MiniLM-L6-v2; else a sentence-transformers folder
    embedder_backend: str = "auto"  # auto | torch | torch-bf16 | onnx (see retrieval/embedder.py)
    cross_encoder: str = ""  # local folder or hub repo id (downloaded only if allow_downloads)
    hub_endpoint: str = "https://huggingface.co"
    allow_downloads: bool = False


@dataclass(frozen=True, slots=True)
class LLMSettings:
    backend: LlmBackend = "local"
    server_url: str = "http://127.0.0.1:8000/v1"
    server_timeout_s: float = 60.0
    gpu_layers: str = "auto"  # auto | 0 | N
    context_size: int = 8192
    threads: int = 0  # 0: all cores
    batch_size: int = 512
    max_tokens: int = 512
    temperature: float = 0.0
    repack_weights: RepackChoice = "auto"  # llama.cpp's repacked CPU kernels (README: when)
    summary_map: SummaryMap = "sentences"  # a long summary's sections: key sentences, or "model"
    # Without a GPU, a text of more tokens than this starts from its key sentences even when it
    # fits the context: reading 5,600 tokens whole took 204 s to the first word here (README)
    summary_whole_cpu_tokens: int = 2000
    ratio_worksheet: bool = True  # a named financial ratio is worked out from the tables (README)
    read_table_cells: bool = True  # a refusal over a table row the question names: its cell


@dataclass(frozen=True, slots=True)
class RetrievalSettings:
    top_k: int = 6
    fetch_k: int = 80
    fusion: Fusion = "zscore"  # z-scored convex combination of dense and BM25 scores, or "rrf"
    rrf_k: int = 60
    dense_weight: float = 1.0
    sparse_weight: float = 1.0
    reranker: RerankerChoice = "auto"
    rerank_candidates: int = 30
    context_tokens: int = 2000
    min_similarity: float = 0.30  # evidence gate: best dense cosine that counts as evidence
    min_term_coverage: float = 0.60  # evidence gate: share of query words a top chunk must hold
    bm25_in_memory: bool = True  # search the persisted keyword index (false: FTS5's bm25 alone)
    focus_named: bool = True  # a question naming a document (company, year) searches it first
    doc_prior: float = 0.5  # across documents: a gain for passages of the best-matched documents
    doc_prior_passages: int = 3  # ...a document's match: its best this many passages' scores
    ratio_terms: bool = True  # a named financial ratio: BM25 also seeks the lines it needs


@dataclass(frozen=True, slots=True)
class IngestSettings:
    memory_budget_mb: int = 1280  # past it, freed heap pages go back to the system (0: never)
    ocr: OcrMode = "auto"  # auto: pages without text are OCR'd when Tesseract's data is found; off
    ocr_language: str = "eng"  # Tesseract language(s), e.g. "eng+deu"
    ocr_dpi: int = 150
    ocr_processes: int = 0  # processes that read pages side by side: OCR, tables (0: one per core)
    tessdata: str = ""  # folder of *.traineddata; empty: TESSDATA_PREFIX, then the usual places
    tables: TableMode = "auto"  # auto: PDF pages that look tabular get a table pass; off
    picture_text: PictureMode = "auto"  # auto: words in large pictures OCR'd (with ocr); off
    sync_on_start: bool = True  # the app re-checks the followed folders when it opens
    watch_folders: bool = True  # ...and watches them while it is open


@dataclass(frozen=True, slots=True)
class StoreSettings:
    mode: StoreMode = "embedded"
    host: str = "127.0.0.1"
    port: int = 8000
    auth_token: str = ""
    tenant: str = "default_tenant"
    database: str = "default_database"
    vector_snapshot: bool = True  # embedded: a copy of the vectors on disk, so reads skip Chroma


@dataclass(frozen=True, slots=True)
class Settings:
    profile: Profile = "default"
    models: ModelSettings = field(default_factory=ModelSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    ingest: IngestSettings = field(default_factory=IngestSettings)
    store: StoreSettings = field(default_factory=StoreSettings)

    def validate(self) -> Settings:
        _check_choice("profile", self.profile, PROFILES)
        _check_choice("llm.repack_weights", self.llm.repack_weights, REPACK_CHOICES)
        _check_choice("llm.summary_map", self.llm.summary_map, SUMMARY_MAPS)
        _check_choice("retrieval.reranker", self.retrieval.reranker, RERANKERS)
        _check_choice("retrieval.fusion", self.retrieval.fusion, FUSIONS)
        _check_choice("store.mode", self.store.mode, STORE_MODES)
        _check_choice("llm.backend", self.llm.backend, LLM_BACKENDS)
        _check_gpu_layers(self.llm.gpu_layers)
        _check_range("llm.context_size", self.llm.context_size, 512, 131072)
        _check_range("llm.threads", self.llm.threads, 0, 256)
        _check_range("llm.summary_whole_cpu_tokens", self.llm.summary_whole_cpu_tokens, 0, 131072)
        _check_range("llm.batch_size", self.llm.batch_size, 8, 8192)
        _check_range("llm.max_tokens", self.llm.max_tokens, 1, 8192)
        _check_range("llm.temperature", self.llm.temperature, 0.0, 2.0)
        _check_range("retrieval.top_k", self.retrieval.top_k, 1, 100)
        _check_range("ingest.memory_budget_mb", self.ingest.memory_budget_mb, 0, 1 << 20)
        _check_choice("ingest.ocr", self.ingest.ocr, OCR_MODES)
        _check_choice("ingest.tables", self.ingest.tables, TABLE_MODES)
        _check_choice("ingest.picture_text", self.ingest.picture_text, PICTURE_MODES)
        _check_range("ingest.ocr_dpi", self.ingest.ocr_dpi, 72, 600)
        _check_range("ingest.ocr_processes", self.ingest.ocr_processes, 0, 256)
        _check_range("retrieval.fetch_k", self.retrieval.fetch_k, 1, 1000)
        _check_range("retrieval.rrf_k", self.retrieval.rrf_k, 1, 1000)
        _check_range("retrieval.rerank_candidates", self.retrieval.rerank_candidates, 1, 200)
        _check_range("retrieval.context_tokens", self.retrieval.context_tokens, 100, 100000)
        _check_range("retrieval.min_similarity", self.retrieval.min_similarity, -1.0, 1.0)
        _check_range("retrieval.min_term_coverage", self.retrieval.min_term_coverage, 0.0, 1.0)
        _check_range("retrieval.doc_prior", self.retrieval.doc_prior, 0.0, 10.0)
        _check_range("retrieval.doc_prior_passages", self.retrieval.doc_prior_passages, 1, 20)
        _check_range("store.port", self.store.port, 1, 65535)
        return self

    def updated(self, changes: dict[str, Any]) -> Settings:
        """A copy with `changes` ({"llm.max_tokens": 48, ...}) applied, checked like a file."""
        nested: dict[str, Any] = {}
        for key, value in changes.items():
            *tables, name = key.split(".")
            target = nested
            for table in tables:
                target = target.setdefault(table, {})
            target[name] = value
        return _filled(self, nested, "").validate()


def _check_choice(key: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(
            f"Invalid setting {key} = {value!r}", f"allowed values: {', '.join(allowed)}"
        )


def _check_range(key: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise ConfigError(f"Invalid setting {key} = {value!r}", f"allowed range: {low} to {high}")


def _check_gpu_layers(value: str) -> None:
    if value == "auto" or (value.lstrip("-").isdigit() and -1 <= int(value) <= 1000):
        return
    raise ConfigError(
        f"Invalid setting llm.gpu_layers = {value!r}",
        "allowed: auto, -1 (all), 0 (CPU) or 1 to 1000",
    )


def _coerce(key: str, default: object, value: object) -> object:
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
    elif isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(default, float):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif isinstance(default, str):
        if isinstance(value, str):
            return value
        if key.endswith("gpu_layers") and isinstance(value, int):
            return str(value)
    raise ConfigError(f"Invalid setting {key} = {value!r}", f"expected a {type(default).__name__}")


def _filled(obj: T, data: dict[str, Any], prefix: str) -> T:
    """`obj` with the values of `data` (nested tables for nested settings), type-checked."""
    known = {f.name for f in fields(obj)}  # type: ignore[arg-type]
    changes: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if key not in known and name in REMOVED:
            log.warning("Setting %s is ignored: %s. Delete it from settings.toml.", name,
                        REMOVED[name])  # fmt: skip
            continue
        if key not in known:
            raise ConfigError(f"Unknown setting {name}", f"known: {', '.join(sorted(known))}")
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(f"Invalid setting {name} = {value!r}", "expected a table")
            changes[key] = _filled(current, value, f"{name}.")
        else:
            changes[key] = _coerce(name, current, value)
    return dataclasses.replace(obj, **changes)  # type: ignore[type-var]


def settings_from_dict(data: dict[str, Any]) -> Settings:
    return _filled(Settings(), data, "").validate()


def load_settings(path: Path) -> Settings:
    if not path.exists():
        return Settings()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"Settings file {path} is not valid TOML: {exc}", "fix or delete it"
        ) from exc
    return settings_from_dict(data)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def settings_to_toml(settings: Settings) -> str:
    top: list[str] = []
    tables: list[str] = []
    for f in fields(settings):
        value = getattr(settings, f.name)
        if dataclasses.is_dataclass(value):
            tables.append(f"\n[{f.name}]")
            tables += [f"{g.name} = {_toml_value(getattr(value, g.name))}" for g in fields(value)]
        else:
            top.append(f"{f.name} = {_toml_value(value)}")
    return "\n".join(top + tables) + "\n"


def save_settings(settings: Settings, path: Path) -> None:
    settings.validate()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(settings_to_toml(settings), encoding="utf-8")
    tmp.replace(path)
