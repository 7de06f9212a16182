"""The summary route: a summary of the whole of the documents in scope, never of six passages.

The scope is the documents the user chose, else those the question names (by title or file
name, else the focus finder's match), else the library's only document. Every chunk is read
from the catalog in reading order. When the text fits the model's context it is given whole,
cut into sections only so that each sentence can cite its section and pages; when it does not,
each section (headings where the document has them, else page ranges filling the context) is
summarised alone and the summary is written from the section summaries, in reading order
(map-reduce). By default that map step is the document's key sentences (routes/key_sentences:
picked without the model, in about a second, under sections of citation size); with
`llm.summary_map = "model"` it is the model's summary of each section, kept
(routes/summary_store), so a second summary of the same document reads none of it again.
Final summaries are kept either way. With no document in scope, lookup answers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop_rag.answering.citations import CitationChecker
from desktop_rag.domain import Answer, AnswerStage, Chunk, DocScope, Document, PageRefs, Stage
from desktop_rag.domain.progress import ProgressCallback, no_progress
from desktop_rag.domain.protocols import ChatEngine, ChatMessage, Embedder
from desktop_rag.domain.routed import RouteName
from desktop_rag.retrieval.pages import page_references
from desktop_rag.routes.base import Route, RouteRequest
from desktop_rag.routes.key_sentences import PICKER_VERSION, key_sentences, sentence_count
from desktop_rag.routes.scope import named_documents
from desktop_rag.routes.sections import Counter, Section, sections, skipped_pages
from desktop_rag.routes.summary_answer import Checked, Read, check_summary, footer, passages_of
from desktop_rag.routes.summary_format import (
    Format,
    as_bullets,
    bullets_of,
    distinct,
    exactly,
    parse_format,
)
from desktop_rag.routes.summary_prompts import (
    REDUCE_VERSION,
    SECTION_TOKENS,
    more_messages,
    reduce_messages,
)
from desktop_rag.routes.summary_reading import (
    Passes,
    Tally,
    generate_more,
    summarise_sections,
    write_final,
)
from desktop_rag.routes.summary_store import Identity, SummaryStore
from desktop_rag.routes.units import ChunkSource, documents_in
from desktop_rag.text.locate import sentence_spans

Focus = Callable[[str, DocScope], Sequence[str]]  # the doc ids a question names
NO_DOCUMENT = "no document chosen or named, so answered from the best passages"


@dataclass(frozen=True, slots=True)
class SummarySettings:
    """Budgets in tokens. `fill` keeps a margin for the model's tokenizer counting more than
    the counter; `cite_tokens` is a section's size when the whole text fits (the granularity of
    its citations)."""

    context_tokens: int = 8192
    answer_tokens: int = 512
    overhead_tokens: int = 450
    cite_tokens: int = 900
    fill: float = 0.85
    map: str = "sentences"  # a long text's map step: its key sentences, or "model" summaries
    quick_whole_tokens: int | None = None  # see `reads_whole`; None: whatever fits (a GPU)

    @property
    def whole_budget(self) -> int:
        return int((self.context_tokens - self.overhead_tokens - self.answer_tokens) * self.fill)

    def reads_whole(self, tokens: int, picks: bool) -> bool:
        """Whether a text of `tokens` is given to the model whole. It must fit; and where the
        key sentences can stand in (`picks`), it must also be quick to read: on a CPU the
        prompt's reading slows as the context fills, so a 10-page paper of 5,600 tokens took
        204 s to its first word read whole, 20 s from its key sentences."""
        quick = self.quick_whole_tokens
        return tokens <= self.whole_budget and (not picks or quick is None or tokens <= quick)

    @property
    def section_budget(self) -> int:
        return int((self.context_tokens - self.overhead_tokens - SECTION_TOKENS) * self.fill)


@dataclass(frozen=True, slots=True)
class Parts:
    """The route's collaborators; the engine, the checker and the settings are made on use."""

    source: ChunkSource
    engine: Callable[[], ChatEngine]
    store: SummaryStore
    identity: Callable[[], Identity]
    count: Counter
    checker: Callable[[], CitationChecker]
    settings: Callable[[], SummarySettings]
    focus: Focus | None = None
    gpu_offload: Callable[[], bool] = lambda: False
    embedder: Callable[[], Embedder] | None = None  # none: the model summarises each section


@dataclass(frozen=True, slots=True)
class _Plan:
    docs: list[Document]
    sections: list[Section]
    whole: bool
    pages: int
    skipped: int
    part: bool = False  # only the pages the question names
    picked: bool = False  # the map step is the key sentences, sections are of citation size


class SummaryRoute:
    """Summaries of whole documents; `fallback` (lookup) answers when no document is in scope."""

    def __init__(
        self, parts: Parts, fallback: Route | None = None, progress: ProgressCallback = no_progress
    ) -> None:
        self.parts = parts
        self.fallback = fallback
        self.progress = progress

    def answer(self, request: RouteRequest) -> Answer:
        docs = self.documents(request)
        if not docs and self.fallback is not None:
            info = dataclasses.replace(request.info, handled_by=RouteName.LOOKUP,
                                       reason=f"{NO_DOCUMENT} ({request.info.reason})")
            return self.fallback.answer(dataclasses.replace(request, info=info))  # fmt: skip
        plan = self.plan(docs, page_references(request.question))
        first: list[float] = []

        def sink(piece: str) -> None:
            if not first:
                first.append(time.perf_counter())
            if request.on_token is not None:
                request.on_token(piece)

        tally = Tally()
        form = parse_format(request.question)
        body, kept = self._summary(request, plan, form, sink, tally)
        checked = check_summary(body, plan.sections, self.parts.checker())
        from_picks = plan.picked and (tally.picked > 0 or kept)
        passes = 1 if plan.whole or from_picks else len(plan.sections) + 1
        read = Read(len(plan.docs), plan.pages, passes, plan.whole, tally.reused, plan.skipped,
                    kept, plan.part, tally.picked if from_picks else None)  # fmt: skip
        tail = footer(read, _listed(plan, checked))
        sink(tail)
        return self._answer(request, plan, checked.text + tail, checked, tally, read, first)

    def documents(self, request: RouteRequest) -> list[Document]:
        """The documents to summarise (see the module docstring)."""
        docs = documents_in(self.parts.source, request.scope)
        if not request.scope.whole_library or len(docs) <= 1:
            return docs
        named = named_documents(request.query, docs)
        if not named and self.parts.focus is not None:
            ids = set(self.parts.focus(request.query, request.scope))
            named = [d for d in docs if d.doc_id in ids]
        return named

    def plan(self, docs: Sequence[Document], named: PageRefs | None = None) -> _Plan:
        """The sections of every document (of the pages the question names, when it names
        some: "Summarise pages 3-5"), numbered on through them; whole when all fits."""
        settings, count = self.parts.settings(), self.parts.count
        chunks = {d.doc_id: _on(self.parts.source.chunks_of(d.doc_id), named, d.pages)
                  for d in docs}  # fmt: skip
        every = [c for cs in chunks.values() for c in cs]
        cut = sections(every, settings.whole_budget * 4, count)  # every kept chunk, once
        whole = settings.reads_whole(sum(s.tokens for s in cut), self._picks())
        picked = not whole and self._picks()
        budget = settings.cite_tokens if whole or picked else settings.section_budget
        out: list[Section] = []
        for doc in docs:
            out += sections(chunks[doc.doc_id], budget, count, len(out) + 1, pack=not whole)
        pages = sum(d.pages for d in docs) if not named else len({p for c in every
                                                                    for p in c.pages})
        return _Plan(list(docs), out, whole, pages, skipped_pages(every, out), bool(named),
                     picked)  # fmt: skip

    def _picks(self) -> bool:
        """Whether a text too long to read whole starts from its key sentences."""
        return self.parts.embedder is not None and self.parts.settings().map == "sentences"

    def _summary(
        self, request: RouteRequest, plan: _Plan, form: Format, sink: Callable[[str], None],
        tally: Tally,
    ) -> tuple[str, bool]:  # fmt: skip
        """The summary's text (streamed to `sink`), and whether it was kept from before."""
        who = self.parts.identity()
        key = _request_key(request.question, form, plan)
        kept = self.parts.store.final(key, who)
        if kept is not None:
            sink(kept)
            return kept, True
        passes = Passes(self.parts.engine, self.parts.store, who, request.on_stage,
                        self.progress, request.cancel)  # fmt: skip
        if plan.whole:
            parts = [(s, s.text) for s in plan.sections]
        elif plan.picked and (picked := self._key_sentences(request, plan, form, tally)):
            parts = picked
        else:
            titles = {d.doc_id: d.title for d in plan.docs}
            shas = {d.doc_id: d.sha256 for d in plan.docs}
            done = summarise_sections(passes, titles, shas, plan.sections, tally)
            parts = [(s, done[s.n]) for s in plan.sections]
        messages = reduce_messages(request.question, [d.title for d in plan.docs], parts, form)
        limit = self.parts.settings().answer_tokens
        text = write_final(passes, messages, form, limit, sink, tally).strip()
        text = self._counted(passes, messages, form, text, sink, tally)
        if not (request.cancel is not None and request.cancel.cancelled):
            self.parts.store.put_final(key, who, text)
        return text, False

    def _key_sentences(
        self, request: RouteRequest, plan: _Plan, form: Format, tally: Tally
    ) -> list[tuple[Section, str]]:
        """The sections that hold a key sentence, each with its key sentences, a line each
        (none when the text has no sentence of prose: then the model reads every section)."""
        if request.on_stage is not None:
            note = f"Picking the key sentences of {plan.pages:,} pages\u2026"
            request.on_stage(AnswerStage(Stage.READING, (), 0, 0, 1, note))
        embedder = self.parts.embedder
        count = sentence_count(form.bullets or 5)
        picked = key_sentences(plan.sections, embedder(), count) if embedder is not None else {}
        tally.picked = sum(len(texts) for texts in picked.values())
        return [(s, "\n".join(picked[s.n])) for s in plan.sections if s.n in picked]

    @staticmethod
    def _counted(
        passes: Passes, messages: list[ChatMessage], form: Format, text: str,
        sink: Callable[[str], None], tally: Tally,
    ) -> str:  # fmt: skip
        """`text` with exactly the bullets asked for (see routes/summary_format)."""
        if not form.bullets:
            return text
        lead, points = bullets_of(text)
        if not points:  # a paragraph where bullets were asked: its sentences are the points
            lead, points = [], [text[a:b] for a, b in sentence_spans(text, ends=".!?")]
        points = exactly(points, form.bullets)
        missing = form.bullets - len(points)
        if missing > 0:
            more = generate_more(passes, more_messages(messages, points, missing), missing, tally)
            added = distinct(points + bullets_of(more)[1])[len(points) :][:missing]
            points += added
            if added:
                sink("\n" + as_bullets(added))
        return "\n".join([*lead[:1], as_bullets(points[: form.bullets])])

    def _answer(
        self, request: RouteRequest, plan: _Plan, text: str, checked: Checked, tally: Tally,
        read: Read, first: list[float],
    ) -> Answer:  # fmt: skip
        now = time.perf_counter()
        details = {"documents": len(plan.docs), "pages": plan.pages, "sections": len(plan.sections),
                   "passes": read.passes, "whole": int(plan.whole), "sections_read": tally.read,
                   "sections_reused": tally.reused, "final_reused": int(read.final_reused),
                   "model_calls": tally.calls, "skipped_pages": plan.skipped,
                   "markers_added": checked.added}  # fmt: skip
        info = dataclasses.replace(request.info, details=details)
        timings = {"retrieve_ms": 0.0, "rerank_ms": 0.0,
                   "ttft_ms": _ms(request.started, first[0] if first else now),
                   "total_ms": _ms(request.started, now),
                   "prompt_tokens": float(tally.prompt_tokens), "cached_tokens": 0.0,
                   "generated_tokens": float(tally.generated_tokens)}  # fmt: skip
        return Answer(request.question, text, request.chat_id, checked.citations,
                      tuple(passages_of(plan.sections)), checked.unsupported, False, "none",
                      self.parts.gpu_offload(), timings, route=info)  # fmt: skip


def _listed(plan: _Plan, checked: Checked) -> list[Section]:
    """The sections the footer lists: all of them, or, when the key sentences were picked from
    sections of citation size (a 109-page report has 128), those the summary cites."""
    if not plan.picked:
        return plan.sections
    cited = {c.n for c in checked.citations}
    return [s for s in plan.sections if s.n in cited]


def _on(chunks: list[Chunk], named: PageRefs | None, pages: int) -> list[Chunk]:
    """The chunks on the pages named (all when none is named, or none of them exists)."""
    if not named:
        return chunks
    kept = [c for c in chunks if named.matches(c.pages, pages)]
    return kept or chunks


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000, 2)


def _request_key(question: str, form: Format, plan: _Plan) -> str:
    """A kept final summary's key: its sections' text, its form and the words of the request."""
    words = " ".join(question.lower().split())
    picker = PICKER_VERSION if plan.picked else "sections"  # what the final pass was given
    parts = [REDUCE_VERSION, form.key, words, str(int(plan.whole)), picker,
             *(s.key for s in plan.sections)]  # fmt: skip
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()
