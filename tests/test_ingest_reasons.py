"""Each reason code is produced by the situation that causes it, through the real ingestion
(scan, planner, loaders, writer) over the real catalog, a hash embedder and in-memory vectors;
and the code travels in the JSON form of an outcome."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_rag.cli.output import to_jsonable
from desktop_rag.domain import FileOutcome, IngestReport, Outcome, Reason
from desktop_rag.domain.fakes import HashEmbedder, InMemoryVectorIndex, WordTokenCounter
from desktop_rag.domain.progress import CancelToken, ProgressEvent
from desktop_rag.ingest import ingestion as pipeline
from desktop_rag.ingest import planner
from desktop_rag.ingest.ingestion import Ingestor
from desktop_rag.store.documents import Catalog
from tests.ingest_docs import NOTE, make_encrypted_pdf, make_pdf, write_note

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX file names, FIFOs")


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    catalog = Catalog(tmp_path / "catalog.db")
    yield catalog
    catalog.close()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    return folder


def ingest(
    catalog: Catalog, paths: list[Path], cancel: CancelToken | None = None,
    removed: frozenset[str] = frozenset(), settle_s: float = 0.0,
) -> IngestReport:
    ingestor = Ingestor(
        catalog, InMemoryVectorIndex(), HashEmbedder(), WordTokenCounter(), cancel=cancel
    )
    return ingestor.run(list(paths), removed, settle_s)


def by_name(report: IngestReport) -> dict[str, tuple[Outcome, Reason]]:
    return {Path(o.path).name: (o.outcome, o.code) for o in report.outcomes}


def test_files_the_library_leaves_alone_are_skipped_with_their_reason(
    catalog: Catalog, docs: Path
) -> None:
    (docs / "photo.png").write_bytes(b"\x89PNG")
    (docs / "empty.md").write_bytes(b"")
    write_note(docs / "blank.md", " \n\n \n")
    make_pdf(docs / "a.pdf")
    shutil.copy(docs / "a.pdf", docs / "b.pdf")
    assert by_name(ingest(catalog, [docs])) == {
        "photo.png": (Outcome.SKIPPED, Reason.UNSUPPORTED),
        "empty.md": (Outcome.SKIPPED, Reason.EMPTY),
        "blank.md": (Outcome.SKIPPED, Reason.NO_TEXT),
        "a.pdf": (Outcome.INDEXED, Reason.NONE),
        "b.pdf": (Outcome.SKIPPED, Reason.DUPLICATE),
    }


def test_files_that_cannot_be_read_fail_with_their_reason(catalog: Catalog, docs: Path) -> None:
    make_encrypted_pdf(docs / "locked.pdf")
    (docs / "random.pdf").write_bytes(os.urandom(4000))
    (docs / "binary.md").write_bytes(b"\x00\x01binary")
    (docs / "deep.html").write_bytes(b"<div>" * 5000)
    report = ingest(catalog, [docs, docs / "missing.pdf"])
    assert by_name(report) == {
        "locked.pdf": (Outcome.FAILED, Reason.ENCRYPTED),
        "random.pdf": (Outcome.FAILED, Reason.CORRUPT),
        "binary.md": (Outcome.FAILED, Reason.BINARY),
        "deep.html": (Outcome.FAILED, Reason.TOO_NESTED),
        "missing.pdf": (Outcome.FAILED, Reason.NOT_FOUND),
    }
    assert all(o.reason for o in report.outcomes)  # every failure says why to a person too


def test_a_file_the_system_refuses_to_read_is_unreadable(
    catalog: Catalog, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(Root reads any file, so the refusal is simulated.)"""
    secret = write_note(docs / "secret.md", NOTE)

    def refusing(path: Path) -> str:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(planner, "file_sha256", refusing)
    (outcome,) = ingest(catalog, [secret]).outcomes
    assert (outcome.outcome, outcome.code) == (Outcome.FAILED, Reason.UNREADABLE)
    assert outcome.reason == "cannot read file: Permission denied"


@linux
def test_a_fifo_and_a_name_that_is_not_utf8_are_reported(catalog: Catalog, docs: Path) -> None:
    os.mkfifo(docs / "pipe.md")
    bad = os.fsdecode(bytes(docs) + b"/bad\xffname.md")
    Path(bad).write_text(NOTE, encoding="utf-8")
    codes = {o.code for o in ingest(catalog, [docs]).outcomes}
    assert codes == {Reason.NOT_A_FILE, Reason.BAD_NAME}


def test_notes_on_a_file_indexed_all_the_same(catalog: Catalog, docs: Path) -> None:
    (docs / "latin.txt").write_bytes("Caf\xe9 cr\xe8me br\xfbl\xe9e".encode("cp1252"))
    (docs / "wide.txt").write_bytes("Wide text".encode("utf-16"))
    assert by_name(ingest(catalog, [docs])) == {
        "latin.txt": (Outcome.INDEXED, Reason.DECODED),
        "wide.txt": (Outcome.INDEXED, Reason.DECODED),
    }


def test_unchanged_files_and_unchanged_failures_are_not_read_again(
    catalog: Catalog, docs: Path
) -> None:
    write_note(docs / "note.md", NOTE)
    make_encrypted_pdf(docs / "locked.pdf")
    first = ingest(catalog, [docs])
    again = ingest(catalog, [docs])
    assert by_name(again) == {
        "note.md": (Outcome.UNCHANGED, Reason.UNCHANGED),
        "locked.pdf": (Outcome.FAILED, Reason.UNCHANGED),
    }
    failed = [o for o in (*first.outcomes, *again.outcomes) if o.path.endswith("locked.pdf")]
    assert failed[0].reason == failed[1].reason  # the earlier failure, said again


def test_a_moved_file_and_a_deleted_one(catalog: Catalog, docs: Path) -> None:
    write_note(docs / "old.md", NOTE)
    write_note(docs / "gone.md", "# Gone\n\nA note about owls.")
    ingest(catalog, [docs])
    (docs / "old.md").rename(docs / "new.md")
    (docs / "gone.md").unlink()
    assert by_name(ingest(catalog, [docs])) == {
        "new.md": (Outcome.MOVED, Reason.MOVED),
        "gone.md": (Outcome.REMOVED, Reason.FILE_GONE),
    }


def test_a_sync_leaves_fresh_and_removed_files(catalog: Catalog, docs: Path) -> None:
    fresh = write_note(docs / "fresh.md", NOTE)
    old = write_note(docs / "old.md", "# Old\n\nA note about kestrels.")
    os.utime(old, (time.time() - 60, time.time() - 60))
    report = ingest(catalog, [docs], removed=frozenset({str(old)}), settle_s=30.0)
    assert by_name(report) == {
        "fresh.md": (Outcome.SKIPPED, Reason.BEING_WRITTEN),
        "old.md": (Outcome.SKIPPED, Reason.REMOVED_BY_USER),
    }
    assert fresh.exists()


def test_files_not_read_before_a_cancel_are_cancelled(catalog: Catalog, docs: Path) -> None:
    note = write_note(docs / "note.md", NOTE)
    token = CancelToken()
    token.cancel()
    assert by_name(ingest(catalog, [note], token)) == {
        "note.md": (Outcome.CANCELLED, Reason.CANCELLED)
    }


def test_files_being_embedded_when_cancelled_are_cancelled(catalog: Catalog, docs: Path) -> None:
    note = write_note(docs / "note.md", NOTE)
    token = CancelToken()

    def cancel_at_embedding(event: ProgressEvent) -> None:
        if event.stage == "embed":
            token.cancel()

    ingestor = Ingestor(catalog, InMemoryVectorIndex(), HashEmbedder(), WordTokenCounter(),
                        progress=cancel_at_embedding, cancel=token)
    report = ingestor.run([note])
    assert by_name(report) == {"note.md": (Outcome.CANCELLED, Reason.CANCELLED)}
    assert catalog.documents() == []  # rolled back


def test_a_loader_bug_costs_one_file(
    catalog: Catalog, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_note(docs / "note.md", NOTE)

    def broken(*_args: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(pipeline, "_load", broken)
    assert by_name(ingest(catalog, [docs])) == {"note.md": (Outcome.FAILED, Reason.UNEXPECTED)}


def test_the_code_is_in_the_json_form_of_an_outcome() -> None:
    outcome = FileOutcome("/d/x.png", Outcome.SKIPPED, "unsupported file type '.png'",
                          code=Reason.UNSUPPORTED)
    assert to_jsonable(outcome) == {
        "path": "/d/x.png", "outcome": "skipped", "reason": "unsupported file type '.png'",
        "doc_id": None, "pages": 0, "chunks": 0, "code": "unsupported",
    }
