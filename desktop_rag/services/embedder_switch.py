"""Switching the embedder without losing the library.

Each embedding space has its own collection (store/spaces.py). `switch_embedder` re-embeds every
chunk the catalog holds into the new model's collection (embedder_switch_run.py) while search
keeps using the old one; then, under the library's write lock so that no ingestion slips between,
it embeds what was added meanwhile and flips the catalog's active-space pointer in one
transaction (store/switch_state.py). The embedder is always loaded from the active space's
model, so queries and stored vectors match at every moment, even if the process dies between the
flip and saving `models.embedder`. Only after the flip is the old collection deleted.

Everything is persisted: a switch stopped by a cancel, a crash or a kill resumes where it stopped
when `switch_embedder` is called again for the same model (the chunks already embedded are
logged with their text's hash and checked against the new collection).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from desktop_rag.config import save_settings
from desktop_rag.domain.errors import LibraryInUseError, ModelNotFoundError
from desktop_rag.domain.progress import CancelToken, ProgressCallback, no_progress
from desktop_rag.services.embedder_switch_run import Pace, Reembedder, now_iso
from desktop_rag.store.lock import WriterLock
from desktop_rag.store.spaces import EmbeddingSpace, model_name, space_of
from desktop_rag.store.switch_state import (
    SWITCH_LOCK,
    ActiveSpace,
    PendingSwitch,
    switch_running,
)
from desktop_rag.store.vectors import drop_collection, open_vector_index

if TYPE_CHECKING:
    from desktop_rag.bootstrap import AppContext
    from desktop_rag.domain.protocols import Embedder

log = logging.getLogger(__name__)
LOCK_RETRY_S = 0.5  # while another process ingests, the switch catches up and tries again
_live: dict[str, Pace] = {}  # catalog file -> the pace of a switch running in this process


@dataclass(frozen=True, slots=True)
class SwitchOutcome:
    """What a call did: `switched` (done, old collection gone), `already-active` (nothing to
    do; a pending switch elsewhere was given up) or `cancelled` (resumable)."""

    status: Literal["switched", "already-active", "cancelled"]
    label: str
    collection: str
    previous: str
    chunks: int
    embedded: int
    seconds: float
    chunks_per_s: float
    old_deleted: bool = False


@dataclass(frozen=True, slots=True)
class SwitchStatus:
    """A switch begun and not finished, for a progress display and `doctor`."""

    label: str
    model_dir: str
    collection: str
    source: str
    phase: str
    done: int
    total: int
    chunks_per_s: float
    eta_s: float | None
    running: bool
    started_at: str
    updated_at: str


def switch_embedder(
    ctx: AppContext, model_dir: Path | str, name: str,
    progress: ProgressCallback = no_progress, cancel: CancelToken | None = None,
) -> SwitchOutcome:
    """Moves the library to the embedder in `model_dir` (shown as `name`); resumes a switch
    to the same model that stopped. Search keeps working throughout."""
    folder = Path(model_dir).expanduser().resolve()
    if not (folder / "config.json").exists():
        raise ModelNotFoundError(f"No sentence-transformers model in {folder}",
                                 "choose a folder with config.json and the model's weights")
    lock = WriterLock(ctx.paths.data_dir / SWITCH_LOCK)
    try:
        lock.acquire()
    except LibraryInUseError as exc:
        raise LibraryInUseError("An embedder switch is already running",
                                "wait for it to finish, or cancel it there") from exc
    try:
        return _Switch(ctx, folder, name, progress, cancel or CancelToken()).run()
    finally:
        _live.pop(str(ctx.paths.catalog_db), None)
        lock.release()


def switch_status(ctx: AppContext) -> SwitchStatus | None:
    """The pending switch (None: none), with its rate and ETA while one runs here."""
    pending = ctx.catalog.spaces().pending()
    if pending is None:
        return None
    live = _live.get(str(ctx.paths.catalog_db))
    rate = live.rate if live else (pending.done / pending.seconds if pending.seconds else 0.0)
    left = max(0, pending.total - pending.done)
    return SwitchStatus(
        pending.label, pending.model_dir, pending.collection, pending.source, pending.phase,
        pending.done, pending.total, rate, left / rate if rate else None,
        live is not None or switch_running(ctx.paths.data_dir), pending.started_at,
        pending.updated_at,
    )


def follow_switch(ctx: AppContext) -> bool:
    """Takes this process over to the active space after another process switched the
    embedder (its vector index raised SpaceChangedError): the settings read again, the vector
    index and the embedder reopened on the new space. False when nothing had moved."""
    from desktop_rag.config import load_settings

    active = ctx.catalog.spaces().active().collection
    embedder = ctx.embedder_collection if ctx.loaded("embedder") else None
    vectors = getattr(ctx.vectors, "collection_name", None) if ctx.loaded("vectors") else None
    if {embedder, vectors} <= {None, active}:
        return False
    ctx.replace_settings(load_settings(ctx.paths.settings_file))
    ctx.reset("vectors")
    ctx.reset("embedder")
    ctx.embedder_collection = None  # set again when the embedder loads
    return True


class _Switch:
    def __init__(
        self, ctx: AppContext, folder: Path, label: str, progress: ProgressCallback,
        cancel: CancelToken,
    ) -> None:
        self.ctx, self.folder, self.label = ctx, folder, label
        self.progress, self.cancel = progress, cancel
        self.store = ctx.catalog.spaces()
        self.space = space_of(folder)
        self.setting = _setting_value(ctx, folder)
        self.began = time.perf_counter()

    def run(self) -> SwitchOutcome:
        pending = self.store.pending()
        if pending is not None and pending.phase != "embedding":
            tidied = self._tidy(pending)
            if tidied is not None:
                return tidied
            pending = None
        active = self._active()
        if active.space == self.space:
            if pending is not None:
                self._give_up(pending)
            self._save_setting(active.model_dir)
            return self._outcome("already-active", active.collection, active.collection, None)
        switch = self._begin(pending, active)
        runner = self._runner(switch)
        deleted = None if runner.round() is None else self._flip(runner, switch)
        if deleted is None:
            return self._outcome("cancelled", switch.collection, switch.source, runner)
        return self._outcome("switched", switch.collection, switch.source, runner, deleted)

    def _tidy(self, flipped: PendingSwitch) -> SwitchOutcome | None:
        """A switch that flipped before a restart: only its tidying was left. Its outcome when
        it went to this model, else None (this switch then starts from the new space)."""
        deleted = self._complete(flipped)
        if flipped.space != self.space:
            return None
        return self._outcome("switched", flipped.collection, flipped.source, None, deleted)

    def _active(self) -> ActiveSpace:
        """The active space; a legacy library's is recorded first: its one collection was
        made with the configured embedder (the packaged all-MiniLM-L6-v2 by default)."""
        active = self.store.active()
        if active.space is not None:
            return active
        value = active.model_dir if active.pinned else self.ctx.settings.models.embedder
        folder = embedder_folder(self.ctx, value)
        active = ActiveSpace(active.collection, value, model_name(folder), space_of(folder))
        self.store.record_active(active)
        return active

    def _begin(self, pending: PendingSwitch | None, active: ActiveSpace) -> PendingSwitch:
        if pending is not None and pending.space == self.space and (
            pending.source == active.collection
        ):
            log.info("resuming the switch to %s at %d/%d chunks", self.label, pending.done,
                     pending.total)  # fmt: skip
            return pending
        if pending is not None:
            self._give_up(pending)
        now = now_iso()
        switch = PendingSwitch(self.setting, self.label, self.space.collection, self.space,
                               active.collection, "embedding", 0, 0, 0.0, now, now)  # fmt: skip
        self.store.begin(switch)
        return switch

    def _runner(self, switch: PendingSwitch) -> Reembedder:
        target = open_vector_index(
            self.ctx.paths, self.ctx.settings.store, switch.collection, follow=False
        )
        key = str(self.ctx.paths.catalog_db)
        self.embedder = self._load_embedder()
        return Reembedder(self.store, target, self.embedder, switch, self.progress, self.cancel,
                          lambda pace: _live.__setitem__(key, pace))  # fmt: skip

    def _load_embedder(self) -> Embedder:
        from desktop_rag.llm.compute_thread import ComputeEmbedder
        from desktop_rag.models import ModelRegistry
        from desktop_rag.retrieval.embedder import load_embedder

        settings = self.ctx.settings.updated({"models.embedder": self.setting})
        registry = ModelRegistry(self.ctx.paths, settings)
        return ComputeEmbedder(lambda: load_embedder(registry, settings), self.ctx.compute)

    def _flip(self, runner: Reembedder, switch: PendingSwitch) -> bool | None:
        """The last round, the flip and the old collection's deletion under the write lock
        (a writer elsewhere then finds its space gone before it writes); None when cancelled
        first, else whether an old collection was deleted."""
        while not self.cancel.cancelled:
            try:
                self.ctx.writer_lock.acquire()  # this process's other writers: waits for them
            except LibraryInUseError:  # another process ingests: catch up meanwhile
                if runner.round() is None:
                    return None
                time.sleep(LOCK_RETRY_S)
                continue
            try:
                wanted = runner.round()
                if wanted is None:
                    return None
                runner.drop_extra(wanted)
                self.store.flip(ActiveSpace(switch.collection, self.setting, self.label,
                                            self.space))  # fmt: skip
                self._adopt()
                finished = self.store.pending()
                return self._complete(finished) if finished is not None else False
            finally:
                self.ctx.writer_lock.release()
        return None

    def _adopt(self) -> None:
        """This process goes over to the new space at once: settings saved, the vector index
        reopened on the new collection, the new embedder (already loaded) put in."""
        self._save_setting(self.setting)
        self.ctx.reset("vectors")
        self.ctx.reset("embedder")
        self.ctx.embedder_collection = self.space.collection
        self.ctx.provide(embedder=self.embedder)
        self.store.set_phase("cleanup")

    def _save_setting(self, value: str) -> None:
        if self.ctx.settings.models.embedder == value:
            return
        new = self.ctx.settings.updated({"models.embedder": value})
        save_settings(new, self.ctx.paths.settings_file)
        self.ctx.replace_settings(new)

    def _complete(self, pending: PendingSwitch) -> bool:
        """After the flip: `models.embedder` saved (if a crash came first), the old collection
        deleted, the switch forgotten. True when an old collection was deleted."""
        if pending.phase == "settings":
            self._save_setting(pending.model_dir)
            self.ctx.reset("vectors")
            self.ctx.reset("embedder")
            self.store.set_phase("cleanup")
        deleted = False
        if pending.source != self.store.active().collection:
            deleted = drop_collection(self.ctx.paths, self.ctx.settings.store, pending.source)
        self.store.finish()
        log.info("embedder switched to %s (%s)", pending.label, pending.collection)
        return deleted

    def _give_up(self, pending: PendingSwitch) -> None:
        """A switch to another model is replaced by this one: its partial collection goes."""
        if pending.collection != self.store.active().collection:
            drop_collection(self.ctx.paths, self.ctx.settings.store, pending.collection)
        self.store.finish()

    def _outcome(
        self, status: Literal["switched", "already-active", "cancelled"], collection: str,
        previous: str, runner: Reembedder | None, deleted: bool = False,
    ) -> SwitchOutcome:
        pace = runner.pace if runner is not None else Pace()
        return SwitchOutcome(status, self.label, collection, previous, pace.done, pace.embedded,
                             time.perf_counter() - self.began, pace.rate, deleted)  # fmt: skip


def embedder_folder(ctx: AppContext, value: str) -> Path:
    """The model folder `models.embedder = value` names ("": the packaged model)."""
    from desktop_rag.models import ModelRegistry

    settings = ctx.settings.updated({"models.embedder": value})
    return ModelRegistry(ctx.paths, settings).embedder_path()


def _setting_value(ctx: AppContext, folder: Path) -> str:
    """What `models.embedder` holds for `folder`: "" for the packaged model, else its path."""
    try:
        if embedder_folder(ctx, "").resolve() == folder:
            return ""
    except Exception:  # the packaged model's package missing: a folder of one's own then
        log.debug("packaged embedder not found", exc_info=True)
    return str(folder)


__all__ = [
    "EmbeddingSpace", "SwitchOutcome", "SwitchStatus", "follow_switch", "switch_embedder",
    "switch_status",
]
