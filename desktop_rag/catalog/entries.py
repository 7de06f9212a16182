"""The model catalog's typed entries, and the checks that turn JSON into them.

A catalog is data (the packaged `resources/model_catalog.json` and a user's own file), so every
field is checked here once: a bad entry is refused with a message naming the file, the entry
and the field, instead of failing later in a download or a fit computation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, get_args

from desktop_rag.domain.errors import ConfigError

Kind = Literal["chat", "embedder", "cross-encoder"]
Packaged = Literal["default", "tiny", "embedder"]
Integrity = Literal["pinned", "hub"]
KINDS: tuple[Kind, ...] = get_args(Kind)
PACKAGED: tuple[Packaged, ...] = get_args(Packaged)
INTEGRITY: tuple[Integrity, ...] = get_args(Integrity)
ENTRY_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{1,79}$")
REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")
FILE_NAME = re.compile(r"^(?!/)(?!.*\.\.)[\w./-]+$")


class CatalogError(ConfigError):
    """A catalog file or one of its entries is invalid."""


@dataclass(frozen=True, slots=True)
class ModelFile:
    name: str  # path inside the repo
    size: int | None = None  # bytes; None: taken from the hub at download
    sha256: str | None = None  # None: the hub's announced sha256 is verified instead


@dataclass(frozen=True, slots=True)
class EmbeddingInfo:
    """What using an embedder correctly needs: the wrong prefix silently costs recall."""

    query_prefix: str
    passage_prefix: str
    max_length: int
    dimensions: int


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    id: str
    kind: Kind
    name: str
    repo: str | None  # None: only in a package (never downloaded)
    revision: str
    files: tuple[ModelFile, ...]  # empty for folder models: every file the hub lists
    download_mb: int  # approximate, for the disk check before the listing is known
    licence: str
    params_b: float
    context_length: int
    chat_template: bool
    languages: tuple[str, ...]
    ram_mb: int  # at the default context (8192 tokens) for chat models
    vram_mb: int  # to offload every layer; 0: runs on the CPU only
    description: str
    integrity: Integrity
    embedding: EmbeddingInfo | None = None
    packaged: Packaged | None = None
    source: str = ""  # the catalog file it came from

    @property
    def multilingual(self) -> bool:
        return len(self.languages) > 1 or "multilingual" in self.languages


class _Reader:
    """Reads the fields of one entry, naming the file and entry in every refusal."""

    def __init__(self, data: dict[str, Any], where: str) -> None:
        self.data, self.where = data, where

    def fail(self, field: str, reason: str) -> CatalogError:
        return CatalogError(f"{self.where}: field {field!r} {reason}",
                            "fix the entry or remove it from the file")

    def get(self, field: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if field not in self.data:
            if default is ...:
                raise self.fail(field, "is missing")
            return default
        value = self.data[field]
        if isinstance(value, bool) and kind is not bool and bool not in _tuple(kind):
            raise self.fail(field, f"must be {_names(kind)}, not {value!r}")
        if not isinstance(value, kind):
            raise self.fail(field, f"must be {_names(kind)}, not {value!r}")
        return value

    def text(self, field: str, default: Any = ...) -> str:
        value = self.get(field, str, default)
        if not isinstance(value, str) or (default is ... and not value.strip()):
            raise self.fail(field, "must be a non-empty string")
        return value

    def number(self, field: str, low: float, high: float, integer: bool = True) -> Any:
        value = self.get(field, int if integer else (int, float))
        if not low <= value <= high:
            raise self.fail(field, f"must be between {low:g} and {high:g}, not {value!r}")
        return value

    def choice(self, field: str, allowed: tuple[str, ...], default: Any = ...) -> Any:
        value = self.get(field, (str, type(None)), default)
        if value is not None and value not in allowed:
            raise self.fail(field, f"must be one of {', '.join(allowed)}, not {value!r}")
        return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _names(kind: type | tuple[type, ...]) -> str:
    names = {int: "a number", float: "a number", str: "a string", bool: "true or false",
             list: "a list", dict: "an object", type(None): "null"}
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in _tuple(kind)))


def parse_entry(data: object, source: str, index: int) -> CatalogEntry:
    """One checked entry; `source` and `index` name it in any refusal."""
    label = data.get("id") if isinstance(data, dict) else None
    where = f"{source}: entry {label!r}" if isinstance(label, str) else f"{source}: entry #{index}"
    if not isinstance(data, dict):
        raise CatalogError(f"{where} must be an object", "each entry is a JSON object")
    read = _Reader(data, where)
    entry = CatalogEntry(
        id=_entry_id(read), kind=read.choice("kind", KINDS), name=read.text("name"),
        repo=_repo(read), revision=read.text("revision", "main") or "main",
        files=_files(read), download_mb=read.number("download_mb", 0, 1 << 20),
        licence=read.text("licence"), params_b=read.number("params_b", 0, 1000, integer=False),
        context_length=read.number("context_length", 64, 1 << 24),
        chat_template=read.get("chat_template", bool), languages=_languages(read),
        ram_mb=read.number("ram_mb", 1, 1 << 22), vram_mb=read.number("vram_mb", 0, 1 << 22),
        description=read.text("description"), integrity=read.choice("integrity", INTEGRITY),
        embedding=_embedding(read), packaged=read.choice("packaged", PACKAGED, None),
        source=source,
    )
    _check_consistency(entry, read)
    return entry


def _entry_id(read: _Reader) -> str:
    value = read.text("id")
    if not ENTRY_ID.match(value):
        raise read.fail("id", "must be 2-80 lowercase letters, digits, '.', '_' or '-'")
    return value


def _repo(read: _Reader) -> str | None:
    value = read.get("repo", (str, type(None)))
    if value is not None and not REPO_ID.match(value):
        raise read.fail("repo", f"must be a hub repo id like 'owner/name', not {value!r}")
    return value if isinstance(value, str) else None


def _files(read: _Reader) -> tuple[ModelFile, ...]:
    files = []
    for n, item in enumerate(read.get("files", list, [])):
        if not isinstance(item, dict):
            raise read.fail(f"files[{n}]", "must be an object with name, size, sha256")
        part = _Reader(item, f"{read.where} files[{n}]")
        name = part.text("name")
        if not FILE_NAME.match(name):
            raise part.fail("name", f"must be a relative path inside the repo, not {name!r}")
        size = part.get("size", (int, type(None)), None)
        sha = part.get("sha256", (str, type(None)), None)
        if sha is not None and not SHA256.match(sha):
            raise part.fail("sha256", "must be 64 lowercase hex digits, or null")
        files.append(ModelFile(name, size, sha))
    return tuple(files)


def _languages(read: _Reader) -> tuple[str, ...]:
    value = read.get("languages", list)
    if not value or not all(isinstance(v, str) and v for v in value):
        raise read.fail("languages", "must be a non-empty list of language codes")
    return tuple(value)


def _embedding(read: _Reader) -> EmbeddingInfo | None:
    value = read.get("embedding", (dict, type(None)), None)
    if value is None:
        return None
    part = _Reader(value, f"{read.where} embedding")
    return EmbeddingInfo(
        query_prefix=part.text("query_prefix", ""), passage_prefix=part.text("passage_prefix", ""),
        max_length=part.number("max_length", 8, 1 << 20),
        dimensions=part.number("dimensions", 1, 1 << 16),
    )


def _check_consistency(entry: CatalogEntry, read: _Reader) -> None:
    if entry.repo is None and entry.packaged is None:
        raise read.fail("repo", "is needed unless the model is packaged")
    gguf = len(entry.files) == 1 and entry.files[0].name.endswith(".gguf")
    if entry.kind == "chat" and not gguf:
        raise read.fail("files", "of a chat model must be exactly one .gguf file")
    if entry.kind == "embedder" and entry.embedding is None:
        raise read.fail("embedding", "is needed for an embedder (prefixes, max_length)")
    if entry.integrity == "pinned" and not (entry.files and all(f.sha256 for f in entry.files)):
        raise read.fail("integrity", "'pinned' needs a sha256 for every file")
