"""Financial ratios named in a question bring the statement lines they are computed from into
the keyword search; other questions are left alone."""

from __future__ import annotations

import pytest
from retrieval_fakes import make_chunks
from test_retrieval_hybrid import build

from desktop_rag.retrieval.ratio_terms import ratio_terms


@pytest.mark.parametrize(
    ("question", "needed"),
    [
        ("What is the FY2021 inventory turnover ratio for Nike?", {"inventories", "cost"}),
        ("What is current ratio in FY2021 for Nike?", {"current", "liabilities", "assets"}),
        ("what is roa for ADBE in FY2015?", {"net", "income", "assets"}),
        ("What is Amazon's FY2017 days payable outstanding (DPO)?", {"payable", "sales"}),
        ("what is Interest Coverage Ratio for Activision in F2019?", {"interest", "expense"}),
        ("What is sales to working capital ratio of Netflix?", {"balance", "sheets"}),
        ("What is the effective tax rate?", {"provision", "taxes"}),
        ("What is  cash_ratio in FY2021?", {"cash", "equivalents", "current"}),
        ("What is payables  turnover in FY2021?", {"accounts", "payable"}),
    ],
)
def test_a_named_ratio_brings_its_lines_and_statements(question: str, needed: set[str]) -> None:
    words = ratio_terms(question).split()
    assert needed <= set(words) and len(words) == len(set(words))


@pytest.mark.parametrize(
    "question",
    [
        "What is the signal to noise ratio of the amplifier?",
        "How do I descale the coffee machine?",
        "What is the operating temperature of the pump?",
        "How many steps are needed to customize the Down Button?",
    ],
)
def test_other_questions_get_no_extra_words(question: str) -> None:
    assert ratio_terms(question) == ""


STATEMENTS = [
    "Inventory turnover improved as the company focused on its supply chain.",
    "Consolidated balance sheets: inventories 6,854; total current assets 26,291; "
    "accounts receivable 4,463.",
    "Consolidated statements of income: revenues 44,538; cost of sales 24,576; net income 5,727.",
    "The company sponsors athletes and teams around the world.",
]


def test_the_statements_are_found_for_a_ratio_question_only_with_the_terms() -> None:
    chunks = make_chunks("nike", STATEMENTS)
    question = "What is the FY2021 inventory turnover ratio?"
    plain = build(chunks, ratio_terms=False).retrieve(question, k=3, mode="bm25")
    assert not {1, 2} & {c.chunk.ordinal for c in plain.candidates}  # no word of the question
    found = build(chunks).retrieve(question, k=3, mode="bm25")
    assert {c.chunk.ordinal for c in found.candidates[:2]} == {1, 2}
    assert "inventories" in found.added_terms.split() and plain.added_terms == ""
    hybrid = build(chunks).retrieve(question, k=3)
    assert {1, 2} <= {c.chunk.ordinal for c in hybrid.candidates}
    assert build(chunks).lexical_query("Who sponsors athletes?") == "Who sponsors athletes?"
