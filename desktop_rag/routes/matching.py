"""Matching alone: which items in scope are what the question asks for, which are not, and
which only the model can tell (candidates).

An item matches when it has every stem of the head and, where the question names a subset,
every stem of the condition; the other items of the head may say the condition in other words,
so the judge reads them too, measured against the items that say it as asked. A condition the
text never states in those words ("paid late" where lines only give dates) cannot be decided
by matching: then every item of the head that
holds the condition's proper names is a candidate for the judge ("Acme Ltd" of "invoices did
Acme Ltd send"). A line that denies ("no outage was seen") is a candidate too. For
"how many times is X mentioned" every occurrence of X (or of its identifier) is an item.
When no item has every stem of the head ("incidents involved a forklift": no line says
"involved"; "tickets about printing problems": no line says "ticket"), a document whose lines
are records (routes/records.py: "HD-2009 (…) printer on floor 34 …") has every record judged
that holds the question's names and numbers; in another document every item sharing the
question's words that the text states is a candidate (routes/content_words.py), so the judge
sees all of them, not a sample. When a register's records mostly leave the thing unsaid and the
few that say it do not state the condition ("unannounced visit" in a visitor log asked for
"visits not booked in advance"), every record of it is a candidate (records.beyond_heads).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from desktop_rag.routes.content_words import content_word_candidates
from desktop_rag.routes.records import beyond_heads, with_records
from desktop_rag.routes.target import Mode, Target
from desktop_rag.routes.units import ItemUnit
from desktop_rag.text.words import has_identifier, negated, occurrences, stem_set


@dataclass(frozen=True, slots=True)
class Found:
    """One item found: its unit, how it was found, and (for mentions) where in the unit."""

    unit: ItemUnit
    by: str  # "terms", "phrase", "identifier", "model", "caption", "label", "source line", …
    span: tuple[int, int] | None = None  # an occurrence, in the unit's chunk text
    name: str = ""  # a part's label as listed ("Exhibit P-11"), "" for other items


@dataclass(slots=True)
class Matches:
    """What matching decided: the items, the candidates for the judge, and why not more."""

    items: list[Found] = field(default_factory=list)
    candidates: list[ItemUnit] = field(default_factory=list)
    anchors: list[ItemUnit] = field(default_factory=list)  # items stating the condition as asked
    condition_stated: bool = True  # False: the condition's words are in no head item
    decided: set[tuple[object, ...]] = field(default_factory=set)  # places matching settled
    registers: frozenset[str] = frozenset()  # documents whose records are every item (doc ids)


def _has(unit_stems: frozenset[str], wanted: Sequence[str]) -> bool:
    return bool(wanted) and set(wanted) <= unit_stems


def _ids_ok(unit: ItemUnit, target: Target) -> bool:
    return all(has_identifier(unit.text, i) for i in target.identifiers)


def head_indices(
    units: Sequence[ItemUnit], sets: Sequence[frozenset[str]], target: Target
) -> list[int]:
    """The units with every head stem; when no unit has them all, the units with every head
    stem they must say themselves (`_said`)."""
    hits = [i for i, u in enumerate(units) if _has(sets[i], target.head) and _ids_ok(u, target)]
    if hits or len(target.head) < 2:
        return hits
    said: dict[str, tuple[str, ...]] = {}  # by document title
    for unit in units:
        if unit.chunk.title not in said:
            said[unit.chunk.title] = _said(target, unit.chunk.title)
    return [i for i, u in enumerate(units)
            if _has(sets[i], said[u.chunk.title]) and _ids_ok(u, target)]  # fmt: skip


def _said(target: Target, title: str) -> tuple[str, ...]:
    """The head stems the lines of a document titled `title` must state themselves: not the
    soft ones ("items" of "action items"), nor those the title states (in "Incident log 1",
    every line is an incident: "INC-1097 Login failure ..." is a "login failure incident"). At
    least one stays (the head's last word, its noun), so that a head the title alone states never
    makes every line an item."""
    implied = target.soft | stem_set(title)
    return tuple(h for h in target.head if h not in implied) or target.head[-1:]


def match_items(units: Sequence[ItemUnit], target: Target) -> Matches:
    """Every unit classified; candidates are in reading order."""
    if target.mode is Mode.MENTIONS:
        return _mentions(units, target)
    sets = [stem_set(u.text) for u in units]
    heads = head_indices(units, sets, target)
    if not heads and not target.identifiers:
        shared, _ = content_word_candidates(units, sets, target)
        shared, registers = with_records(units, sets, target, shared)
        return Matches(candidates=[units[i] for i in shared],
                       decided={units[i].place for i in shared}, registers=registers)  # fmt: skip
    out = Matches(decided={units[i].place for i in heads})
    chosen = heads
    if target.condition:
        stated = [i for i in heads if _has(sets[i], target.condition)]
        out.condition_stated = bool(stated)
        if not stated:
            pool = _holding_stated(heads, sets, target.names)
            pool, out.registers = beyond_heads(units, sets, target, heads, pool)
            out.candidates = [units[i] for i in pool]
            out.decided |= {units[i].place for i in pool}
            return out
        chosen = stated
    by = "identifier" if target.identifiers else "terms"
    for i in chosen:
        if negated(units[i].text):
            out.candidates.append(units[i])
        else:
            out.items.append(Found(units[i], by))
    if target.condition and chosen:
        _said_otherwise(out, heads, chosen, units, sets, target)
    return out


def _said_otherwise(
    out: Matches, heads: Sequence[int], stated: Sequence[int], units: Sequence[ItemUnit],
    sets: Sequence[frozenset[str]], target: Target,
) -> None:
    """Where some items state the condition in the question's words ("returned 3 weeks late"),
    the other items of the head may state it in theirs ("overdue when it came back", "brought
    back after the due date"): they go to the judge, all of them, with the items that state it
    as its anchors (routes/judge.py: a line is an item when the model finds it about as likely
    as those). Not the items without the condition's proper names and numbers ("Acme Ltd",
    "Press 4"): those are said in their own words or not at all."""
    exact = {c for c in target.condition if c in target.names or any(ch.isdigit() for ch in c)}
    taken = set(stated)
    out.candidates += [units[i] for i in heads if i not in taken and exact <= sets[i]]
    out.anchors = [f.unit for f in out.items]


def _holding_stated(
    heads: Sequence[int], sets: Sequence[frozenset[str]], names: Sequence[str]
) -> list[int]:
    """The items of the head that hold every proper name of the condition some item states:
    "invoices did Acme Ltd send" leaves "send" to the judge (no invoice line says it) but not
    "Acme Ltd" (an invoice without it is no invoice Acme Ltd sent). Only names: a description
    is said in other words ("late delivery" by "arrived 5 days after the promised date"), so
    every item of the head stays a candidate for it."""
    said = {c for c in names if any(c in sets[i] for i in heads)}
    return [i for i in heads if said <= sets[i]]


def _mentions(units: Sequence[ItemUnit], target: Target) -> Matches:
    """Each occurrence of the phrase (an identifier, when it has one) is one item."""
    needle = target.identifiers[0] if target.identifiers else target.phrase
    by = "identifier" if target.identifiers else "phrase"
    out = Matches()
    for unit in units:
        raw = unit.chunk.text[unit.start : unit.end]
        for a, b in occurrences(raw, needle):
            if not target.identifiers or has_identifier(raw[a:b], needle):
                out.items.append(Found(unit, by, (unit.start + a, unit.start + b)))
    return out
