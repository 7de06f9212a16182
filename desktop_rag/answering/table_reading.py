"""A refusal over a table row that answers the question: the app reads the cell.

Why: asked "What score did PaLM-2L + Step-Back achieve in MMLU Physics?" the default 1.5B model
was given, as its first source, the row "PaLM-2L + Step-Back (ours) — MMLU Physics: 73.2%
(1.9%) | MMLU Chemistry: 81.8% (1.4%)" and still replied that the documents do not contain it.
A table row, as ingestion writes it (`ingest/table_model.render_row`), says which row and
which column each value belongs to, so a cell the question names is found without the model:
every word of the row's label and every word of the column's label in the question (stems
compared; a remark in parentheses, "(ours)", and a section's prefix may be left unsaid). Only
a single such value is read; two different values the question names alike (the same label in
two tables) leave the refusal standing. The answer says it was read from the table, and cites
the passage; the support check then checks it like any other answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_rag.domain import Passage
from desktop_rag.ingest.table_model import is_table_row
from desktop_rag.text.words import stem_set

_UNIT = re.compile(r"\s*\((?P<unit>in (?:thousands|millions|billions)[^)]*)\)\s*$", re.I)
_REMARK = re.compile(r"\s*\([^)]*\)")
_SEPARATOR = " — "
GENERIC_LABELS = "total other net all sum subtotal grand"
NOTE = "(Read from the table by the app: the model had answered that the sources do not say.)"


@dataclass(frozen=True, slots=True)
class Cell:
    passage: int  # the source's number [n]
    row: str
    column: str
    value: str
    unit: str


def cells_of(passage: Passage) -> list[Cell]:
    """Every labelled cell of the passage's table rows."""
    cells: list[Cell] = []
    for line in passage.text.split("\n"):
        if is_table_row(line) and _SEPARATOR in line:
            cells += _row_cells(passage.n, line)
    return cells


def _row_cells(n: int, line: str) -> list[Cell]:
    label, _, rest = line.partition(_SEPARATOR)
    unit_match = _UNIT.search(rest)
    unit = unit_match.group("unit") if unit_match else ""
    rest = rest[: unit_match.start()] if unit_match else rest
    out = []
    for piece in rest.split(" | "):
        column, colon, value = piece.partition(": ")
        if colon and column.strip() and value.strip():
            out.append(Cell(n, label.strip(), column.strip(), value.strip(), unit))
    return out


def _specific(label: str) -> bool:
    """A row label that says which figure: not only "Total" or "Other"."""
    return bool(stem_set(label) - stem_set(GENERIC_LABELS))


def _named(label: str, asked: frozenset[str]) -> bool:
    """Whether the question names the label: every word of it, a remark and a section's
    prefix ("Memberships: Net additions") aside."""
    words = stem_set(_REMARK.sub("", label.rpartition(": ")[2]))
    return bool(words) and words <= asked


def read_cell(question: str, passages: Sequence[Passage]) -> Cell | None:
    """The one value the question names by its row and column, or None."""
    asked = stem_set(question)
    found = [c for p in passages for c in cells_of(p)
             if _specific(c.row) and _named(c.row, asked) and _named(c.column, asked)]  # fmt: skip
    if not found:
        return None
    best = max(len(stem_set(c.row)) + len(stem_set(c.column)) for c in found)
    chosen = [c for c in found if len(stem_set(c.row)) + len(stem_set(c.column)) == best]
    return chosen[0] if len({c.value for c in chosen}) == 1 else None


def cell_answer(cell: Cell) -> str:
    unit = f" ({cell.unit})" if cell.unit else ""
    return f"{cell.row}, {cell.column}: {cell.value}{unit} [{cell.passage}].\n\n{NOTE}"
