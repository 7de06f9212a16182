"""A document's text cut into sections for summarising, in reading order, each knowing its pages.

A summary reads every chunk of a document, so the chunks come from the catalog in order. They are
grouped at headings where the document has them (a Markdown note's heading path; in a PDF a
line such as "3 Method" or "Abstract"), and the groups are packed into sections that fill a token
budget, so that a long document is read in as few passes as its context allows. A group larger
than the budget is cut into page ranges. The references of a paper are left out: a list of
citations says nothing a summary should repeat, and reading it costs minutes on a CPU.

Sections cut only between chunks, so that each is a run of whole chunks: a citation of a
section is a passage of its chunks, and the support check reads their sentences.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop_rag.domain import Chunk

Counter = Callable[[str], int]

_NUMBERED = re.compile(r"(?m)^[ \t]*(\d{1,2})\.?[ \t]*\n?[ \t]*([A-Z][A-Za-z][^\n\d]{1,60})$")
_NAMED = re.compile(
    r"(?mi)^[ \t]*(abstract|introduction|related work|background|conclusions?|discussion|"
    r"references|bibliography|acknowledge?ments?|appendix(?: [a-z])?)[ \t]*$"
)
_SKIPPED = re.compile(r"^(?:references|bibliography)$", re.IGNORECASE)
MAX_HEADING_WORDS = 8


@dataclass(frozen=True, slots=True)
class Heading:
    title: str
    at: int  # offset in the chunk's text


@dataclass(frozen=True, slots=True)
class Section:
    """Whole chunks of one document in reading order; `n` is its number in the summary (the
    citation number of the passage that holds it)."""

    n: int
    title: str
    chunks: tuple[Chunk, ...]
    tokens: int

    @property
    def text(self) -> str:
        return "\n".join(c.text for c in self.chunks)

    @property
    def pages(self) -> tuple[int, int] | None:
        found = [p for c in self.chunks for p in c.pages]
        return (min(found), max(found)) if found else None

    @property
    def place(self) -> str:
        """ "pages 3–5", "page 3", or "" for a note without pages."""
        pages = self.pages
        if pages is None:
            return ""
        return f"page {pages[0]}" if pages[0] == pages[1] else f"pages {pages[0]}\u2013{pages[1]}"

    @property
    def label(self) -> str:
        """What a citation of it says: its headings and pages."""
        where = self.place
        title = self.title or self.chunks[0].title
        return f"{title} ({where})" if where else title

    @property
    def key(self) -> str:
        """The content hash of its text: a summary of the same text is the same summary."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class _Group:
    title: str
    chunks: tuple[Chunk, ...]


def flat(text: str) -> str:
    """Text on one line: a word split at a line end joined again, blanks squeezed."""
    return " ".join(re.sub(r"(\w)-\n(\w)", r"\1\2", text).split())


def headings_in(text: str) -> list[Heading]:
    """The heading lines of a PDF page's text: a top-level number and a short title without a
    full stop ("1\\nIntroduction", "3 Method"), or a paper's named parts ("Abstract")."""
    found: list[Heading] = []
    taken: list[tuple[int, int]] = []
    for m in _NUMBERED.finditer(text):
        title = " ".join(m.group(2).split())
        if len(title.split()) <= MAX_HEADING_WORDS and not title.endswith((".", ",", ":")):
            found.append(Heading(f"{m.group(1)} {title}", m.start()))
            taken.append(m.span())
    for m in _NAMED.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):  # "1\nIntroduction" is one heading
            name = m.group(1).strip()
            found.append(Heading(name.title() if name.isupper() or name.islower() else name,
                                 m.start()))  # fmt: skip
    return sorted(found, key=lambda h: h.at)


def _headings(chunk: Chunk, previous: Chunk | None) -> tuple[str | None, str | None]:
    """The heading that starts a new group at this chunk, and the one that starts it at the
    next: a note's first-level heading changes here; a PDF heading in the chunk's first half
    starts the group here, one in its second half at the next chunk (where most of its text
    is)."""
    if chunk.heading_path:
        before = previous.heading_path[:1] if previous is not None else ()
        return (chunk.heading_path[0] if chunk.heading_path[:1] != before else None), None
    found = headings_in(chunk.text)
    early = [h.title for h in found if h.at <= len(chunk.text) // 2]
    late = [h.title for h in found if h.at > len(chunk.text) // 2]
    return (early[0] if early else None), (late[-1] if late else None)


def _groups(chunks: Sequence[Chunk]) -> list[_Group]:
    groups: list[_Group] = []
    title, run = "", list[Chunk]()
    previous: Chunk | None = None
    carried: str | None = None  # a heading late in the previous chunk
    for chunk in chunks:
        here, later = _headings(chunk, previous)
        heading = here or carried
        if heading is not None and run:
            groups.append(_Group(title, tuple(run)))
            run = []
        if heading is not None:
            title = heading
        run.append(chunk)
        previous, carried = chunk, later
    if run:
        groups.append(_Group(title, tuple(run)))
    return groups


def _size(chunks: Sequence[Chunk], count: Counter) -> int:
    return sum(count(c.text) for c in chunks)


def _split(group: _Group, budget: int, count: Counter) -> list[_Group]:
    """A group larger than the budget as page ranges that each fill it."""
    out: list[_Group] = []
    run: list[Chunk] = []
    for chunk in group.chunks:
        if run and _size([*run, chunk], count) > budget:
            out.append(_Group(group.title, tuple(run)))
            run = []
        run.append(chunk)
    if run:
        out.append(_Group(group.title, tuple(run)))
    return out


def _title(groups: Sequence[_Group]) -> str:
    titles = list(dict.fromkeys(g.title for g in groups if g.title))
    if len(titles) <= 2:
        return "; ".join(titles)
    return f"{titles[0]} \u2013 {titles[-1]}"


def _memo(count: Counter) -> Counter:
    """`count` remembering each text's count: packing asks for the same chunks again."""
    known: dict[str, int] = {}

    def counted(text: str) -> int:
        if text not in known:
            known[text] = count(text)
        return known[text]

    return counted


def sections(
    chunks: Sequence[Chunk], budget: int, count: Counter, first: int = 1, pack: bool = True
) -> list[Section]:
    """The chunks (one document, reading order) as sections of at most `budget` tokens each
    (a single chunk larger than that is a section alone), numbered from `first`. Without
    `pack`, a heading's text is never joined with the next (a text read whole is cut where
    its headings are, for its citations)."""
    count = _memo(count)
    packed: list[list[_Group]] = []
    after_skip = False
    for group in _groups(chunks):
        if _SKIPPED.match(group.title):
            after_skip = True  # what follows the references is never merged across them
            continue
        big = _size(group.chunks, count) > budget
        for piece in _split(group, budget, count) if big else [group]:
            current = None if after_skip or not packed or not pack else packed[-1]
            joined = [c for g in current or [] for c in g.chunks] + list(piece.chunks)
            if current is not None and _size(joined, count) <= budget:
                current.append(piece)
            else:
                packed.append([piece])
            after_skip = False
    return [
        Section(first + i, _title(gs), tuple(c for g in gs for c in g.chunks),
                _size([c for g in gs for c in g.chunks], count))
        for i, gs in enumerate(packed)
    ]  # fmt: skip


def skipped_pages(chunks: Sequence[Chunk], kept: Sequence[Section]) -> int:
    """How many pages hold no kept chunk (a paper's references)."""
    kept_pages = {p for s in kept for c in s.chunks for p in c.pages}
    return len({p for c in chunks for p in c.pages} - kept_pages)
