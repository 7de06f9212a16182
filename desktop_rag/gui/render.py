"""Turns questions and answers into the HTML shown by the chat view (Qt rich-text subset).

Model output is rendered as Markdown with raw HTML disabled; citation markers such as [2] or
[1, 3] become `cite:N` links; unsupported sentences are marked; refusals get their own style;
the calculations the app checked are shown under the answer, with their result.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from desktop_rag.domain import CalculationProblem, CheckedCalculation

CITE = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
CITE_SCHEME = "cite"
UNSUPPORTED_STYLE = "background-color:#fde2c4; text-decoration: underline;"
UNSUPPORTED_TITLE = "Not supported by the cited sources"
INFERRED_TITLE = "Attributed after generation: the model wrote no citation markers"
CHECKED_COLOURS = ("#e3f1e6", "#1b6e2d")  # background, text
WARNING_COLOURS = ("#fde2c4", "#a05a00")
CHECKED_TITLE = "Computed by the app from the cited numbers, each found in its source"
FOUND_TITLE = "[n]*: the model cited no source; the number was found in passage n"


@dataclass(frozen=True, slots=True)
class TurnView:
    """What one question/answer pair looks like on screen."""

    question: str
    answer: str
    streaming: bool = False
    refused: bool = False
    unsupported: tuple[str, ...] = ()
    citations: tuple[int, ...] = field(default=())
    note: str = ""
    inferred: tuple[int, ...] = ()  # citation numbers attributed after generation (no markers)
    stage: str = ""  # what a streaming answer waits on until its first words arrive
    calculations: tuple[CheckedCalculation, ...] = ()  # its "Calculation:" lines, checked
    focus: str = ""  # which named document was searched first, said in words


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def markdown_html(text: str) -> str:
    return str(_markdown().render(text))


def link_citations(body: str, turn: int = 0) -> str:
    """Replaces [n] and [n, m] markers in rendered HTML with links to cite:turn:n."""

    def repl(match: re.Match[str]) -> str:
        numbers = [n.strip() for n in match.group(1).split(",")]
        links = ", ".join(f'<a href="{CITE_SCHEME}:{turn}:{n}">{n}</a>' for n in numbers)
        return f"[{links}]"

    return CITE.sub(repl, body)


def mark_unsupported(body: str, sentences: tuple[str, ...]) -> str:
    for sentence in sentences:
        escaped = html.escape(sentence.strip(), quote=False)
        if escaped and escaped in body:
            span = f'<span style="{UNSUPPORTED_STYLE}" title="{UNSUPPORTED_TITLE}">{escaped}</span>'
            body = body.replace(escaped, span, 1)
    return body


def parse_cite_link(url: str) -> tuple[int, int] | None:
    """(turn, n) from a cite:turn:n link, or None for other links."""
    parts = url.split(":")
    if len(parts) == 3 and parts[0] == CITE_SCHEME and parts[1].isdigit() and parts[2].isdigit():
        return int(parts[1]), int(parts[2])
    return None


def answer_html(turn: TurnView, index: int = 0) -> str:
    if turn.streaming and not turn.answer and turn.stage:
        return f'<p style="color:#666;"><i>{html.escape(turn.stage)}</i></p>'
    if turn.streaming:
        text = html.escape(turn.answer).replace("\n", "<br>")
        return f'<p>{text}<span style="color:#888;"> \u2026</span></p>'  # more to come
    shown = without_calculation_lines(turn.answer, turn.calculations)
    body = mark_unsupported(link_citations(markdown_html(shown), index), turn.unsupported)
    body = quiet_reading_lines(body)
    if turn.refused:
        return (
            '<table width="100%" cellpadding="8" style="background-color:#eeeeee;">'
            '<tr><td><b><i>Not answered from your documents.</i></b>'
            f'<div style="color:#555;">{body}</div></td></tr></table>'
        ) + calculations_html(turn.calculations, index)  # why: "Not computed: … (3.8 is in none …)"
    return (body + inferred_links(turn.inferred, index)
            + calculations_html(turn.calculations, index) + _footer(turn))


_READING = re.compile(
    r"<p>(Read (?:the whole document|\d+ documents whole|the pages asked for): .*?)</p>", re.DOTALL
)


def quiet_reading_lines(body: str) -> str:
    """A summary's closing lines (what was read, its sections with their citations) shown
    small and grey under it, one line each: information about the answer, not part of it."""

    def repl(match: re.Match[str]) -> str:
        lines = match.group(1).replace("\n", "<br>")
        return f'<p style="color:#666; font-size:small;">{lines}</p>'

    return _READING.sub(repl, body)


def calculations_html(calculations: tuple[CheckedCalculation, ...], turn: int = 0) -> str:
    """The checked calculations under their answer, one row each (see `calculation_row`)."""
    if not calculations:
        return ""
    rows = "".join(calculation_row(c, turn) for c in calculations)
    return f'<table width="100%" cellspacing="3" cellpadding="5">{rows}</table>'


def calculation_row(calc: CheckedCalculation, turn: int = 0) -> str:
    """One calculation: the formula with its cited inputs (links to their passages) and the
    app's result, marked "Checked"; or what is wrong: a model's result that the inputs do not
    give (the app's is shown as the right one), or an input its source lacks (no result)."""
    formula = link_citations(html.escape(calc.formula, quote=False), turn)
    result = f" = <b>{html.escape(calc.result_text)}</b>" if calc.computed else ""
    if calc.problem is CalculationProblem.OK:
        colours, label, note, tip = CHECKED_COLOURS, "Checked", "", CHECKED_TITLE
    else:
        colours, label, tip = WARNING_COLOURS, "Computed" if calc.computed else "Not computed", (
            calc.message)
        note = f'<br><span style="color:{colours[1]};">{_warning(calc)}</span>'
    tip = f"{tip}. {FOUND_TITLE}" if "]*" in calc.formula else tip
    return (
        f'<tr><td bgcolor="{colours[0]}" title="{html.escape(tip)}">'
        f'<b style="color:{colours[1]};">{label}:</b> {formula}{result}{note}</td></tr>'
    )


def _warning(calc: CheckedCalculation) -> str:
    """What is wrong with a calculation, for a person, in its own words."""
    if calc.problem is CalculationProblem.STATED_RESULT_WRONG:
        stated, right = html.escape(calc.stated or ""), html.escape(calc.result_text)
        return f"The answer says {stated}; the right result of this formula is <b>{right}</b>."
    return html.escape(calc.message[:1].upper() + calc.message[1:]) + "."


def without_calculation_lines(text: str, calculations: tuple[CheckedCalculation, ...]) -> str:
    """The answer without its "Calculation:" lines (for display only: each is shown, checked,
    in its row under the answer, with the model's own result when it is wrong)."""
    lines = [c.line for c in calculations if c.line]

    def is_calculation(row: str) -> bool:  # the line itself, maybe in a bullet or bold
        return any(line in row and not row.replace(line, "").strip(" \t-*`>") for line in lines)

    return "\n".join(row for row in text.splitlines() if not is_calculation(row))


def inferred_links(numbers: tuple[int, ...], turn: int = 0) -> str:
    """Links to citations that the model did not mark, each shown as [n]* with a tooltip."""
    if not numbers:
        return ""
    links = " ".join(
        f'<a href="{CITE_SCHEME}:{turn}:{n}" title="{INFERRED_TITLE}">[{n}]*</a>' for n in numbers
    )
    return f'<p style="font-size:small;" title="{INFERRED_TITLE}">Sources: {links}</p>'


def _footer(turn: TurnView) -> str:
    return _focus_line(turn) + _warnings(turn)


def _focus_line(turn: TurnView) -> str:
    """Which document the question named and was searched first: information, not a warning."""
    if not turn.focus:
        return ""
    return f'<p style="color:#666; font-size:small;">{html.escape(turn.focus)}.</p>'


def _warnings(turn: TurnView) -> str:
    parts = []
    if turn.unsupported:
        n = len(turn.unsupported)
        parts.append(f"{n} sentence{'s' if n > 1 else ''} not supported by the sources")
    if turn.note:
        parts.append(html.escape(turn.note))
    if not parts:
        return ""
    joined = " \u00b7 ".join(parts)
    return f'<p style="color:#a05a00; font-size:small;">{joined}</p>'


def turn_html(turn: TurnView, index: int = 0) -> str:
    question = html.escape(turn.question).replace("\n", "<br>")
    return (
        '<table width="100%" cellpadding="6" style="background-color:#e8f0fe;">'
        f"<tr><td><b>You</b><br>{question}</td></tr></table>"
        f'<div style="margin-left:4px;"><b>Assistant</b>{answer_html(turn, index)}</div><hr>'
    )


def chat_html(turns: list[TurnView]) -> str:
    if not turns:
        return (
            '<p style="color:#777;">Ask a question about your documents. Answers cite their '
            "sources; click a citation to open the passage.</p>"
        )
    return "".join(turn_html(t, i) for i, t in enumerate(turns))


def cited_numbers(text: str) -> tuple[int, ...]:
    """The citation numbers used in an answer, in order of first appearance."""
    seen: dict[int, None] = {}
    for match in CITE.finditer(text):
        for n in match.group(1).split(","):
            seen.setdefault(int(n), None)
    return tuple(seen)
