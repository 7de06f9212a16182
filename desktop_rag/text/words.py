"""Words as both BM25 indexes and the list and count route see them: `words` splits as FTS5's
unicode61 tokenizer does, `STOPWORDS` is the one stopword list, and `stems` are Snowball stems
as the in-memory BM25 index makes them, so that "outages" meets "outage"; phrases and
identifiers are compared exactly."""

from __future__ import annotations

import re
import threading
from typing import Any

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # as FTS5's unicode61: "_" separates words
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves""".split()  # noqa: SIM905
)


def words(text: str) -> list[str]:
    """The lower-cased words of `text`, as both BM25 indexes see them before stopwords go."""
    return [w.lower() for w in _WORD.findall(text)]


# English verbs whose past forms no stemmer joins to the present ("grew" and "grow" stem apart),
# among those that say how an amount went: an answer restating "How much did revenue grow?" says
# "Revenue grew by …", a line stating the value "Revenue grew to 4.2". English grammar, not a
# list of questions.
_PRESENT = {"grew": "grow", "grown": "grow", "rose": "rise", "risen": "rise", "fell": "fall",
            "fallen": "fall", "shrank": "shrink", "shrunk": "shrink", "spent": "spend",
            "paid": "pay", "sold": "sell", "made": "make", "gave": "give", "given": "give",
            "bought": "buy", "held": "hold", "lost": "lose", "won": "win", "took": "take",
            "taken": "take", "brought": "bring", "kept": "keep", "went": "go",
            "gone": "go", "saw": "see", "seen": "see", "led": "lead"}  # fmt: skip


def present_form(word: str) -> str:
    """The present form of an irregular verb's past ("grew" -> "grow"); other words as they
    are."""
    return _PRESENT.get(word, word)


# Head words that name the kind of thing rather than the thing: "action items" are lines
# saying "Action:", "log entries" lines of a log. An item may leave them unsaid.
GENERIC_HEADS = frozenset({"item", "entri", "entry", "record", "instanc", "case", "occurr",
                           "thing", "element", "point", "line", "row"})  # fmt: skip
_NEGATIONS = frozenset({"no", "not", "never", "none", "without", "nothing", "neither", "nor",
                        "cannot"})  # fmt: skip
_NEGATED = re.compile(r"n't\b", re.IGNORECASE)


def new_stemmer(algorithm: str = "english") -> Any:
    """The one stemmer every part uses: PyStemmer's English Snowball (imported here only;
    "porter" for FTS5's vocabulary, `porter_stem`). A stemmer must not be shared between
    threads (PyStemmer's is not thread-safe: two threads stemming with one crashed the
    process), so each thread gets its own through `_stemmer`."""
    import Stemmer

    return Stemmer.Stemmer(algorithm)


_local = threading.local()


def _stemmer(algorithm: str = "english") -> Any:
    """This thread's stemmer of `algorithm`."""
    stemmer = getattr(_local, algorithm, None)
    if stemmer is None:
        stemmer = new_stemmer(algorithm)
        setattr(_local, algorithm, stemmer)
    return stemmer


def stem_words(found: list[str]) -> list[str]:
    """Each word's Snowball stem, in order."""
    return list(_stemmer().stemWords(found))


def porter_stem(word: str) -> str:
    """The original Porter stem, as SQLite FTS5's porter tokenizer makes it ("activision" ->
    "activis"): what a word is in the FTS5 index's own vocabulary."""
    return str(_stemmer("porter").stemWord(word))


def stems(text: str) -> tuple[str, ...]:
    """The text's stemmed words without stopwords, in order, each once."""
    kept = [w for w in words(text) if w not in STOPWORDS]
    return tuple(dict.fromkeys(_stemmer().stemWords(kept)))


def stem_set(text: str) -> frozenset[str]:
    return frozenset(stems(text))


def negated(text: str) -> bool:
    """Whether the text denies something ("no outage was seen"): matching cannot tell a denial
    from an item, so such lines go to the judge."""
    return bool(_NEGATIONS.intersection(words(text))) or bool(_NEGATED.search(text))


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    parts = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<![\w-])" + r"\s+".join(parts) + r"(?![\w-])", re.IGNORECASE)


def occurrences(text: str, phrase: str) -> list[tuple[int, int]]:
    """Where `phrase` occurs in `text`, case and spacing aside, as whole words."""
    if not phrase.strip():
        return []
    return [m.span() for m in _phrase_pattern(phrase).finditer(text)]


def has_identifier(text: str, identifier: str) -> bool:
    """An identifier is matched exactly, letter case included ("P-10" is not "P-100")."""
    return re.search(r"(?<![\w-])" + re.escape(identifier) + r"(?![\w-])", text) is not None
