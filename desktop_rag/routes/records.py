"""The records of a register: the lines of a document that open the same way.

A register, log or tracker writes one record a line, each opening with the same shape of
identifier ("HD-2001 (…)", "Van 12, checked …", "Sample S-300 from …", "BUG-4400 [high] …"),
and its records seldom name the thing they are: a helpdesk list never says "ticket", a fleet
list says "Van", not "vehicle". When no line states the thing a question counts, matching
cannot find its items by their words, and the question's other words find only the records
that share them ("printing" misses "toner empty"; "pass the inspection" finds the vans that
passed, not the ones "taken off the road"). The records are then the items, and the judge reads
every one of them that holds the condition's names and numbers: a count that never samples.

A shape is read from the line's opening, up to its first token with a digit, each run of
capitals, small letters and digits written once ("Sample S-300" → "Aa A-9"). A document's most
common shape makes records when at least `MIN_RECORDS` lines and `MIN_SHARE` of its lines have
it; prose, whose lines open with words, has none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from desktop_rag.routes.target import Target
from desktop_rag.routes.units import ItemUnit
from desktop_rag.text.words import stem_set

MIN_RECORDS = 5
MIN_SHARE = 0.5
MAX_OPENING_TOKENS = 2
# The most records a question has judged (about a second a line here: some 7 minutes). An
# incident log of 1,806 records asked "Which entries are badge reader faults?" would take half an
# hour; beyond this the lines sharing the question's words are judged, as without records.
MAX_RECORDS_JUDGED = 400


def _shape(token: str) -> str:
    out: list[str] = []
    for ch in token:
        kind = "A" if ch.isupper() else "a" if ch.islower() else "9" if ch.isdigit() else ch
        if not out or out[-1] != kind:
            out.append(kind)
    return "".join(out)


def opening(text: str) -> str | None:
    """The shape of a line's opening up to its first token with a digit; None when none of its
    first `MAX_OPENING_TOKENS` tokens has one (a line of prose)."""
    shapes = []
    for token in text.split()[:MAX_OPENING_TOKENS]:
        shapes.append(_shape(token))
        if any(ch.isdigit() for ch in token):
            return " ".join(shapes)
    return None


def records_by_document(units: Sequence[ItemUnit]) -> dict[str, list[int]]:
    """The indices (reading order) of the units that are records, by document id; documents
    without records are left out."""
    by_doc: dict[str, list[tuple[int, str | None]]] = {}
    for i, unit in enumerate(units):
        by_doc.setdefault(unit.chunk.doc_id, []).append((i, opening(unit.text)))
    out: dict[str, list[int]] = {}
    for doc, lines in by_doc.items():
        shapes = Counter(shape for _, shape in lines if shape is not None)
        if not shapes:
            continue
        shape, n = shapes.most_common(1)[0]
        if n >= MIN_RECORDS and n >= MIN_SHARE * len(lines):
            out[doc] = [i for i, s in lines if s == shape]
    return out


def record_indices(units: Sequence[ItemUnit]) -> list[int]:
    """The indices (reading order) of the units that are records of their document."""
    return sorted(i for records in records_by_document(units).values() for i in records)


def with_records(
    units: Sequence[ItemUnit], sets: Sequence[frozenset[str]], target: Target, shared: list[int]
) -> tuple[list[int], frozenset[str]]:
    """The candidates when no line states the thing counted: in a document with records, its
    records that hold every name and number of the question that some record states ("Lena
    Fischer", "Well 7"); in a document without, the lines sharing the question's words
    (`shared`, routes/content_words.py). Where the records to judge would be more than
    `MAX_RECORDS_JUDGED`, `shared` as it is. Also the documents read as registers: a line of
    theirs that is no record (a note) is no item, not even by similarity."""
    records = record_indices(units)
    if not records:
        return shared, frozenset()
    recorded_docs = {units[i].chunk.doc_id for i in records}
    kept = _narrowed(records, sets, target)
    if len(kept) > MAX_RECORDS_JUDGED:
        return shared, frozenset()
    rest = [i for i in shared if units[i].chunk.doc_id not in recorded_docs]
    return sorted(kept + rest), frozenset(recorded_docs)


def _narrowed(
    records: Sequence[int], sets: Sequence[frozenset[str]], target: Target
) -> list[int]:
    """The records holding every name and number of the question that some of them states."""
    exact = {s for s in (*target.head, *target.condition)
             if s in target.names or any(ch.isdigit() for ch in s)}  # fmt: skip
    said = {s for s in exact if any(s in sets[i] for i in records)}
    return [i for i in records if said <= sets[i]]


def beyond_heads(
    units: Sequence[ItemUnit], sets: Sequence[frozenset[str]], target: Target,
    heads: Sequence[int], pool: Sequence[int],
) -> tuple[list[int], frozenset[str]]:
    """The candidates when some lines state the thing counted but none of them its condition,
    and in a register those lines are under `MIN_SHARE` of its records: there the word is said
    in passing ("V-131 …: unannounced visit" in a visitor log whose other records are visits
    too), or where none does but the register's title names it ("Tenant requests", none of
    whose records says "request", under a note that does), not what the records are, so every
    record of that register is a candidate (narrowed as in `with_records`, at most
    `MAX_RECORDS_JUDGED`), in place of the few lines that say it; its other lines (notes) are
    none. `pool` is the candidates of the heads (`heads`) as matching has them; a register
    where the heads are half its records or more keeps them, and so do a document without
    records and a register neither its records nor its title name. Also the registers read."""
    stating = set(heads)
    out: set[int] = set()
    read: set[str] = set()
    for doc, records in records_by_document(units).items():
        said = sum(1 for i in records if i in stating)
        titled = bool(set(target.head) & stem_set(units[records[0]].chunk.title))
        if not (said or titled) or said >= MIN_SHARE * len(records):
            continue
        kept = _narrowed(records, sets, target)
        if len(kept) <= MAX_RECORDS_JUDGED:
            out.update(kept)
            read.add(doc)
    out.update(i for i in pool if units[i].chunk.doc_id not in read)
    return sorted(out), frozenset(read)
