"""Annual reports whose comparisons are known: for each of several made-up companies, a report
for 2019 and one for 2021 (PDFs made with PyMuPDF, 6-9 pages of routine prose), each stating
its revenue, head count and number of stores once, on a page drawn at random, among figures
of other kinds. The questions ask to compare one figure across the two years; the gold answer
is both values (an MMLongBench-style List), so `eval answers` scores an answer right only when
it states both sides.

`python -m bench.compare_docs OUT [--seed N]` writes OUT/documents/*.pdf and
OUT/questions.jsonl; `desktop-rag eval answers OUT/questions.jsonl OUT/documents --scope library`
measures it (add `--route lookup` for the answers without the comparison route).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

COMPANIES = ("Halvorsen Marine", "Quillfeather Books", "Tamsin Robotics", "Orvieto Foods",
             "Brightwater Rail", "Kestrel Optics")  # fmt: skip
YEARS = (2019, 2021)
FIGURES = {  # question words, sentence, low and high values
    "revenue": ("revenue", "Revenue for the year {y} was {v:,} thousand dollars.", 9_000, 90_000),
    "employees": ("number of employees", "At the end of {y} the company employed {v:,} people.",
                  120, 4_000),
    "stores": ("number of stores", "The company operated {v:,} stores at the end of {y}.", 12, 400),
}  # fmt: skip
PROSE = (
    "The board met four times during the year and approved the annual budget.",
    "Procurement renewed the cleaning contract and opened a tender for cabling.",
    "The facilities team replaced the lighting in the east wing of the head office.",
    "Customer satisfaction was measured by an external survey in the autumn.",
    "The audit committee reviewed the internal controls and found no material issues.",
    "Training hours per employee were in line with the plan for the year.",
    "The sustainability team published its first report on water use.",
    "Several long-serving managers retired and were thanked for their service.",
)
LINES_PER_PAGE = 26


def report_pages(rng: random.Random, company: str, year: int, values: dict[str, int]) -> list[
    list[str]
]:
    """The report's pages of lines: a cover, then prose with each figure once, on random pages."""
    pages = [[f"{company}", f"Annual report {year}", "", f"For the year ended 31 December {year}"]]
    body = [[rng.choice(PROSE) for _ in range(LINES_PER_PAGE)] for _ in range(rng.randint(5, 8))]
    for key, (_, sentence, _, _) in FIGURES.items():
        page = rng.choice(body)
        page[rng.randrange(len(page))] = sentence.format(y=year, v=values[key])
    return pages + body


def build(out: Path, seed: int = 23) -> list[dict[str, Any]]:
    """Writes OUT/documents/*.pdf and OUT/questions.jsonl; returns the questions."""
    import pymupdf

    rng = random.Random(seed)
    docs = out / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    questions: list[dict[str, Any]] = []
    for company in COMPANIES:
        values = {y: {k: rng.randint(lo, hi) for k, (_, _, lo, hi) in FIGURES.items()}
                  for y in YEARS}  # fmt: skip
        names = {}
        for year in YEARS:
            name = f"{company.replace(' ', '_')}_{year}_annual_report.pdf"
            _write(docs / name, report_pages(rng, company, year, values[year]), pymupdf,
                   f"{company} annual report {year}")  # fmt: skip
            names[year] = name
        for key in rng.sample(sorted(FIGURES), 2):
            questions.append(_question(company, key, names[YEARS[0]], values))
    lines = [json.dumps(q, ensure_ascii=False) for q in questions]
    (out / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return questions


def _question(
    company: str, key: str, doc: str, values: dict[int, dict[str, int]]
) -> dict[str, Any]:
    words = FIGURES[key][0]
    return {"id": f"compare-{company.split()[0].lower()}-{key}", "doc": doc,
            "question": f"Compare the {words} of {company} in {YEARS[0]} and {YEARS[1]}.",
            "answer": str([f"{values[y][key]:,}" for y in YEARS]), "answer_format": "List",
            "evidence_pages": [], "evidence_sources": ["Pure-text (Plain-text)"]}  # fmt: skip


def _write(path: Path, pages: list[list[str]], pymupdf: Any, title: str) -> None:
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        for row, text in enumerate(lines):
            page.insert_text((60, 60 + row * 26), text, fontsize=10)
    doc.set_metadata({"title": title})
    doc.save(str(path))
    doc.close()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.compare_docs", description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args(argv)
    questions = build(args.out, args.seed)
    summary = {"questions": len(questions), "documents": 2 * len(COMPANIES)}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
