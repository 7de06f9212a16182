"""Whether a "how many" question asks for a number the documents state or for a count through
them, decided from the documents in scope, not from the question's words.

"How many warehouses did Costco operate?" and "How many complaints were about late delivery?"
have the same grammar. The router's rules send both to lookup, unsure. What tells them apart
is in the scope: a report prints "we operated 815 warehouses" (a number next to the thing
asked for), a complaints register lists one complaint a line and states no total. So, where
the router is unsure, the scope is read (every line, as the count route would) and:

- a line that holds the thing asked for with a number beside it ("815 warehouses",
  "Warehouses — 2021: 815", "complaints: 47") states the answer: lookup;
- else, when several lines hold the thing ("INC-1097 Power failure ..." for power failures),
  or a document's title names it (every line of "Complaints register" is a complaint), or a
  register in scope (routes/records.py: one record a line) holds a word of the question in its
  title or its records ("instruments failed calibration" of a "Calibration register" whose
  records never say "instrument"), the answer is a count through the scope: the count route,
  which never samples;
- else lookup: nothing in scope is a list of such things.

The read is bounded (`max_chunks`): past it the question stays with lookup, and the answer's
route reason says why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from desktop_rag.domain import Answer, DocScope
from desktop_rag.domain.routed import RouteName
from desktop_rag.routes.base import Route, RouteRequest
from desktop_rag.routes.content_words import content_word_candidates
from desktop_rag.routes.matching import head_indices
from desktop_rag.routes.records import records_by_document
from desktop_rag.routes.scope import documents_asked
from desktop_rag.routes.target import Mode, Target, parse
from desktop_rag.routes.units import ChunkSource, ItemUnit, distinct, names_its_page, units_of
from desktop_rag.text.words import STOPWORDS, stem_set, stem_words

UNSURE_RULE = "how-many:stated-number"  # the router's reason when it leaves a count to lookup
MIN_LINES = 3  # lines holding the thing asked for that make a list of them
_AFTER = 12  # words after the thing asked for where its stated number may stand
_TOKEN = re.compile(r"[A-Za-z][\w'&-]*|\d[\d,]*(?:\.\d+)?%?|[^\s\w]")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?$")
_DATE_MARKS = frozenset(":-/.")
_SEPARATORS = frozenset(":—–-|=()")
_LINKS = frozenset({"of", "was", "were", "is", "are", "totalled", "totaled", "total",
                    "numbered", "came", "to", "at"})  # fmt: skip
_NUMBER_WORDS = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight",
                           "nine", "ten", "eleven", "twelve", "dozen"})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the scope holds about the thing asked for: the lines holding it, those of them
    stating a number beside it, and whether a document's title names it."""

    lines: int
    stated: int
    titled: bool
    unread: str = ""  # why the scope was not read ("" when it was)
    records: int = 0  # records of the registers in scope that the question's words point at
    chosen: bool = False  # `records` are those of the registers the user chose

    @property
    def listed(self) -> bool:
        """The scope lists the things one by one and states no number of them."""
        return not self.unread and not self.stated and (
            self.lines >= MIN_LINES or self.titled or self.records > 0)

    def reason(self) -> str:
        if self.unread:
            return self.unread
        if self.stated:
            return f"{self.stated} line(s) in scope state a number of them"
        if self.listed:
            titled = ", a document's title names them" if self.titled else ""
            kept = ""
            if self.records:
                kept = (f", the documents chosen are registers of {self.records} records"
                        if self.chosen else
                        f", a register of {self.records} records holds the question's words")
            return f"{self.lines} line(s) in scope list them, none states a number{titled}{kept}"
        return f"{self.lines} line(s) in scope hold them: no list"


def _is_number(token: str) -> bool:
    """A count's number: digits or a number word, not a year (2021)."""
    if token.lower() in _NUMBER_WORDS:
        return True
    if not _NUMBER.match(token):
        return False
    plain = token.replace(",", "")
    return not (len(plain) == 4 and plain.isdigit() and 1900 <= int(plain) <= 2099)


def _counts_before(tokens: Sequence[str], i: int) -> bool:
    """"815 warehouses", "47 customer complaints": a number just before the word, or before
    one plain word before it; not the end of a time or a date ("13:22 INC-1003 Power")."""
    for at in (i - 1, i - 2):
        if at < 0 or not _is_number(tokens[at]):
            continue
        between = tokens[at + 1 : i]
        plain = all(t.isalpha() for t in between)
        if plain and (at == 0 or tokens[at - 1] not in _DATE_MARKS):
            return True
    return False


def _counts_after(tokens: Sequence[str], stemmed: Sequence[str], i: int,
                  named: frozenset[str]) -> bool:
    """"Warehouses — 2021: 815", "complaints: 47", "Membership of Board of other Companies *:
    14": past the rest of the thing's name (the question's words, small words, marks) and
    years, the first word is a number after a separator or link word. A number straight after
    the word is a label ("Item 7", "Step 2"), not a count."""
    linked = False
    for token, stem in zip(tokens[i + 1 : i + 1 + _AFTER], stemmed[i + 1 : i + 1 + _AFTER],
                           strict=False):  # fmt: skip
        if token in _SEPARATORS or token.lower() in _LINKS:
            linked = True
        elif not (_is_year(token) or stem in named or token.lower() in STOPWORDS
                  or not token[0].isalnum()):  # fmt: skip
            return linked and _is_number(token)
    return False


def _is_year(token: str) -> bool:
    return bool(_NUMBER.match(token)) and not _is_number(token)


def states_number(text: str, head: Sequence[str], named: Sequence[str] = ()) -> bool:
    """A number counting a word of the thing asked for (`head`), in `text`; `named` are the
    question's other words, which may stand between the thing and its number."""
    tokens = _TOKEN.findall(text)
    stemmed = stem_words([t.lower() for t in tokens])
    wanted = set(head)
    words = frozenset((*head, *named))
    return any(stem in wanted and (_counts_before(tokens, i)
                                   or _counts_after(tokens, stemmed, i, words))
               for i, stem in enumerate(stemmed))  # fmt: skip


def evidence(target: Target, units: Sequence[ItemUnit], chosen: bool = False) -> Evidence:
    """What `units` (every line in scope) say of `target`'s thing. `chosen`: the user chose
    the documents in scope, or the question names them; where every one of them is a
    register, a register is what the question is about, whatever its words."""
    head = set(target.head)
    units = [u for u in units if not names_its_page(u)]  # as the count route reads them
    sets = [stem_set(u.text) for u in units]
    # the question's verb may be in the head ("crashes happened"): then the lines holding the
    # question's words the scope states, as the count route reads them
    lines = head_indices(units, sets, target) or content_word_candidates(units, sets, target)[0]
    said = [h for h in target.head if h not in target.soft] or list(target.head)
    stated = sum(1 for i in lines if states_number(units[i].text, said, target.condition))
    # a title naming the thing makes its lines the things ("Complaints register")
    titled = any(head <= stem_set(title) for title in {u.chunk.title for u in units})
    records, whole = _records_pointed_at(units, sets, target, chosen)
    return Evidence(len(lines), stated, titled, records=records, chosen=whole)


def _records_pointed_at(
    units: Sequence[ItemUnit], sets: Sequence[frozenset[str]], target: Target, chosen: bool
) -> tuple[int, bool]:
    """The records of the registers in scope whose title or records hold a word of the thing
    asked for or of its condition: a register about it, whose records may never name it. All
    records where the documents in scope were `chosen` and each of them is a register ("How
    many trains ran late?" of a punctuality sheet whose records say "behind schedule"); and
    whether that is why."""
    words = set(target.head) | set(target.condition)
    registers = records_by_document(units)
    if chosen and len(registers) == len({u.chunk.doc_id for u in units}):
        return sum(len(records) for records in registers.values()), True
    pointed = 0
    for records in registers.values():
        title = stem_set(units[records[0]].chunk.title)
        if words & title or any(words & sets[i] for i in records):
            pointed += len(records)
    return pointed, False


class CountEvidence:
    """Reads the scope of an unsure "how many" question (`source`: the catalog) and says
    whether it lists the things asked for (see the module docstring)."""

    def __init__(self, source: ChunkSource, max_chunks: int = 5000) -> None:
        self.source = source
        self.max_chunks = max_chunks

    def weigh(self, query: str, scope: DocScope) -> Evidence:
        """The evidence; `unread` says why there is none (no thing named, nothing indexed in
        scope, a scope too big to read for a decision)."""
        target = parse(query)
        if target.mode is not Mode.COUNT or not target.head:
            return Evidence(0, 0, False, "no thing to count named")
        docs, named = documents_asked(self.source, query, scope)
        if not docs:
            return Evidence(0, 0, False, "no indexed document in scope")
        chunks = sum(d.chunks for d in docs)
        if chunks > self.max_chunks:
            why = (f"{chunks:,} passages in scope, more than the {self.max_chunks:,} read to "
                   "decide; choose the documents to count in")  # fmt: skip
            return Evidence(0, 0, False, why)
        units = [u for d in docs for c in self.source.chunks_of(d.doc_id) for u in units_of(c)]
        return evidence(target, distinct(units), scope.included is not None or named > 0)


class CountWhenListed:
    """The lookup route's place in the table: it answers every question sent to lookup, except
    an unsure "how many" whose scope lists the things asked for, which goes to `count` (the
    count route). A user forcing a route keeps it. The answer's route says what was decided
    and from what evidence."""

    def __init__(self, lookup: Route, count: Route, weigh: CountEvidence) -> None:
        self.lookup = lookup
        self.count = count
        self.weigh = weigh

    def answer(self, request: RouteRequest) -> Answer:
        info = request.info
        if info.forced or info.reason != UNSURE_RULE:
            return self.lookup.answer(request)
        found = self.weigh.weigh(request.query, request.scope)
        if not found.listed:
            why = f"{UNSURE_RULE} ({found.reason()})"
            return self.lookup.answer(replace(request, info=replace(info, reason=why)))
        counted = replace(info, route=RouteName.EXHAUSTIVE, handled_by=RouteName.EXHAUSTIVE,
                          reason=f"how-many:listed ({found.reason()})")  # fmt: skip
        return self.count.answer(replace(request, info=counted))
