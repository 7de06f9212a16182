"""Files as the app checks them: one sha256 of a file's bytes, read a MiB at a time, for the
ingest planner (a changed file), the model files (verified downloads and assembly), the
embedder's ONNX export and the core's KV state."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

CHUNK_BYTES = 1 << 20


def file_sha256(path: Path, on_bytes: Callable[[int], None] | None = None) -> str:
    """The file's sha256 as hex; `on_bytes` hears each block's size (a progress bar)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK_BYTES):
            digest.update(block)
            if on_bytes is not None:
                on_bytes(len(block))
    return digest.hexdigest()
