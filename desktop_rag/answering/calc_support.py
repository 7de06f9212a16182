"""Which answer sentences stay unsupported once the answer's calculations are checked.

The citation checker flags a sentence whose number its source lacks: right for a number the
model made up, wrong for a result the app has just computed from the sources ("Total streaming
revenue was $6,133,774 thousand [1]." after a checked "Calculation: 4,180,339 [1] + 1,953,435 [2]
= 6,133,774": no page prints 6,133,774). So, for the answer's unsupported sentences:

- a "Calculation:" line is no sentence to judge: its inputs are checked number by number;
- a sentence close enough to its sources (support at the checker's threshold) whose only numbers
  missing from every given passage are roundings of a checked result (as computed, in the
  table's unit, in full, in millions or billions, as a percentage; 0 to 4 places) is supported
  by that calculation. A result that was not checked (an input not found, the model's result
  wrong) backs nothing: its sentence stays flagged.
- a sentence that names a ratio the app worked out itself (`named`: "current ratio") and states
  its checked result needs no closeness: it says what was computed, in words of its own ("as
  calculated from the current assets and current liabilities"), which no table row resembles.
- nor does a sentence every content word of which is the question's ("Netflix's total streaming
  revenue in 2015 was $6,133,774."): it restates the question with the checked result, and says
  nothing else a source could lack. Its support against table rows is low (0.10-0.11 for that
  sentence), so it was flagged beside a checked right answer. A word is the question's by its
  stem, one typo away, or as the past of the question's irregular verb ("grew" for "grow"),
  and a label the model puts first ("Result: …") is no claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop_rag.answering.calc_labels import content_words
from desktop_rag.answering.calculator import find_calculations
from desktop_rag.answering.citations import SUPPORT_THRESHOLD, Sentence
from desktop_rag.answering.claims import Claim, normal_number
from desktop_rag.domain import CheckedCalculation, Passage
from desktop_rag.text.numbers import format_number
from desktop_rag.text.spelling import near
from desktop_rag.text.words import present_form, stem_words

_UNITS = (1.0, 1e3, 1e6, 1e9)
_LABEL = re.compile(r"^\s*[A-Za-z]+:\s+")  # "Result: " before a sentence


def unsupported(
    sentences: Sequence[Sentence],
    calculations: Sequence[CheckedCalculation],
    passages: Sequence[Passage],
    threshold: float = SUPPORT_THRESHOLD,
    named: Sequence[str] = (),
    question: str = "",
) -> list[str]:
    """The sentences that no source supports, less calculation lines and the sentences backed by
    a checked calculation (see the module docstring)."""
    flagged = [s for s in sentences if s.supported is False and not find_calculations(s.text)]
    results = _result_numbers(calculations)
    if not results or not flagged:
        return [s.text for s in flagged]
    titles = " ".join(dict.fromkeys(p.chunk.title for p in passages))  # "Costco's EBITDA …"
    sources = Claim("\n".join(p.text for p in passages), subject=titles)
    names = [n.lower() for n in named]
    return [s.text for s in flagged
            if not _backed(s, results, sources, threshold, names, question)]  # fmt: skip


def _backed(
    sentence: Sentence, results: set[str], sources: Claim, threshold: float, named: list[str],
    question: str = "",
) -> bool:
    """Close to its sources (or naming the worked ratio, or in the question's words only), with
    no name they lack, and every number they lack a result."""
    claim = Claim(sentence.text)
    missing = claim.numbers - sources.numbers
    close = sentence.support is not None and sentence.support >= threshold
    close = close or any(name in sentence.text.lower() for name in named)
    close = close or (bool(question) and restates(sentence.text, question))
    known = sources.vocabulary | sources.subject_names
    return close and bool(missing) and missing <= results and claim.names <= known


def restates(sentence: str, question: str) -> bool:
    """Every content word of `sentence` (a leading label aside) is the question's: by its stem,
    one typo away, or as the past of an irregular verb the question uses."""
    asked = content_words(question)
    asked_stems = set(stem_words(asked))
    said = content_words(_LABEL.sub("", sentence, count=1))
    bases = stem_words([present_form(w) for w in said])
    return all(stem in asked_stems or any(near(word, a) for a in asked)
               for word, stem in zip(said, bases, strict=True))  # fmt: skip


def _result_numbers(calculations: Sequence[CheckedCalculation]) -> set[str]:
    """Every rounding a sentence may state of the checked results, as the checker's numbers."""
    numbers: set[str] = set()
    for calc in calculations:
        if not calc.checked or calc.result is None:
            continue
        for value in {calc.result, calc.result * 100, calc.result * calc.scale}:
            numbers |= {_normal(value / unit, places) for unit in _UNITS
                        if unit == 1 or abs(value) >= unit for places in range(5)}  # fmt: skip
    return numbers


def _normal(value: float, places: int) -> str:
    """`value` rounded and written as the citation checker reads a number ("6133774", "21.8")."""
    return normal_number(format_number(abs(value), places))
