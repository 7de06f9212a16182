"""Two rules of the answer step, kept apart from its flow: which formula a question asks for,
and when an answer counts as a refusal."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from desktop_rag.computed import CheckedCalculation
from desktop_rag.domain import Passage
from desktop_rag.llm import prompts
from desktop_rag.llm.calc_decision import decided_shape
from desktop_rag.llm.calculations import check_calculations
from desktop_rag.llm.ratio_worksheet import Worksheet, worksheet

_COMPARE_WORDS = re.compile(r"\bcompar\w*", re.IGNORECASE)


def formula_shape(question: str, query: str, compared: bool) -> str | None:
    """The formula a question asks for. In a comparison "compare" alone asks for none: each
    side's figure, cited, comes first ("how much did it change" still asks for one)."""
    if compared:
        question, query = _COMPARE_WORDS.sub(" ", question), _COMPARE_WORDS.sub(" ", query)
    return decided_shape(question) or decided_shape(query)


def worked_ratio(query: str, passages: Sequence[Passage], enabled: bool) -> Worksheet | None:
    """The financial ratio the query names, worked out from the passages' tables (when on)."""
    return worksheet(query, passages) if enabled else None


def with_worked(
    calculations: tuple[CheckedCalculation, ...],
    worked: Worksheet | None,
    text: str,
    passages: Sequence[Passage],
    question: str,
) -> tuple[CheckedCalculation, ...]:
    """The answer's calculations, and the app's worked one when the answer did not write it
    (a small model sometimes paraphrases the line: "The calculation line is: …"). Checked
    against the sources like the answer's own, it shows the user what was computed and backs
    the sentence stating its result. Not under a refusal: the answer then states nothing."""
    if worked is None or prompts.is_not_found(text):
        return calculations
    if any(c.result is not None and math.isclose(c.result, worked.result) for c in calculations):
        return calculations
    line = f"Calculation: {worked.expression} = {worked.result_text}"
    return (*calculations, *check_calculations(line, passages, question))


def named(worked: Worksheet | None) -> tuple[str, ...]:
    """The worked ratio's name, by which an answer sentence states its result (support rules)."""
    return () if worked is None else (worked.name,)


def answer_refused(text: str, calculations: Sequence[CheckedCalculation]) -> bool:
    """A refusal, unless a checked calculation answers (the model may add that the sources do
    not hold the result itself)."""
    return prompts.is_not_found(text) and not any(c.checked for c in calculations)
