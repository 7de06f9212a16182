"""Lines that put another value where other lines state the condition (routes/slots.py): no
items, decided without the model; lines phrased otherwise are left to the judge."""

from __future__ import annotations

from desktop_rag.routes.slots import another_value
from desktop_rag.routes.target import parse

STATED = [
    "Invoice INV-20028 from Acme Ltd: 5233.00 EUR, due 2024-03-10, paid 2024-04-10 (late).",
    "Invoice INV-20014 from Brook Co: 1426.00 EUR, due 2024-08-26, paid 2024-09-28 (late).",
]
OTHERS = [
    "Invoice INV-20029 from Acme Ltd: 1233.00 EUR, due 2024-03-10, paid 2024-03-01 (on time).",
    "Invoice INV-20030 from Brook Co: 820.00 EUR, due 2024-05-02, paid 2024-04-28 (on time).",
    "Invoice INV-20031 from Acme Ltd: 99.00 EUR, due 2024-06-12, paid after the second reminder.",
    "Invoice INV-20033 from Cole Ltd: 40.00 EUR, due 2024-06-12, paid 2024-06-01 (on time).",
]


def test_another_value_in_the_conditions_place_is_told_from_other_wording() -> None:
    condition = parse("How many invoices were paid late?").condition
    assert another_value(STATED, OTHERS, condition) == [True, True, False, True]


def test_a_loan_returned_early_is_another_value_and_overdue_is_other_wording() -> None:
    condition = parse("How many loans were returned late?").condition
    stated = ["Loan L-323: 'Kindred' borrowed 20 Aug 2025, returned 3 weeks late."]
    lines = [
        "Loan L-324: 'The Hobbit' borrowed 20 Aug 2025, returned early.",
        "Loan L-328: 'Emma' borrowed 02 Feb 2025, renewed once, returned on time.",
        "Loan L-309: 'Dune' borrowed 15 Jun 2025, overdue when it came back.",
        "Loan L-313: 'Emma' borrowed 20 Jul 2025, brought back after the due date.",
    ]
    assert another_value(stated, lines, condition) == [True, True, False, False]
    assert another_value([], lines, condition) == [False] * 4  # nothing stated: nothing known


def test_a_sheet_row_of_another_category_is_another_value() -> None:
    condition = parse("List every item in the food category.").condition
    stated = ["A4:D4 — Item: bread | Category: food | Amount: 12.50"]
    lines = ["A5:D5 — Item: taxi fare | Category: travel | Amount: 30.00",
             "A6:D6 — Item: printer paper | Category: office | Amount: 8.00"]  # fmt: skip
    assert another_value(stated, lines, condition) == [True, True]


def test_sentences_sharing_a_few_words_are_no_template() -> None:
    condition = parse("How many datasets are used for experiments of this paper?").condition
    stated = ["We run experiments on nine widely-used datasets"]
    assert another_value(stated, ["Table 6: Statistics of nine datasets used."], condition) == [
        False
    ]
