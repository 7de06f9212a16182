"""The summary route through the real parts: a generated paper (PDF with headings, references
at the end) ingested into a library on disk (catalog, FTS5, Chroma, the packaged MiniLM
embedder), asked through `ask` and `ask --json`; first with a deterministic chat model, then
(slow) with the packaged tiny chat model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from test_routes_summary import SummaryEngine

from desktop_rag.bootstrap import build_context
from desktop_rag.cli import main
from desktop_rag.config import Settings
from desktop_rag.domain import DocScope
from desktop_rag.domain.routed import RouteName
from desktop_rag.services import Services

TOPICS = ("sorting", "belts", "weights", "scanners", "robots", "labels", "pallets", "trucks")
HEADINGS = ("1 Introduction", "2 Method", "3 Experiments", "4 Results", "5 Discussion",
            "6 Conclusion", "References")  # fmt: skip


def _blocks(i: int) -> list[tuple[str, float]]:
    """The page's blocks (text, font size): headings stand alone, as a paper typesets them."""
    heading = HEADINGS[i - 1] if i <= len(HEADINGS) else "Appendix"
    if heading == "References":
        return [(heading, 14), (" ".join(f"A. Author{n}. A paper on parcels. 2020."
                                         for n in range(12)), 10)]  # fmt: skip
    topic = TOPICS[i % len(TOPICS)]
    body = " ".join(f"Gadget Routing handles {topic} in step {n} of the warehouse process."
                    for n in range(1, 16))  # fmt: skip
    lead = [("Gadget Routing: Faster Parcel Sorting", 16), ("Abstract", 12),
            ("We propose Gadget Routing, which sorts parcels by weight class and cuts sorting "
             "time by 40 percent.", 10)] if i == 1 else []  # fmt: skip
    return [*lead, (heading, 14), (f"This part is about {topic}. {body}", 10)]


def write_paper(path: Path, pages: int = 7) -> Path:
    doc = pymupdf.open()
    for i in range(1, pages + 1):
        page = doc.new_page(width=595, height=842)
        y = 60.0
        for text, size in _blocks(i):
            height = size * 1.8 if size > 10 else 260.0
            page.insert_textbox(pymupdf.Rect(60, y, 535, y + height), text, fontsize=size)
            y += height + 12
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path))
    doc.close()
    return path


def _scope(services: Services) -> DocScope:
    return DocScope(only=frozenset(d.doc_id for d in services.list_documents()))


@pytest.fixture(scope="module")
def faked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, Path, Path]]:
    root = tmp_path_factory.mktemp("summary")
    pdf = write_paper(root / "docs" / "gadget-routing.pdf")
    ctx = build_context(str(root / "data"), settings=Settings(),
                        overrides={"engine": SummaryEngine(bullets=7)})  # fmt: skip
    services = Services(ctx)
    assert not services.ingest([pdf]).failed
    yield services, pdf, root
    services.close()


def test_a_summary_question_reads_the_whole_paper_and_cites_its_pages(
    faked: tuple[Services, Path, Path],
) -> None:
    services, _, _ = faked
    answer = services.ask("Summarize this paper in five bullet points.", scope=_scope(services))
    assert answer.route.route is RouteName.SUMMARY and answer.route.handled_by is RouteName.SUMMARY
    body = answer.answer.split("\n\nRead")[0]
    assert len([x for x in body.splitlines() if x.startswith("- ")]) == 5
    assert "Read the whole document: 7 pages, 1 pass (references (1 pages) not read)." in (
        answer.answer)  # fmt: skip
    pages = {c.page for c in answer.citations}
    assert pages and pages <= {1, 2, 3, 4, 5, 6} and len(pages) >= 3
    assert all(c.evidence for c in answer.citations)  # each cited sentence found on its page
    history = services.chat_history(answer.chat_id or "")
    assert history[-1].content == answer.answer


def test_ask_json_carries_the_route_and_a_second_summary_is_kept(
    faked: tuple[Services, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    services, pdf, root = faked
    engine = services.ctx.engine
    assert isinstance(engine, SummaryEngine)
    services.ask("Give me a summary of this paper.", scope=_scope(services))
    calls = len(engine.kinds)
    services.close()  # the CLI opens the library itself (the store is in the data folder)
    code = main(["--data-dir", str(root / "data"), "ask", "Give me a summary of this paper.",
                 "--doc", str(pdf), "--json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["route"]["route"] == "summary"
    assert out["route"]["details"]["final_reused"] == 1 and out["route"]["details"]["pages"] == 7
    assert out["citations"] and all(c["page"] for c in out["citations"])
    assert len(engine.kinds) == calls  # this process's model was not asked again


@pytest.mark.slow
def test_the_tiny_model_summarises_a_paper_twice_the_second_time_from_the_store(
    tmp_path: Path, tiny_chat_engine: Any
) -> None:
    pdf = write_paper(tmp_path / "docs" / "gadget-routing.pdf", pages=9)
    ctx = build_context(str(tmp_path / "data"), settings=Settings(profile="tiny"),
                        overrides={"engine": tiny_chat_engine})  # fmt: skip
    services = Services(ctx)
    try:
        assert not services.ingest([pdf]).failed
        question = "Summarize this paper in three bullet points."
        first = services.ask(question, scope=_scope(services))
        details = first.route.details
        assert first.route.handled_by is RouteName.SUMMARY and details["model_calls"] >= 1
        picked = details["passes"] == 1  # whole, or from its key sentences: one model pass
        assert details["sections_read"] == (0 if picked else details["sections"])
        assert first.citations and all(c.page in range(1, 10) for c in first.citations)
        body = first.answer.split("\n\nRead")[0]
        assert len([x for x in body.splitlines() if x.startswith("- ")]) <= 3
        second = services.ask(question, scope=_scope(services))
        kept = second.route.details
        assert kept["final_reused"] == 1 and kept["model_calls"] == 0
        assert second.timings["ttft_ms"] < 3000
        assert second.answer.split("\n\nRead")[0] == body
    finally:
        ctx.release("engine")  # the session's model, closed by its fixture
        services.close()


def test_a_paper_too_long_to_read_whole_is_summarised_from_its_key_sentences(
    tmp_path: Path,
) -> None:
    """Real PDF, catalog and packaged MiniLM; a context too small for the paper whole."""
    pdf = write_paper(tmp_path / "docs" / "gadget-routing.pdf", pages=12)
    engine = SummaryEngine(bullets=5)
    engine.context_size = 1536  # the summary's budgets follow the loaded model's context
    ctx = build_context(str(tmp_path / "data"), settings=Settings(), overrides={"engine": engine})
    services = Services(ctx)
    try:
        assert not services.ingest([pdf]).failed
        answer = services.ask("Summarize this paper in five bullet points.",
                              scope=_scope(services))  # fmt: skip
        details = answer.route.details
        assert details["whole"] == 0 and details["passes"] == 1 and details["sections_read"] == 0
        assert engine.kinds == ["reduce"]  # one model pass, no section summaries
        prompt = engine.prompts[0][-1].content
        assert "We propose Gadget Routing, which sorts parcels by weight class" in prompt
        assert "A. Author" not in prompt  # the references are not read
        assert "1 pass over its 12 key sentences" in answer.answer
        assert 1 in {c.page for c in answer.citations}
    finally:
        services.close()
