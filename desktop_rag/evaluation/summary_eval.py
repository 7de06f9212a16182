"""Scoring summaries of papers against a reference the summarizer does not see: the abstract.

The abstract is found in the paper's first pages (the PDF's blocks under its "Abstract"
heading, up to the next heading; else the chunks' text from that heading to the next) and held
out of what the summary route reads: each of its sentences is found in the chunks and blanked
(offsets, pages and line boxes stay as they are), or, with `pages`, every chunk on its pages is
left out. Its sentences, long ones cut at clause
boundaries, are the key points. A key point is covered when a sentence of the summary (or
two adjacent ones) supports it by the same aligner and threshold that check answers
(llm/alignment: word overlap and embedding similarity, no number or name missing); the share
of summary sentences supported is the citation checker's verdict against the held-out text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from desktop_rag.answering.alignment import Aligner, units
from desktop_rag.answering.citations import CitationChecker, states_facts, strip_markers
from desktop_rag.domain import Chunk, DocKind, DocStatus, Document, Passage
from desktop_rag.routes.sections import flat, headings_in
from desktop_rag.routes.units import ChunkSource
from desktop_rag.text.locate import sentence_spans

ABSTRACT_PAGES = 2
MAX_ABSTRACT_WORDS = 350
GAP = 24.0  # points between an abstract's blocks at most
_ABSTRACT = re.compile(r"(?mi)^[ \t]*abstract\b[\s:.\u2014\u2013-]*")
_END = re.compile(r"(?mi)^[ \t]*(?:keywords|index terms|ccs concepts)\b")
_CLAUSE = re.compile(r";\s+|,\s+(?=(?:and|while|which|whereas|but)\s)")
LONG_WORDS = 30


@dataclass(frozen=True, slots=True)
class Span:
    chunk_id: str
    start: int
    end: int


def abstract_spans(chunks: Sequence[Chunk]) -> list[Span]:
    """Where the abstract is in the chunks (reading order), or [] when no abstract is found."""
    early = [c for c in chunks if not c.pages or min(c.pages) <= ABSTRACT_PAGES]
    joined, offsets, at = "", [], 0
    for c in early:
        offsets.append((c, at))
        joined += c.text + "\n"
        at = len(joined)
    begin = _ABSTRACT.search(joined)
    if begin is None:
        return []
    after = [h.at for h in headings_in(joined) if h.at > begin.end()]
    ends = [m.start() for m in _END.finditer(joined, begin.end())] + after + [len(joined)]
    a, b = begin.start(), min(ends)
    return [Span(c.chunk_id, max(a - o, 0), min(b - o, len(c.text)))
            for c, o in offsets if o < b and o + len(c.text) > a]  # fmt: skip


def pdf_abstract(path: str) -> str:
    """The abstract as the PDF lays it out ("" when none is found): the text under its
    "Abstract" heading in the same column, up to the next heading. The chunks' reading order
    of a two-column first page can put a figure or the introduction's first lines between
    the heading and the abstract; the page's blocks do not."""
    try:
        from desktop_rag.ingest.pdf_pages import open_pdf  # the one module importing pymupdf

        doc = open_pdf(path)
    except Exception:  # not a PDF (a note), or unreadable: the chunks decide
        return ""
    with doc:
        for page in doc.pages(0, min(ABSTRACT_PAGES, doc.page_count)):
            found = _abstract_on(page.get_text("blocks"))
            if found:
                return found
    return ""


def _abstract_on(raw: Sequence[Any]) -> str:
    blocks = [b for b in raw if b[6] == 0 and str(b[4]).strip()]
    for b in blocks:
        head = _ABSTRACT.match(str(b[4]).strip())
        if head is None:
            continue
        text = str(b[4]).strip()[head.end():]
        below = sorted((x for x in blocks if x[1] > b[1] and x[0] < b[2] and x[2] > b[0]),
                       key=lambda x: x[1])  # fmt: skip
        bottom = b[3]
        for x in below:  # the column under the heading, block after block without a gap
            if len(text.split()) >= MAX_ABSTRACT_WORDS or _stops(str(x[4])) or x[1] > bottom + GAP:
                break
            text, bottom = text + "\n" + str(x[4]), max(bottom, x[3])
        return flat(text)
    return ""


def _stops(block: str) -> bool:
    """A block that ends an abstract: a heading, keywords, or a figure's caption."""
    text = block.strip()
    return bool(headings_in(text[:80]) or _END.match(text) or re.match(r"(?i)figure \d", text))


def spans_of(sentences: Sequence[str], chunks: Sequence[Chunk]) -> list[Span]:
    """Where each sentence is in the chunks' text (words in order, any spacing or punctuation
    between them); a sentence split over two chunks is looked for by halves."""
    out: list[Span] = []
    for sentence in sentences:
        words = re.findall(r"\w+", sentence)
        pieces = [words] if len(words) < 8 else [words, words[: len(words) // 2],
                                                 words[len(words) // 2 :]]  # fmt: skip
        for piece in pieces:
            found = _find(piece, chunks)
            out += found
            if found and piece is words:
                break
    return out


def _find(words: Sequence[str], chunks: Sequence[Chunk]) -> list[Span]:
    if not words:
        return []
    pattern = re.compile(r"\W+".join(re.escape(w) for w in words))
    for c in chunks:
        m = pattern.search(c.text)
        if m:
            return [Span(c.chunk_id, m.start(), m.end())]
    return []


def abstract_text(chunks: Sequence[Chunk], spans: Sequence[Span]) -> str:
    by_id = {c.chunk_id: c for c in chunks}
    text = "\n".join(by_id[s.chunk_id].text[s.start : s.end] for s in spans)
    text = _ABSTRACT.sub("", text, count=1)
    return flat(text)


def key_points(abstract: str) -> list[str]:
    """The abstract's sentences, long ones cut at clause boundaries; those stating something."""
    points: list[str] = []
    for a, b in sentence_spans(abstract, ends=".!?"):
        sentence = abstract[a:b].strip()
        parts = _CLAUSE.split(sentence) if len(sentence.split()) > LONG_WORDS else [sentence]
        points += [p.strip() for p in parts if states_facts(p)]
    return points


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


class HeldOut:
    """The catalog with the abstracts held out (a ChunkSource for the summary route)."""

    def __init__(
        self, source: ChunkSource, spans: Mapping[str, Sequence[Span]], pages: bool = False
    ) -> None:
        self.source = source
        self.spans: dict[str, list[Span]] = {}
        for found in spans.values():
            for span in found:
                self.spans.setdefault(span.chunk_id, []).append(span)
        self.pages = pages

    def documents(self, status: DocStatus | None = None) -> list[Document]:
        return self.source.documents(status)

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        chunks = self.source.chunks_of(doc_id)
        if self.pages:
            held = {p for c in chunks if c.chunk_id in self.spans for p in c.pages}
            return [c for c in chunks if not set(c.pages) & held]
        return [self._without(c) for c in chunks]

    def _without(self, chunk: Chunk) -> Chunk:
        text = chunk.text
        for span in self.spans.get(chunk.chunk_id, []):
            text = _blank(text, span.start, span.end)
        return chunk if text == chunk.text else replace(chunk, text=text)


def summary_body(answer_text: str) -> str:
    """The summary without the route's lines on what it read."""
    return answer_text.split("\n\nRead ", 1)[0].strip()


def coverage(
    points: Sequence[str], summary: str, aligner: Aligner
) -> tuple[list[bool], list[float]]:
    """Whether each key point is supported by the summary, and its best support."""
    text = "\n".join(strip_markers(line) for line in summary.splitlines())
    chunk = Chunk("summary", "summary", "", "summary", DocKind.TEXT, text, 0, (), (0, len(text)))
    pool = units([Passage(1, chunk, text, 1.0)])
    matches = aligner.align(list(points), [pool] * len(points))
    return [m.supported for m in matches], [m.score for m in matches]


def supported_share(
    summary: str, passages: Sequence[Passage], checker: CitationChecker
) -> tuple[int, int]:
    """(supported, checked) sentences of the summary against the text it was made from."""
    sentences = checker.check(summary, passages)
    checked = [s for s in sentences if s.supported is not None]
    return sum(1 for s in checked if s.supported), len(checked)
