"""An answer says one thing. A small model sometimes writes a calculation and then that the
documents do not hold the answer, or restates the question with a citation where the answer
belongs ("The colour of the vector ... is [1]."). Shown as written, the first is a number and a
refusal at once, and the second looks like an answer and is none.

Of the distinct answers the default model gave in the 2026-12-05 evaluations (88 records), 4
wrote a calculation and then refused, and all 4 calculations had failed their check (an input in
no source, a label that is not the question's, a stated result that is not the computed one);
3 restated the question. So:

- a calculation that passed its check answers, and a refusal sentence beside it goes;
- under a refusal, calculations that did not pass go with their lines: the answer is the refusal;
- a calculation over a number that no given source prints (the model made an input up: "4.2 -
  3.8" where no page gives 3.8) leaves the answer's text with its line, with the sentences
  stating its result and with the calculations that build on it; what else the answer says
  stays, and an answer left empty is the refusal. A result computed from an invented input is
  no answer, however it is flagged (issue 38: "no answer shows a calculation over an input
  that is in no source"). The calculation itself stays with the answer, shown as "Not
  computed: … (3.8 is not in source 1)", which says why the answer is a refusal;
- an answer to an open question that only restates it (its words are all the question's, give
  or take a typo, and most of them; citations and stopwords left out) states nothing, and is
  shown as the refusal it is; so is an answer of citations alone ("[1]"). On those 88 records
  the rules change these 7 answers and no other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop_rag.answering import prompts
from desktop_rag.answering.citations import strip_markers
from desktop_rag.answering.claims import Claim
from desktop_rag.domain.computed import CalculationProblem, CheckedCalculation
from desktop_rag.text.spelling import near
from desktop_rag.text.words import STOPWORDS, stem_words, words

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_DENIALS = frozenset({"no", "not", "none", "never", "nor"})  # stopwords that answer
_AUXILIARIES = frozenset({"is", "are", "was", "were", "am", "do", "does", "did", "has", "have",
                          "had", "can", "could", "will", "would", "should", "shall", "may",
                          "might", "must"})  # fmt: skip
_RESTATED = 0.6  # of the question's content words an answer repeats to restate it


def consistent(
    text: str, calculations: Sequence[CheckedCalculation], question: str
) -> tuple[str, tuple[CheckedCalculation, ...]]:
    """The answer's text and calculations made to say one thing (see the module text)."""
    kept = tuple(calculations)
    if prompts.is_not_found(text) and kept:
        if any(c.checked for c in kept):
            return _without_refusals(text) or text, kept
        return "\n".join(_other_lines(text, kept)).strip() or prompts.NOT_FOUND, ()
    if invented := _on_invented_inputs(kept):
        text = _without_results(text, [kept[i] for i in sorted(invented)]) or prompts.NOT_FOUND
    if not kept and not prompts.is_not_found(text) and states_nothing(text, question):
        return prompts.NOT_FOUND, ()
    return text, kept


def _on_invented_inputs(calculations: Sequence[CheckedCalculation]) -> set[int]:
    """The indexes of the calculations with an input no source prints, and of those that use
    such a calculation's result ("(calc. 1)")."""
    out: set[int] = set()
    for i, calc in enumerate(calculations):
        made_up = calc.problem is CalculationProblem.INPUT_NOT_IN_SOURCES
        used = {item.from_calculation - 1 for item in calc.inputs if item.from_calculation}
        if made_up or used & out:
            out.add(i)
    return out


def _without_results(text: str, dropped: Sequence[CheckedCalculation]) -> str:
    """`text` without the dropped calculations' lines and the sentences stating their results."""
    results = frozenset().union(*(Claim(c.stated).numbers for c in dropped if c.stated))
    lines = []
    for line in _other_lines(text, dropped):
        kept = [s for s in _SENTENCE.split(line) if not Claim(strip_markers(s)).numbers & results]
        lines.append(" ".join(kept))
    out = "\n".join(line for line in lines if line.strip()).strip()
    return out if words(strip_markers(out)) else ""


def _other_lines(text: str, calculations: Sequence[CheckedCalculation]) -> list[str]:
    """The lines of `text` that are none of the calculations' lines (as the parser read them)."""
    shown = [c.line for c in calculations if c.line]
    return [line for line in text.splitlines() if not any(s in line for s in shown)]


def _without_refusals(text: str) -> str:
    lines = []
    for line in text.splitlines():
        sentences = [s for s in _SENTENCE.split(line) if not prompts.is_not_found(s)]
        lines.append(" ".join(sentences))
    return "\n".join(line for line in lines if line.strip()).strip()


def states_nothing(text: str, question: str) -> bool:
    """Whether `text` is citations alone, or restates an open question and adds nothing: its
    content words, citations left out, are all the question's (the stem, or the word one typo
    away, text/spelling.near: "labeled" for "labled") and cover most of them. A question
    that can be answered by restating it ("Does the report cover Spain?", "Is it higher or
    lower?") never is, unless the answer is citations alone."""
    said_words = words(strip_markers(text))
    if words(text) and not said_words:
        return True  # citations alone ("[1]"): pointing at a source is no answer
    asked = [w for w in words(question) if w not in STOPWORDS]
    said = [w for w in said_words if w not in STOPWORDS or w in _DENIALS]
    if not said or not asked or _closed(question):
        return False
    asked_stems = stem_words(asked)
    known = [stem in asked_stems or any(near(word, a) for a in asked)
             for word, stem in zip(said, stem_words(said), strict=True)]  # fmt: skip
    covered = len(set(stem_words(said)) & set(asked_stems)) / len(set(asked_stems))
    return all(known) and covered >= _RESTATED


def _closed(question: str) -> bool:
    """A yes/no question (it opens with an auxiliary verb) or a choice ("... or ...")."""
    found = words(question)
    return bool(found) and (found[0] in _AUXILIARIES or "or" in found)
