"""The sides of a comparison: the documents, years or entities a question sets side by side.

"Compare the 2019 and 2021 reports on revenue" has two sides, and top-k retrieval over the
question as a whole gives most of its passages to whichever side words favour. Each side named
here is searched on its own with an equal share of the context, so that both are represented.
In order: the documents the question names (or the documents the user chose), two or more
years, then two entities joined by "and", "or", "vs", "with" or "to" after compare/between.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop_rag.domain import DocScope
from desktop_rag.domain.focused import DocFocus

MAX_SIDES = 4
_JOINED_GAP = re.compile(r"\b(?:and|or|vs\.?|versus|with|to|against)\s*\x00|\x00\s*(?:and|or|vs\.?|"
                         r"versus|with|to|against)\b", re.IGNORECASE)  # fmt: skip
_YEAR = re.compile(r"(?<!\d)(?:19[5-9]\d|20[0-4]\d)(?!\d)")
_STOP_AT = r"(?=\s+(?:on|in|for|about|regarding|with respect to|in terms of)\b|[?.,;:]|$)"
_ENTITIES = (
    re.compile(rf"\bbetween\s+(?:the\s+)?(.{{2,60}}?)\s+and\s+(?:the\s+)?(.{{2,60}}?){_STOP_AT}",
               re.IGNORECASE),
    re.compile(rf"\b(?:compare|contrast)\s+(?:the\s+)?(.{{2,60}}?)\s+(?:and|with|to|against)\s+"
               rf"(?:the\s+)?(.{{2,60}}?){_STOP_AT}", re.IGNORECASE),
    re.compile(rf"(?:^|\b(?:how (?:do|does|did)|is|was)\s+)(?:the\s+)?(.{{2,60}}?)\s+"
               rf"(?:vs\.?|versus)\s+(?:the\s+)?(.{{2,60}}?){_STOP_AT}", re.IGNORECASE),
    re.compile(rf"\bhow (?:do|does|did)\s+(?:the\s+)?(.{{2,60}}?)\s+compare\s+(?:with|to|against)"
               rf"\s+(?:the\s+)?(.{{2,60}}?){_STOP_AT}", re.IGNORECASE),
    re.compile(r"\bhow (?:do|does|did)\s+(?:the\s+)?(.{2,60}?)\s+(?:and|or)\s+(?:the\s+)?"
               r"(.{2,60}?)\s+(?:compare|differ)\b", re.IGNORECASE),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison: what it is called, the scope it is searched in, and the words
    that stand for it in the question (left out of the other sides' queries)."""

    label: str
    scope: DocScope
    words: tuple[str, ...] = ()
    kind: str = "document"  # document | year | entity


def sides_of(
    question: str,
    scope: DocScope,
    named: Callable[[str, DocScope], DocFocus | None],
    titles: Callable[[str], str],
) -> list[Side]:
    """The sides the question compares within `scope` (none found: an empty list)."""
    focus = named(question, scope)
    if focus is not None and len(focus.doc_ids) >= 2:
        return [Side(t, DocScope(only=frozenset({d})), _title_words(t))
                for d, t in zip(focus.doc_ids, focus.titles, strict=True)][:MAX_SIDES]  # fmt: skip
    chosen = sorted(scope.only or ())
    if 2 <= len(chosen) <= MAX_SIDES:
        return [Side(titles(d), DocScope(only=frozenset({d}))) for d in chosen]
    years = list(dict.fromkeys(_YEAR.findall(question)))
    if 2 <= len(years) <= MAX_SIDES:
        return [Side(y, scope, (y,), "year") for y in years]
    return [Side(e, scope, (e,), "entity") for e in _entities(question)]


def _title_words(title: str) -> tuple[str, ...]:
    return tuple(w for w in re.findall(r"\w+", title.lower()) if len(w) > 2)


def _entities(question: str) -> list[str]:
    for pattern in _ENTITIES:
        m = pattern.search(question)
        if m:
            pair = [_trim(m.group(1)), _trim(m.group(2))]
            if all(pair) and pair[0].lower() != pair[1].lower():
                return pair
    return []


def _trim(text: str) -> str:
    return re.sub(r"^(?:the|a|an)\s+", "", text.strip(" '\"“”"), flags=re.IGNORECASE)


def side_query(question: str, side: Side, sides: Sequence[Side]) -> str:
    """The question as this side asks it: the other sides' own words left out, so that the
    search for 2019 is not drawn to 2021's passages."""
    query = question
    for other in sides:
        if other is side or other.kind == "document":
            continue
        for word in other.words:
            query = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", "\x00", query, flags=re.IGNORECASE)
    query = _JOINED_GAP.sub(" ", query).replace("\x00", " ")
    return " ".join(query.split())


def side_note(sides: Sequence[Side], empty: Sequence[Side]) -> str:
    """What the model is told after the question: the sides, and those no passage was found for."""
    names = ", ".join(s.label for s in sides)
    note = (f"This question compares: {names}. The sources are grouped by side. Answer for each "
            "side from its own sources, citing them, then say how they compare.")  # fmt: skip
    if empty:
        note += " No source was found for: " + ", ".join(s.label for s in empty) + "; say so."
    return note
