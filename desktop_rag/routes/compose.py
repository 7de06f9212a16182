"""The answer of a list or count, written by the app, not the model: the number (counted in
code), the items up to a limit and "and N more", each item cited to its page through the same
structures as every answer (a passage per chunk holding items, a citation per passage, an
evidence per item with its page and line boxes), and every item in `Answer.items`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from desktop_rag.domain import Answer, Citation, Document, Evidence, ListedItem, Passage
from desktop_rag.domain.routed import RouteInfo
from desktop_rag.routes.matching import Found
from desktop_rag.routes.parts import PartsCount, plural
from desktop_rag.routes.target import Mode, Target
from desktop_rag.routes.units import ItemUnit
from desktop_rag.routes.values import ValuesCount
from desktop_rag.routes.values import plural as value_plural
from desktop_rag.text.locate import boxes_in, page_of

SHOWN_CHARS = 160  # a part's sentence as listed
AROUND = 70  # characters shown on each side of a listed value
NOTHING_IN_SCOPE = "No indexed document is in scope: there is nothing to list or count."


@dataclass(frozen=True, slots=True)
class Reading:
    """What the route read and decided, for the answer's sentence and its route details."""

    docs: Sequence[Document]
    whole_library: bool
    passages: int
    pages: int
    undecided: int = 0  # candidates neither matching nor the judge decided
    why_undecided: str = ""
    details: dict[str, int] = field(default_factory=dict)


def _where(reading: Reading) -> str:
    if len(reading.docs) == 1:
        return reading.docs[0].title
    if reading.whole_library:
        return f"the library ({len(reading.docs)} documents)"
    return f"{len(reading.docs)} documents"


def headline(target: Target, count: int, reading: Reading) -> str:
    """The answer's first sentence: the number, what of, where, and that all was read."""
    if not reading.docs:
        return NOTHING_IN_SCOPE
    least = "at least " if reading.undecided else ""
    read = f"reading all {reading.passages:,} passages ({reading.pages:,} pages)"
    if target.mode is Mode.MENTIONS:
        times = "time" if count == 1 else "times"
        return (
            f"“{target.phrase}” is mentioned {least}{count} {times} in {_where(reading)}, {read}."
        )
    items = "item" if count == 1 else "items"
    amount = f"{least}{count}" if count else "no"
    return f"Found {amount} matching {items} for “{target.noun}” in {_where(reading)}, {read}."


def _undecided(reading: Reading) -> str:
    n = reading.undecided
    lines = "line" if n == 1 else "lines"
    return (
        f"{n} more {lines} may match but were not decided ({reading.why_undecided}); not counted."
    )


def ordered(found: Sequence[Found], order: dict[str, int]) -> list[Found]:
    """Reading order: documents as the catalog lists them, then chunk, then offset."""

    def key(f: Found) -> tuple[int, int, int]:
        start = f.span[0] if f.span else f.unit.start
        return order.get(f.unit.chunk.doc_id, 0), f.unit.chunk.ordinal, start

    return sorted(found, key=key)


def _shown(f: Found) -> str:
    """An item as listed: its line; a part's label first where it is mentioned in a sentence
    (the sentence cut short: the citation opens it whole)."""
    if f.by == "value" and f.span is not None:
        return f"{f.name}: “{_around(f.unit, f.span)}”"
    if f.by not in ("label", "caption"):
        return f.unit.text
    text = f.unit.text if len(f.unit.text) <= SHOWN_CHARS else \
        f.unit.text[:SHOWN_CHARS].rsplit(" ", 1)[0] + "…"  # fmt: skip
    return text if f.by == "caption" else f"{f.name}: “{text}”"


def _around(unit: ItemUnit, span: tuple[int, int]) -> str:
    """The words around a value in its sentence, the value in view however long the sentence."""
    raw = unit.chunk.text
    start, end = max(unit.start, span[0] - AROUND), min(unit.end, span[1] + AROUND)
    text = " ".join(raw[start:end].split())
    if start > unit.start:
        text = "…" + text.split(" ", 1)[-1]
    if end < unit.end:
        text = text.rsplit(" ", 1)[0] + "…"
    return text


def _passages(found: Sequence[Found]) -> dict[str, Passage]:
    by_chunk: dict[str, Passage] = {}
    for f in found:
        chunk = f.unit.chunk
        if chunk.chunk_id not in by_chunk:
            by_chunk[chunk.chunk_id] = Passage(len(by_chunk) + 1, chunk, chunk.text, 1.0)
    return by_chunk


def _evidence(f: Found, line: str) -> Evidence:
    chunk = f.unit.chunk
    span = f.span or (f.unit.start, f.unit.end)
    page = page_of(chunk, span)
    return Evidence(chunk.chunk_id, page, span, boxes_in(chunk, span), f.unit.text, 1.0, line)


def _item(f: Found, n: int) -> ListedItem:
    chunk, span = f.unit.chunk, f.span or (f.unit.start, f.unit.end)
    return ListedItem(n, f.unit.text, chunk.doc_id, chunk.title, chunk.path,
                      page_of(chunk, span), chunk.chunk_id, span, f.by)  # fmt: skip


def parts_headline(parts: PartsCount, reading: Reading) -> str:
    """The first sentence of a count of parts: how many, of what, where, and how counted."""
    if not reading.docs:
        return NOTHING_IN_SCOPE
    asked = parts.question
    least = "at least " if reading.undecided else ""
    noun = f"pages with {' or '.join(sorted(plural(k) for k in asked.kinds))}" if asked.per_page \
        else asked.noun  # fmt: skip
    if parts.numbered_to is not None:
        how = f" (numbered up to {parts.numbered_to}; the text names {len(parts.found)} of them)"
    elif asked.per_page:
        how = ""
    elif parts.found and all(f.by == "source line" for f in parts.found):
        how = " (by their “Source:” lines)"
    elif asked.mentions or not any(f.by == "caption" for f in parts.found):
        how = " (each label once, at its first mention)"
    else:
        how = " (each label once, by its caption)"
    read = f"reading all {reading.passages:,} passages ({reading.pages:,} pages)"
    return f"Found {least}{parts.count} {noun} in {_where(reading)}{how}, {read}."


def values_headline(values: ValuesCount, reading: Reading) -> str:
    """The first sentence of a list of values: how many, of what, where, and how counted."""
    if not reading.docs:
        return NOTHING_IN_SCOPE
    asked = values.question
    kinds = value_plural(asked.kind)
    noun = f"pages with {kinds}" if asked.per_page else kinds
    how = " (the first on each page)" if asked.per_page else " (each once, at its first mention)"
    left = f", leaving out {' and '.join(asked.excepted)}" if asked.excepted else ""
    read = f"reading all {reading.passages:,} passages ({reading.pages:,} pages)"
    return f"Found {values.count} {noun} in {_where(reading)}{how}{left}, {read}."


def _first_line(target: Target, found: Sequence[Found], reading: Reading,
                counted: PartsCount | ValuesCount | None) -> str:  # fmt: skip
    if isinstance(counted, ValuesCount):
        return values_headline(counted, reading)
    if counted is not None:
        return parts_headline(counted, reading)
    return headline(target, len(found), reading)


def compose(
    target: Target,
    found: Sequence[Found],
    reading: Reading,
    info: RouteInfo,
    limit: int,
    parts: PartsCount | ValuesCount | None = None,
) -> tuple[str, Answer]:
    """The answer's text and the answer (its question, chat, timings and engine filled in by
    the caller with `dataclasses.replace`); `parts` where the count is of labelled parts or of
    values."""
    passages = _passages(found)
    lines = [f"{i}. {_shown(f)} [{passages[f.unit.chunk.chunk_id].n}]"
             for i, f in enumerate(found, start=1)]  # fmt: skip
    evidence: dict[int, list[Evidence]] = {}
    for f, line in zip(found, lines, strict=True):
        evidence.setdefault(passages[f.unit.chunk.chunk_id].n, []).append(_evidence(f, line))
    first = _first_line(target, found, reading, parts)
    count = len(found) if parts is None else parts.count
    text = [first, *lines[:limit]]
    if len(found) > limit:
        text.append(f"…and {len(found) - limit} more.")
    if reading.undecided:
        text.append(_undecided(reading))
    citations = tuple(Citation(p.n, p.chunk, 1.0, False, tuple(evidence[p.n]))
                      for p in passages.values())  # fmt: skip
    items = tuple(_item(f, passages[f.unit.chunk.chunk_id].n) for f in found)
    route = RouteInfo(info.route, info.handled_by, info.reason, info.forced, info.router_ms,
                      count, dict(reading.details))  # fmt: skip
    body = "\n".join(text)
    answer = Answer(target.question, body, None, citations, tuple(passages.values()), (),
                    not reading.docs, "none", False, route=route, items=items)  # fmt: skip
    return body, answer
