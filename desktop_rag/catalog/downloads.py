"""Downloads a catalog entry: every file, verified, resumable, with speed and ETA, cancellable.

Built on `desktop_rag.models.hub.HubClient` rather than `huggingface_hub.hf_hub_download`: measured
against the local test server, hf_hub_download (2.4) writes each file to a process-unique
`.incomplete` file that it deletes when the download fails or is stopped, so a download never
resumes after a restart; it names the blob by the ETag but never hashes the bytes it received
(a server sending other bytes under the right ETag is not caught); it only warns when the disk
is too small; and it refuses every request while HF_HUB_OFFLINE is set, which the app sets for
the rest of the process. HubClient resumes `.part` files with HTTP Range across restarts and
checks every file's size and sha256 (the catalog's pinned hash, else the hub's announced one).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop_rag.catalog.entries import CatalogEntry, CatalogError
from desktop_rag.catalog.hardware import free_disk_mb
from desktop_rag.catalog.installed import entry_dir, usable_path, write_marker, write_prefixes
from desktop_rag.domain.errors import DownloadError
from desktop_rag.domain.progress import CancelToken, ProgressEvent
from desktop_rag.models.hub import COMPLETE_MARK, HubClient, RemoteFile, wanted

MIB = 1024 * 1024
DISK_MARGIN_MB = 200  # left free after the download
WINDOW_S = 5.0  # speed is measured over the last few seconds


@dataclass(frozen=True, slots=True)
class DownloadProgress:
    """One progress report; the CLI and the GUI render it."""

    entry_id: str
    file: str
    file_index: int  # 1-based
    files: int
    done_bytes: int  # over all files of the entry
    total_bytes: int
    speed_bps: float  # over the last few seconds
    eta_s: float | None
    phase: str = "download"  # download | verify | done

    @property
    def fraction(self) -> float:
        return self.done_bytes / self.total_bytes if self.total_bytes else 0.0


DownloadCallback = Callable[[DownloadProgress], None]


def no_download_progress(_report: DownloadProgress) -> None:
    """Ignores progress."""


class RateMeter:
    """Turns one file's byte counts into whole-entry progress with speed and ETA."""

    def __init__(self, entry_id: str, total: int, files: int, callback: DownloadCallback,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.entry_id, self.total, self.files, self.callback = entry_id, total, files, callback
        self.clock = clock
        self.finished = 0  # bytes of the files already done
        self.samples: deque[tuple[float, int]] = deque()

    def file_progress(self, index: int, name: str, offset: int) -> Callable[[ProgressEvent], None]:
        """The hub callback for file `index`; its counts start at `offset` (a resumed part)."""
        def report(event: ProgressEvent) -> None:
            done = self.finished + event.done
            phase = "verify" if event.total and event.done >= event.total else "download"
            self.emit(DownloadProgress(self.entry_id, name, index, self.files, done, self.total,
                                       *self._rate(done), phase=phase))
        self.samples.clear()
        self.samples.append((self.clock(), self.finished + offset))
        return report

    def _rate(self, done: int) -> tuple[float, float | None]:
        now = self.clock()
        self.samples.append((now, done))
        while len(self.samples) > 2 and now - self.samples[0][0] > WINDOW_S:
            self.samples.popleft()
        first_t, first_done = self.samples[0]
        speed = (done - first_done) / (now - first_t) if now > first_t else 0.0
        left = max(self.total - done, 0)
        return speed, (left / speed if speed > 0 else None)

    def emit(self, report: DownloadProgress) -> None:
        self.callback(report)


def plan(entry: CatalogEntry, client: HubClient) -> list[RemoteFile]:
    """The files to fetch: the catalog's list, else every file the hub lists for the repo
    (other frameworks' copies of the weights left out)."""
    if entry.repo is None:
        raise CatalogError(f"{entry.id} is packaged with the app; there is nothing to download")
    if entry.files:
        files = [RemoteFile(f.name, f.size, f.sha256) for f in entry.files]
        return [client.describe(entry.repo, f, entry.revision) for f in files]
    listed = client.list_files(entry.repo, entry.revision)
    names = {f.name for f in listed}
    chosen = [f for f in listed if wanted(f.name, names)]
    if not chosen:
        raise DownloadError(f"The hub lists no files for {entry.repo}",
                            "check the repo id in the catalog and models.hub_endpoint")
    return chosen


def remaining_mb(entry: CatalogEntry, files: list[RemoteFile], folder: Path) -> int:
    """Megabytes still to fetch; files without a known size count at the entry's estimate."""
    if any(f.size is None for f in files):
        known = sum(f.size or 0 for f in files) // MIB
        total = max(entry.download_mb, known)
    else:
        total = sum(f.size or 0 for f in files) // MIB
    have = sum(_present(folder, f) for f in files) // MIB
    return max(total - have, 0)


def _present(folder: Path, remote: RemoteFile) -> int:
    for path in (folder / remote.name, folder / (remote.name + ".part")):
        if path.is_file():
            return path.stat().st_size
    return 0


def check_disk(entry: CatalogEntry, need_mb: int, folder: Path) -> None:
    free = free_disk_mb(folder)
    if need_mb + DISK_MARGIN_MB > free:
        raise DownloadError(
            f"Not enough disk space for {entry.id}: needs {need_mb:,} MB more, "
            f"{free:,} MB free in {folder.parent}",
            "free some space (or set DESKTOP_RAG_MODEL_CACHE to a larger disk) and try again",
        )


def download_entry(
    entry: CatalogEntry, model_cache_dir: Path, client: HubClient,
    progress: DownloadCallback = no_download_progress, cancel: CancelToken | None = None,
) -> Path:
    """Fetches every file of `entry` into its folder, verified; returns the usable path.

    Stopping (cancel, a crash, a lost connection) keeps the `.part` files: the next call resumes
    them. The folder's marker is written only when every file is in place and verified."""
    folder = entry_dir(model_cache_dir, entry)
    if (folder / COMPLETE_MARK).is_file():
        return usable_path(folder, entry)
    files = plan(entry, client)
    folder.mkdir(parents=True, exist_ok=True)
    check_disk(entry, remaining_mb(entry, files, folder), folder)
    total = sum(f.size or 0 for f in files) or entry.download_mb * MIB
    meter = RateMeter(entry.id, total, len(files), progress)
    sizes: dict[str, int] = {}
    assert entry.repo is not None  # plan() refused packaged entries
    for index, remote in enumerate(files, start=1):
        if cancel is not None:
            cancel.raise_if_cancelled()
        report = meter.file_progress(index, remote.name, _present(folder, remote))
        path = client.download_file(entry.repo, remote, folder / remote.name, entry.revision,
                                    report, cancel)
        sizes[remote.name] = path.stat().st_size
        meter.finished += sizes[remote.name]
    write_prefixes(folder, entry)
    write_marker(folder, entry, sizes)
    meter.emit(DownloadProgress(entry.id, "", len(files), len(files), meter.finished,
                                max(total, meter.finished), 0.0, 0.0, phase="done"))
    return usable_path(folder, entry)
