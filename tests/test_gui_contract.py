"""The GUI's facade contract: the same assertions against the GUI fake and the real Services.

The real Services run here over fast parts (hash embedder, in-memory vectors, word tokens, a
scripted chat model), so what is compared is the facade itself: the records it returns, the
chats it keeps, the core it pins and the settings it applies. mypy checks this file, the fake
and the static assertion below that both implement `GuiServices`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from gui_fakes import FakeServices

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings, load_settings
from desktop_rag.config.paths import resolve_paths
from desktop_rag.domain import Answer, Chunk, Document, IngestReport, Outcome
from desktop_rag.domain.fakes import (
    FakeChatEngine,
    HashEmbedder,
    InMemoryVectorIndex,
    WordTokenCounter,
)
from desktop_rag.gui.bundled import SAMPLE
from desktop_rag.gui.facade import GuiServices
from desktop_rag.services import Services
from desktop_rag.services.core import CoreState, CoreStatus
from desktop_rag.store.chats import ChatSummary, ChatTurn

_REAL: type[GuiServices] = Services  # mypy: the real facade implements the GUI's Protocol
_FAKE: type[GuiServices] = FakeServices
REPLY = "The main telescope was completed in 1987 [1]."
QUESTION = "When was the main telescope completed?"


def real_services(data_dir: Path) -> Services:
    ctx = build_context(str(data_dir), settings=Settings(), overrides={
        "embedder": HashEmbedder(), "vectors": InMemoryVectorIndex(),
        "token_counter": WordTokenCounter(), "engine": FakeChatEngine(REPLY),
    })
    return Services(ctx)


@pytest.fixture(params=["fake", "real"])
def services(request: pytest.FixtureRequest, data_dir: Path) -> Iterator[GuiServices]:
    made: GuiServices = FakeServices(data_dir) if request.param == "fake" else real_services(
        data_dir)
    yield made
    made.close()


@pytest.fixture
def pdf(tmp_path: Path) -> Path:
    """The bundled two-page sample, copied (a document of each test's own)."""
    copy = tmp_path / "observatory.pdf"
    copy.write_bytes(SAMPLE.read_bytes())
    return copy


def ingested(services: GuiServices, pdf: Path) -> Document:
    report = services.ingest([pdf])
    assert isinstance(report, IngestReport)
    assert [o.outcome for o in report.outcomes] == [Outcome.INDEXED]
    (doc,) = services.list_documents()
    assert isinstance(doc, Document) and doc.path == str(pdf)
    assert doc.doc_id == report.outcomes[0].doc_id
    return doc


def test_a_document_is_listed_with_its_chunks(services: GuiServices, pdf: Path) -> None:
    doc = ingested(services, pdf)
    chunks = services.document_chunks(doc.doc_id)
    assert chunks and all(isinstance(c, Chunk) and c.doc_id == doc.doc_id for c in chunks)
    found = services.get_chunks([chunks[0].chunk_id, "no-such-chunk"])
    assert list(found) == [chunks[0].chunk_id] and found[chunks[0].chunk_id] == chunks[0]
    renamed = services.rename(pdf, "Lindqvist")
    assert isinstance(renamed, Document) and renamed.title == "Lindqvist"
    (removed,) = services.remove([pdf])
    assert removed.outcome is Outcome.REMOVED and services.list_documents() == []


def test_pinning_returns_the_core_status(services: GuiServices, pdf: Path) -> None:
    doc = ingested(services, pdf)
    empty = services.core_status()
    assert isinstance(empty, CoreStatus) and empty.docs == () and empty.state is CoreState.EMPTY
    pinned = services.core_add([pdf])
    assert [d.doc_id for d in pinned.docs] == [doc.doc_id]
    assert 0 < pinned.docs[0].tokens <= pinned.total_tokens  # (the real one adds its prompt)
    assert pinned.budget > 0 and isinstance(pinned.state, CoreState)
    assert [d.is_core for d in services.list_documents()] == [True]
    assert services.core_remove([pdf]).docs == ()


def test_an_answer_is_kept_in_its_chat(services: GuiServices, pdf: Path) -> None:
    ingested(services, pdf)
    chat_id = services.new_chat()
    answer = services.ask(QUESTION, chat_id)
    assert isinstance(answer, Answer) and answer.chat_id == chat_id
    assert answer.answer.strip() and answer.passages and answer.citations
    summaries = services.list_chats()
    assert all(isinstance(s, ChatSummary) for s in summaries)
    assert chat_id in {s.chat_id for s in summaries}
    history = services.chat_history(chat_id)
    assert all(isinstance(t, ChatTurn) for t in history)
    assert [(t.role, t.content) for t in history] == [
        ("user", QUESTION), ("assistant", answer.answer)]
    assert [c["chunk_id"] for c in history[1].citations] == [
        c.chunk.chunk_id for c in answer.citations]


def test_settings_are_replaced_and_saved(services: GuiServices, data_dir: Path) -> None:
    shown = services.settings
    assert isinstance(shown, Settings) and services.data_dir.is_dir()
    info = services.engine_info()
    assert set(info) == {"model", "gpu_offload", "backend", "context_size"}
    fewer = replace(shown, retrieval=replace(shown.retrieval, top_k=3))
    assert services.apply_settings(fewer) is False  # no model setting changed
    assert services.settings == fewer and shown.retrieval.top_k == Settings().retrieval.top_k
    assert load_settings(resolve_paths(data_dir).settings_file) == fewer
    bigger = replace(fewer, llm=replace(fewer.llm, context_size=2048))
    assert services.apply_settings(bigger) is True  # the chat model must be reloaded
    services.reset_engine()
    services.warm_up()
