"""The calculation decision taken before the model reads: the question's words
(calc_questions.calculation_shape), or a financial ratio it names (ratio_worksheet.asked_ratio),
so that "What was Nike's inventory turnover in fiscal 2021?" asks for the formula as "What is
the FY2021 inventory turnover ratio for Nike?" does. On the 390 rewordings of
bench/data/rephrasings.jsonl (`desktop-rag eval decisions`) the decision stayed the same for
0.908 of them by the words alone (dev 0.921, test 0.882), 0.939 with named ratios (dev 0.945,
test 0.927; the ratio questions 0.838 -> 0.988). Whether the sources state the value asked
(llm/stated_value.py) is decided later, on the passages."""

from __future__ import annotations

from desktop_rag.answering.calc_questions import calculation_shape
from desktop_rag.answering.ratio_worksheet import asked_ratio

RATIO_SHAPE = "a [n] / b [n]"


def decided_shape(question: str) -> str | None:
    """The formula's form to ask for, or None when the question asks for no calculation."""
    return calculation_shape(question) or (RATIO_SHAPE if asked_ratio(question) else None)
