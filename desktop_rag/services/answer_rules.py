"""Two rules of the answer step, kept apart from its flow: which formula a question asks for,
and when an answer counts as a refusal."""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop_rag.computed import CheckedCalculation
from desktop_rag.domain import Passage
from desktop_rag.llm import prompts
from desktop_rag.llm.calc_questions import calculation_shape
from desktop_rag.llm.ratio_worksheet import Worksheet, worksheet

_COMPARE_WORDS = re.compile(r"\bcompar\w*", re.IGNORECASE)


def formula_shape(question: str, query: str, compared: bool) -> str | None:
    """The formula a question asks for. In a comparison "compare" alone asks for none: each
    side's figure, cited, comes first ("how much did it change" still asks for one)."""
    if compared:
        question, query = _COMPARE_WORDS.sub(" ", question), _COMPARE_WORDS.sub(" ", query)
    return calculation_shape(question) or calculation_shape(query)


def worked_ratio(query: str, passages: Sequence[Passage], enabled: bool) -> Worksheet | None:
    """The financial ratio the query names, worked out from the passages' tables (when on)."""
    return worksheet(query, passages) if enabled else None


def answer_refused(text: str, calculations: Sequence[CheckedCalculation]) -> bool:
    """A refusal, unless a checked calculation answers (the model may add that the sources do
    not hold the result itself)."""
    return prompts.is_not_found(text) and not any(c.checked for c in calculations)
