"""A second look before refusing: when the model says the sources do not contain the answer, it
is shown only the few lines of those sources that best match the question, and asked to quote
the one that answers it.

Why: on MMLongBench the default 1.5B model refused a third of the answerable questions whose
evidence page it had been given. A small model reading 1,500 tokens of passages often misses a
line it finds at once among eight. The quote keeps the second look honest: the answer counts
only when its quote is a line it was shown, and every number it states is in that line; else
the refusal stands. A refusal is final only after both looks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from desktop_rag.domain import Passage
from desktop_rag.llm.alignment import Unit, units
from desktop_rag.llm.claims import Claim, stem
from desktop_rag.llm.prompts import neutralise
from desktop_rag.llm.windows import question_term_weights
from desktop_rag.protocols import ChatMessage, Embedder

MAX_LINES = 8
MAX_LINE_WORDS = 90
SHORTLIST = 32  # lines whose embeddings are compared with the question (best by words first)
QUOTE_RECALL = 0.8  # share of the quote's words that must be in the line it names
NOVEL_IN_LINE = 0.6  # share of the answer's words beyond the question's found in its line
_FRAMING_WORDS = "according source sources line lines states stated mentions mentioned says shows"
_FRAMING = frozenset(stem(w) for w in _FRAMING_WORDS.split(" "))

INSTRUCTIONS = (
    "You find the line that answers a question. Each line starts with its source number, "
    "like [3]. If one of the lines answers the question, copy the words of that line that "
    'answer it after "Quote:", then give a short answer that uses only that line, with its '
    'source number, after "Answer:". If no line answers the question, reply exactly: NONE'
)
_ECHOES = re.compile(r"\s*[(,-]?\s*(copied exactly|exactly as written)\)?\s*$", re.IGNORECASE)

_QUOTE = re.compile(r"^\s*\**quote\**\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_ANSWER = re.compile(r"^\s*\**answer\**\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_MARKER = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")
_LABEL = re.compile(r"^\s*\[(\d+)\]\s*")


@dataclass(frozen=True, slots=True)
class Line:
    """One sentence (or two adjacent ones) of a given passage, shown under its passage number."""

    unit: Unit
    score: float

    @property
    def n(self) -> int:
        return self.unit.passage

    @property
    def text(self) -> str:
        return " ".join(self.unit.text.split())


@dataclass(frozen=True, slots=True)
class Reading:
    """What the second look's reply amounts to: the answer (None: the refusal stands), the
    line it quoted and, when it failed, a code saying why."""

    answer: str | None
    quote: str = ""
    line: Line | None = None
    outcome: str = "answered"  # or why not: refused_again, quote_not_shown, number_not_in_line, ...


def best_lines(question: str, passages: Sequence[Passage], embedder: Embedder | None) -> list[Line]:
    """The lines of `passages` that match the question best, in reading order."""
    pool = [u for u in units(passages) if len(u.text.split()) <= MAX_LINE_WORDS]
    if not pool:
        return []
    lexical = _lexical_scores(question, pool)
    shortlist = sorted(range(len(pool)), key=lambda i: -lexical[i])[:SHORTLIST]
    dense = _dense_scores(question, [pool[i] for i in shortlist], embedder)
    scored = [
        Line(pool[i], 0.5 * lexical[i] + 0.5 * d) for i, d in zip(shortlist, dense, strict=True)
    ]
    return _in_reading_order(_without_overlaps(sorted(scored, key=lambda x: -x.score)))


def _lexical_scores(question: str, pool: Sequence[Unit]) -> list[float]:
    """The share of the question's content words (and numbers) a line has, rare words weighing
    more (their inverse frequency among the lines)."""
    weight = question_term_weights(question, [u.text for u in pool])
    total = sum(weight.values())
    if not total:
        return [0.0] * len(pool)
    vocab = [Claim(u.text).vocabulary for u in pool]
    return [sum(w for t, w in weight.items() if t in v) / total for v in vocab]


def _dense_scores(question: str, pool: Sequence[Unit], embedder: Embedder | None) -> list[float]:
    if embedder is None or not pool:
        return [0.0] * len(pool)
    q = np.asarray(embedder.embed_query(question))
    docs = np.asarray(embedder.embed_documents([u.text for u in pool]))
    return [max(float(s), 0.0) for s in docs @ q]


def _without_overlaps(ranked: Sequence[Line]) -> list[Line]:
    """The best lines, none overlapping one already taken, at most MAX_LINES."""
    taken: list[Line] = []
    for line in ranked:
        if not any(_overlap(line.unit, t.unit) for t in taken):
            taken.append(line)
        if len(taken) == MAX_LINES:
            break
    return taken


def _overlap(a: Unit, b: Unit) -> bool:
    return a.chunk.chunk_id == b.chunk.chunk_id and a.start < b.end and b.start < a.end


def _in_reading_order(lines: Sequence[Line]) -> list[Line]:
    return sorted(lines, key=lambda x: (x.n, x.unit.chunk.ordinal, x.unit.start))


def messages(question: str, lines: Sequence[Line]) -> list[ChatMessage]:
    """The short prompt of the second look: the lines under their passage numbers, the question."""
    shown = "\n".join(f"[{line.n}] {neutralise(line.text)}" for line in lines)
    user = f"Lines:\n{shown}\n\nQuestion: {question.strip()}"
    return [ChatMessage("system", INSTRUCTIONS), ChatMessage("user", user)]


def read_reply(reply: str, lines: Sequence[Line], question: str) -> Reading:
    """The reply's answer when its quote is one of the lines shown and the line has every number
    the answer states; else why the refusal stands."""
    quote_m, answer_m = _QUOTE.search(reply), _ANSWER.search(reply)
    if answer_m is None or quote_m is None:
        return Reading(None, outcome="refused_again" if "NONE" in reply else "no_answer")
    quote, answer = _clean(quote_m.group(1)), answer_m.group(1).strip()
    if _is_refusal(answer):
        return Reading(None, quote, outcome="refused_again")
    line = _quoted_line(quote, lines)
    if line is None:
        return Reading(None, quote, outcome="quote_not_shown")
    stated = Claim(_MARKER.sub("", answer))
    if stated.numbers - Claim(line.text).numbers - Claim(question).numbers:
        return Reading(None, quote, line, "number_not_in_line")
    if _novel_share(stated, question, line) < NOVEL_IN_LINE:
        return Reading(None, quote, line, "words_not_in_line")
    return Reading(_with_marker(answer, line.n), quote, line)


def _novel_share(stated: Claim, question: str, line: Line) -> float:
    """The share of the answer's own words (those the question does not have) that its line has:
    an answer that brings words from nowhere is not read from the line."""
    novel = stated.content - Claim(question).vocabulary - _FRAMING
    if not novel:
        return 1.0
    return len(novel & Claim(line.text).vocabulary) / len(novel)


def _clean(quote: str) -> str:
    """The quote without quotation marks, its line's label or an echo of the instructions."""
    return _LABEL.sub("", _ECHOES.sub("", quote.strip()).strip('"“”').strip())


def _is_refusal(answer: str) -> bool:
    flat = answer.strip().strip(".").upper()
    return flat in {"NONE", "N/A", ""} or "DO NOT CONTAIN" in flat or "NOT MENTION" in flat


def _quoted_line(quote: str, lines: Sequence[Line]) -> Line | None:
    """The shown line that holds (nearly all of) the quote's words, the best one first."""
    asked = Claim(quote)
    if not asked.tokens:
        return None
    found = [(asked.recall_in(Claim(line.text)), line) for line in lines]
    recall, line = max(found, key=lambda item: item[0], default=(0.0, None))
    number_ok = line is not None and not asked.numbers - Claim(line.text).numbers
    return line if recall >= QUOTE_RECALL and number_ok else None


def _with_marker(answer: str, n: int) -> str:
    """The answer cites its line's passage: a missing or wrong marker is set to it."""
    bare = " ".join(_MARKER.sub("", answer).split())
    body, stop = (bare[:-1].rstrip(), bare[-1]) if bare.endswith((".", "!", "?")) else (bare, ".")
    return f"{body} [{n}]{stop}"
