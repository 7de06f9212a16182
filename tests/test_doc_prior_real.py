"""The document prior through the real parts: two PDFs ingested by the real pipeline into Chroma
on disk and the catalog's FTS5 index, searched with the packaged MiniLM embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.retrieval.doc_prior import DOCUMENT
from desktop_rag.services import Services
from tests.ingest_docs import text_pdfs

# The Falcon's gallery is on most of its pages; one Orion page happens to mention a gallery
# screenshot.
PAGES = {
    "falcon-watch.pdf": [
        "The gallery of the Falcon shows the photos synced from your phone.",
        "Swipe left on the Falcon face to open the gallery of photos.",
        "Photos in the Falcon gallery are deleted with a long press.",
        "The gallery keeps the last two hundred photos on the Falcon.",
        "Favourite photos stay in the Falcon gallery when it is full.",
        "The Falcon strap is made of silicone and can be washed.",
    ],
    "orion-band.pdf": [
        "Orion band quick start: charge it fully before the first use.",
        "Watch gallery screenshot: the Orion shows the time and the date on its watch face.",
        "Heart rate readings of the Orion band are stored for thirty days.",
        "The Orion band charges in ninety minutes on its magnetic cradle.",
    ],
}


def settings(doc_prior: float) -> Settings:
    # the named-document focus off, so that only the prior orders the documents
    return Settings().updated({"retrieval.doc_prior": doc_prior, "retrieval.focus_named": False})


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("doc-prior")
    services = Services(build_context(str(root / "data"), settings=settings(0.5)))
    try:
        report = services.ingest([text_pdfs(root / "docs", PAGES)])
        assert not report.failed and report.embedded_chunks > 0
    finally:
        services.close()
    return root / "data"


def ranked_documents(data_dir: Path, doc_prior: float, query: str) -> list[str]:
    services = Services(build_context(str(data_dir), settings=settings(doc_prior)))
    try:
        result = services.search(query, k=3, mode="hybrid", rerank="none")
        assert ("doc_prior_ms" in result.timings_ms) == (doc_prior > 0)
        assert all((DOCUMENT in r.sources) == (doc_prior > 0) for r in result.results)
        return [Path(r.chunk.path).stem for r in result.results]
    finally:
        services.close()


def test_the_document_with_more_evidence_takes_the_first_places(data_dir: Path) -> None:
    plain = ranked_documents(data_dir, 0.0, "gallery screenshot")
    assert plain == ["orion-band", "falcon-watch", "falcon-watch"]
    prior = ranked_documents(data_dir, 0.5, "gallery screenshot")
    assert prior == ["falcon-watch", "falcon-watch", "orion-band"]


def test_a_clearly_better_passage_of_another_document_stays_first(data_dir: Path) -> None:
    assert ranked_documents(data_dir, 0.5, "watch gallery time")[0] == "orion-band"


def test_within_one_document_the_prior_changes_nothing(data_dir: Path) -> None:
    services = Services(build_context(str(data_dir), settings=settings(0.5)))
    try:
        orion = services.scope_of([str(p) for p in (data_dir.parent / "docs").glob("orion*")])
        result = services.search("watch gallery", k=2, mode="hybrid", rerank="none", scope=orion)
        assert "doc_prior_ms" not in result.timings_ms
        assert {Path(r.chunk.path).stem for r in result.results} == {"orion-band"}
    finally:
        services.close()
