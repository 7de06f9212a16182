"""The record of a calculation in an answer, as the app checked and computed it.

A small model adds and divides badly, so for a change, ratio, share, sum or average it writes the
formula over numbers it cites and the app computes it (llm/calculations.py). This is what comes of
one such formula: which inputs were found in their sources, the app's result rounded for a
person, and whether the model's own result agrees. It is plain data like the rest of domain
(which re-exports it): the answer carries it, `ask --json` prints `to_record()`, the chat store
keeps it, and the CLI and the GUI show it. It sits below domain so that domain stays one file
under 300 lines; it imports nothing from the app.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class CalculationProblem(StrEnum):
    """Why a calculation is not simply right; `OK` when it is."""

    OK = "ok"  # every input is in its source, computed (and the model's result agrees, if given)
    INPUT_NOT_IN_SOURCES = "input_not_in_sources"  # not computed: a number its source lacks
    STATED_RESULT_WRONG = "stated_result_wrong"  # computed; the model's own result disagrees
    NOT_COMPUTABLE = "not_computable"  # the formula is not arithmetic the calculator accepts


@dataclass(frozen=True, slots=True)
class CheckedInput:
    """One number of a formula. `citations` are those written after it; `found_in` the passages
    that print it (the cited ones; any given passage for an uncited number); `scale` the unit its
    source prints it in (1000 for a table "in thousands"; 1 when written in full). A `constant`
    is a small whole number such as the 100 of a percentage or the 3 of an average: accepted
    without a source. `from_calculation` (1-based) names the earlier calculation of the same
    answer whose result the number is, when it is in no source (a formula in steps)."""

    text: str
    value: float
    citations: tuple[int, ...]
    found: bool
    found_in: tuple[int, ...] = ()
    scale: float = 1.0
    constant: bool = False
    from_calculation: int | None = None

    def to_record(self) -> dict[str, Any]:
        return {"text": self.text, "value": self.value, "citations": list(self.citations),
                "found": self.found, "found_in": list(self.found_in), "scale": self.scale,
                "constant": self.constant, "from_calculation": self.from_calculation}  # fmt: skip

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> CheckedInput:
        step = r.get("from_calculation")
        return cls(str(r["text"]), float(r["value"]), tuple(int(n) for n in r["citations"]),
                   bool(r["found"]), tuple(int(n) for n in r.get("found_in", ())),
                   float(r.get("scale", 1.0)), bool(r.get("constant", False)),
                   None if step is None else int(step))  # fmt: skip


@dataclass(frozen=True, slots=True)
class CheckedCalculation:
    """One "Calculation:" line of an answer, checked. `formula` is the expression with each
    input's citation ("[2]*": found in passage 2 though the model cited none; "(calc. 1)": the
    result of the answer's first calculation); `result` the
    app's value of `expression` (None when it was not computed) and `result_text` that value
    rounded as the question or the model's result asks ("21.8%", "6,133,774 thousand") and
    `scale` the table unit it is in (1000: thousands; 1 for amounts in full, ratios, percents);
    `stated` the model's result as written and `agrees` whether it matches (None: none given).
    The answer's text is never rewritten: a disagreement is shown next to it."""

    expression: str
    formula: str
    inputs: tuple[CheckedInput, ...]
    result: float | None
    result_text: str
    stated: str | None
    agrees: bool | None
    problem: CalculationProblem
    message: str
    line: str = ""
    scale: float = 1.0

    @property
    def checked(self) -> bool:
        """Computed over inputs found in their sources, and not contradicted by the model."""
        return self.problem is CalculationProblem.OK

    @property
    def computed(self) -> bool:
        return self.result is not None

    def describe(self) -> str:
        """One line for a person, as the CLI prints it under the answer."""
        if self.problem is CalculationProblem.OK:
            return f"Computed: {self.formula} = {self.result_text} (checked)"
        if self.problem is CalculationProblem.STATED_RESULT_WRONG:
            return f"Computed: {self.formula}: the answer says {self.stated}; " \
                   f"computed {self.result_text}"  # fmt: skip
        return f"Not computed: {self.formula} ({self.message})"

    def to_record(self) -> dict[str, Any]:
        """JSON-ready values: what `ask --json` prints and the chat store keeps."""
        return {"expression": self.expression, "formula": self.formula,
                "inputs": [i.to_record() for i in self.inputs], "result": self.result,
                "result_text": self.result_text, "stated": self.stated, "agrees": self.agrees,
                "problem": self.problem.value, "message": self.message, "line": self.line,
                "scale": self.scale, "checked": self.checked}  # fmt: skip

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> CheckedCalculation:
        result, agreed, stated = r.get("result"), r.get("agrees"), r.get("stated")
        return cls(str(r["expression"]), str(r.get("formula", r["expression"])),
                   tuple(CheckedInput.from_record(i) for i in r.get("inputs", ())),
                   None if result is None else float(result), str(r.get("result_text", "")),
                   None if stated is None else str(stated),
                   None if agreed is None else bool(agreed), CalculationProblem(r["problem"]),
                   str(r.get("message", "")), str(r.get("line", "")),
                   float(r.get("scale", 1.0)))  # fmt: skip
