"""Counting a document's own parts: "how many tables are in the paper?", "how many appendices
appear in the document?", "how many Exhibits are mentioned?", "how many pages contain tables?".

A part is a label (Table 3, Figure 2, Appendix B, Exhibit P-10, Chapter 4), so a count of parts
is a count of distinct labels, not of the lines that say the word: a paper that says "Table 2"
ten times has one Table 2, and a line "Table of Contents" is no table. A label at the start of
a line is the part's caption (where the document defines it); elsewhere it is a mention. Parts
are counted from their captions unless the question asks what is mentioned (or nothing has a
caption). Numbered parts count to their highest number: a report that names only "Chapter 1"
and "Chapter 9" has nine chapters. A report whose charts carry no label but a "Source: …" line
each is counted by those lines when the question asks where they are sourced from.

Rules only; `None` when the question is no count of parts, or the text labels none of them,
and the line-by-line count of the exhaustive route takes the question instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_rag.ingest.table_model import is_table_row
from desktop_rag.routes.matching import Found
from desktop_rag.routes.units import ItemUnit
from desktop_rag.text.words import stem_set, stems

_KINDS = {
    "table": r"tables?|tab\.",
    "figure": r"figures?|figs?\.?",
    "chart": r"charts?",
    "exhibit": r"exhibits?",
    "appendix": r"appendix|appendices|annex|annexes",
    "chapter": r"chapters?",
    "section": r"sections?",
    "schedule": r"schedules?",
    "attachment": r"attachments?",
}
_KIND_OF = [(kind, re.compile(rf"(?i:{words})$")) for kind, words in _KINDS.items()]
_LABEL = r"(?:[A-Z]{1,3}-\s?)?\d+(?:[.-]\d+)*[a-z]?\b|[A-Z]\b|[IVX]{2,5}\b"
_MORE = rf"(?:\s*,\s*(?:and\s+)?|\s+(?:and|&)\s+)({_LABEL})"
_OCCURRENCE = re.compile(
    rf"(?<![\w-])(?P<kind>{'|'.join(f'(?i:{w})' for w in _KINDS.values())})\s+(?P<label>{_LABEL})"
    rf"(?P<more>(?:{_MORE})*)"
)
_ONE_MORE = re.compile(_MORE)
_MENTIONED = re.compile(r"\b(?:mention\w*|cit(?:e|ed|es|ing)|referenc\w*|referred|refer)\b", re.I)
_PAGES = re.compile(
    r"\bpages? (?:that |which )?(?:contain|include|have|has|show|with|hold|feature)\w* "
    r"(?:a |an |any |at least one )?(\w+)", re.I,
)  # fmt: skip
_SOURCED = re.compile(r"\bsourced? (?:from|by)\b|\bsources? (?:is|are|was|were)\b", re.I)
_SOURCE_LINE = re.compile(r"^\s*(?:sources?|data)\s*:", re.I)
# Words of the question that say where or how to count, not which parts.
_NOT_CONDITION = stem_set(
    "include includes included contain contains contained have has had appear appears appeared "
    "there show shown listed mentioned cited referenced given presented document report paper "
    "article manual guide book slides deck file write answer integer format number total all "
    "main body text source sourced from as a an"
)
MAX_NUMBERED = 60  # a label above this is no count of parts ("Section 508" of a law)


@dataclass(frozen=True, slots=True)
class PartsQuestion:
    """What a count of parts asks: the kinds ("table", "chart"), whether by page, whether
    mentions count, and the condition's stems ("f1", "metric")."""

    kinds: frozenset[str]
    noun: str  # as the question says it: "tables", "charts and tables", "pages"
    per_page: bool = False
    mentions: bool = False
    condition: tuple[str, ...] = ()
    sourced: bool = False


@dataclass(frozen=True, slots=True)
class Part:
    kind: str
    label: str
    found: Found  # the caption (or first mention); its span is the label
    caption: bool
    text: str  # the caption (and a table's rows), for the condition


@dataclass(frozen=True, slots=True)
class PartsCount:
    question: PartsQuestion
    found: list[Found]
    count: int  # the highest number where that is more than the parts found
    numbered_to: int | None = None


def plural(kind: str) -> str:
    return "appendices" if kind == "appendix" else f"{kind}s"


def _kind(word: str) -> str | None:
    return next((kind for kind, pattern in _KIND_OF if pattern.match(word)), None)


def parse_parts(question: str, head_noun: str) -> PartsQuestion | None:
    """The parts a count or list question asks for, or None where it asks for other things
    ("pie charts" is a kind of picture: no label says it)."""
    page = _PAGES.search(question)
    if page is not None and head_noun.lower().startswith("page"):
        kind = _kind(page.group(1))
        rest = question[page.end() :]
        return None if kind is None else PartsQuestion(
            frozenset({kind}), "pages", per_page=True, condition=_condition(rest))  # fmt: skip
    words = head_noun.replace(",", " ").split()
    taken = _leading_kinds(words)
    if not taken:
        return None
    kinds = frozenset(k for k in map(_kind, words[:taken]) if k is not None)
    rest = " ".join(words[taken:]) + " " + _after_head(question, head_noun)
    return PartsQuestion(kinds, " ".join(words[:taken]),
                         mentions=bool(_MENTIONED.search(question)), condition=_condition(rest),
                         sourced=bool(_SOURCED.search(question)))  # fmt: skip


def _leading_kinds(words: Sequence[str]) -> int:
    """How many of the head's first words name parts ("charts and tables"): 0 when the
    first does not ("pie charts")."""
    taken = 0
    for word in words:
        if _kind(word) is None and (not taken or word.lower() not in ("and", "&", "or")):
            break
        taken += 1
    while taken and _kind(words[taken - 1]) is None:  # "tables and"
        taken -= 1
    return taken


def _after_head(question: str, head_noun: str) -> str:
    at = question.lower().find(head_noun.lower())
    return question[at + len(head_noun) :] if at >= 0 else ""


def _condition(text: str) -> tuple[str, ...]:
    return tuple(s for s in stems(text) if s not in _NOT_CONDITION)


def _is_caption(text: str, start: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    return not text[line_start:start].strip()


def _caption_line(unit: ItemUnit, start: int) -> ItemUnit:
    """A caption is its whole line ("Figure 1. Visits per month"), not the sentence the
    splitter cut after "Figure 1."; a caption that runs on keeps its sentence's end."""
    raw = unit.chunk.text
    end = raw.find("\n", start)
    end = max(len(raw) if end < 0 else end, unit.end)
    return ItemUnit(unit.chunk, start, end, unit.page)


def _labels(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The label and its span; "Exhibits P-10 and P-11" gives both."""
    out = [(match.group("label"), match.start(), match.end("label"))]
    more, base = match.group("more"), match.end("label")
    for extra in _ONE_MORE.finditer(more):
        out.append((extra.group(1), base + extra.start(1), base + extra.end(1)))
    return [("".join(label.split()), a, b) for label, a, b in out]  # "P- 24" broken by a line


def _occurrences(units: Sequence[ItemUnit], kinds: frozenset[str]) -> list[Part]:
    """Every label of the kinds asked, in reading order, captions marked."""
    parts = []
    for unit in units:
        raw = unit.chunk.text
        for match in _OCCURRENCE.finditer(raw, unit.start, unit.end):
            kind = _kind(match.group("kind"))
            if kind not in kinds:
                continue
            caption = _is_caption(raw, match.start())
            owner = _caption_line(unit, match.start()) if caption else unit
            text = _part_text(owner, match.start())
            for label, a, b in _labels(match):
                first = caption and a == match.start()  # "Table 3" itself, not "and 4"
                found = Found(owner, "caption" if first else "label", (a, b),
                              f"{kind.capitalize()} {label}")  # fmt: skip
                parts.append(Part(kind, label, found, first, text))
    return parts


def _distinct(parts: Sequence[Part], captions_only: bool) -> list[Part]:
    """One part per kind and label: its caption where it has one, else its first mention."""
    chosen: dict[tuple[str, str, str], Part] = {}
    for part in parts:
        key = (part.found.unit.chunk.doc_id, part.kind, part.label.upper())
        if captions_only and not part.caption:
            continue
        if key not in chosen or (part.caption and not chosen[key].caption):
            chosen[key] = part
    return list(chosen.values())


def _highest(parts: Sequence[Part]) -> int | None:
    numbers = [int(p.label) for p in parts if p.label.isdigit()]
    letters = [ord(p.label) - 64 for p in parts if len(p.label) == 1 and p.label.isupper()]
    best = max(numbers or letters or [0])
    return best if 0 < best <= MAX_NUMBERED else None


def _numbered(chosen: Sequence[Part], everything: Sequence[Part]) -> int | None:
    """The highest number (or letter) of one kind's labels, where a single kind of one
    document is counted and its labels are all plain numbers or all letters (a sequence)."""
    kinds = {p.kind for p in chosen}
    if len(kinds) != 1 or len({p.found.unit.chunk.doc_id for p in chosen}) != 1:
        return None
    same = [p for p in everything if p.kind in kinds]
    plain = all(p.label.isdigit() for p in same) or all(
        len(p.label) == 1 and p.label.isupper() for p in same)  # fmt: skip
    return _highest(same) if plain else None


def count_parts(question: PartsQuestion, units: Sequence[ItemUnit]) -> PartsCount | None:
    """The parts of `units` the question asks for, or None when the text labels none."""
    if question.per_page:
        return _pages_with(question, units)
    everything = _occurrences(units, question.kinds)
    if not everything:
        return _sourced(question, units) if question.sourced and question.condition else None
    captions_only = not question.mentions and any(p.caption for p in everything)
    chosen = _distinct(everything, captions_only)
    if question.condition:
        return _with_condition(question, chosen)
    top = _numbered(chosen, everything)
    count = max(len(chosen), top or 0)
    return PartsCount(question, [p.found for p in chosen], count,
                      top if top and top > len(chosen) else None)  # fmt: skip


def _with_condition(question: PartsQuestion, chosen: Sequence[Part]) -> PartsCount | None:
    """The parts whose caption (or a table's rows under it) states the condition; None when
    none does: a figure's content is not in the text, so matching cannot count it."""
    wanted = set(question.condition)
    kept = [p for p in chosen if wanted <= stem_set(p.text)]
    return PartsCount(question, [p.found for p in kept], len(kept)) if kept else None


def _part_text(unit: ItemUnit, start: int) -> str:
    """A part's own words: its caption, and the rows of a table that follow it."""
    raw = unit.chunk.text
    lines = [raw[start : unit.end]]
    for line in raw[unit.end :].lstrip("\n").split("\n"):
        if not is_table_row(line):
            break
        lines.append(line)
    return "\n".join(lines)


def _sourced(question: PartsQuestion, units: Sequence[ItemUnit]) -> PartsCount | None:
    """Unlabelled charts and tables counted by their "Source: …" lines that say the source."""
    wanted = set(question.condition)
    lines = [u for u in units if _SOURCE_LINE.match(u.text) and wanted <= stem_set(u.text)]
    if not lines:
        return None
    return PartsCount(question, [Found(u, "source line") for u in lines], len(lines))


def _pages_with(question: PartsQuestion, units: Sequence[ItemUnit]) -> PartsCount | None:
    """Each page with a part of the kind asked: a table's rows (tables), or a caption."""
    first: dict[tuple[str, int], Found] = {}
    captions = {(p.found.unit.chunk.doc_id, p.found.unit.page): p.found
                for p in _occurrences(units, question.kinds) if p.caption}  # fmt: skip
    rows = "table" in question.kinds
    for unit in units:
        key = (unit.chunk.doc_id, unit.page or 0)
        if unit.page is None or key in first:
            continue
        if key in captions:
            first[key] = captions[key]
        elif rows and is_table_row(unit.text):
            first[key] = Found(unit, "table row")
    if not first:
        return None
    return PartsCount(question, list(first.values()), len(first))
