"""The re-embedding loop of an embedder switch: every chunk search can show, embedded by the new
model into the new collection, batch by batch, logged so that a restart goes on where it stopped.

A round embeds what the new collection lacks *now* (chunks added since the last round, or whose
text changed, included); rounds repeat until one finds nothing left, the last one under the
library's write lock, so that no chunk ingested during the switch is missed. Batches adapt their
size (2 to 256 chunks) to take about half a second, so a cancel is seen within a
second and a question asked meanwhile waits at most one batch for the compute thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from desktop_rag.domain.progress import CancelToken, ProgressCallback, ProgressEvent
from desktop_rag.domain.protocols import Embedder, VectorIndex
from desktop_rag.store.switch_state import PendingSwitch, SwitchStore

FIRST_BATCH = 16
MIN_BATCH, MAX_BATCH = 2, 256
BATCH_SECONDS = (0.25, 0.7)  # a batch shorter than this doubles, longer halves


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(slots=True)
class Pace:
    """This run's work, for the rate and the ETA (resumed runs start their own count)."""

    embedded: int = 0
    seconds: float = 0.0
    done: int = 0
    total: int = 0
    started: float = field(default_factory=time.perf_counter)

    @property
    def rate(self) -> float:
        return self.embedded / self.seconds if self.seconds > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        return (self.total - self.done) / self.rate if self.rate > 0 else None


class Reembedder:
    """Fills the switch's target collection from the catalog's chunk texts."""

    def __init__(
        self, store: SwitchStore, target: VectorIndex, embedder: Embedder,
        switch: PendingSwitch, progress: ProgressCallback, cancel: CancelToken,
        on_pace: Callable[[Pace], None] = lambda _pace: None,
    ) -> None:
        self.store, self.target, self.embedder = store, target, embedder
        self.switch, self.progress, self.cancel, self.on_pace = switch, progress, cancel, on_pace
        self.pace = Pace()
        self.batch = FIRST_BATCH
        self.embedded = self._resumed()

    def _resumed(self) -> dict[str, str]:
        """The logged chunks whose vector really is in the target (a batch written to Chroma
        but not yet logged when the process died is simply embedded again)."""
        logged = self.store.embedded()
        present = self.target.all_ids() if logged else set()
        return {cid: sha for cid, sha in logged.items() if cid in present}

    def missing(self) -> tuple[list[str], dict[str, str]]:
        """The chunk ids to embed now, and every wanted chunk id -> its text's hash."""
        wanted = self.store.wanted()
        todo = sorted(cid for cid, sha in wanted.items() if self.embedded.get(cid) != sha)
        return todo, wanted

    def round(self) -> dict[str, str] | None:
        """Embeds what is missing now; the wanted chunks, or None when cancelled midway."""
        todo, wanted = self.missing()
        self.pace.total, self.pace.done = len(wanted), len(wanted) - len(todo)
        self._report()
        start = 0
        while start < len(todo):
            if self.cancel.cancelled:
                return None
            part = todo[start : start + self.batch]
            start += len(part)
            self._embed(part)
            self.pace.done += len(part)
            self._report()
        return wanted

    def _embed(self, chunk_ids: list[str]) -> None:
        began = time.perf_counter()
        rows = self.store.texts(chunk_ids)  # a chunk removed meanwhile is simply absent
        if rows:
            vectors = self.embedder.embed_documents([text for _, _, _, text in rows])
            self.target.upsert([r[0] for r in rows], vectors, [r[1] for r in rows])
        spent = time.perf_counter() - began
        self.pace.embedded += len(rows)
        self.pace.seconds += spent
        self.embedded.update({cid: sha for cid, _, sha, _ in rows})
        counts = (self.pace.done + len(chunk_ids), self.pace.total)
        logged = [(cid, sha) for cid, _, sha, _ in rows]
        self.store.log_batch(logged, counts, self.switch.seconds + self.pace.seconds, now_iso())
        self._resize(spent)

    def _resize(self, spent: float) -> None:
        low, high = BATCH_SECONDS
        if spent < low:
            self.batch = min(MAX_BATCH, self.batch * 2)
        elif spent > high:
            self.batch = max(MIN_BATCH, self.batch // 2)

    def drop_extra(self, wanted: dict[str, str]) -> int:
        """Deletes the target's vectors of chunks gone from the library during the switch."""
        extra = sorted(self.target.all_ids() - wanted.keys())
        self.target.delete(extra)
        return len(extra)

    def _report(self) -> None:
        p = self.pace
        rate = f", {p.rate:.0f} chunks/s" if p.rate else ""
        message = f"re-embedding for {self.switch.label}: {p.done}/{p.total} chunks{rate}"
        self.on_pace(p)
        self.progress(ProgressEvent("embed", p.done, p.total, message, chunks_done=p.done,
                                    eta_s=p.eta_s))  # fmt: skip
