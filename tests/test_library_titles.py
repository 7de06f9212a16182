"""Document titles through the real catalog on disk: readable titles, the metadata title kept
searchable, the user's rename (kept through changes and moves), and older libraries migrated."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pymupdf
import pytest

from desktop_rag.domain import DocStatus, Outcome
from desktop_rag.domain.errors import DesktopRagError, LibraryInUseError, NotFoundError
from desktop_rag.services import Services
from desktop_rag.store.documents import Catalog
from desktop_rag.store.lock import WriterLock
from tests.ingest_docs import write_note

TEXT = "Subscribers streamed more hours of films than ever in the year under review."


@pytest.fixture
def services(fake_context: object) -> Services:
    return Services(fake_context)  # type: ignore[arg-type]


def titled_pdf(path: Path, title: str, text: str = TEXT) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = pymupdf.open()
    doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 523, 380), text, fontsize=11)
    doc.set_metadata({"title": title})
    doc.save(path)
    doc.close()
    return path


def found(services: Services, query: str) -> set[str]:
    """The paths of the documents a keyword search finds."""
    hits = services.ctx.sparse.search(query, 5)
    chunks = services.ctx.catalog.get_chunks([cid for cid, _ in hits])
    return {c.path for c in chunks.values()}


def test_an_accession_number_gives_way_to_the_file_name_and_stays_searchable(
    services: Services, tmp_path: Path
) -> None:
    pdf = titled_pdf(tmp_path / "Netflix_10K_2015.pdf", "0001065280-16-000047")
    services.ingest([pdf])
    (doc,) = services.list_documents()
    assert (doc.title, doc.stated_title, doc.title_by_user) == (
        "Netflix 10K 2015", "0001065280-16-000047", False)
    assert found(services, "0001065280") == {str(pdf)}
    assert found(services, "netflix") == {str(pdf)}
    hit = services.ctx.sparse.search("films", 1)[0][0]
    assert services.ctx.catalog.get_chunks([hit])[hit].title == "Netflix 10K 2015"


def test_a_title_made_from_the_file_name_follows_the_file_when_it_moves(
    services: Services, tmp_path: Path
) -> None:
    pdf = titled_pdf(tmp_path / "Netflix_10K_2015.pdf", "0001065280-16-000047")
    services.ingest([pdf])
    moved = pdf.rename(tmp_path / "NFLX-annual-report.pdf")
    assert [o.outcome for o in services.ingest([moved]).outcomes] == [Outcome.MOVED]
    (doc,) = services.list_documents()
    assert (doc.title, doc.stated_title) == ("NFLX annual report", "0001065280-16-000047")
    assert found(services, "nflx") == found(services, "0001065280") == {str(moved)}


def test_a_renamed_document_keeps_its_metadata_title_and_file_name_searchable(
    services: Services, tmp_path: Path
) -> None:
    pdf = titled_pdf(tmp_path / "1706.03762v7.pdf", "Attention Is All You Need")
    services.ingest([pdf])
    renamed = services.rename(pdf, "  Transformer   paper ")
    assert (renamed.title, renamed.title_by_user) == ("Transformer paper", True)
    (doc,) = services.list_documents()
    assert (doc.title, doc.stated_title, doc.title_by_user) == (
        "Transformer paper", "Attention Is All You Need", True)
    for query in ("transformer", "attention", "1706"):
        assert found(services, query) == {str(pdf)}, query
    hit = services.ctx.sparse.search("films", 1)[0][0]
    assert services.ctx.catalog.get_chunks([hit])[hit].title == "Transformer paper"
    assert services.rename(doc.doc_id, "By id").title == "By id"  # a doc id works too
    assert services.check_consistency()["consistent"]


def test_a_users_title_survives_a_changed_file_a_sync_and_a_move(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_rag.services import library

    monkeypatch.setattr(library, "SYNC_SETTLE_S", 0.0)
    note = write_note(tmp_path / "notes" / "old name.md", "Wombats dig burrows.")
    services.ingest([note.parent])
    services.rename(note, "Wombat handbook")
    note.write_text("Wombats dig burrows at night.\n", encoding="utf-8")
    os.utime(note, (1, 1))
    assert [o.outcome for o in services.sync().outcomes] == [Outcome.UPDATED]
    (doc,) = services.list_documents()
    assert (doc.title, doc.title_by_user, doc.status) == (
        "Wombat handbook", True, DocStatus.INDEXED)
    assert found(services, "handbook") == {str(note)}
    moved = note.rename(note.parent / "wombat facts.md")
    assert [o.outcome for o in services.ingest([moved]).outcomes] == [Outcome.MOVED]
    (doc,) = services.list_documents()
    assert (doc.path, doc.title) == (str(moved), "Wombat handbook")  # not "wombat facts"
    assert found(services, "handbook") == found(services, "facts") == {str(moved)}


def test_renaming_what_is_not_in_the_library_names_it(services: Services, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.pdf"
    with pytest.raises(NotFoundError, match=r"nowhere\.pdf is not in the library"):
        services.rename(missing, "Anything")
    pdf = titled_pdf(tmp_path / "a.pdf", "A good title")
    services.ingest([pdf])
    with pytest.raises(DesktopRagError, match="cannot be empty"):
        services.rename(pdf, " \n ")
    assert services.list_documents()[0].title == "A good title"


def test_renaming_takes_the_writer_lock(services: Services, tmp_path: Path) -> None:
    pdf = titled_pdf(tmp_path / "a.pdf", "A good title")
    services.ingest([pdf])
    with WriterLock(services.ctx.paths.lock_file), pytest.raises(LibraryInUseError):
        services.rename(pdf, "New")
    assert services.list_documents()[0].title == "A good title"


OLD_DOCUMENTS = """
CREATE TABLE documents (
    doc_id TEXT PRIMARY KEY, path TEXT NOT NULL, title TEXT NOT NULL, kind TEXT NOT NULL,
    sha256 TEXT NOT NULL, size INTEGER NOT NULL, mtime REAL NOT NULL, pages INTEGER NOT NULL,
    chunks INTEGER NOT NULL, status TEXT NOT NULL, error TEXT, ingested_at TEXT,
    is_core INTEGER NOT NULL DEFAULT 0
);
"""


def test_an_older_library_gets_the_new_columns_and_readable_titles_on_open(
    tmp_path: Path,
) -> None:
    db = tmp_path / "catalog.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.executescript(OLD_DOCUMENTS)
        conn.executemany(
            "INSERT INTO documents VALUES (?, ?, ?, ?, 's', 1, 0.0, 1, 1, 'indexed', NULL, NULL,"
            " 0)",
            [("n", "/r/NETFLIX_2015_10K.pdf", "0001065280-16-000047", "pdf"),
             ("s", "/r/ISEP_student_handbook.pdf", "ISEP_student_handbook", "pdf"),
             ("g", "/r/Attention.pdf", "Attention Is All You Need", "pdf"),
             ("m", "/r/garden_notes.md", "garden_notes", "markdown")],
        )
    conn.close()
    for _ in range(2):  # the second open finds nothing to do
        catalog = Catalog(db)
        docs = {d.doc_id: (d.title, d.stated_title, d.title_by_user) for d in catalog.documents()}
        catalog.close()
        assert docs == {
            "n": ("NETFLIX 2015 10K", "0001065280-16-000047", False),
            "s": ("ISEP student handbook", None, False),  # was named after its file
            "g": ("Attention Is All You Need", "Attention Is All You Need", False),
            "m": ("garden_notes", None, False),  # notes keep their titles
        }
