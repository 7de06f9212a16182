"""Which document a question names: "What was Nike's revenue in fiscal 2021?" in a library of
many annual reports means Nike's 2021 report.

Searching the whole library for such a question ranks passages of every report together, and
the right report's page often loses to a similar page of another company's (MMLongBench: the
evidence page is in the top 10 for 65% of questions over the whole library, 86% within the
question's own document). The words that say *which* document — a company, a product, a title, a
year — are few and rare across the library, so a tiny BM25-like score over each document's
*profile* (its title, file name, stated title and the text of its first pages, where a cover says
what it is) finds the document they name. Only a confident match is used: a clear winner over
the runner-up, from words that are rare among the documents.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from desktop_rag.domain import DocFocus
from desktop_rag.retrieval.doc_index import MatchIndex, index_of
from desktop_rag.text.spelling import near
from desktop_rag.text.words import STOPWORDS, words

# Words that say what kind of document a file is, not which one: they name no document.
GENERIC = frozenset(
    """report reports annual form manual user users guide handbook brochure presentation deck
    slides paper document documents final release version edition en pdf page pages copy
    conversion gate01 gate phpapp01 phpapp02 lva1 app6891 v1 v2 v3 v4 v5 10k 10 k q fy fiscal
    year years quarter company inc corporation corp ltd""".split()  # noqa: SIM905
)
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20[0-4]\d)(?!\d)")
NAME_WEIGHT = 2.0  # a word of the title or file name says more than one on the cover
COVER_WEIGHT = 1.0
# Scores add word weights of at most 1 (a word only one document has): scale-free in library size.
YEAR_BONUS = 0.75  # the question's year is the document's (in its name or on its cover)
YEAR_PENALTY = 0.75  # the document's name carries years, none of them the question's
MIN_SCORE = 2.0  # a title word no other document has, or two such words of a cover
MIN_RATIO = 1.5  # the winner's score over the runner-up's
COMPANION_SHARE = 0.8  # a second named document (a comparison) scores this close to the first
MAX_FOCUS = 3


@dataclass(frozen=True, slots=True)
class DocProfile:
    """What a document is called and what its cover says, as matchable words."""

    doc_id: str
    title: str
    names: frozenset[str]
    cover: frozenset[str]
    years: frozenset[str]


def name_words(text: str) -> set[str]:
    """Words of a title or file name: "NIKE_2021_10K" -> nike, 2021, 10k; camel case split."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    return {w for w in words(spaced.replace("_", " ")) if _meaningful(w)}


def _meaningful(word: str) -> bool:
    return len(word) > 1 and word not in STOPWORDS and word not in GENERIC


def profile_of(doc_id: str, title: str, names: Iterable[str], cover_text: str) -> DocProfile:
    """The profile of one document from its names (title, file stem, stated title) and cover."""
    named: set[str] = set()
    for name in names:
        named |= name_words(name)
    cover = {w for w in words(cover_text) if _meaningful(w)}
    years = {y for y in named | cover if _YEAR.fullmatch(y)}
    return DocProfile(doc_id, title, frozenset(named), frozenset(cover - named), frozenset(years))


_PROPER = re.compile(r"(?<![.?!:]\s)(?<!^)\b[A-Z][\w&-]*|\b[A-Z]{2,}\w*")


def proper_words(question: str) -> set[str]:
    """Words the question capitalizes mid-sentence, or writes in capitals: names ("Nike",
    "COSTCO", "WMF"), which say which document; a sentence's first word says nothing."""
    return {w for m in _PROPER.finditer(question.strip()) for w in words(m.group(0))}


def question_terms(question: str) -> tuple[set[str], set[str]]:
    """The question's matchable words and the years it names ("FY2021" and "fiscal 2021": 2021)."""
    years = set(_YEAR.findall(question))
    terms = {w for w in words(question) if _meaningful(w) and not _YEAR.fullmatch(w)}
    return terms - years, years


@dataclass(frozen=True, slots=True)
class DocRef:
    """A ranked document: its id and title."""

    doc_id: str
    title: str


class DocMatcher:
    """Scores documents by the rare words a question shares with their names and covers, over
    an inverted index of the profiles (retrieval/doc_index.py)."""

    def __init__(
        self, profiles: Sequence[DocProfile] = (), index: MatchIndex | None = None
    ) -> None:
        self.index = index if index is not None else index_of(profiles)
        self._scale = math.log(1 + len(self.index.doc_ids)) or 1.0
        self._names: list[str] | None = None

    @property
    def doc_ids(self) -> list[str]:
        return self.index.doc_ids

    def idf(self, word: str) -> float:
        """Rarity among the documents: 1 for a word only one document has (its names or cover)."""
        found = len(self.index.postings(word)[0])
        return math.log((1 + len(self.index.doc_ids)) / found) / self._scale if found else 0.0

    def spelled(self, term: str) -> str:
        """The library's name word a question's word misspells, else the word itself."""
        if term in self.index.position:
            return term
        if self._names is None:
            self._names = self.index.name_words()
        return next((n for n in self._names if near(term, n)), term)

    def _scores(
        self, terms: set[str], names: set[str], keep: set[str] | None
    ) -> dict[int, tuple[float, list[str]]]:
        """Each document a term reaches: its score from the terms, and the terms; only those
        where a matched term is one of its names, or one the question writes as a name. Common
        words its cover shares with the question ("answer", "format") name nothing."""
        totals: dict[int, float] = {}
        matched: dict[int, list[str]] = {}
        named: set[int] = set()
        for term in terms:
            docs, in_name = self.index.postings(term)
            weight = self.idf(term)
            for d, is_name in zip(docs.tolist(), in_name.tolist(), strict=True):
                if keep is not None and self.index.doc_ids[d] not in keep:
                    continue
                gain = NAME_WEIGHT if is_name else COVER_WEIGHT
                totals[d] = totals.get(d, 0.0) + gain * weight
                matched.setdefault(d, []).append(term)
                if is_name or term in names:
                    named.add(d)
        return {d: (totals[d], matched[d]) for d in named}

    def _year_score(self, d: int, years: set[str], matched: list[str]) -> float:
        if not years or not matched:
            return 0.0
        if years & self.index.years[d]:
            matched.extend(sorted(years & self.index.years[d]))
            return YEAR_BONUS
        return -YEAR_PENALTY if self.index.named_years[d] else 0.0

    def ranked(
        self, question: str, allowed: Iterable[str] | None = None
    ) -> list[tuple[float, DocRef, list[str]]]:
        """Every allowed document with a positive score, best first."""
        raw, years = question_terms(question)
        names = {self.spelled(t) for t in proper_words(question)}
        terms = {self.spelled(t) for t in raw}
        keep = None if allowed is None else set(allowed)
        ranked = []
        for d, (total, matched) in self._scores(terms, names, keep).items():
            total += self._year_score(d, years, matched)
            if total > 0:
                ranked.append((total, DocRef(self.index.doc_ids[d], self.index.titles[d]), matched))
        return sorted(ranked, key=lambda r: (-r[0], r[1].doc_id))

    def focus(self, question: str, allowed: Iterable[str] | None = None) -> DocFocus | None:
        """The documents the question confidently names, or None when it names none clearly."""
        ranked = self.ranked(question, allowed)
        if not ranked or ranked[0][0] < MIN_SCORE:
            return None
        best = ranked[0][0]
        chosen = [r for r in ranked[:MAX_FOCUS] if r[0] >= COMPANION_SHARE * best]
        rest = ranked[len(chosen)] if len(ranked) > len(chosen) else None
        runner_up = rest[0] if rest else 0.0
        if runner_up * MIN_RATIO > chosen[-1][0]:
            return None
        terms = tuple(dict.fromkeys(t for r in chosen for t in sorted(r[2])))
        ids = tuple(r[1].doc_id for r in chosen)
        return DocFocus(
            ids, tuple(r[1].title for r in chosen), terms, round(best, 3), round(runner_up, 3)
        )
