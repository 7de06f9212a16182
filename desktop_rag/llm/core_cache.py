"""CAG: the core prefix (instructions + pinned documents) prefilled once, its KV state saved with
llama.cpp's state file functions and restored for every question.

Files in the cache folder: `core-<key>.state` (llama_state_save_file) and `core-<key>.json`
(the key's parts, the state file's size and sha256). Both are written atomically, the sidecar
last; a state whose checksum does not match is never loaded. Any change to the key's parts
(model file, context size, KV types, GPU/CPU mode, template, ordered document hashes) gives a
new key, so an old state is stale and is never used.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeGuard, runtime_checkable

from desktop_rag.config.files import file_sha256
from desktop_rag.domain import Passage
from desktop_rag.domain.errors import LLMError
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import ChatMessage, TokenGenerating

log = logging.getLogger(__name__)
_verified: set[tuple[str, int, int]] = set()  # (path, size, mtime_ns) whose checksum matched


@runtime_checkable
class PrefixEngine(TokenGenerating, Protocol):
    """What the core cache needs from an engine (LlamaEngine implements it; a server engine
    cannot save or restore a KV state)."""

    context_size: int
    template_hash: str

    def prefill(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> None: ...

    def save_state(self, path: Path) -> None: ...

    def load_state(self, path: Path, expected: Sequence[int]) -> bool: ...

    def reusable_prefix(self, tokens: Sequence[int]) -> int: ...

    def identity(self) -> dict[str, Any]: ...


def supports_prefix_cache(engine: object) -> TypeGuard[PrefixEngine]:
    """Whether the core's prefix can be prefilled once and its state saved and restored."""
    return isinstance(engine, PrefixEngine)


def as_prefix_engine(engine: object) -> PrefixEngine:
    """`engine` typed as a PrefixEngine, for a caller that checked `supports_prefix_cache`."""
    if not supports_prefix_cache(engine):
        raise LLMError("The chat model cannot keep a cached prefix (an LLM server cannot)")
    return engine


@dataclass(frozen=True, slots=True)
class SplitPrompt:
    prefix: list[int]  # instructions + core: the cached part
    suffix: list[int]  # retrieved passages + question + generation prompt

    @property
    def tokens(self) -> list[int]:
        return self.prefix + self.suffix


def split_prompt(engine: PrefixEngine, messages: Sequence[ChatMessage]) -> SplitPrompt:
    """Renders `messages` and cuts the text right after the system message's content."""
    text = engine.render(messages)
    system = messages[0].content
    at = text.find(system)
    if at < 0:
        return SplitPrompt([], engine.tokenize_prompt(text))
    cut = at + len(system)
    return SplitPrompt(engine.tokenize_prompt(text[:cut]), engine.tokenize_prompt(text[cut:]))


def prefix_tokens(engine: PrefixEngine, system: str) -> list[int]:
    return split_prompt(engine, [ChatMessage("system", system), ChatMessage("user", "?")]).prefix


def model_sha256(model: Path, cache_dir: Path) -> str:
    """The model file's sha256, memoised by path, size and mtime (hashing 1 GB takes seconds)."""
    memo_path = cache_dir / "model-hashes.json"
    stat = model.stat()
    key = f"{model.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    memo = _read_json(memo_path) or {}
    if key not in memo:
        memo[key] = file_sha256(model)
        _write_json_atomic(memo_path, memo)
    return str(memo[key])


def cache_key(
    identity: dict[str, Any], prompt_hash: str, doc_hashes: Sequence[str]
) -> dict[str, Any]:
    """Every part that changes the prefix's KV state."""
    return {**identity, "prompt": prompt_hash, "documents": list(doc_hashes)}


def key_id(key: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


class CoreCacheFiles:
    """The state files of one cache folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def state_path(self, key: dict[str, Any]) -> Path:
        return self.folder / f"core-{key_id(key)}.state"

    def sidecar(self, key: dict[str, Any]) -> Path:
        return self.state_path(key).with_suffix(".json")

    def building_marker(self) -> Path:
        return self.folder / "core.building"

    def state(self, key: dict[str, Any]) -> str:
        """missing | building | ready | stale (a state exists, but for another key)."""
        if self.building_marker().exists() and _marker_alive(self.building_marker()):
            return "building"
        if self.valid(key, verify=False):
            return "ready"
        others = [p for p in self.folder.glob("core-*.state") if p != self.state_path(key)]
        return "stale" if others or self.state_path(key).exists() else "missing"

    def valid(self, key: dict[str, Any], verify: bool = True) -> bool:
        """Sidecar and state agree with the key, size and (once per process) the checksum."""
        path, meta = self.state_path(key), _read_json(self.sidecar(key))
        if meta is None or meta.get("key") != key or not path.is_file():
            return False
        stat = path.stat()
        if stat.st_size != meta.get("size"):
            return False
        marker = (str(path), stat.st_size, stat.st_mtime_ns)
        if verify and marker not in _verified:
            if file_sha256(path) != meta.get("sha256"):
                return False
            _verified.add(marker)
        return True

    def meta(self, key: dict[str, Any]) -> dict[str, Any] | None:
        return _read_json(self.sidecar(key))

    def remove_all(self) -> None:
        for path in [*self.folder.glob("core-*.state"), *self.folder.glob("core-*.json")]:
            path.unlink(missing_ok=True)
        for path in self.folder.glob("core-*.tmp*"):  # left by a killed build
            if not _pid_alive(path.suffix.removeprefix(".tmp")):
                path.unlink(missing_ok=True)

    def build(
        self,
        engine: PrefixEngine,
        key: dict[str, Any],
        tokens: Sequence[int],
        cancel: CancelToken | None = None,
    ) -> dict[str, Any]:
        """Prefills `tokens` and saves the state atomically; returns the sidecar's content."""
        self.folder.mkdir(parents=True, exist_ok=True)
        marker = self.building_marker()
        marker.write_text(str(os.getpid()))
        try:
            return self._build(engine, key, tokens, cancel)
        finally:
            marker.unlink(missing_ok=True)

    def _build(
        self,
        engine: PrefixEngine,
        key: dict[str, Any],
        tokens: Sequence[int],
        cancel: CancelToken | None,
    ) -> dict[str, Any]:
        start = time.perf_counter()
        engine.prefill(tokens, cancel)
        prefill_s = time.perf_counter() - start
        tmp = self.state_path(key).with_suffix(f".tmp{os.getpid()}")
        engine.save_state(tmp)
        meta = {
            "key": key,
            "tokens": len(tokens),
            "size": tmp.stat().st_size,
            "sha256": file_sha256(tmp),
            "prefill_s": round(prefill_s, 3),
            "build_s": round(time.perf_counter() - start, 3),
        }
        self.remove_all()
        tmp.replace(self.state_path(key))
        _write_json_atomic(self.sidecar(key), meta)
        return meta


def restore(
    engine: PrefixEngine, files: CoreCacheFiles, key: dict[str, Any], prefix: list[int]
) -> float:
    """Makes the KV cache start with `prefix`: kept if already there, else loaded from the state
    file. Returns the milliseconds spent loading; raises LookupError when the file is unusable."""
    in_memory = engine.reusable_prefix([*prefix, 0]) >= len(prefix)
    if in_memory and files.valid(key, verify=False):
        return 0.0
    start = time.perf_counter()
    if not files.valid(key) or not engine.load_state(files.state_path(key), prefix):
        raise LookupError("core cache state unusable")
    return (time.perf_counter() - start) * 1000


def _marker_alive(marker: Path) -> bool:
    try:
        pid = int(marker.read_text().strip() or "0")
        os.kill(pid, 0)
    except (ValueError, OSError):
        return False
    return True


def _pid_alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, OSError):
        return False
    return True


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def core_passages(chunks_by_doc: Sequence[Sequence[Any]]) -> list[Passage]:
    """Core chunks numbered 1..C in the fixed document order."""
    passages: list[Passage] = []
    for chunks in chunks_by_doc:
        for chunk in chunks:
            passages.append(Passage(len(passages) + 1, chunk, chunk.text, 1.0, is_core=True))
    return passages
