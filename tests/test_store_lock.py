"""The writer lock: threads of one process queue, another process (another lock) is refused."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from desktop_rag.domain.errors import LibraryInUseError
from desktop_rag.store.lock import WriterLock


def test_a_second_thread_waits_for_the_first_instead_of_being_refused(tmp_path: Path) -> None:
    lock, inside, overlaps = WriterLock(tmp_path / "library.lock"), [0], []

    def write() -> None:
        with lock:
            inside[0] += 1
            overlaps.append(inside[0])
            time.sleep(0.05)
            with lock:  # re-entrant in the thread that holds it
                pass
            inside[0] -= 1

    threads = [threading.Thread(target=write) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert overlaps == [1, 1, 1, 1]
    assert not lock.held


def test_another_lock_on_the_file_is_refused_while_held_and_taken_after(tmp_path: Path) -> None:
    path = tmp_path / "library.lock"
    with WriterLock(path), pytest.raises(LibraryInUseError), WriterLock(path):
        pass
    with WriterLock(path) as again:
        assert again.held
