"""The "Calculation:" lines of an answer: inputs found (or not) in the passages they cite, table
units, the model's result against the app's, hostile formulas, rounding, and the prompt."""

from __future__ import annotations

import json

import pytest

from desktop_rag.answering import prompts
from desktop_rag.answering.calculations import check_calculations
from desktop_rag.domain import (
    CalculationProblem,
    CheckedCalculation,
    Chunk,
    DocKind,
    Passage,
)

DOMESTIC = (
    "Domestic Streaming Segment (in thousands)\n"
    "2015 2014 2013\nRevenues $ 4,180,339 $ 3,431,434 $ 2,751,375"
)
INTERNATIONAL = (
    "International Streaming Segment (in thousands)\n"
    "2015 2014 2013\nRevenues $ 1,953,435 $ 1,308,061 $ 712,390"
)
NOTES = "Operating margin was 12.5% in 2015; the segment's loss was (1,577)."
SUM = "4,180,339 [1] + 1,953,435 [2]"
GROWTH = "(4,180,339 [1] - 3,431,434 [1]) / 3,431,434 [1] × 100"


def _passage(n: int, text: str) -> Passage:
    chunk = Chunk(f"c{n}", "d", "/10k.pdf", "10-K", DocKind.PDF, text, n, (20 + n,), (0, len(text)))
    return Passage(n, chunk, text, 0.9)


PASSAGES = [_passage(1, DOMESTIC), _passage(2, INTERNATIONAL), _passage(3, NOTES)]


def _one(line: str, question: str = "") -> CheckedCalculation:
    (calc,) = check_calculations(f"Streaming revenue was $6.1 billion.\n{line}", PASSAGES, question)
    return calc


def test_inputs_found_in_their_cited_passages_are_computed_and_checked() -> None:
    calc = _one(f"Calculation: {SUM} = 6,133,774")
    assert calc.problem is CalculationProblem.OK and calc.checked and calc.agrees is True
    assert calc.result == 6_133_774 and calc.result_text == "6,133,774 thousand"
    assert calc.formula == SUM and calc.expression == "4,180,339 + 1,953,435"
    assert [(i.text, i.value, i.citations, i.found, i.scale) for i in calc.inputs] == [
        ("4,180,339", 4180339.0, (1,), True, 1000.0),
        ("1,953,435", 1953435.0, (2,), True, 1000.0),
    ]
    assert calc.describe() == f"Computed: {SUM} = 6,133,774 thousand (checked)"


def test_an_input_cited_to_the_wrong_source_is_cited_where_it_is() -> None:
    """Issue 38: the model numbered a source wrongly; the right sum was shown as "Not
    computed: … is not in source 2 (it is in source 1)". Now it is computed, cited where the
    number is, and the message says the citation was moved."""
    calc = _one("Calculation: 4,180,339 [2] + 1,953,435 [2] = 6,133,774")
    assert calc.checked and calc.result_text == "6,133,774 thousand" and calc.agrees is True
    assert [i.found_in for i in calc.inputs] == [(1,), (2,)]
    assert calc.formula == "4,180,339 [1]* + 1,953,435 [2]"
    assert calc.message == (
        "every input is in a source; 4,180,339 is in source 1, not source 2 as cited"
    )
    assert calc.describe().startswith("Computed: 4,180,339 [1]* + 1,953,435 [2] = 6,133,774")


def test_a_number_rounded_by_the_model_or_a_missing_passage_is_not_found() -> None:
    rounded = _one("Calculation: 4,180 [1] + 1,953 [2] = 6,133")
    assert rounded.problem is CalculationProblem.INPUT_NOT_IN_SOURCES
    assert rounded.message == "4,180 is not in source 1; 1,953 is not in source 2"
    absent = _one("Calculation: 4,180,339 [9] + 2,000,000 [2] = 6,180,339")
    assert absent.problem is CalculationProblem.INPUT_NOT_IN_SOURCES
    assert absent.message == "2,000,000 is not in source 2"


def test_an_uncited_input_is_looked_for_in_every_passage() -> None:
    calc = _one("Calculation: 4,180,339 + 1,953,435 = 6,133,774")
    assert calc.checked and [i.found_in for i in calc.inputs] == [(1,), (2,)]
    assert calc.formula == "4,180,339 [1]* + 1,953,435 [2]*"
    invented = _one("Calculation: 4,180,339 + 2,000,000 = 6,180,339")
    assert invented.problem is CalculationProblem.INPUT_NOT_IN_SOURCES
    assert invented.message == "2,000,000 is in none of the sources"


def test_the_table_unit_is_allowed_for_inputs_and_the_stated_result() -> None:
    full = _one("Calculation: 4,180,339,000 [1] + 1,953,435,000 [2] = 6,133,774,000")
    assert full.checked and full.result_text == "6,133,774,000"
    assert [i.scale for i in full.inputs] == [1.0, 1.0]  # written in full
    billions = _one(f"Calculation: {SUM} = $6.13 billion")
    assert billions.checked and billions.result_text == "6.13 billion"
    millions = _one(f"Calculation: {SUM} = $6.13 million")  # thousands summed: 6.13 billion
    assert millions.problem is CalculationProblem.STATED_RESULT_WRONG
    assert millions.result_text == "6,133.77 million"


def test_a_wrong_stated_result_keeps_the_text_and_carries_the_right_one() -> None:
    text = f"Total streaming revenue was 6,100,000 [1, 2].\nCalculation: {SUM} = 6,100,000"
    (calc,) = check_calculations(text, PASSAGES)
    assert calc.problem is CalculationProblem.STATED_RESULT_WRONG and calc.agrees is False
    assert calc.result == 6_133_774 and calc.stated == "6,100,000"
    assert calc.message == "the answer says 6,100,000; the sources' numbers give 6,133,774 thousand"
    assert calc.describe() == (
        f"Computed: {SUM}: the answer says 6,100,000; computed 6,133,774 thousand"
    )
    assert calc.line == f"Calculation: {SUM} = 6,100,000"


def test_percent_changes_and_ratios_have_no_table_unit() -> None:
    growth = _one(f"Calculation: {GROWTH} = 21.8%")
    assert growth.checked and growth.result_text == "21.8%"
    assert [i.constant for i in growth.inputs] == [False, False, False, True]  # the 100
    unscaled = _one("Calculation: (4,180,339 [1] - 3,431,434 [1]) / 3,431,434 [1] = 21.8%")
    assert unscaled.checked and unscaled.result_text == "21.8%"
    ratio = _one("Calculation: 4,180,339 [1] / 1,953,435 [2] = 2.14")
    assert ratio.checked and ratio.result_text == "2.14"
    wrong = _one(f"Calculation: {GROWTH} = 25%")
    assert wrong.problem is CalculationProblem.STATED_RESULT_WRONG
    assert wrong.result_text == "21.8%"


def test_the_result_is_rounded_as_the_question_asks() -> None:
    asked = _one(f"Calculation: {GROWTH}", "By what percentage did it grow, to two decimal places?")
    assert asked.result_text == "21.82%" and asked.agrees is None and asked.checked
    average = _one(
        "Calculation: (4,180,339 [1] + 3,431,434 [1] + 2,751,375 [1]) / 3 = 3,454,383",
        "What was the average revenue?",
    )
    assert average.checked and average.result_text == "3,454,383 thousand"
    whole = _one("Calculation: 12.5 [3] × 4 = 50.0", "to the nearest whole number")
    assert whole.checked and whole.result_text == "50"


def test_constants_are_small_whole_numbers_only() -> None:
    ok = _one("Calculation: 12.5 [3] / 100 × 12 = 1.5")
    assert ok.checked and [i.constant for i in ok.inputs] == [False, True, True]
    odd = _one("Calculation: 12.5 [3] × 13 = 162.5")
    assert odd.problem is CalculationProblem.INPUT_NOT_IN_SOURCES
    assert odd.message == "13 is in none of the sources"


def test_a_loss_in_brackets_is_found_without_its_sign() -> None:
    calc = _one("Calculation: 12.5 [3] - 1,577 [3] = -1,564.5")
    assert calc.checked and calc.result == -1564.5 and calc.result_text == "-1,564.5"


@pytest.mark.parametrize(
    "formula",
    [
        "__import__('os').system('rm -rf /')",
        "2 ** 10",
        "open('/etc/passwd').read()",
        "(" * 30 + "1" + ")" * 30,
        "1 / 0",
        "9" * 40,
        "lambda: 1",
        "4,180,339 [1] % 7",
    ],
)
def test_hostile_or_broken_formulas_are_not_computed(formula: str) -> None:
    (calc,) = check_calculations(f"Calculation: {formula} = 1", PASSAGES)
    assert calc.result is None and not calc.checked
    assert calc.problem in (CalculationProblem.NOT_COMPUTABLE,
                            CalculationProblem.INPUT_NOT_IN_SOURCES)  # fmt: skip
    assert calc.message
    json.dumps(calc.to_record())


def test_no_calculation_line_gives_none_and_several_give_each() -> None:
    assert check_calculations("Streaming revenue was $4,180,339 thousand [1].", PASSAGES) == ()
    text = f"**Calculation:** {SUM} = 6,133,774\n- Calculation: {GROWTH} = 21.8%"
    assert [c.result_text for c in check_calculations(text, PASSAGES)] == [
        "6,133,774 thousand", "21.8%"]  # fmt: skip


def test_a_stray_marker_after_the_formula_is_no_input() -> None:
    calc = _one("Calculation: (4,180,339 [1] + 1,953,435 [2]) [13] = 6,133,774")
    assert calc.checked and [i.text for i in calc.inputs] == ["4,180,339", "1,953,435"]


def test_a_formula_in_steps_builds_on_the_results_the_app_computed() -> None:
    text = ("Calculation: 4,180,339 [1] - 3,431,434 [1] = 748,905\n"
            "Calculation: 748,905 [1] / 3,431,434 [1] = 0.218\n"
            "Calculation: 0.218 × 100 = 21.8%")  # fmt: skip
    change, ratio, percent = check_calculations(text, PASSAGES)
    assert change.checked and change.result_text == "748,905 thousand"
    assert ratio.checked and ratio.formula == "748,905 (calc. 1) / 3,431,434 [1]"
    assert [i.from_calculation for i in ratio.inputs] == [1, None]
    assert percent.checked and percent.result_text == "21.8%"
    assert percent.formula == "0.218 (calc. 2) × 100"


def test_a_step_over_a_number_not_found_gives_nothing_to_build_on() -> None:
    text = ("Calculation: 4,180,339 [1] - 3,400,000 [1] = 780,339\n"
            "Calculation: 780,339 / 3,400,000 × 100 = 23%")  # fmt: skip
    first, second = check_calculations(text, PASSAGES)
    assert first.problem is second.problem is CalculationProblem.INPUT_NOT_IN_SOURCES
    none = "is in none of the sources"
    assert second.message == f"780,339 {none}; 3,400,000 {none}"
    stated_wrong = ("Calculation: 4,180,339 [1] + 1,953,435 [2] = 6,100,000\n"
                    "Calculation: 6,100,000 / 2 = 3,050,000")  # fmt: skip
    assert check_calculations(stated_wrong, PASSAGES)[1].message == (
        "6,100,000 is in none of the sources")  # the model's wrong result is no step


def test_the_stated_result_is_read_without_markers_and_last_of_a_chain() -> None:
    marked = _one(f"Calculation: {GROWTH} = 21.8% [1]")
    assert marked.stated == "21.8%" and marked.checked
    chain = _one("Calculation: (4,180,339 [1] + 1,953,435 [2]) / 2 = 6,133,774 / 2 = 3,066,887")
    assert chain.stated == "3,066,887" and chain.checked
    wrong = _one("Calculation: (4,180,339 [1] - 2,751,375 [1]) / 2 = 5,428,964 / 2 = 2,714,482")
    assert wrong.stated == "2,714,482" and wrong.problem is CalculationProblem.STATED_RESULT_WRONG
    assert wrong.result_text == "714,482 thousand"


def test_records_round_trip() -> None:
    for line in (f"Calculation: {SUM} = 6,100,000", "Calculation: 4,180 [1] + 1 = 2",
                 f"Calculation: {GROWTH}"):  # fmt: skip
        calc = _one(line)
        record = json.loads(json.dumps(calc.to_record()))
        assert CheckedCalculation.from_record(record) == calc
        assert record["problem"] == calc.problem.value and record["checked"] is calc.checked


def test_the_calculation_request_goes_in_the_user_message_only() -> None:
    core = [_passage(1, DOMESTIC)]
    plain = prompts.build_messages(core, [_passage(2, INTERNATIONAL)], "What was revenue?")
    asked = prompts.build_messages(core, [_passage(2, INTERNATIONAL)], "Total?", "a [n] + b [n]")
    assert asked[0] == plain[0]  # the cached prefix is the same: the fingerprint need not change
    assert "Calculation:" not in plain[1].content
    request = prompts.CALCULATION_REQUEST.format(shape="a [n] + b [n]")
    assert asked[1].content.endswith(request)
    # the form has no numbers to copy: the default model copied example numbers into answers
    assert "\nCalculation: a [n] + b [n] = result\n" in request
    assert len(request) < 400  # short: the default model is small


def test_amounts_written_in_the_scale_word_are_shown_in_it() -> None:
    """A report's "4.2 million euros" and "3.9 million euros", written as the model writes them
    (with their unit, or without it): the difference is 0.3 million, checked ("0.0 million"
    before: the result was taken for full euros)."""
    report = [_passage(1, "In 2022 revenue was 3.9 million euros. Revenue in 2023 grew to 4.2 "
                          "million euros.")]  # fmt: skip
    for line in ("Calculation: 4.2 million euros [1] - 3.9 million euros [1] = 0.3 million euros",
                 "Calculation: 4.2 [1] - 3.9 [1] = 0.3 million"):  # fmt: skip
        (calc,) = check_calculations(line, report, "By how much did revenue grow in 2023?")
        assert calc.checked and calc.result_text == "0.3 million", line
