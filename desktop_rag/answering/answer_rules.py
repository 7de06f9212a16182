"""Rules of the answer step, kept apart from its flow: which formula a question asks for, by
which name a worked ratio is stated, and when an answer counts as a refusal (the one place that
decides it)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop_rag.answering import prompts
from desktop_rag.answering.calc_decision import decided_shape
from desktop_rag.answering.ratio_worksheet import Worksheet
from desktop_rag.domain.computed import CheckedCalculation

_COMPARE_WORDS = re.compile(r"\bcompar\w*", re.IGNORECASE)


def formula_shape(question: str, query: str, compared: bool) -> str | None:
    """The formula a question asks for. In a comparison "compare" alone asks for none: each
    side's figure, cited, comes first ("how much did it change" still asks for one)."""
    if compared:
        question, query = _COMPARE_WORDS.sub(" ", question), _COMPARE_WORDS.sub(" ", query)
    return decided_shape(question) or decided_shape(query)


def named(worked: Worksheet | None) -> tuple[str, ...]:
    """The worked ratio's name, by which an answer sentence states its result (support rules)."""
    return () if worked is None else (worked.name,)


def answer_refused(text: str, calculations: Sequence[CheckedCalculation]) -> bool:
    """A refusal, unless a checked calculation answers (the model may add that the sources do
    not hold the result itself)."""
    return prompts.is_not_found(text) and not any(c.checked for c in calculations)
