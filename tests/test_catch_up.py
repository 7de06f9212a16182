"""A library read before the table pass read what it reads now catches up at a sync
(ingest/catch_up.py), through the real parts: PyMuPDF's tables in the page workers, Tesseract
for pictures, MiniLM, Chroma and the catalog on disk, and the CLI."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from table_pdfs import prose_pdf, table_pdf
from test_picture_text import PICTURE_LINES, TESSDATA, pdf_with_picture

from desktop_rag.bootstrap import build_context
from desktop_rag.cli import main
from desktop_rag.config import Settings
from desktop_rag.domain.protocols import Embedder
from desktop_rag.ingest.reader_marks import PICTURES_READER, TABLES_READER, behind, reader_mark
from desktop_rag.services import Services

REVENUES = "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 | 2013: $ 2,751,375 (in thousands)"
BASE = Settings(profile="tiny").updated({"ingest.ocr_processes": 1})
TABLES_ONLY = BASE.updated({"ingest.picture_text": "off"})
NEITHER = TABLES_ONLY.updated({"ingest.tables": "off"})


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    from desktop_rag.config.paths import resolve_paths
    from desktop_rag.models import ModelRegistry
    from desktop_rag.retrieval.embedder import load_embedder

    paths = resolve_paths(tmp_path_factory.mktemp("embedder")).ensure()
    return load_embedder(ModelRegistry(paths, BASE), BASE)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    table_pdf(folder / "table.pdf", ruled=False)
    prose_pdf(folder / "prose.pdf", columns=1)
    (folder / "notes.md").write_text("# Notes\n\nA note has no tables to catch up with.\n")
    return folder


def open_library(data_dir: Path, embedder: Embedder, settings: Settings) -> Services:
    """The library as a new process with these settings opens it."""
    ctx = build_context(str(data_dir), settings=settings, overrides={"embedder": embedder})
    return Services(ctx)


@pytest.fixture
def opened(tmp_path: Path, embedder: Embedder) -> Iterator[list[Services]]:
    """Libraries opened by a test, closed after it."""
    services: list[Services] = []
    yield services
    for s in services:
        s.close()


def reopen(
    opened: list[Services], data_dir: Path, embedder: Embedder, settings: Settings
) -> Services:
    for s in opened:
        s.close()
    opened.clear()
    opened.append(open_library(data_dir, embedder, settings))
    return opened[0]


def texts(services: Services, name: str) -> list[str]:
    (doc,) = [d for d in services.list_documents() if Path(d.path).name == name]
    return [c.text for c in services.document_chunks(doc.doc_id)]


def consistent(services: Services) -> bool:
    report = services.check_consistency()
    return bool(report["consistent"]) and not report["orphan_vectors"]


def forget_marks(data_dir: Path) -> None:
    """The catalog as a version before reader marks left it."""
    (db,) = data_dir.rglob("catalog.sqlite3")
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM reader_marks")


def test_a_mark_lacks_a_reader_that_is_on_now_or_one_of_a_newer_version() -> None:
    both = reader_mark(tables=True, pictures=True)
    assert both == f"{TABLES_READER},{PICTURES_READER}" and reader_mark(False, False) == ""
    assert behind(None, both) and behind("", both) and behind(TABLES_READER, both)
    assert behind("tables-0,pictures-1", both)  # an older table reader
    assert not behind(both, both) and not behind(both, TABLES_READER)  # off: nothing to redo
    assert not behind(None, "")  # nothing read now: nothing to catch up with


def test_a_library_read_without_tables_gets_them_at_the_next_sync(
    tmp_path: Path, docs: Path, embedder: Embedder, opened: list[Services]
) -> None:
    data = tmp_path / "lib"
    library = reopen(opened, data, embedder, NEITHER)
    library.ingest([docs])
    assert not library.tables_pending() and REVENUES not in "\n".join(texts(library, "table.pdf"))
    nothing = library.sync().caught_up  # nothing is read now
    assert nothing is not None and nothing.checked == 0

    library = reopen(opened, data, embedder, TABLES_ONLY)
    report = library.sync()

    caught_up = report.caught_up
    assert caught_up is not None and not caught_up.failures
    assert (caught_up.checked, caught_up.queued, caught_up.pages) == (2, 1, 1)  # no note
    assert any(REVENUES in t for t in texts(library, "table.pdf")) and consistent(library)
    assert not library.tables_pending()
    again = library.sync().caught_up
    assert again is not None and again.checked == 0  # marked: done once


def test_a_library_from_before_marks_reads_its_tables_again_to_the_same_chunks(
    tmp_path: Path, docs: Path, embedder: Embedder, opened: list[Services]
) -> None:
    data = tmp_path / "lib"
    library = reopen(opened, data, embedder, TABLES_ONLY)
    library.ingest([docs])
    (doc,) = [d for d in library.list_documents() if d.path.endswith("table.pdf")]
    before = library.document_chunks(doc.doc_id)
    assert any(REVENUES in c.text for c in before)
    library.close()
    opened.clear()
    forget_marks(data)

    library = reopen(opened, data, embedder, TABLES_ONLY)
    caught_up = library.sync(tables_now=False).caught_up

    assert caught_up is not None and (caught_up.checked, caught_up.queued) == (2, 1)
    assert library.tables_pending() == {doc.doc_id: 1}  # searchable as it was meanwhile
    assert library.enrich_tables().tables == 1
    after = library.document_chunks(doc.doc_id)
    assert [(c.chunk_id, c.text) for c in after] == [(c.chunk_id, c.text) for c in before]
    assert consistent(library)


def test_a_file_changed_missing_or_already_queued_is_left_to_the_other_passes(
    tmp_path: Path, docs: Path, embedder: Embedder, opened: list[Services]
) -> None:
    data = tmp_path / "lib"
    library = reopen(opened, data, embedder, NEITHER)
    library.ingest([docs / "table.pdf", docs / "prose.pdf"])
    library = reopen(opened, data, embedder, TABLES_ONLY)
    (docs / "prose.pdf").unlink()  # a drive not mounted: kept, and not read
    ingested = library.ingest([docs / "table.pdf"], tables_now=False)  # only what is under it

    caught_up = ingested.caught_up
    assert caught_up is not None and (caught_up.checked, caught_up.queued) == (1, 1)
    again = library.ingest([docs / "table.pdf"], tables_now=False).caught_up
    assert again is not None and again.checked == 0  # queued already, and marked
    synced = library.sync().caught_up
    assert synced is not None and synced.checked == 0  # the missing file is not read
    assert any(REVENUES in t for t in texts(library, "table.pdf"))


def test_the_cli_says_what_a_sync_reads_again(
    tmp_path: Path, docs: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import desktop_rag.retrieval.embedder as embedder_module

    monkeypatch.setattr(embedder_module, "load_embedder", lambda *_: embedder)
    data = tmp_path / "lib"
    base = ["--data-dir", str(data), "--profile", "tiny"]
    (data / "config").mkdir(parents=True)
    settings = data / "config" / "settings.toml"
    settings.write_text('[ingest]\ntables = "off"\npicture_text = "off"\n')
    assert main([*base, "ingest", str(docs / "table.pdf"), "--json"]) == 0
    capsys.readouterr()
    settings.write_text('[ingest]\npicture_text = "off"\n')

    assert main([*base, "sync"]) == 0
    out = capsys.readouterr()
    assert ("1 PDF read before this version's table and picture reading: 1 page of 1 document "
            "to read again for tables and words in pictures") in out.out
    assert "Everything is up to date." not in out.out
    assert "tables: 1 table in 1 document" in out.err
    assert main([*base, "sync", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["caught_up"]["checked"] == 0 and report["tables"]["documents"] == 0


@pytest.mark.skipif(TESSDATA is None, reason="no Tesseract English data here")
def test_a_library_read_before_picture_text_gets_the_words_of_its_pictures(
    tmp_path: Path, embedder: Embedder, opened: list[Services]
) -> None:
    data = tmp_path / "lib"
    path = pdf_with_picture(tmp_path / "report.pdf", PICTURE_LINES)
    library = reopen(opened, data, embedder, TABLES_ONLY)
    library.ingest([path])
    assert "Picture text:" not in "\n".join(texts(library, "report.pdf"))

    library = reopen(opened, data, embedder, BASE)
    caught_up = library.sync().caught_up

    assert caught_up is not None and (caught_up.checked, caught_up.queued) == (1, 1)
    joined = "\n".join(texts(library, "report.pdf"))
    assert "Picture text:" in joined and consistent(library)


@pytest.mark.gui
def test_the_app_catches_up_in_the_background_after_its_sync_at_start(
    qtbot: Any, tmp_path: Path, docs: Path, embedder: Embedder, opened: list[Services]
) -> None:
    from test_gui_window import shoot

    from desktop_rag.domain.fakes import FakeChatEngine
    from desktop_rag.gui.main_window import MainWindow

    data = tmp_path / "lib"
    reopen(opened, data, embedder, NEITHER).ingest([docs])
    for s in opened:
        s.close()
    opened.clear()
    parts = {"embedder": embedder, "engine": FakeChatEngine("Unused.")}
    services = Services(build_context(str(data), settings=TABLES_ONLY, overrides=parts))
    opened.append(services)
    window = MainWindow(services, interactive=False)
    qtbot.addWidget(window)
    said: list[str] = []
    window.library.message.connect(said.append)
    window.resize(1200, 700)
    window.show()
    window.start()
    qtbot.waitUntil(lambda: any("read by an earlier version" in m for m in said), timeout=20_000)
    assert ("1 document read by an earlier version: reading its tables and pictures again"
            in said[0])
    qtbot.waitUntil(lambda: any(m.startswith("Tables read: 1 in 1 document") for m in said),
                    timeout=60_000)
    qtbot.waitUntil(lambda: not any(r.tables_pending for r in window.library_panel.model.rows()))
    assert any(REVENUES in t for t in texts(services, "table.pdf"))
    window.statusBar().showMessage(said[0])
    shoot(window, "24-library-catches-up")
    assert window.shutdown()


def test_a_terminal_sees_which_document_the_catch_up_is_at(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from desktop_rag.cli.commands_library import _Progress
    from desktop_rag.domain.progress import ProgressEvent

    progress = _Progress()
    progress.live = True
    progress(ProgressEvent("scan", message="looking for files"))  # the planner's: not shown
    progress(ProgressEvent("scan", 2, 9, "finding the tables and pictures of /d/a.pdf", 2, 9))
    assert capsys.readouterr().err == (
        "\r\x1b[K[2/9 documents] finding the tables and pictures of /d/a.pdf")
