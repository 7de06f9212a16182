"""The safe calculator: its small language, its refusals, hostile input, and answer lines."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from desktop_rag.answering import calculator
from desktop_rag.answering.calculator import (
    MAX_DEPTH,
    MAX_LENGTH,
    Calculation,
    CalculationError,
    CitedInput,
    evaluate,
    find_calculation,
    find_calculations,
)
from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.text.numbers import agrees

F = Fraction
VALID = [
    ("(4180339 - 3431434) / 3431434 * 100", F(4180339 - 3431434, 3431434) * 100),
    ("(4,180,339 − 3,431,434) ÷ 3,431,434 × 100", F(4180339 - 3431434, 3431434) * 100),
    ("4,180,339 + 1,953,435", F(6133774)),
    ("$4,180,339 + $ 1,953,435", F(6133774)),
    ("€5 + £3", F(8)),
    ("₹ 3,02,16,492.00 - 1,23,456", F(30216492 - 123456)),  # the Indian grouping
    ("4 – 1", F(3)),
    ("-5 + 3", F(-2)),
    ("-(5 + 3)", F(-8)),
    ("2 * -3", F(-6)),
    ("2 - -3", F(5)),
    ("+4", F(4)),
    ("--4", F(4)),
    ("- - - 4", F(-4)),
    ("2 + 3 * 4", F(14)),
    ("2 * 3 + 4", F(10)),
    ("(2 + 3) * 4", F(20)),
    ("10 / 4", F(5, 2)),
    ("10 / 4 / 5", F(1, 2)),
    ("10 - 4 - 3", F(3)),
    ("2 * 3 / 4 * 5", F(15, 2)),
    ("0.1 + 0.2", F(3, 10)),
    (".5 * 4", F(2)),
    ("1,000,000.5 - 0.5", F(10**6)),
    ("((((1))))", F(1)),
    ("  7  ", F(7)),
    ("1\t+\n2", F(3)),
    ("\u00a03 + 4", F(7)),
    ("(3 + 4 + 5) / 3", F(4)),
    ("1 / 3", F(1, 3)),
    ("0", F(0)),
    ("-0", F(0)),
    ("999,999,999,999,999 + 1", F(10**15)),
    ("1000000000000000", F(10**15)),
    ("1000000000000000 * 1000000000000000", F(10**30)),
    ("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH, F(1)),
    ("1+" * 99 + "1", F(100)),
    ("1" + " " * (MAX_LENGTH - 1), F(1)),
    ("-" * (MAX_LENGTH - 1) + "1", F(-1)),
]


@pytest.mark.parametrize(("expression", "value"), VALID)
def test_evaluate(expression: str, value: Fraction) -> None:
    assert evaluate(expression) == float(value)


ERRORS = [
    # (expression, part of the message, position or None)
    ("", "empty", None),
    ("   ", "empty", None),
    ("\n", "empty", None),
    ("2**3", "powers", 1),
    ("2 ** 1000000", "powers", 2),
    ("2**1000000", "powers", 1),
    ("2^3", "powers", 1),
    ("1e999", "scientific", 1),
    ("1E5", "scientific", 1),
    ("__import__('os')", "names and functions", 0),
    ("abs(-3)", "('abs')", 0),
    ("round(2.5, 1)", "('round')", 0),
    ("avg(3, 4, 5)", "('avg')", 0),
    ("max(1,234)", "('max')", 0),
    ("x", "names", 0),
    ("2 x 3", "names", 2),
    ("pi * 2", "names", 0),
    ("os.system('ls')", "names", 0),
    ("lambda: 1", "names", 0),
    ("().__class__", "decimal point", 2),  # the tokenizer reads it all before parsing
    ("22%", "'%'", 2),
    ("50% * 3", "'%'", 2),
    ("1,23", "comma", 1),
    ("1,2345", "comma", 1),
    (",5", "comma", 0),
    ("1, 234", "comma", 1),
    ("4,180,339, 5", "comma", 9),
    ("1/0", "division by zero", 1),
    ("1 / (3 - 3)", "division by zero", 2),
    ("5 / 0.0", "division by zero", 2),
    ("0/0", "division by zero", 1),
    ("(1", "never closed", 0),
    ("((1)", "never closed", 0),
    ("1)", "expected an operator before ')'", 1),
    ("2 3", "expected an operator before '3'", 2),
    ("4 180 339", "expected an operator", 2),
    ("2(3)", "expected an operator before '('", 1),
    ("(2)(3)", "expected an operator", 3),
    ("1 +", "ends too early", 3),
    ("-", "ends too early", 1),
    ("(", "ends too early", 1),
    ("()", "expected a number, found ')'", 1),
    ("* 3", "expected a number, found '*'", 0),
    ("3 × ÷ 4", "expected a number, found '÷'", 4),
    ("3 = 3", "'='", 2),
    ("3.", "decimal point", 1),
    (".", "decimal point", 0),
    ("1.2.3", "expected an operator before '.3'", 3),
    ("$", "must come right before a number", 0),
    ("5$", "must come right before a number", 1),
    ("$ $5", "must come right before a number", 0),
    ("9999999999999999", "too large", 0),
    ("1,000,000,000,000,001", "too large", 0),
    ("1 + 1000000000000000.5", "too large", 4),
    ("9" * 400, "too long", None),
    ("(" * 10_000 + "1" + ")" * 10_000, "too long", None),
    ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "nested too deeply", MAX_DEPTH),
    ("1 # 2", "unexpected character '#'", 2),
    ("1 ; 2", "unexpected character ';'", 2),
    ("[1]", "unexpected character '['", 0),
    ("٣ + 1", "unexpected character", 0),
    ("2²", "unexpected character", 1),
    ("1 % 2", "'%'", 2),
    ("'1'", "unexpected character", 0),
]


@pytest.mark.parametrize(("expression", "problem", "position"), ERRORS)
def test_evaluate_refuses(expression: str, problem: str, position: int | None) -> None:
    with pytest.raises(CalculationError) as caught:
        evaluate(expression)
    assert problem in caught.value.message
    assert caught.value.position == position
    if position is not None:
        assert caught.value.message.endswith(f"at character {position + 1}")


def test_calculation_error_follows_the_error_conventions() -> None:
    with pytest.raises(CalculationError) as caught:
        evaluate("1 / 0")
    error = caught.value
    assert isinstance(error, DesktopRagError)
    assert error.hint and "×" in error.hint
    assert str(error) == f"{error.message} ({error.hint})"


def test_depth_limit_holds_without_the_length_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """10,000 nested brackets stop at MAX_DEPTH, not at Python's recursion limit."""
    monkeypatch.setattr(calculator, "MAX_LENGTH", 10**6)
    with pytest.raises(CalculationError, match="nested too deeply"):
        evaluate("(" * 10_000 + "1" + ")" * 10_000)
    assert evaluate("-" * 100_001 + "1") == -1.0  # unary signs are read in a loop
    assert evaluate("+".join(["1"] * 20_000)) == 20_000.0


ALPHABET = (
    "0123456789" * 3 + "+-*/×÷−–" * 2 + "()" * 3 + ",.,. " * 2
    + "%^=$€_abcexyzEX" + "é√²٣[]{}'\"#;:\u00a0\t\n\\"
)  # fmt: skip


def _check(expression: str) -> None:
    """Every input gives a finite float or a CalculationError, never another exception."""
    try:
        result = evaluate(expression)
    except CalculationError as error:
        assert error.position is None or 0 <= error.position <= len(expression)
        return
    assert isinstance(result, float) and math.isfinite(result)


def test_random_strings_are_calculated_or_refused() -> None:
    rng = random.Random(20160)
    for _ in range(4000):
        size = rng.choice((rng.randint(0, 12), rng.randint(0, 60), rng.randint(150, 260)))
        _check("".join(rng.choice(ALPHABET) for _ in range(size)))


HOSTILE = [
    "__import__('os')", "__import__('os').system('ls')", "exec('1')", "eval('1')", "1e999",
    "2**1000000", "9" * 400, "(" * 10_000, ")" * 10_000, "(" * 10_000 + "1" + ")" * 10_000,
    "-" * 5000 + "1", "()" * 100, "1/" * 99 + "1", "0/" * 99 + "1", "1e309", "1" * 199,
    "9" * 15 + "*" + "9" * 15, "inf", "nan", "-inf", "1_000", "0x10", "0b1", "1j", "True",
    "None", "[1, 2]", "{}", "\x00", "1\x00+1", "\ufeff1", "１２",
]  # fmt: skip


@pytest.mark.parametrize("expression", HOSTILE)
def test_hostile_input_is_calculated_or_refused(expression: str) -> None:
    _check(expression)


def _number(rng: random.Random) -> tuple[str, Fraction]:
    """A random number as a report or a model writes it, and its exact value."""
    whole = rng.randrange(10 ** rng.randint(1, 7))
    text = f"{whole:,}" if rng.random() < 0.5 else str(whole)
    value = Fraction(whole)
    if rng.random() < 0.3:
        digits = str(rng.randrange(1000)).zfill(rng.randint(1, 3))
        text, value = f"{text}.{digits}", value + Fraction(int(digits), 10 ** len(digits))
    if rng.random() < 0.1:
        text = rng.choice(("$", "$ ", "€", "£")) + text
    return text, value


def _tree(rng: random.Random, depth: int) -> tuple[str, Fraction]:
    """A random fully bracketed expression and its value, computed with fractions."""
    if depth == 0 or rng.random() < 0.3:
        text, value = _number(rng)
    else:
        (left, a), (right, b) = _tree(rng, depth - 1), _tree(rng, depth - 1)
        op = rng.choice("+-*/")
        if op == "/" and b == 0:
            op = "+"
        value = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else a}[op]
        symbol = rng.choice({"+": "+", "-": "-−–", "*": "*×", "/": "/÷"}[op])
        gap = rng.choice(("", " ", "  "))
        text = f"({left}{gap}{symbol}{gap}{right})"
    if rng.random() < 0.15:
        text, value = f"-{text}", -value
    return text, value


def _chain(rng: random.Random) -> tuple[str, Fraction]:
    """A random unbracketed chain ("a + b × c - d ÷ e") and its value under the usual
    precedence, reduced here in two passes (× ÷ left to right, then + - left to right)."""
    terms = [_number(rng) for _ in range(rng.randint(1, 8))]
    ops = [rng.choice("+-*/") for _ in terms[1:]]
    values = [terms[0][1]]
    sums: list[str] = []
    for op, (_, value) in zip(ops, terms[1:], strict=True):
        if op in "*/":
            values[-1] = values[-1] * value if op == "*" else values[-1] / (value or 1)
        else:
            values.append(value)
            sums.append(op)
    total = values[0]
    for op, value in zip(sums, values[1:], strict=True):
        total = total + value if op == "+" else total - value
    text = terms[0][0]
    for op, (number, value) in zip(ops, terms[1:], strict=True):
        text += f" {op} {number if op != '/' or value else '1'}"
    return text, total


def test_random_bracketed_expressions_match_exact_arithmetic() -> None:
    rng = random.Random(4180339)
    checked = 0
    while checked < 2000:
        text, value = _tree(rng, rng.randint(0, 5))
        if len(text) <= MAX_LENGTH:
            assert evaluate(text) == float(value), text
            checked += 1


def test_random_chains_follow_precedence_and_associativity() -> None:
    rng = random.Random(3431434)
    for _ in range(2000):
        text, value = _chain(rng)
        assert evaluate(text) == float(value), text


def test_mutated_expressions_are_calculated_or_refused() -> None:
    rng = random.Random(2751375)
    for _ in range(3000):
        chars = list(_tree(rng, rng.randint(1, 4))[0])
        for _ in range(rng.randint(1, 4)):
            where = rng.randrange(len(chars) + 1)
            action = rng.choice(("insert", "delete", "replace"))
            if action == "insert" or not chars:
                chars.insert(where, rng.choice(ALPHABET))
            elif action == "delete":
                del chars[min(where, len(chars) - 1)]
            else:
                chars[min(where, len(chars) - 1)] = rng.choice(ALPHABET)
        _check("".join(chars))


ANSWER = """Domestic streaming revenue was $4,180,339 thousand in 2015 [1].

**Calculation:** 4,180,339 [1] + 1,953,435 [2, 3] = 6,133,774 thousand.
- Calculation: (4,180,339 [1] − 3,431,434 [4-6]) / 3,431,434 [4] × 100 ≈ 21.8%
"""


def test_find_calculations_splits_answer_lines() -> None:
    found = find_calculations(ANSWER)
    assert found == [
        Calculation(
            "4,180,339 + 1,953,435",
            (CitedInput("4,180,339", (1,)), CitedInput("1,953,435", (2, 3))),
            "6,133,774 thousand",
            "Calculation:** 4,180,339 [1] + 1,953,435 [2, 3] = 6,133,774 thousand.",
        ),
        Calculation(
            "(4,180,339 − 3,431,434) / 3,431,434 × 100",
            (
                CitedInput("4,180,339", (1,)),
                CitedInput("3,431,434", (4, 5, 6)),
                CitedInput("3,431,434", (4,)),
                CitedInput("100", ()),
            ),
            "21.8%",
            "Calculation: (4,180,339 [1] − 3,431,434 [4-6]) / 3,431,434 [4] × 100 ≈ 21.8%",
        ),
    ]
    assert find_calculation(ANSWER) == "4,180,339 + 1,953,435"


def test_one_unit_carried_by_every_number_is_left_out_and_mixed_units_are_refused() -> None:
    (calc,) = find_calculations("Calculation: 4.2 million euros [1] - 3.9 million euros [1] = "
                                "0.3 million euros")  # fmt: skip
    assert calc.expression == "4.2 - 3.9" and agrees(evaluate(calc.expression), "0.3")
    assert calc.inputs == (CitedInput("4.2", (1,)), CitedInput("3.9", (1,)))
    (ratio,) = find_calculations("Calculation: (230 Mn [1] - 193 Mn [2]) / 193 Mn [2] × 100 = 19.2")
    assert ratio.expression == "(230 - 193) / 193 × 100"
    (after,) = find_calculations("Calculation: 133.2 [1] million - 87.4 [2] million = 45.8")
    assert after.expression == "133.2 - 87.4"
    assert after.inputs == (CitedInput("133.2", (1,)), CitedInput("87.4", (2,)))
    (mixed,) = find_calculations("Calculation: 4.2 million [1] - 390 thousand [2] = 3.81")
    with pytest.raises(CalculationError):
        evaluate(mixed.expression)


def test_found_calculations_evaluate_and_agree_with_their_stated_results() -> None:
    for calc in find_calculations(ANSWER):
        assert calc.stated is not None and agrees(evaluate(calc.expression), calc.stated)


def test_the_documented_example_is_itself_a_valid_calculation() -> None:
    (calc,) = find_calculations("Calculation: 4,180,339 [1] + 1,953,435 [2] = 6,133,774")
    assert calc.stated is not None and agrees(evaluate(calc.expression), calc.stated)
    assert all(cited.citations for cited in calc.inputs)


LINES = [
    # (answer text, expression, stated)
    ("Calculation: 1 + 2 = 3", "1 + 2", "3"),
    ("calculation: 1 + 2 = 3", "1 + 2", "3"),
    ("CALCULATIONS: 1 + 2", "1 + 2", None),
    ("Calculation: 1 + 2.", "1 + 2", None),
    ("Calculation: .5 * 4 = 2", ".5 * 4", "2"),
    ("> Calculation: 1 + 2 = 3 = three", "1 + 2", "3"),
    ("* **Calculation**: `1 + 2` = **3**", "1 + 2", "3"),
    ("So: Calculation: 10 - 4 ≈ 6.", "10 - 4", "6"),
    ("Calculation：1 + 2 = 3", "1 + 2", "3"),
    ("Calculation: $4,180,339 [1][2] - $3,431,434 [7–8] = $748,905", "$4,180,339 - $3,431,434",
     "$748,905"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expression", "stated"), LINES)
def test_find_calculations_reads_line_variants(
    text: str, expression: str, stated: str | None
) -> None:
    (calc,) = find_calculations(text)
    assert (calc.expression, calc.stated) == (expression, stated)
    evaluate(calc.expression)


@pytest.mark.parametrize(
    "text", ["", "The answer is 5.", "Calculation:", "Calculation: = 5", "miscalculation: 1 + 2"]
)
def test_find_calculations_without_a_calculation(text: str) -> None:
    assert find_calculations(text) == []
    assert find_calculation(text) is None


def test_citation_ranges_are_expanded_within_reason() -> None:
    (calc,) = find_calculations("Calculation: 1 [2-4] + 5 [9-1] + 6 [1-100] + 7 [3; 5] = 19")
    assert [cited.citations for cited in calc.inputs] == [(2, 3, 4), (9,), (1,), (3, 5)]


def test_a_hostile_calculation_line_is_found_but_refused() -> None:
    text = "Calculation: __import__('os').system('rm -rf /') = 0"
    assert find_calculation(text) == "__import__('os').system('rm -rf /')"
    with pytest.raises(CalculationError, match="names and functions"):
        evaluate(find_calculation(text) or "")


def test_random_answers_never_break_find_calculations() -> None:
    rng = random.Random(5)
    pieces = ["Calculation:", "calculation :", " = ", "≈", "[1]", "[2-3]", "\n", "**", "`", " "]
    for _ in range(1000):
        text = "".join(rng.choice(pieces + list(ALPHABET)) for _ in range(rng.randint(0, 40)))
        for calc in find_calculations(text):
            assert calc.expression
            _check(calc.expression)


def test_a_restated_calculation_line_is_read_up_to_its_result() -> None:
    from desktop_rag.answering.calculator import find_calculations

    (calc,) = find_calculations("The calculation line is: 3,033 ÷ 27,709 = 0.109. Amazon's "
                                "return on equity is 0.109 [7].")  # fmt: skip
    assert (calc.expression, calc.stated) == ("3,033 ÷ 27,709", "0.109")
