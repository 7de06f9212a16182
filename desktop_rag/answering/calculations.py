"""The "Calculation:" lines of an answer, checked against the sources and computed by the app.

A small model copies numbers well and does arithmetic badly, so the answer prompt asks it to write
the formula over the numbers it cites (prompts.CALCULATION_REQUEST) and the app computes it with the
whitelist evaluator (calculator.evaluate, no `eval`). A formula is only as good as its inputs, so:

- An input must appear in a passage given to the model. One with citations is looked for in the
  passages it cites first; when they lack it but another given passage prints it, the model
  numbered the source wrongly: the input is accepted and cited where it is ("[1]*"), and the
  message says so. One without citations: small models often drop a marker, and a number
  printed in the sources is citable; the passages that print it are recorded (`found_in`,
  shown as "[2]*").
- An input found must also say what the question asks (llm/calc_labels.py: its row or sentence
  shares the question's words, its year column is a year asked): else the result is computed
  and shown with the warning label_mismatch.
- Numbers are compared as values, not text ("4,180,339" is "4180339"; "4.180" is "4.18"), without
  their sign (a loss printed "(1,577)" is subtracted as 1,577), as printed or multiplied by the
  passage's unit (numbers.unit_scale: 4,180,339,000 matches a table "in thousands" printing
  4,180,339). Nothing looser: a number rounded by the model ("4,180") is not in the source.
- Constants need no source: the whole numbers 1 to 12 (an average's count, months, quarters),
  100 (a percentage), 365 (the days of a year: days sales outstanding), 1,000 and 1,000,000
  (a change of unit). Any other uncited number must be found like an input.
- A number in no source may be the result of an earlier calculation line of the same answer
  that the app computed (agreeing to its printed digits: "0.780" for 0.78036): small models
  write a percent change in steps. A step whose input was not found gives nothing to build on.
- An input not found means no result: the formula is shown, not computed (input_not_in_sources).
  A formula the calculator refuses is not_computable. A computed result that the model's own
  "= ..." contradicts (numbers.agrees) is stated_result_wrong: the answer's text stays as the
  model wrote it and the app's result is shown beside it as the right one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

from desktop_rag.answering.calc_labels import labels_checked
from desktop_rag.answering.calc_questions import asks_percent, requested_decimals
from desktop_rag.answering.calculator import Calculation, CalculationError, CitedInput, evaluate
from desktop_rag.answering.calculator import find_calculations as find_calculation_lines
from desktop_rag.domain import CalculationProblem, CheckedCalculation, CheckedInput, Passage
from desktop_rag.text.numbers import (
    NUMBER_PATTERN,
    SCALE_WORDS,
    agrees,
    format_number,
    format_percent,
    unit_scale,
)

CONSTANTS = frozenset(Decimal(n) for n in (*range(1, 13), 100, 365, 1000, 1_000_000))
_NUMBER = re.compile(NUMBER_PATTERN)
_SCALE_NAMES = {1e3: "thousand", 1e6: "million", 1e9: "billion", 1e12: "trillion"}
_STATED = re.compile(
    rf"(?P<number>{NUMBER_PATTERN})\s*(?P<tail>%|per ?cent\b|"
    rf"(?:{'|'.join(sorted(SCALE_WORDS, key=len, reverse=True))})\b)?",
    re.IGNORECASE,
)
_DIVIDES = re.compile(r"[/÷]")
_FACTOR_OPS = frozenset("×*/÷")
_CURRENCY = re.compile(rf"[$€£]\s*(?P<number>{NUMBER_PATTERN})")
_FORMULA = re.compile(r"[0-9)]\s*[-+×÷*/−–]\s*[$€£(]?\s*[0-9.(]")  # "5,428,964 / 2"
_LAST_RESULT = re.compile(r"[=≈]")
_MARKERS = re.compile(r"\s*\[[0-9,;\s\-–]+\]")
_TIMES_100 = re.compile(r"[×*]\s*100(?![0-9.,])|(?<![0-9.,])100\s*[×*]")
Sources = dict[int, tuple[frozenset[Decimal], Decimal]]  # passage n -> its numbers, its unit


def check_calculations(
    text: str, passages: Sequence[Passage], question: str = ""
) -> tuple[CheckedCalculation, ...]:
    """Every "Calculation:" line of the answer `text`, checked against the `passages` the model
    was given and computed; `question` says how to round ("to two decimal places", "%")."""
    sources = {p.n: _numbers_in(p.text) for p in passages}
    checked: list[CheckedCalculation] = []
    for calc in find_calculation_lines(text):
        checked.append(labels_checked(_check(calc, sources, question, checked), passages,
                                      question))  # fmt: skip
    return tuple(checked)


def _numbers_in(text: str) -> tuple[frozenset[Decimal], Decimal]:
    """The values of the numbers a passage prints (unsigned), and its unit ("in thousands")."""
    values = frozenset(Decimal(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text))
    return values, Decimal(unit_scale(text))


def _check(
    calc: Calculation, sources: Sources, question: str, earlier: Sequence[CheckedCalculation]
) -> CheckedCalculation:
    calc = _final_result(calc)
    amounts = _amounts(calc.line)
    inputs = tuple(_check_input(i, sources, earlier, factor or _counted(i.number, amounts))
                   for i, factor in zip(_aligned(calc), _factors(calc.expression), strict=True))
    formula = _formula(calc.expression, inputs)

    def not_computed(problem: CalculationProblem, message: str) -> CheckedCalculation:
        return CheckedCalculation(calc.expression, formula, inputs, None, "", calc.stated, None,
                                  problem, message, calc.line)  # fmt: skip

    if missing := [i for i in inputs if not i.found]:
        return not_computed(CalculationProblem.INPUT_NOT_IN_SOURCES, _missing(missing, sources))
    try:
        result = evaluate(calc.expression)
    except CalculationError as error:
        return not_computed(CalculationProblem.NOT_COMPUTABLE, error.message)
    scale = _amount_scale(calc.expression, inputs, result)
    agreed, text = _result(result, calc, scale, question)
    if agreed is False:
        problem, message = CalculationProblem.STATED_RESULT_WRONG, (
            f"the answer says {calc.stated}; the sources' numbers give {text}")
    else:
        problem, message = CalculationProblem.OK, _recited(calc, inputs)
    return CheckedCalculation(calc.expression, formula, inputs, result, text, calc.stated, agreed,
                              problem, message, calc.line, float(scale))  # fmt: skip


def _recited(calc: Calculation, inputs: Sequence[CheckedInput]) -> str:
    """"every input is in its source", or which inputs were cited to a source that lacks them
    and are cited where they are instead."""
    moved = [f"{i.text} is in {_sources(i.found_in)}, not {_sources(c.citations)} as cited"
             for c, i in zip(_aligned(calc), inputs, strict=True)
             if c.citations and not i.citations and i.found_in]  # fmt: skip
    if not moved:
        return "every input is in its source"
    return "every input is in a source; " + "; ".join(dict.fromkeys(moved))


def _final_result(calc: Calculation) -> Calculation:
    """The line with its stated result as the model means it: without citation markers ("= 21.8%
    [1]"), and the last of a chain ("= 5,428,964 / 2 = 2,714,482" states 2,714,482)."""
    if calc.stated is None:
        return calc
    stated = calc.stated
    if _FORMULA.search(stated):
        stated = _LAST_RESULT.split(calc.line)[-1].strip(" \t`*.") or stated
    return replace(calc, stated=_MARKERS.sub("", stated).strip() or None)


def _aligned(calc: Calculation) -> list[CitedInput]:
    """One input per number of the expression, in order, with the citations written after it.
    (A stray marker such as the "[3]" of "(a [1] - b [2]) [3]" reads as a number "3" to
    find_calculations; it is not in the expression, so it is no input.)"""
    found = list(calc.inputs)
    aligned = []
    for match in _NUMBER.finditer(calc.expression):
        while found and found[0].number != match.group(0):
            found.pop(0)
        aligned.append(found.pop(0) if found else CitedInput(match.group(0), ()))
    return aligned


def _factors(expression: str) -> list[bool]:
    """For each number of the expression, whether it multiplies or divides what stands beside
    it (the 2 of "(a + b) / 2", the 100 of "× 100"): where a constant may stand. A number
    added or subtracted and written as an amount (`_amounts`) is one a source must print:
    "6.0 billion - 5.0 billion" with 5.0 in no source is no calculation of constants."""
    out = []
    for m in _NUMBER.finditer(expression):
        before, after = expression[: m.start()].rstrip(" $€£"), expression[m.end() :].lstrip()
        out.append(before[-1:] in _FACTOR_OPS or after[:1] in _FACTOR_OPS)
    return out


def _amounts(line: str) -> frozenset[str]:
    """The numbers a calculation line writes with a currency sign, a scale word or a percent
    sign ("$5", "5 billion", "3%"): amounts, as one with a decimal point is ("6.0")."""
    scaled = {m.group("number") for m in _STATED.finditer(line) if m.group("tail")}
    return frozenset(scaled | {m.group("number") for m in _CURRENCY.finditer(line)})


def _counted(number: str, amounts: frozenset[str]) -> bool:
    """A whole number written bare ("2 + 3 = 5"): items the model counted (two figures on one
    page, three on another), which a source may name in words or not at all."""
    return number not in amounts and "." not in number


def _check_input(
    cited: CitedInput, sources: Sources, earlier: Sequence[CheckedCalculation], factor: bool
) -> CheckedInput:
    """Where the number is printed: in the passages it cites, or (uncited) in any passage; else
    which earlier calculation gave it. A constant (12 months, × 100) needs no source where it
    multiplies or divides (`factor`; the caller also passes bare whole numbers, which may be
    items the model counted), and 1 anywhere ("(a / b - 1) × 100")."""
    value = Decimal(cited.number.replace(",", ""))
    constant = value in CONSTANTS and (factor or value == 1)
    wanted = list(dict.fromkeys(cited.citations)) if cited.citations else list(sources)
    if constant and not cited.citations:
        wanted = []  # the 100 of a percentage is not looked up (it is in every report)
    found = [(n, unit) for n in wanted if n in sources and (unit := _unit(value, sources[n]))]
    if cited.citations and not found and not constant:  # a wrong source number: cited where it is
        found = [(n, unit) for n in sources if (unit := _unit(value, sources[n]))]
        cited = CitedInput(cited.number, ()) if found else cited
    scales = {unit for _, unit in found}
    scale = float(scales.pop()) if len(scales) == 1 else 1.0
    if not found and not constant and (step := _step(cited.number, earlier)) is not None:
        return CheckedInput(cited.number, float(value), cited.citations, True, (),
                            earlier[step - 1].scale, False, step)  # fmt: skip
    return CheckedInput(cited.number, float(value), cited.citations, bool(found) or constant,
                        tuple(n for n, _ in found), scale, constant and not found)  # fmt: skip


def _step(number: str, earlier: Sequence[CheckedCalculation]) -> int | None:
    """The 1-based index of the latest earlier calculation whose result `number` writes."""
    for index in range(len(earlier), 0, -1):
        result = earlier[index - 1].result
        if result is not None and agrees(abs(result), number):
            return index
    return None


def _unit(value: Decimal, source: tuple[frozenset[Decimal], Decimal]) -> Decimal | None:
    """The unit `value` is in if the passage prints it: the passage's table unit when printed as
    written (4,180,339 "in thousands"), 1 when written in full (4,180,339,000 for that cell);
    None when the passage does not print it."""
    values, scale = source
    if value in values:
        return scale
    return Decimal(1) if scale != 1 and value / scale in values else None


def _missing(inputs: Sequence[CheckedInput], sources: Sources) -> str:
    """Which inputs are not in their sources, for a person, and where a miscited one is."""
    parts = []
    for i in inputs:
        if not i.citations:
            parts.append(f"{i.text} is in none of the sources")
            continue
        value = Decimal(i.text.replace(",", ""))
        elsewhere = [str(n) for n, source in sources.items() if _unit(value, source)]
        hint = f" (it is in source {', '.join(elsewhere)})" if elsewhere else ""
        parts.append(f"{i.text} is not in {_sources(i.citations)}{hint}")
    return "; ".join(dict.fromkeys(parts))  # a number used twice is named once


def _sources(numbers: Sequence[int]) -> str:
    return ("source " if len(numbers) == 1 else "sources ") + ", ".join(map(str, numbers))


def _formula(expression: str, inputs: Sequence[CheckedInput]) -> str:
    """The expression with each input's citation after it, as written ("[1]"), or where the
    number was found when the model cited none ("[2]*")."""
    marks = iter([_marker(i) for i in inputs])
    return _NUMBER.sub(lambda m: m.group(0) + next(marks, ""), expression)


def _marker(i: CheckedInput) -> str:
    if i.from_calculation is not None:
        return f" (calc. {i.from_calculation})"
    if i.citations:
        return f" [{', '.join(map(str, i.citations))}]"
    return f" [{', '.join(map(str, i.found_in))}]*" if i.found_in else ""


def _amount_scale(expression: str, inputs: Sequence[CheckedInput], result: float) -> Decimal:
    """The unit the result is in: the inputs' table unit when they share one and the formula is
    an amount in it (a sum, a difference, an average: doubling the inputs doubles the result),
    else 1 (a ratio or a percentage has no unit; numbers written in full have none)."""
    scales = {i.scale for i in inputs if not i.constant}
    if len(scales) != 1 or (scale := scales.pop()) == 1.0 or result == 0:
        return Decimal(1)
    doubled = iter([i.constant for i in inputs])
    try:
        twice = evaluate(_NUMBER.sub(lambda m: m.group(0) if next(doubled, True) else
                                     format(Decimal(m.group(0).replace(",", "")) * 2, "f"),
                                     expression))  # fmt: skip
    except CalculationError:
        return Decimal(1)
    return Decimal(scale) if abs(twice - 2 * result) <= 1e-9 * abs(result) else Decimal(1)


def _result(
    result: float, calc: Calculation, scale: Decimal, question: str
) -> tuple[bool | None, str]:
    """Whether the model's result agrees, and the app's result rounded for a person: to the
    places the question asks, else those of the model's result when it agrees; as a percentage
    when the model's result is one or the question asks for one (of a ratio); in the model's
    scale word ("6.13 billion") or the table's unit ("6,133,774 thousand")."""
    stated = _STATED.search(calc.stated or "")
    tail = (stated.group("tail") or "").lower() if stated else ""
    reading = _agreeing(result, calc.stated, scale, tail) if calc.stated else None
    agreed = None if calc.stated is None else reading is not None
    decimals = requested_decimals(question)
    if decimals is None and stated is not None and agreed:  # a wrong result sets no precision
        decimals = len(stated.group("number").partition(".")[2])
    asked = asks_percent(question) and _DIVIDES.search(calc.expression) is not None
    if tail.startswith(("%", "per")) or (asked and not _scaled(tail)):
        shown = reading if reading is not None and tail.startswith(("%", "per")) else (
            result if _TIMES_100.search(calc.expression) else result * 100)
        return agreed, format_percent(shown, 1 if decimals is None else decimals)
    if _scaled(tail) and stated is not None and agrees(result, stated.group("number")):
        reading = result * SCALE_WORDS[tail]  # written in the scale word's units: "4.2 - 3.9"
    return agreed, _amount(result, reading, scale, tail, decimals)


def _amount(
    result: float, reading: float | None, scale: Decimal, tail: str, decimals: int | None
) -> str:
    """An amount for a person: in the scale word the model used, else in the table's unit
    unless the model wrote it in full."""
    real = float(result * float(scale)) if reading is None else reading
    if _scaled(tail):
        return f"{format_number(real / SCALE_WORDS[tail], decimals)} {tail}"
    if scale != 1 and (reading is None or reading == result):
        return f"{format_number(result, decimals)} {_SCALE_NAMES[float(scale)]}"
    return format_number(real, decimals)


def _scaled(tail: str) -> bool:
    return tail in SCALE_WORDS


def _agreeing(result: float, stated: str | None, scale: Decimal, tail: str) -> float | None:
    """The reading of the result that the model's `stated` result agrees with: as computed, as
    a percentage of a ratio ("(a - b) / b = 21.8%"), or in full units when the inputs are in
    a table's unit ("= $6.13 billion" from thousands); None when none does."""
    readings = [result]
    if tail.startswith(("%", "per")):
        readings.append(result * 100)
    if scale != 1:
        readings = [result * float(scale)] if _scaled(tail) else [result, result * float(scale)]
    return next((r for r in readings if agrees(r, stated or "")), None)
