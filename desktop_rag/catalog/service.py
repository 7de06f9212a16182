"""The models service both the CLI and the GUI call: list, download, use and remove models.

It holds no Qt and no heavy model: listing reads the catalog, the disk and the hardware; a
download goes through `downloads.download_entry`. Choosing a chat model or a cross-encoder is a
settings change the caller saves (the CLI writes settings.toml, the GUI applies it through its
facade, which also reloads the engine); choosing an embedder re-embeds the library, which the
caller runs through the switch function it passes in (`services.embedder_switch`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from desktop_rag.catalog.entries import CatalogEntry, CatalogError
from desktop_rag.catalog.fit import Fit, assess, recommend_chat
from desktop_rag.catalog.hardware import Hardware, detect_hardware
from desktop_rag.catalog.installed import (
    Installed,
    InstallState,
    installed,
    remove_download,
)
from desktop_rag.catalog.loader import Catalog, load_catalog
from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.domain.progress import CancelToken, ProgressCallback

if TYPE_CHECKING:
    from desktop_rag.catalog.downloads import DownloadCallback
    from desktop_rag.models.hub import HubClient

# switch_embedder(ctx, model_dir, name, progress, cancel) -> SwitchOutcome (services layer)
SwitchFn = Callable[[Any, Path, str, ProgressCallback, CancelToken], object]
ON_DISK = (InstallState.PACKAGED, InstallState.DOWNLOADED)


@dataclass(frozen=True, slots=True)
class ModelRow:
    entry: CatalogEntry
    installed: Installed
    fit: Fit
    in_use: bool
    recommended: bool = False

    @property
    def on_disk(self) -> bool:
        return self.installed.state in ON_DISK


@dataclass(frozen=True, slots=True)
class Choice:
    """What `use` decided: settings `changes` to save, or an embedder folder to switch to."""

    entry: CatalogEntry
    changes: dict[str, str]
    embedder_dir: Path | None = None


class ModelsService:
    def __init__(self, paths: AppPaths, settings: Settings, catalog: Catalog | None = None,
                 hardware: Hardware | None = None,
                 client: Callable[[str], HubClient] | None = None) -> None:
        self.paths, self.settings = paths, settings
        self.catalog = catalog if catalog is not None else load_catalog(paths.config_dir)
        self._hardware = hardware
        self._client = client

    @property
    def hardware(self) -> Hardware:
        if self._hardware is None:
            self._hardware = detect_hardware(self.paths.model_cache_dir)
        return self._hardware

    def rows(self) -> list[ModelRow]:
        """Every entry with where it is, how it fits this machine and whether it is in use."""
        found = {e.id: installed(e, self.paths, self.settings) for e in self.catalog.entries}
        on_disk = frozenset(i for i, f in found.items() if f.state in ON_DISK)
        best = recommend_chat(self.catalog.entries, self.hardware, on_disk)
        return [
            ModelRow(e, found[e.id], assess(e, self.hardware, e.id in on_disk),
                     self._in_use(e, found[e.id]), best is not None and best[0].id == e.id)
            for e in self.catalog.entries
        ]

    def recommendation(self) -> ModelRow | None:
        return next((r for r in self.rows() if r.recommended), None)

    def _in_use(self, entry: CatalogEntry, where: Installed) -> bool:
        models = self.settings.models
        if entry.kind == "chat":
            if entry.packaged is not None:
                return not models.chat_model and self.settings.profile == entry.packaged
            return where.path is not None and _same(models.chat_model, where.path)
        if entry.kind == "embedder":
            if entry.packaged is not None:
                return not models.embedder
            return where.path is not None and _same(models.embedder, where.path)
        return where.path is not None and _same(models.cross_encoder, where.path)

    def download(self, entry_id: str, progress: DownloadCallback | None = None,
                 cancel: CancelToken | None = None) -> Path:
        """Fetches an entry the user asked for (asking is the consent: see `models.allow_downloads`
        for downloads nobody asked for)."""
        from desktop_rag.catalog.downloads import download_entry, no_download_progress
        from desktop_rag.models.hub import HubClient

        entry = self.catalog.get(entry_id)
        make = self._client or HubClient
        return download_entry(entry, self.paths.model_cache_dir,
                              make(self.settings.models.hub_endpoint),
                              progress or no_download_progress, cancel)

    def choose(self, entry_id: str) -> Choice:
        """What using `entry_id` means; refuses an entry that is not on disk yet."""
        entry = self.catalog.get(entry_id)
        where = installed(entry, self.paths, self.settings)
        if entry.packaged in ("default", "tiny"):
            return Choice(entry, {"models.chat_model": "", "profile": entry.packaged})
        if where.state not in ON_DISK or where.path is None:
            raise CatalogError(f"{entry.id} is not downloaded ({where.state.value})",
                               f"download it first: desktop-rag models download {entry.id}")
        if entry.kind == "embedder":
            return Choice(entry, {}, embedder_dir=where.path)
        key = "models.chat_model" if entry.kind == "chat" else "models.cross_encoder"
        return Choice(entry, {key: str(where.path)})

    def remove(self, entry_id: str) -> Path:
        entry = self.catalog.get(entry_id)
        where = installed(entry, self.paths, self.settings)
        if entry.packaged is None and self._in_use(entry, where):
            raise CatalogError(f"{entry.id} is in use",
                               "choose another model with `desktop-rag models use` first")
        return remove_download(entry, self.paths)


def load_switch() -> SwitchFn:
    """The embedder switch (services/embedder_switch.py), found by name: it sits in the layer
    above the catalog, and the CLI and GUI that call it pass it back in."""
    import importlib

    try:
        module = importlib.import_module("desktop_rag.services.embedder_switch")
    except ImportError as exc:
        raise DesktopRagError("Switching the embedder is not available in this build",
                              "set models.embedder to the folder and re-ingest") from exc
    return cast("SwitchFn", module.switch_embedder)


def _same(setting: str, path: Path) -> bool:
    if not setting:
        return False
    return Path(setting).expanduser().resolve() == path.resolve()
