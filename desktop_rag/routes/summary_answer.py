"""A summary as an answer: its sentences checked against the document text of the sections they
cite (the same citation and support checker as every answer), a citation added where the model
wrote none, and the lines that say what was read.

Each section is a passage of its own chunks, numbered as the model saw it, so a sentence's
evidence is a sentence of the document with its page and line boxes, not of a section summary:
support means the document says it. A sentence the model left without a marker gets the
section its evidence is in (the citation stays marked as attributed after generation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desktop_rag.answering.citations import CitationChecker, Sentence, split_sentences
from desktop_rag.domain import Citation, Passage
from desktop_rag.routes.sections import Section


@dataclass(frozen=True, slots=True)
class Checked:
    text: str  # the summary with a marker on every sentence that has a section
    citations: tuple[Citation, ...]
    unsupported: tuple[str, ...]
    sentences: tuple[Sentence, ...]
    added: int  # markers added by the app


def passages_of(parts: Sequence[Section]) -> list[Passage]:
    """One passage per section: its first chunk, widened with the rest (reading order)."""
    return [Passage(s.n, s.chunks[0], s.text, 1.0, False, s.chunks[1:]) for s in parts]


def _section_for(sentence: Sentence) -> int | None:
    if sentence.cited:
        return None
    if sentence.evidence_n is not None:
        return sentence.evidence_n
    return max(sentence.scores, key=lambda n: sentence.scores[n]) if sentence.scores else None


def _with_markers(body: str, pieces: Sequence[str], checked: Sequence[Sentence]) -> tuple[str, int]:
    """`body` with "[n]" after each uncited sentence that has a section."""
    out, at, added = [], 0, 0
    for piece, sentence in zip(pieces, checked, strict=True):
        n = _section_for(sentence)
        found = body.find(piece.rstrip(), at) if n is not None else -1
        if n is None or found < 0:
            continue
        end = found + len(piece.rstrip())
        out.append(body[at:end] + f" [{n}]")
        at, added = end, added + 1
    out.append(body[at:])
    return "".join(out), added


def check_summary(body: str, parts: Sequence[Section], checker: CitationChecker) -> Checked:
    passages = passages_of(parts)
    sentences = checker.check(body, passages)
    text, added = _with_markers(body, split_sentences(body), sentences)
    citations = tuple(checker.citations(sentences, passages))
    return Checked(text, citations, tuple(CitationChecker.unsupported(sentences)),
                   tuple(sentences), added)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Read:
    """What the route read, for the line that says so."""

    documents: int
    pages: int
    passes: int
    whole: bool
    reused: int = 0
    skipped_pages: int = 0
    final_reused: bool = False
    part: bool = False  # only the pages the question named
    picked: int | None = None  # the key sentences the summary was written from


def reading_line(read: Read) -> str:
    """ "Read the whole document: 24 pages, 3 passes (…)." """
    what = "the whole document" if read.documents == 1 else f"{read.documents} documents whole"
    what = "the pages asked for" if read.part else what
    passes = "1 pass" if read.passes == 1 else f"{read.passes} passes"
    how = "" if read.whole else ", section by section"
    if read.picked is not None:
        how = f" over its {read.picked} key sentences" if read.picked else " over its key sentences"
    notes = []
    if read.final_reused:
        notes.append("this summary was kept from the last time")
    elif read.reused:
        notes.append(f"{read.reused} section summar{'y' if read.reused == 1 else 'ies'} reused")
    if read.skipped_pages:
        notes.append(f"references ({read.skipped_pages} pages) not read")
    tail = f" ({'; '.join(notes)})" if notes else ""
    return f"Read {what}: {read.pages:,} pages, {passes}{how}{tail}."


def sections_line(parts: Sequence[Section]) -> str:
    return "Sections: " + " \u00b7 ".join(f"[{s.n}] {s.label}" for s in parts)


def footer(read: Read, parts: Sequence[Section]) -> str:
    listed = f"\n{sections_line(parts)}" if parts else ""
    return f"\n\n{reading_line(read)}{listed}"
