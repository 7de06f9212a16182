"""The write stamp that lets one process see vector writes made by another."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from desktop_rag.config import StoreSettings
from desktop_rag.config.paths import resolve_paths
from desktop_rag.store.stamp import WriteStamp
from desktop_rag.store.vectors import open_vector_index


def test_own_marks_are_not_foreign_and_other_writers_are(tmp_path: Path) -> None:
    mine, theirs = WriteStamp(tmp_path / "s"), WriteStamp(tmp_path / "s")
    assert not mine.foreign_write()
    mine.mark()
    assert not mine.foreign_write()
    assert theirs.foreign_write() and not theirs.foreign_write()  # reported once
    theirs.mark()
    assert mine.foreign_write()


def test_a_stamp_that_cannot_be_written_is_logged_not_raised(tmp_path: Path) -> None:
    stamp = WriteStamp(tmp_path / "missing-folder" / "s")
    stamp.mark()
    assert not stamp.foreign_write()


_WRITER = """
import sys, numpy as np
from desktop_rag.config import StoreSettings
from desktop_rag.config.paths import resolve_paths
from desktop_rag.store.vectors import open_vector_index
index = open_vector_index(
    resolve_paths(sys.argv[1]).ensure(), StoreSettings())
index.upsert(["far:0"], np.array([[0.0, 0.0, 1.0]], dtype=np.float32), ["far"])
"""


def test_a_reader_finds_vectors_another_process_wrote_after_it_opened(tmp_path: Path) -> None:
    index = open_vector_index(resolve_paths(tmp_path).ensure(), StoreSettings())
    index.upsert(["near:0"], np.array([[1.0, 0.0, 0.0]], dtype=np.float32), ["near"])
    assert [c for c, _ in index.query(np.array([0.0, 0.0, 1.0], dtype=np.float32), 1)] == ["near:0"]
    subprocess.run([sys.executable, "-c", _WRITER, str(tmp_path)], check=True, timeout=120)
    found = index.query(np.array([0.0, 0.0, 1.0], dtype=np.float32), 1)
    assert [c for c, _ in found] == ["far:0"]
    assert index.count() == 2
