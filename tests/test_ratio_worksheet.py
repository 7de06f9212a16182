"""A named financial ratio worked out by the app: statement lines read from rendered table rows
(the year asked, the year before for an average, the unit), the ratio named by the question,
the worked calculation in the prompt, and the answer's copy of it checked like any other."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_rag.answering import prompts
from desktop_rag.answering.calculations import check_calculations
from desktop_rag.answering.periods import Period
from desktop_rag.answering.ratio_worksheet import asked_ratio, worksheet
from desktop_rag.answering.statement_lines import find_line, matches, table_rows
from desktop_rag.domain import CalculationProblem, Chunk, DocKind, Passage

INCOME = (
    "CONSOLIDATED STATEMENTS OF INCOME (in millions)\n"
    "Revenues — Year Ended May 31, 2021: $ 44,538 | 2020: $ 37,403 | 2019: $ 39,117 (in millions)\n"
    "Cost of sales — Year Ended May 31, 2021: 24,576 | 2020: 21,162 | 2019: 21,643 (in millions)\n"
    "Gross profit — Year Ended May 31, 2021: 19,962 | 2020: 16,241 | 2019: 17,474 (in millions)\n"
    "Interest expense (income), net — Year Ended May 31, 2021: 262 | 2020: 89 (in millions)\n"
    "Income before income taxes — Year Ended May 31, 2021: 6,661 | 2020: 2,887 (in millions)\n"
    "Income tax expense — Year Ended May 31, 2021: 934 | 2020: 348 (in millions)\n"
    "NET INCOME — Year Ended May 31, 2021: $ 5,727 | 2020: $ 2,539 (in millions)"
)
BALANCE = (
    "CONSOLIDATED BALANCE SHEETS (in millions)\n"
    "Current assets: Cash and equivalents — May 31, 2021: $ 9,889 | 2020: $ 8,348 (in millions)\n"
    "Current assets: Short-term investments — May 31, 2021: 3,587 | 2020: 439 (in millions)\n"
    "Current assets: Accounts receivable, net — May 31, 2021: 4,463 | 2020: 2,749 (in millions)\n"
    "Current assets: Inventories — May 31, 2021: 6,854 | 2020: 7,367 (in millions)\n"
    "Total current assets — May 31, 2021: 26,291 | 2020: 20,556 (in millions)\n"
    "Total assets — May 31, 2021: $ 37,740 | 2020: $ 31,342 (in millions)\n"
    "Current liabilities: Accounts payable — May 31, 2021: $ 2,836 | 2020: $ 2,248 (in millions)\n"
    "Total current liabilities — May 31, 2021: 9,674 | 2020: 8,284 (in millions)\n"
    "Total shareholders' equity — May 31, 2021: 12,767 | 2020: 8,055 (in millions)"
)
NOTES = "We believe our inventory levels are appropriate for the coming season."


def _passage(n: int, text: str) -> Passage:
    chunk = Chunk(f"c{n}", "d", "/nike.pdf", "NIKE 10-K", DocKind.PDF, text, n, (60 + n,),
                  (0, len(text)))  # fmt: skip
    return Passage(n, chunk, text, 0.9)


PASSAGES = [_passage(1, NOTES), _passage(2, INCOME), _passage(3, BALANCE)]


def test_rows_are_read_with_their_columns_and_unit() -> None:
    rows = list(table_rows(BALANCE))
    assert len(rows) == 9  # the title line is no row
    assert rows[3].label == "Current assets: Inventories"
    assert rows[3].cells == (("May 31, 2021", "6,854"), ("2020", "7,367"))
    assert rows[3].scale == 1e6


@pytest.mark.parametrize(("line", "label"), [
    ("cost of sales", "Cost of goods sold"), ("revenue", "Total net sales"),
    ("revenue", "Revenues"), ("net income", "Net income attributable to Costco"),
    ("equity", "Total Costco stockholders’ equity"), ("receivables", "Accounts receivable, net"),
    ("cash", "Current assets: Cash and cash equivalents"),
    ("inventories", "Merchandise inventories"),
    ("operating income", "Income from operations"), ("total assets", "Total assets (1)"),
])  # fmt: skip
def test_a_line_goes_by_its_usual_captions(line: str, label: str) -> None:
    assert matches(line, label)


@pytest.mark.parametrize(("line", "label"), [
    ("total assets", "Total current assets"), ("revenue", "Deferred revenue"),
    ("net income", "Net income per share"), ("cash", "Cash paid for interest"),
    ("inventories", "Change in inventories"),
])  # fmt: skip
def test_a_line_is_not_another_line(line: str, label: str) -> None:
    assert not matches(line, label)


def test_the_column_of_the_year_asked_is_read() -> None:
    found = find_line(PASSAGES, "inventories", Period(2020))
    assert found is not None
    assert (found.text, found.value, found.scale, found.passage) == ("7,367", 7367.0, 1e6, 3)
    assert find_line(PASSAGES, "inventories", Period(2018)) is None


@pytest.mark.parametrize(("question", "name"), [
    ("What is the FY2021 inventory turnover ratio for Nike?", "inventory turnover"),
    ("What is  cash_ratio in FY2021 for Nike?", "cash ratio"),
    ("what is roa for NKE in FY2021?", "return on assets"),
    ("What is Nike's working capital in FY2021?", "working capital"),
    ("What is the sales to working capital ratio in FY2021?", "sales to working capital ratio"),
    ("What is the ratio of cash to total assets in 2021?", "cash to total assets ratio"),
])  # fmt: skip
def test_the_question_names_the_ratio(question: str, name: str) -> None:
    ratio = asked_ratio(question)
    assert ratio is not None and ratio.name == name


@pytest.mark.parametrize("question", [
    "What is the signal to noise ratio of the sensor?", "What was Nike's revenue in 2021?",
    "How much did the current ratio change from 2020 to 2021?",
    "What is the total debt to EBITDA ratio in 2021?",
])  # fmt: skip
def test_no_worksheet_without_one_known_ratio_and_one_year(question: str) -> None:
    assert worksheet(question, PASSAGES) is None


def test_inventory_turnover_averages_the_two_balances() -> None:
    sheet = worksheet("What is the FY2021 inventory turnover ratio for Nike? Round your answer "
                      "to two decimal places.", PASSAGES)  # fmt: skip
    assert sheet is not None
    assert sheet.expression == "24,576 [2] ÷ ((6,854 [3] + 7,367 [3]) ÷ 2)"
    assert sheet.result == pytest.approx(24576 / ((6854 + 7367) / 2))
    assert sheet.result_text == "3.46"
    assert sheet.definition == "cost of sales ÷ average inventories"


@pytest.mark.parametrize(("question", "expected"), [
    ("What is current ratio in FY2021 for Nike? Round to two decimal places.", "2.72"),
    ("What is the cash ratio in FY2021?", "1.02"),
    ("What is the quick ratio in FY2021?", "1.85"),
    ("What is Nike's FY2021 effective tax rate?", "14.0%"),
    ("What is the gross margin in fiscal 2020?", "43.4%"),
    ("What is Nike's working capital in FY2021?", "16,617 million"),
    ("What is return on average equity in FY2021? Round to three decimal places.", "0.550"),
    ("What is the cash conversion cycle in FY2021?", "97.4 days"),
])  # fmt: skip
def test_ratios_from_their_textbook_definitions(question: str, expected: str) -> None:
    sheet = worksheet(question, PASSAGES)
    assert sheet is not None and sheet.result_text == expected


def test_no_worksheet_when_a_line_is_missing() -> None:
    assert worksheet("What is the inventory turnover in 2021?", PASSAGES[:2]) is None  # no balance
    assert worksheet("What is the 2019 inventory turnover?", PASSAGES) is None  # no 2018 balance


def test_mixed_units_are_written_in_full() -> None:
    thousands = _passage(4, "Total current liabilities — 2021: 9,674,000 (in thousands)")
    sheet = worksheet("What is the current ratio in 2021?", [_passage(3, BALANCE.split(
        "Total current liabilities")[0]), thousands])  # fmt: skip
    assert sheet is not None
    assert sheet.expression == "26,291,000,000 [3] ÷ 9,674,000,000 [4]"
    assert sheet.result_text == "2.72"


def test_the_prompt_gives_the_worked_calculation_and_its_figures() -> None:
    question = "What is the FY2021 inventory turnover ratio for Nike?"
    sheet = worksheet(question, PASSAGES)
    message = prompts.user_message(PASSAGES, question, False, "part [n] / total [n]", "", sheet)
    assert "Calculation: 24,576 [2] ÷ ((6,854 [3] + 7,367 [3]) ÷ 2) = 3.46" in message
    assert "- Current assets: Inventories, 2020: 7,367 (in millions) [3]" in message
    assert "part [n] / total [n]" not in message  # the worked line replaces the bare form


def test_the_copied_line_is_checked_against_its_sources() -> None:
    sheet = worksheet("What is the cash conversion cycle in FY2021?", PASSAGES)
    assert sheet is not None
    answer = f"Calculation: {sheet.expression} = {sheet.result_text}\nIt was 97.4 days [2, 3]."
    (calc,) = check_calculations(answer, PASSAGES, "What is the cash conversion cycle in FY2021?")
    assert calc.problem is CalculationProblem.OK  # 365 is a constant; every input in its source
    assert calc.result == pytest.approx(sheet.result)


CASH_FLOWS = (
    "CONSOLIDATED STATEMENTS OF CASH FLOWS (in millions)\n"
    "Net income — 2021: 5,727 | 2020: 2,539 (in millions)\n"
    "Accounts payable — 2021: 24 | 2020: (335) (in millions)\n"
    "Purchases of property and equipment — 2021: (695) | 2020: (1,086) (in millions)"
)


def test_a_balance_is_read_from_the_balance_sheet_not_the_cash_flows() -> None:
    passages = [_passage(1, CASH_FLOWS), *PASSAGES[1:]]
    payables = find_line(passages, "payables", Period(2021))
    assert payables is not None and (payables.text, payables.passage) == ("2,836", 3)
    assert find_line(passages[:1], "payables", Period(2021), own_only=True) is None


def test_an_expense_printed_in_brackets_counts_as_its_amount() -> None:
    capex = find_line([_passage(1, CASH_FLOWS)], "capital expenditures", Period(2021))
    assert capex is not None and (capex.text, capex.value) == ("695", 695.0)


def test_a_retailers_52_week_year_is_its_fiscal_year() -> None:
    text = "Total net sales — 52 Weeks Ended August 29, 2021: 192,052 (in millions)"
    found = find_line([_passage(1, text)], "revenue", Period(2021))
    assert found is not None and found.value == 192052.0


class Chunks:
    """A document's chunks, as the catalog gives them; counts the reads."""

    def __init__(self, *texts: str) -> None:
        self.chunks = [_passage(10 + i, t).chunk for i, t in enumerate(texts)]
        self.reads = 0

    def __call__(self, doc_id: str) -> list[Chunk]:
        self.reads += 1
        return self.chunks


def test_missing_lines_are_fetched_from_the_documents_statements() -> None:
    from desktop_rag.answering.ratio_lines import RatioLines

    half = BALANCE.split("Total current assets")[0]  # retrieval brought the top of the sheet
    chunks = Chunks(NOTES, CASH_FLOWS, BALANCE, INCOME)
    question = "What is the FY2021 current ratio?"
    passages = RatioLines(chunks).completed(question, [], [_passage(1, NOTES), _passage(2, half)])
    assert [p.n for p in passages] == [1, 2, 3]
    assert passages[2].text == BALANCE  # the chunk with the totals, numbered after the others
    assert passages[2].added_for and not passages[1].added_for  # the sources list says why
    sheet = worksheet(question, passages)
    assert sheet is not None and sheet.expression == "26,291 [3] ÷ 9,674 [3]"


def test_nothing_is_fetched_when_the_passages_hold_the_lines_or_no_ratio_is_asked() -> None:
    from desktop_rag.answering.ratio_lines import RatioLines

    chunks = Chunks(BALANCE)
    lines = RatioLines(chunks)
    assert lines.completed("What is the FY2021 current ratio?", [], PASSAGES) == PASSAGES
    assert lines.completed("What was revenue in 2021?", [], PASSAGES[:1]) == PASSAGES[:1]
    assert chunks.reads == 0


def with_worked(
    calculations: tuple[Any, ...], sheet: Any, text: str, passages: Any, question: str
) -> tuple[Any, ...]:
    """The pipeline's worked calculations for an answer whose own lines are `calculations`."""
    from desktop_rag.answering.draft import NO_CORE, Draft
    from desktop_rag.answering.pipeline import worked_calculations
    from desktop_rag.domain import SearchResult

    draft = Draft(question, question, "chat", NO_CORE, tuple(passages),
                  SearchResult(question, "hybrid", "none", False, ()), worked=sheet, text=text)
    draft._checked[text] = calculations  # the answer's own lines, as given
    return worked_calculations(draft)


def test_the_worked_calculation_is_kept_when_the_answer_paraphrases_it() -> None:
    question = "What is the current ratio in FY2021?"
    sheet = worksheet(question, PASSAGES)
    said = "The calculation is 26,291 [3] divided by 9,674 [3], which is 2.72 [3]."
    (calc,) = with_worked((), sheet, said, PASSAGES, question)
    assert calc.checked and calc.result_text == "2.72"
    copied = check_calculations(f"Calculation: 26,291 [3] ÷ 9,674 [3] = 2.72\n{said}", PASSAGES)
    assert with_worked(copied, sheet, said, PASSAGES, question) == copied  # not twice
    assert with_worked((), sheet, prompts.NOT_FOUND, PASSAGES, question) == ()


def test_a_sentence_stating_the_worked_ratio_in_its_own_words_is_backed() -> None:
    from desktop_rag.answering.answer_rules import named
    from desktop_rag.answering.calc_support import unsupported
    from desktop_rag.answering.citations import Sentence

    question = "What is the current ratio in FY2021?"
    sheet = worksheet(question, PASSAGES)
    text = "NIKE's current ratio in FY2021 is 2.72, as calculated from the current assets figures."
    said = Sentence(text, (3,), {3: 0.3}, supported=False)  # far from any table row
    calcs = with_worked((), sheet, text, PASSAGES, question)
    assert unsupported([said], calcs, PASSAGES, named=named(sheet)) == []
    assert unsupported([said], calcs, PASSAGES) == [text]  # not backed without the name rule
    other = Sentence("The quick ratio in FY2021 is 2.72.", (3,), {3: 0.3}, supported=False)
    assert unsupported([other], calcs, PASSAGES, named=named(sheet)) == [other.text]
