"""A safe evaluator for the arithmetic a chat model writes over the numbers it cites.

Small models get sums and ratios wrong, so the model writes the formula and the app computes it.
The model has read untrusted documents, so its formula is parsed by hand over a whitelist (no
`eval`, `compile` or `ast`): nothing here can name a function, attribute, variable or module.

The language: numbers ("4180339", "4,180,339" with commas only between groups of three digits,
"0.5", ".5"; a "$", "€" or "£" before one is ignored), + - × ÷ (also * / − –), unary minus and
parentheses. Deliberately not: functions (an average is "(a + b + c) / 3"; without them a comma
is always a thousands separator, so "max(1,234)" has no ambiguous reading, and rounding is the
app's job); "%" ("22% × 5" and "… × 100%" read differently to different writers: a percent change
is "(new - old) / old × 100"); powers ("**", "^"), names, "1e6", implicit products ("2(3)").

Arithmetic is exact (fractions; "0.1 + 0.2" is 0.3), only the result becomes a float. Limits keep
hostile input cheap: MAX_LENGTH characters, MAX_DEPTH brackets deep, numbers up to MAX_MAGNITUDE.

The answer format (llm/prompts.CALCULATION_REQUEST asks for it), one line per calculation:

    Calculation: 4,180,339 [1] + 1,953,435 [2] = 6,133,774

"Calculation:" (any case; Markdown bold or a bullet around it is fine), the expression with each
input followed by its citation, then "=" (or "≈") and the model's result. `find_calculations`
gives the expression (citations removed) for `evaluate`, the inputs with their citations (so the
app can check each against its passage and refuse uncited ones) and the stated result, which
`desktop_rag.text.numbers.agrees` compares with the computed one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.text.numbers import NUMBER_PATTERN

MAX_LENGTH = 200
MAX_DEPTH = 20
MAX_MAGNITUDE = 10**15

HINT = "Use only numbers, + - × ÷ and brackets, e.g. (4,180,339 - 3,431,434) / 3,431,434 × 100"

_OPERATORS = {"+": "+", "-": "-", "−": "-", "–": "-", "*": "*", "×": "*", "/": "/", "÷": "/"}
_CURRENCIES = "$€£₹"
_NUMBER = re.compile(NUMBER_PATTERN)
_WORD = re.compile(r"[^\W\d]\w*|\w+")
_REFUSED = {
    "%": "'%' is not allowed: write a percentage as a number (22% → 22 / 100)",
    "^": "powers are not supported",
    "=": "'=' is not part of the calculation: give only the expression",
    ",": "a comma is only allowed between groups of three digits, as in 4,180,339",
    ".": "a decimal point must be followed by digits",
}


class CalculationError(DesktopRagError):
    """An expression the calculator refuses; the message names the problem and, where there is
    one, the character (counted from 1) where it starts, so the app can show the model's slip."""

    def __init__(self, message: str, hint: str = HINT, *, position: int | None = None) -> None:
        where = "" if position is None else f" at character {position + 1}"
        super().__init__(message + where, hint)
        self.position = position


class _Token(NamedTuple):
    kind: str  # "number", "(", ")" or the operator as one of + - * /
    text: str  # as written (so an error quotes "×", not "*")
    pos: int
    value: Fraction = Fraction(0)


def evaluate(expression: str) -> float:
    """The value of `expression` (see the module docstring for the language), as a float.

    Raises CalculationError for anything else: unknown characters, names, "**", misplaced
    commas, a division by zero, too long, too deep, too large a number or result.
    """
    if len(expression) > MAX_LENGTH:
        raise CalculationError(
            f"the calculation is too long ({len(expression)} characters, at most {MAX_LENGTH})"
        )
    tokens = _tokenize(expression)
    if not tokens:
        raise CalculationError("the calculation is empty")
    return _to_float(_Parser(tokens, len(expression)).parse())


def _tokenize(text: str) -> list[_Token]:
    """The tokens of `text`; raises CalculationError at the first character that is not one."""
    tokens: list[_Token] = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char.isspace() or (char in _CURRENCIES and _NUMBER.match(text[pos + 1 :].lstrip())):
            pos += 1
        elif number := _NUMBER.match(text, pos):
            tokens.append(_number_token(number))
            pos = number.end()
        elif char in _OPERATORS and not text.startswith("**", pos):  # "**" is Python's power
            tokens.append(_Token(_OPERATORS[char], char, pos))
            pos += 1
        elif char in "()":
            tokens.append(_Token(char, char, pos))
            pos += 1
        else:
            raise _refusal(text, pos)
    return tokens


def _number_token(match: re.Match[str]) -> _Token:
    """A number token; numbers beyond MAX_MAGNITUDE are refused (no report prints them)."""
    value = Fraction(match.group(0).replace(",", ""))
    if abs(value) > MAX_MAGNITUDE:
        raise CalculationError("the number is too large (at most 1e15)", position=match.start())
    return _Token("number", match.group(0), match.start(), value)


def _refusal(text: str, pos: int) -> CalculationError:
    """The error for a character that starts no token, named as precisely as possible."""
    char = text[pos]
    if char in _REFUSED or text.startswith("**", pos):
        return CalculationError(_REFUSED.get(char, _REFUSED["^"]), position=pos)
    if char.isalpha() or char == "_":
        word = _WORD.match(text, pos)
        name = word.group(0)[:20] if word else char
        if pos > 0 and text[pos - 1].isdigit() and name[0] in "eE":
            return CalculationError("scientific notation is not allowed", position=pos)
        return CalculationError(f"names and functions are not allowed ('{name}')", position=pos)
    if char in _CURRENCIES:
        return CalculationError(f"'{char}' must come right before a number", position=pos)
    return CalculationError(f"unexpected character {char!r}", position=pos)


class _Parser:
    """Recursive descent: sum := product (('+'|'-') product)*, product := unary (('*'|'/')
    unary)*, unary := ('+'|'-')* primary, primary := number | '(' sum ')'. Unary signs are
    read in a loop and brackets are counted, so no input can exhaust Python's stack."""

    def __init__(self, tokens: list[_Token], length: int) -> None:
        self._tokens = [*tokens, _Token("end", "", length)]
        self._index = 0
        self._depth = 0

    def parse(self) -> Fraction:
        """The value of the whole token list; leftovers (as in "2 3" or "1)") are an error."""
        value = self._sum()
        if (extra := self._tokens[self._index]).kind != "end":
            message = f"expected an operator before '{extra.text}'"
            raise CalculationError(message, position=extra.pos)
        return value

    def _sum(self) -> Fraction:
        value = self._product()
        while (op := self._take_op(("+", "-"))) is not None:
            right = self._product()
            value = value + right if op.kind == "+" else value - right
        return value

    def _product(self) -> Fraction:
        value = self._unary()
        while (op := self._take_op(("*", "/"))) is not None:
            right = self._unary()
            if op.kind == "*":
                value *= right
            elif right == 0:
                raise CalculationError("division by zero", position=op.pos)
            else:
                value /= right
        return value

    def _unary(self) -> Fraction:
        negative = False
        while (op := self._take_op(("+", "-"))) is not None:
            negative ^= op.kind == "-"
        value = self._primary()
        return -value if negative else value

    def _primary(self) -> Fraction:
        token = self._next()
        if token.kind == "number":
            return token.value
        if token.kind != "(":
            raise CalculationError(f"expected a number, found '{token.text}'", position=token.pos)
        if self._depth >= MAX_DEPTH:
            message = f"brackets nested too deeply (at most {MAX_DEPTH})"
            raise CalculationError(message, position=token.pos)
        self._depth += 1
        value = self._sum()
        if self._tokens[self._index].kind != ")":
            raise CalculationError("'(' is never closed", position=token.pos)
        self._index += 1
        self._depth -= 1
        return value

    def _take_op(self, allowed: tuple[str, str]) -> _Token | None:
        """The next token if it is one of the `allowed` operators (consumed), else None."""
        token = self._tokens[self._index]
        if token.kind not in allowed:
            return None
        self._index += 1
        return token

    def _next(self) -> _Token:
        token = self._tokens[self._index]
        if token.kind == "end":
            raise CalculationError("the calculation ends too early", position=token.pos)
        self._index += 1
        return token


def _to_float(value: Fraction) -> float:
    """The exact result as the nearest float (always finite: a larger one raises OverflowError)."""
    try:
        return float(value)
    except OverflowError:
        raise CalculationError("the result is too large") from None


@dataclass(frozen=True)
class CitedInput:
    """A number in a calculation as the model wrote it, and the citations written after it
    (none for a constant such as the 100 of a percentage or the 3 of an average)."""

    number: str
    citations: tuple[int, ...]


@dataclass(frozen=True)
class Calculation:
    """One "Calculation:" line: expression (citations removed), inputs, result stated after "="."""

    expression: str
    inputs: tuple[CitedInput, ...]
    stated: str | None
    line: str


_LINE = re.compile(  # "Calculation: …"; "The calculation line is: …", as a small model restates it
    r"\bcalculations?(?: line)?(?: is)?[ \t*`]*[:：][ \t*`]*(?P<body>.*?)[ \t*`]*$",
    re.IGNORECASE | re.MULTILINE,
)
_SENTENCE_END = re.compile(r"(?<=[0-9%a-z)\]])\.\s+(?=[A-Z])")
_CITE = r"\s*\[\s*(\d+(?:\s*[,;\-–]\s*\d+)*)\s*\]"  # "[1]", "[2, 3]", "[4-6]", as answers cite
_CITATION = re.compile(_CITE)
_CITED = re.compile(rf"(?P<number>{NUMBER_PATTERN})(?P<citations>(?:{_CITE})*)")
# a number, its citations, and the words after them up to the next operator ("4.2 million
# euros", "4.2 [1] million"); not "x"
_UNIT = re.compile(rf"(?P<number>{NUMBER_PATTERN}(?:{_CITE})*)"
                   r"(?P<unit>(?:\s+(?![xX]\b)[^\W\d_][\w.'-]*)+)")


def find_calculations(text: str) -> list[Calculation]:
    """Every "Calculation:" line of an answer, in order (see the module docstring's format)."""
    found = []
    for match in _LINE.finditer(text):
        left, _, right = match.group("body").replace("≈", "=").partition("=")
        found.append(_calculation(left, right, match.group(0).strip()))
    return [calc for calc in found if calc.expression]


def _calculation(left: str, right: str, line: str) -> Calculation:
    """A Calculation from the two sides of a line's "="."""
    left = _without_common_unit(left)
    inputs = tuple(
        CitedInput(m.group("number"), _citation_numbers(m.group("citations")))
        for m in _CITED.finditer(left)
    )
    expression = _tidy(_CITATION.sub("", left))
    stated = _SENTENCE_END.split(right.partition("=")[0], maxsplit=1)[0]  # "0.109. Amazon's …"
    return Calculation(expression, inputs, _tidy(stated) or None, line)


def _without_common_unit(expression: str) -> str:
    """The expression without the unit words its numbers carry when they all carry the same
    ("4.2 million euros - 3.9 million euros" is "4.2 - 3.9" in millions of euros; a number
    with none, such as 100, is a constant): a small model writes them although asked not to,
    and the evaluator refuses words. Mixed units ("4.2 million - 390 thousand") stay, refused."""
    units = {" ".join(m.group("unit").split()).lower() for m in _UNIT.finditer(expression)}
    if len(units) != 1:
        return expression
    return _UNIT.sub(lambda m: m.group("number"), expression)


def _tidy(side: str) -> str:
    """One side of the "=" without the Markdown (`code`, **bold**) or full stop around it."""
    return side.strip(" \t`*").rstrip(".").strip(" \t`*")


def _citation_numbers(text: str) -> tuple[int, ...]:
    """The passage numbers in "[1] [2, 3]" or "[1-3]", ranges expanded (at most 50 wide)."""
    numbers: list[int] = []
    for group in _CITATION.finditer(text):
        for part in re.split(r"\s*[,;]\s*", group.group(1)):
            bounds = re.split(r"\s*[\-–]\s*", part)
            low, high = int(bounds[0]), int(bounds[-1])
            numbers.extend(range(low, high + 1) if 0 <= high - low <= 50 else [low])
    return tuple(numbers)


def find_calculation(text: str) -> str | None:
    """The expression of the answer's first "Calculation:" line, ready for `evaluate`."""
    found = find_calculations(text)
    return found[0].expression if found else None
