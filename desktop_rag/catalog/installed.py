"""Where catalog models live on disk and whether each one is there, without loading anything.

A downloaded entry has a folder of its own, `<model cache>/catalog/<id>/`, holding the repo's
files under their repo paths (a GGUF file, or a whole sentence-transformers folder) and, once
every file is verified, a marker naming the entry. Files still arriving end in `.part`; they are
what a later download resumes from. Packaged entries are found through the model registry.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path

from desktop_rag.catalog.entries import CatalogEntry, CatalogError, EmbeddingInfo
from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.models.hub import COMPLETE_MARK

MIB = 1024 * 1024


class InstallState(Enum):
    PACKAGED = "installed, offline"
    DOWNLOADED = "downloaded"
    PARTIAL = "partly downloaded"
    ABSENT = "not downloaded"


@dataclass(frozen=True, slots=True)
class Installed:
    state: InstallState
    path: Path | None  # the GGUF file or the model folder, when usable
    partial_mb: int = 0  # bytes already in `.part` files (resumed by the next download)
    detail: str = ""


def entry_dir(model_cache_dir: Path, entry: CatalogEntry) -> Path:
    return model_cache_dir / "catalog" / entry.id


def usable_path(folder: Path, entry: CatalogEntry) -> Path:
    """What a setting points at: the GGUF file of a chat model, else the folder."""
    return folder / entry.files[0].name if entry.kind == "chat" else folder


def installed(entry: CatalogEntry, paths: AppPaths, settings: Settings) -> Installed:
    if entry.packaged is not None:
        return _packaged(entry, paths, settings)
    folder = entry_dir(paths.model_cache_dir, entry)
    if (folder / COMPLETE_MARK).is_file():
        return Installed(InstallState.DOWNLOADED, usable_path(folder, entry))
    parts = [p for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else []
    if parts:
        size = sum(p.stat().st_size for p in parts) // MIB
        return Installed(InstallState.PARTIAL, None, size, "the next download resumes it")
    return Installed(InstallState.ABSENT, None)


def _packaged(entry: CatalogEntry, paths: AppPaths, settings: Settings) -> Installed:
    from desktop_rag.models import ModelRegistry

    registry = ModelRegistry(paths, settings.updated({"models.embedder": "",
                                                      "models.chat_model": ""}))
    try:
        if entry.packaged == "embedder":
            return Installed(InstallState.PACKAGED, registry.embedder_path())
        if entry.packaged == "tiny":
            return Installed(InstallState.PACKAGED, registry.tiny_chat_model_path())
    except DesktopRagError as exc:
        return Installed(InstallState.ABSENT, None, detail=exc.message)
    assembled = paths.model_cache_dir / entry.files[0].name
    if assembled.is_file():
        return Installed(InstallState.PACKAGED, assembled)
    return Installed(InstallState.PACKAGED, None, detail="assembled from its packages on first use")


def write_marker(folder: Path, entry: CatalogEntry, sizes: dict[str, int]) -> None:
    """Says the folder is complete and verified, and how to use it (an embedder's prefixes)."""
    info = {
        "id": entry.id, "kind": entry.kind, "repo": entry.repo, "revision": entry.revision,
        "files": sizes, "embedding": asdict(entry.embedding) if entry.embedding else None,
    }
    (folder / COMPLETE_MARK).write_text(json.dumps(info, indent=2), encoding="utf-8")


def write_prefixes(folder: Path, entry: CatalogEntry) -> None:
    """Leaves an embedder's query/passage prefixes where the embedder reads them (the folder's
    sidecar, store/spaces.py): most model folders do not declare e5's "query: "/"passage: "."""
    info = entry.embedding
    if info is None or not (info.query_prefix or info.passage_prefix):
        return
    from desktop_rag.store.spaces import Prefixes
    from desktop_rag.store.spaces import write_prefixes as write_sidecar

    write_sidecar(folder, Prefixes(info.query_prefix, info.passage_prefix))


def read_marker(folder: Path) -> dict[str, object] | None:
    """The marker of a downloaded catalog folder (None for any other folder)."""
    try:
        data = json.loads((folder / COMPLETE_MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def embedding_info(folder: Path) -> EmbeddingInfo | None:
    """The prefixes and max length of a downloaded catalog embedder, from its marker (None for
    any other folder): what the embedder needs to embed queries and passages correctly."""
    marker = read_marker(folder)
    info = marker.get("embedding") if marker else None
    if not isinstance(info, dict):
        return None
    try:
        return EmbeddingInfo(str(info["query_prefix"]), str(info["passage_prefix"]),
                             int(info["max_length"]), int(info["dimensions"]))
    except (KeyError, TypeError, ValueError):
        return None


def remove_download(entry: CatalogEntry, paths: AppPaths) -> Path:
    """Deletes a downloaded (or partly downloaded) entry's folder."""
    if entry.packaged is not None:
        raise CatalogError(f"{entry.id} is packaged with the app and cannot be removed",
                           "choose another model with `desktop-rag models use` instead")
    folder = entry_dir(paths.model_cache_dir, entry)
    if not folder.exists():
        raise CatalogError(f"{entry.id} is not downloaded", f"nothing at {folder}")
    shutil.rmtree(folder)
    return folder
