"""A labelled set of right and wrong calculation answers over real 10-K tables, to measure the
calculation check (llm/calculations.py, llm/calc_labels.py): how many right answers it flags,
how many wrong ones it catches.

The tables are the rows the table pass renders ("Total employees — 2021: 288,000 | 2020: …")
in a library holding 10-Ks (`desktop-rag --data-dir DIR ingest …10K.pdf`). For a table with
year columns, with its chunk and two other chunks of the same document as the passages given:
- right: a sum of two rows of the year asked, a change of a row between the year asked and the
  year before, a ratio of two rows; each cited to its passage, and a sum also cited to a wrong
  passage number (the model numbering a source wrongly: the number is still in a source);
- wrong: a sum with one row not asked for, a sum with one input of another year, an input
  that no source prints (off by 7%), an input the model rounded ("4,180" for 4,180,339).
Each case records its table (`table`): the dev/test split is the hash of it
(desktop_rag/evaluation/splits.py), so that the cases of one table stay on one side.

    .venv/bin/python -m bench.calc_check_set CATALOG_SQLITE [OUT_JSONL] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from decimal import Decimal
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "calc_check_cases.jsonl"
_CELL = re.compile(r"^\s*((?:19|20)\d\d)\s*:\s*\$?\s*\(?([0-9][0-9,]*(?:\.[0-9]+)?)\)?\s*$")
_ROW = " — "
DISTRACTOR_CHARS = 1200  # the other passages given, cut (they only hold numbers to confuse)


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    cells: dict[int, str]  # year -> number as printed


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    table: str
    kind: str
    right: bool
    question: str
    answer: str  # the "Calculation:" line
    passages: list[str]  # passage 1 holds the table


def rows_of(text: str) -> list[Row]:
    """The table rows of a chunk whose cells are years with plain numbers."""
    out = []
    for line in text.splitlines():
        if _ROW not in line:
            continue
        label, _, rest = line.partition(_ROW)
        rest = re.sub(r"\s*\(in [a-z]+\)\s*$", "", rest)
        cells = {}
        for cell in rest.split("|"):
            m = _CELL.match(cell)
            if m:
                cells[int(m.group(1))] = m.group(2)
        if len(cells) >= 2 and len(label.split()) <= 8:
            out.append(Row(label.strip(), cells))
    return out


def _value(number: str) -> Decimal:
    return Decimal(number.replace(",", ""))


def _fmt(value: Decimal) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def cases_for(table: str, rows: list[Row], passages: list[str], rng: random.Random) -> list[Case]:
    """Right and wrong answers over one table (see the module docstring)."""
    years = sorted(set.intersection(*(set(r.cells) for r in rows)), reverse=True)
    if len(years) < 2 or len(rows) < 3:
        return []
    year, before = years[0], years[1]
    a, b, c = rng.sample(rows, 3)
    low = lambda r: r.label[0].lower() + r.label[1:]  # noqa: E731
    total = _value(a.cells[year]) + _value(b.cells[year])
    sum_q = f"What were {low(a)} and {low(b)} combined in {year}?"
    out = [
        ("sum", True, sum_q, f"{a.cells[year]} [1] + {b.cells[year]} [1] = {_fmt(total)}"),
        ("sum miscited", True, sum_q,
         f"{a.cells[year]} [2] + {b.cells[year]} [3] = {_fmt(total)}"),
        ("change", True, f"How much did {low(a)} change from {before} to {year}?",
         f"{a.cells[year]} [1] - {a.cells[before]} [1] = "
         f"{_fmt(_value(a.cells[year]) - _value(a.cells[before]))}"),
    ]  # fmt: skip
    if _value(b.cells[year]) != 0:
        ratio = _value(a.cells[year]) / _value(b.cells[year])
        out.append(("ratio", True, f"What was the ratio of {low(a)} to {low(b)} in {year}?",
                    f"{a.cells[year]} [1] / {b.cells[year]} [1] = {ratio:.2f}"))  # fmt: skip
    if c.cells[year] not in (a.cells[year], b.cells[year]):
        wrong = _value(c.cells[year]) + _value(b.cells[year])
        out.append(("other row", False, sum_q,
                    f"{c.cells[year]} [1] + {b.cells[year]} [1] = {_fmt(wrong)}"))  # fmt: skip
    if a.cells[before] != a.cells[year]:
        wrong = _value(a.cells[before]) + _value(b.cells[year])
        out.append(("other year", False, sum_q,
                    f"{a.cells[before]} [1] + {b.cells[year]} [1] = {_fmt(wrong)}"))  # fmt: skip
    invented = (_value(a.cells[year]) * Decimal("1.07")).quantize(Decimal(1))
    made_up = _fmt(invented + _value(b.cells[year]))
    out.append(("in no source", False, sum_q,
                f"{invented:,} [1] + {b.cells[year]} [1] = {made_up}"))  # fmt: skip
    digits = a.cells[year].split(",")
    if len(digits) > 2:
        rounded = ",".join(digits[:-1])
        out.append(("rounded", False, sum_q, f"{rounded} [1] + {b.cells[year]} [1] = "
                    f"{_fmt(_value(rounded) + _value(b.cells[year]))}"))  # fmt: skip
    return [Case(f"{table}-{i}", table, kind, right, q, f"Calculation: {line}", passages)
            for i, (kind, right, q, line) in enumerate(out)]  # fmt: skip


def tables(catalog: Path) -> Iterator[tuple[str, str, list[str]]]:
    """(table id, its chunk's text, the doc's other chunks' texts) for every chunk with rows."""
    con = sqlite3.connect(catalog)
    by_doc: dict[str, list[tuple[str, str]]] = {}
    for chunk_id, doc_id, text in con.execute(
        "select chunk_id, doc_id, text from chunks order by doc_id, ordinal"
    ):
        by_doc.setdefault(doc_id, []).append((chunk_id, text))
    con.close()
    for chunks in by_doc.values():
        for chunk_id, text in chunks:
            yield chunk_id, text, [t for cid, t in chunks if cid != chunk_id]


def build(catalog: Path, seed: int = 38) -> list[Case]:
    rng = random.Random(seed)
    out: list[Case] = []
    for table, text, others in tables(catalog):
        rows = rows_of(text)
        if len(rows) >= 3:
            distractors = rng.sample(others, min(2, len(others)))
            passages = [text, *(d[:DISTRACTOR_CHARS] for d in distractors)]
            out += cases_for(table, rows, passages, rng)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalog", type=Path)
    parser.add_argument("out", type=Path, nargs="?", default=OUT)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args(argv)
    cases = build(args.catalog, args.seed)
    args.out.write_text("\n".join(json.dumps(asdict(c)) for c in cases) + "\n", encoding="utf-8")
    print(json.dumps({"cases": len(cases), "right": sum(c.right for c in cases)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
