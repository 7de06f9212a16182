"""Which pages go to the table pass, measured against the pages table questions cite:
`python -m bench.table_candidates DOCS_DIR QUESTIONS_JSONL [--read-tables N]` prints, for the
text check alone and with the ruled-grid cue (ingest/table_rules.py), how many of the evidence
pages of the questions whose evidence sources include "Table" are candidates, how many of all
pages are, what the checks cost a page, and (with --read-tables) on how many of N pages that
only the grid flags PyMuPDF's table reader finds a table.

Why: a page that is no candidate never gets its tables read, whatever the reader could do.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from desktop_rag.ingest.page_text import has_text
from desktop_rag.ingest.pdf_pages import open_pdf, page_text
from desktop_rag.ingest.table_detect import looks_tabular
from desktop_rag.ingest.table_extract import page_tables
from desktop_rag.ingest.table_rules import ruled_grid


@dataclass
class Tally:
    pages: int = 0
    by_text: int = 0
    by_grid: int = 0  # flagged by the grid only
    evidence: int = 0
    evidence_by_text: int = 0
    evidence_by_grid: int = 0
    no_text_layer: int = 0  # evidence pages without one (pictures of tables)
    seconds: float = 0.0
    grid_only: list[tuple[Path, int, bool]] = field(default_factory=list)


def evidence_pages(questions: Path) -> dict[str, set[int]]:
    """Document file name -> the pages its table questions cite."""
    found: dict[str, set[int]] = defaultdict(set)
    for line in questions.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if "Table" in q.get("evidence_sources", []):
            found[q["doc"]].update(q.get("evidence_pages", []))
    return found


def count(docs: Path, cited: dict[str, set[int]]) -> Tally:
    tally = Tally()
    for path in sorted(docs.glob("*.pdf")):
        with open_pdf(path) as pdf:
            for index in range(pdf.page_count):
                page_of(tally, pdf.load_page(index), path, index + 1 in cited.get(path.name, ()))
    return tally


def page_of(tally: Tally, page: object, path: Path, cited: bool) -> None:
    started = time.perf_counter()
    text = page_text(page)
    by_text = looks_tabular(text)
    by_grid = not by_text and has_text(text) and ruled_grid(page)
    tally.seconds += time.perf_counter() - started
    tally.pages += 1
    tally.by_text += by_text
    tally.by_grid += by_grid
    tally.evidence += cited
    tally.evidence_by_text += cited and by_text
    tally.evidence_by_grid += cited and by_grid
    tally.no_text_layer += cited and not has_text(text)
    if by_grid:
        tally.grid_only.append((path, getattr(page, "number", 0), cited))


def tables_read(pages: list[tuple[Path, int, bool]]) -> int:
    found = 0
    for path, index, _ in pages:
        with open_pdf(path) as pdf:
            found += bool(page_tables(pdf.load_page(index), index + 1))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--read-tables", type=int, default=0, metavar="N",
                        help="read the tables of N random grid-only pages that no question cites")
    args = parser.parse_args(argv)
    t = count(args.docs, evidence_pages(args.questions))
    report = {
        "pages": t.pages, "candidates_text": t.by_text, "candidates_grid_only": t.by_grid,
        "evidence_pages": t.evidence, "evidence_by_text": t.evidence_by_text,
        "evidence_by_text_or_grid": t.evidence_by_text + t.evidence_by_grid,
        "evidence_without_text_layer": t.no_text_layer,
        "check_ms_per_page": round(1000 * t.seconds / max(t.pages, 1), 2),
    }
    if args.read_tables:
        cited = [p for p in t.grid_only if p[2]]
        other = [p for p in t.grid_only if not p[2]]
        drawn = random.Random(7).sample(other, min(args.read_tables, len(other)))
        report |= {"grid_evidence_pages_with_a_table": f"{tables_read(cited)} of {len(cited)}",
                   "grid_other_pages_with_a_table": f"{tables_read(drawn)} of {len(drawn)}"}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
