"""The summary route with deterministic parts: a library in memory, a chat model that copies the
first sentence of what it reads, and the real sectioning, store, gate and citation checker.
What it checks: sections follow headings and budgets, the passes read in reading order, kept
summaries are not read again, the bullets asked for are the bullets given, Stop stops."""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_rag.answering.citations import CitationChecker
from desktop_rag.domain import (
    EVERYWHERE,
    AnswerStage,
    Chunk,
    DocKind,
    DocScope,
    DocStatus,
    Document,
    RouteInfo,
    RouteName,
)
from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.domain.progress import CancelToken, ProgressEvent
from desktop_rag.domain.protocols import ChatMessage, Generation
from desktop_rag.routes.base import RouteRequest
from desktop_rag.routes.summary import Parts, SummaryRoute, SummarySettings
from desktop_rag.routes.summary_prompts import MAP_SYSTEM, PROMPT_VERSION
from desktop_rag.routes.summary_store import Identity, SummaryStore

_SOURCE = re.compile(r'<source id="(\d+)"[^>]*>\n(.*?)\n</source>', re.DOTALL)
_TEXT = re.compile(r"<text>\n(.*?)\n</text>", re.DOTALL)
_MORE = re.compile(r"Write (\d+) more bullet")


def first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    return re.split(r"(?<=\.)\s", flat, maxsplit=1)[0]


def _nth_sentence(sources: list[tuple[str, str]], i: int) -> tuple[str, str]:
    """The i-th bullet of the fake: the sources' distinct sentences in turn (so that bullets
    differ, as the route asks, until the sources run out)."""
    each = [[(n, x) for x in re.split(r"(?<=\.)\s", " ".join(t.split()))] for n, t in sources]
    rounds = [x for row in itertools.zip_longest(*each) for x in row if x is not None]
    distinct = list(dict.fromkeys(rounds))
    n, sentence = distinct[i % len(distinct)]
    return n, sentence.rstrip(".")


class SummaryEngine(FakeChatEngine):
    """Summarises a part by its first sentence; writes the summary as `bullets` bullets (one
    per source, cycling), or one sentence per source; `hold` makes each pass wait (to Stop)."""

    def __init__(self, bullets: int | None = None, hold: float = 0.0) -> None:
        super().__init__()
        self.bullets = bullets
        self.hold = hold
        self.kinds: list[str] = []
        self.stopped = 0

    def generate(
        self, messages: Sequence[ChatMessage], max_tokens: int, on_token: Any = None,
        cancel: Any = None,
    ) -> Generation:  # fmt: skip
        self.prompts.append(list(messages))
        user = messages[-1].content
        deadline = time.perf_counter() + self.hold
        while time.perf_counter() < deadline:
            if cancel is not None and cancel.cancelled:
                return Generation("", 10, 0, 0, stopped_by="cancel")
            time.sleep(0.01)
        if messages[0].content == MAP_SYSTEM:
            self.kinds.append("map")
            return self._say(first_sentence(_TEXT.findall(user)[0]), on_token, cancel)
        self.kinds.append("more" if _MORE.search(user) else "reduce")
        return self._say(self._summary(user), on_token, cancel)

    def _summary(self, user: str) -> str:
        found = _SOURCE.findall(user)
        more = _MORE.search(user)
        count = int(more.group(1)) if more else self.bullets
        if count is None:
            return " ".join(f"{first_sentence(t).rstrip('.')}. [{n}]" for n, t in found)
        written = len(re.findall(r"(?m)^- ", user.split("Already written:", 1)[1])) if more else 0
        picked = [_nth_sentence(found, i) for i in range(written, written + count)]
        return "Here is the summary:\n" + "\n".join(f"- {s}. [{n}]" for n, s in picked) + "\n"

    def _say(self, text: str, on_token: Any, cancel: Any) -> Generation:
        out = []
        for piece in re.findall(r"\S+\s*", text):
            if cancel is not None and cancel.cancelled:
                self.stopped += 1
                return Generation("".join(out), 10, 0, len(out), stopped_by="cancel")
            out.append(piece)
            if on_token is not None:
                on_token(piece)
        return Generation("".join(out), 10, 0, len(out))


class Library:
    """Documents and their chunks in memory (what the route reads of the catalog)."""

    def __init__(self) -> None:
        self.docs: list[Document] = []
        self.chunks: dict[str, list[Chunk]] = {}

    def add(self, title: str, pages: Sequence[str], per_page: int = 1) -> Document:
        doc_id = f"d{len(self.docs) + 1}"
        chunks = []
        for p, text in enumerate(pages, start=1):
            for part in range(per_page):
                i = len(chunks)
                chunks.append(Chunk(f"{doc_id}:{i}", doc_id, f"/docs/{title}.pdf", title,
                                    DocKind.PDF, text if part == 0 else f"More on page {p}.",
                                    i, (p,), (0, len(text))))  # fmt: skip
        doc = Document(doc_id, f"/docs/{title}.pdf", title, DocKind.PDF, f"sha-{doc_id}", 1, 0.0,
                       len(pages), len(chunks), DocStatus.INDEXED)  # fmt: skip
        self.docs.append(doc)
        self.chunks[doc_id] = chunks
        return doc

    def documents(self, status: DocStatus | None = None) -> list[Document]:
        return [d for d in self.docs if status is None or d.status is status]

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        return list(self.chunks[doc_id])


def words(text: str) -> int:
    return len(text.split())


def paper(n: int) -> list[str]:
    """n pages, each opening with a heading and a sentence of its own."""
    topics = ["retrieval", "ranking", "parsing", "caching", "routing", "judging", "counting",
              "merging", "streaming", "scoring", "indexing", "sampling"]  # fmt: skip
    return [f"{i + 1}\nPart {topics[i % 12].title()}\nThe paper studies {topics[i % 12]} on "
            f"page {i + 1} with care. " + "Filler words follow here. " * 20
            for i in range(n)]  # fmt: skip


def route(
    tmp_path: Path, lib: Library, engine: SummaryEngine, context: int = 4000, **kw: Any
) -> SummaryRoute:
    store = SummaryStore(tmp_path / "summaries.sqlite3")
    settings = SummarySettings(context_tokens=context, answer_tokens=200, overhead_tokens=100,
                               cite_tokens=150, fill=1.0)  # fmt: skip
    parts = Parts(lib, lambda: engine, store, lambda: Identity("fake", PROMPT_VERSION), words,
                  lambda: CitationChecker(None), lambda: settings)  # fmt: skip
    return SummaryRoute(parts, **kw)


def request(question: str, scope: DocScope = EVERYWHERE, **kw: Any) -> RouteRequest:
    info = RouteInfo(RouteName.SUMMARY, RouteName.SUMMARY, "test")
    return RouteRequest(question, question, "chat", info, scope, **kw)


def test_a_short_document_is_read_whole_in_one_pass(tmp_path: Path) -> None:
    lib = Library()
    doc = lib.add("Short paper", paper(3))
    engine = SummaryEngine()
    answer = route(tmp_path, lib, engine).answer(request("Summarize this paper."))
    assert engine.kinds == ["reduce"]
    sources = _SOURCE.findall(engine.prompts[0][-1].content)
    assert [n for n, _ in sources] == ["1", "2", "3"]  # each page a section, in reading order
    assert "studies retrieval on page 1" in sources[0][1]
    assert answer.route.details["whole"] == 1 and answer.route.details["passes"] == 1
    assert "Read the whole document: 3 pages, 1 pass." in answer.answer
    assert [c.chunk.doc_id for c in answer.citations] == [doc.doc_id] * 3
    assert [c.page for c in answer.citations] == [1, 2, 3]
    assert not answer.unsupported_sentences


def test_a_long_document_is_summarised_section_by_section_in_reading_order(
    tmp_path: Path,
) -> None:
    lib = Library()
    lib.add("Long paper", paper(12))
    engine = SummaryEngine()
    stages: list[AnswerStage] = []
    events: list[ProgressEvent] = []
    r = route(tmp_path, lib, engine, context=500, progress=events.append)
    answer = r.answer(request("Give me a summary of the long paper.", on_stage=stages.append))
    maps = [m for m, k in zip(engine.prompts, engine.kinds, strict=True) if k == "map"]
    parts = [int(re.search(r"Part (\d+) of", m[-1].content).group(1)) for m in maps]  # type: ignore[union-attr]
    assert engine.kinds[-1] == "reduce" and parts == list(range(1, len(maps) + 1))
    assert len(maps) >= 3
    pages = [re.search(r"pages? (\d+)", m[-1].content).group(1) for m in maps]  # type: ignore[union-attr]
    assert [int(p) for p in pages] == sorted(int(p) for p in pages)
    reduce_prompt = engine.prompts[-1][-1].content
    assert reduce_prompt.index("studies retrieval") < reduce_prompt.index("studies caching")
    assert answer.route.details["passes"] == len(maps) + 1
    notes = [s.note for s in stages if s.note.startswith("Summarising part")]
    assert notes[0].startswith(f"Summarising part 1 of {len(maps)}")
    assert "left" in notes[1]  # an ETA once a pass has been timed
    assert [e.done for e in events][-1] == len(maps) and events[-1].total == len(maps)
    assert events[1].eta_s is not None
    cited = {c.page for c in answer.citations}
    assert len(cited) >= len(maps)  # every section's summary sentence is cited to its pages


def test_a_second_summary_reads_nothing_again(tmp_path: Path) -> None:
    lib = Library()
    lib.add("Long paper", paper(12))
    engine = SummaryEngine()
    r = route(tmp_path, lib, engine, context=500)
    first = r.answer(request("Summarize the long paper."))
    calls = len(engine.kinds)
    again = r.answer(request("Summarize the long paper."))
    assert len(engine.kinds) == calls  # the kept final summary: no model call at all
    assert again.route.details["final_reused"] == 1
    assert again.answer.split("\n\nRead")[0] == first.answer.split("\n\nRead")[0]
    engine.bullets = 3
    other = route(tmp_path, lib, engine, context=500).answer(
        request("Summarize the long paper in three bullet points."))  # fmt: skip
    assert engine.kinds[calls:] == ["reduce"]  # only the final pass: every section was kept
    assert other.route.details["sections_reused"] == other.route.details["sections"]
    assert "section summaries reused" in other.answer


def test_five_bullets_are_five_when_the_model_writes_more(tmp_path: Path) -> None:
    lib = Library()
    lib.add("Short paper", paper(8))
    engine = SummaryEngine(bullets=7)
    streamed: list[str] = []
    answer = route(tmp_path, lib, engine).answer(
        request("Summarize this paper in five bullet points.", on_token=streamed.append))
    body = answer.answer.split("\n\nRead")[0]
    assert len([x for x in body.splitlines() if x.startswith("- ")]) == 5
    assert engine.stopped == 1  # the gate stopped the model at the sixth bullet
    shown = "".join(streamed).split("\n\nRead")[0]
    assert len([x for x in shown.splitlines() if x.startswith("- ")]) == 5


def test_too_few_bullets_are_made_up_by_asking_for_the_missing_ones(tmp_path: Path) -> None:
    lib = Library()
    lib.add("Short paper", paper(8))
    engine = SummaryEngine(bullets=3)
    answer = route(tmp_path, lib, engine).answer(request("List the key points in 5 bullets."))
    body = answer.answer.split("\n\nRead")[0]
    assert engine.kinds == ["reduce", "more"]
    assert len([x for x in body.splitlines() if x.startswith("- ")]) == 5


def test_stop_ends_the_summary_within_a_second(tmp_path: Path) -> None:
    lib = Library()
    lib.add("Long paper", paper(12))
    engine = SummaryEngine(hold=30.0)
    cancel = CancelToken()
    r = route(tmp_path, lib, engine, context=500)
    failed: list[BaseException] = []

    def run() -> None:
        try:
            r.answer(request("Summarize the long paper.", cancel=cancel))
        except BaseException as exc:
            failed.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.3)
    stopped_at = time.perf_counter()
    cancel.cancel()
    worker.join(timeout=5)
    assert not worker.is_alive() and time.perf_counter() - stopped_at < 1.0
    assert len(failed) == 1 and isinstance(failed[0], CancelledError)
    assert r.parts.store.sections_kept(Identity("fake", PROMPT_VERSION)) == 0


def test_the_scope_is_the_named_document_else_lookup_answers(tmp_path: Path) -> None:
    lib = Library()
    lib.add("Alpha report", paper(2))
    beta = lib.add("Beta handbook", paper(3))
    fallback_asked: list[RouteRequest] = []

    class Fallback:
        def answer(self, req: RouteRequest) -> Any:
            fallback_asked.append(req)
            return "lookup"

    r = route(tmp_path, lib, SummaryEngine(), fallback=Fallback())
    named = r.answer(request("Summarize the beta handbook."))
    assert {c.chunk.doc_id for c in named.citations} == {beta.doc_id}
    assert r.answer(request("Summarize it.")) == "lookup"
    assert fallback_asked[0].info.handled_by is RouteName.LOOKUP
    chosen = r.answer(request("Summarize.", DocScope(only=frozenset({beta.doc_id}))))
    assert chosen.route.details["documents"] == 1 and chosen.route.details["pages"] == 3


def test_a_summary_of_named_pages_reads_those_pages_only(tmp_path: Path) -> None:
    lib = Library()
    lib.add("Long paper", paper(12))
    engine = SummaryEngine()
    answer = route(tmp_path, lib, engine).answer(request("Summarise pages 3-5."))
    sources = _SOURCE.findall(engine.prompts[0][-1].content)
    assert [re.search(r"page (\d+)", t).group(1) for _, t in sources] == ["3", "4", "5"]  # type: ignore[union-attr]
    assert "Read the pages asked for: 3 pages, 1 pass." in answer.answer
