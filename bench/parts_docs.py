"""Reports whose parts are known: numbered chapters, tables, figures and appendices with their
captions, exhibits mentioned in prose, charts with "Source:" lines, and ruled tables of numbers
drawn on the page; with the questions a reader asks about them ("How many tables are in the
report?", "How many pages contain tables?") and their true answers.

`python -m bench.parts_docs OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl in the format of `bench.count_docs`; `desktop-rag eval counts
OUT/questions.jsonl OUT/documents` measures the exhaustive route on them.

The text is written to mislead a count of lines: every part is mentioned again in prose ("as
Table 3 shows"), a table goes on over a page ("Table 2 (continued)"), and the words "table",
"figure", "chapter" and "section" also appear where no part is ("Table of Contents", "the
figures are rounded", "Section 508 of the act"). In half of the reports the chapters are
headed by number alone ("3. Results") and the prose names only the first and the last
("Chapter 1", "Chapter 7"): their count is the highest number. Families: `captions`,
`numbered`, `mentions` (distinct exhibits), `pages` (pages with a drawn table, whether it has
a caption or not), `sources` and `subset` (tables whose caption names accuracy).
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.count_docs import CountQuestion, generator_main, write_questions

TOPICS = (
    "cost per unit by region", "staff numbers by site", "energy use by building",
    "orders by quarter", "response times by team", "accuracy of the three models",
    "error rates by release", "accuracy on the held-out set", "budget by department",
)  # fmt: skip
PROSE = (
    "The programme continued as planned during the period under review.",
    "Figures are rounded to the nearest whole number throughout.",
    "The table below is kept for reference only and is not discussed further.",
    "Section 508 of the act applies to all public websites of the agency.",
    "Results were reviewed by the steering group before publication.",
    "The survey covered all regional offices and the head office.",
    "Costs remained within the approved budget for the second year.",
)
SOURCES = ("Source: Annual Survey of Members, 2023.", "Source: National Census 2021.",
           "Source: Internal records of the finance office.")  # fmt: skip
CHART_TITLES = ("Members by age group", "Share of members by region", "Growth of membership",
                "Satisfaction by service", "Visits per month")  # fmt: skip
LINES_PER_PAGE = 22
TABLE_TOP = 600.0  # a drawn table sits below the lines of text


@dataclass
class Report:
    """A report being written: its pages (lines with the keys of the questions they answer),
    the pages with a drawn table, and what each question counts."""

    name: str
    pages: list[list[tuple[str, tuple[str, ...]]]] = field(default_factory=list)
    drawn: set[int] = field(default_factory=set)  # 1-based pages with a ruled table
    counts: dict[str, int] = field(default_factory=dict)

    def line(self, text: str, *keys: str) -> None:
        if not self.pages or len(self.pages[-1]) >= LINES_PER_PAGE:
            self.pages.append([(f"{self.name.removesuffix('.pdf')} - page {len(self.pages) + 1}",
                                ())])  # fmt: skip
        self.pages[-1].append((text, keys))

    def new_page(self) -> None:
        self.pages.append([(f"{self.name.removesuffix('.pdf')} - page {len(self.pages) + 1}", ())])


def _prose(rng: random.Random, report: Report, n: int) -> None:
    for _ in range(n):
        report.line(rng.choice(PROSE))


def _chapter(rng: random.Random, r: Report, c: int, numbered: bool, state: dict[str, int]) -> None:
    """One chapter: its heading, prose, tables (some drawn), figures, charts, mentions."""
    r.new_page()
    title = rng.choice(("Background", "Methods", "Results", "Operations", "Finances", "Outlook"))
    r.line(f"{c}. {title}" if numbered else f"Chapter {c}: {title}", *(() if numbered else
                                                                        ("chapters",)))  # fmt: skip
    for _ in range(rng.randint(1, 3)):
        _prose(rng, r, rng.randint(2, 6))
        roll = rng.random()
        if roll < 0.45:
            _table(rng, r, state)
        elif roll < 0.7:
            state["figure"] += 1
            r.line(f"Figure {state['figure']}. {rng.choice(CHART_TITLES)} over the period.",
                   "figures")  # fmt: skip
        elif roll < 0.85:
            r.line(rng.choice(CHART_TITLES))
            source = rng.choice(SOURCES)
            r.line(source, *(("sources",) if "Annual Survey" in source else ()))
        else:
            _exhibits(rng, r, state)
        _mention(rng, r, state)


def _table(rng: random.Random, r: Report, state: dict[str, int]) -> None:
    state["table"] += 1
    topic = rng.choice(TOPICS)
    keys = ("tables", *(("accuracy",) if "accuracy" in topic else ()))
    r.line(f"Table {state['table']}: {topic.capitalize()}", *keys)
    r.drawn.add(len(r.pages))
    if rng.random() < 0.25:  # it goes on over the page
        r.new_page()
        r.line(f"Table {state['table']} (continued)")
        r.drawn.add(len(r.pages))


def _exhibits(rng: random.Random, r: Report, state: dict[str, int]) -> None:
    first = state["exhibit"] + 1
    state["exhibit"] += rng.randint(1, 2)
    names = [f"P-{n}" for n in range(first, state["exhibit"] + 1)]
    keys = ["exhibits"] * len(names)
    said = " and ".join(names)
    r.line(f"The claimant filed Exhibit{'s' if len(names) > 1 else ''} {said} with the court.",
           *keys)  # fmt: skip
    if first > 1 and rng.random() < 0.5:
        r.line(f"The court also referred to Exhibit P-{rng.randint(1, first - 1)} again.")


def _mention(rng: random.Random, r: Report, state: dict[str, int]) -> None:
    if state["table"] and rng.random() < 0.6:
        r.line(f"As Table {rng.randint(1, state['table'])} shows, the trend held in most sites.")
    if state["figure"] and rng.random() < 0.4:
        r.line(f"The same pattern is visible in Fig. {rng.randint(1, state['figure'])} above.")


def report(rng: random.Random, n: int, small: bool) -> Report:
    numbered = n % 2 == 0
    r = Report(f"annual-report-{n}.pdf")
    chapters = rng.randint(3, 5) if small else rng.randint(5, 12)
    appendices = rng.randint(2, 6)
    state = {"table": 0, "figure": 0, "exhibit": 0}
    r.line("Table of Contents")
    for c in range(1, chapters + 1):
        _chapter(rng, r, c, numbered, state)
    if numbered:
        r.line(f"The method is set out in Chapter 1 and the outlook in Chapter {chapters}.",
               "chapters", "chapters")  # fmt: skip
    r.line(f"Further detail is given in Appendix {string.ascii_uppercase[appendices - 1]}.")
    for a in range(appendices):
        r.new_page()
        r.line(f"Appendix {string.ascii_uppercase[a]}: {rng.choice(CHART_TITLES)}", "appendices")
        _prose(rng, r, rng.randint(3, 8))
        if rng.random() < 0.4:  # a table without a caption, drawn only
            r.drawn.add(len(r.pages))
    r.counts = {"chapters": chapters, "appendices": appendices, "drawn": len(r.drawn), **state}
    return r


QUESTIONS = (
    ("How many tables are in the report?", "captions", "tables"),
    ("How many figures does the report contain?", "captions", "figures"),
    ("How many appendices does the report have?", "captions", "appendices"),
    ("How many chapters are in this report?", "captions", "chapters"),
    ("How many exhibits are mentioned in the report?", "mentions", "exhibits"),
    ("How many pages contain tables?", "pages", "drawn"),
    ("How many charts are sourced from the Annual Survey of Members?", "sources", "sources"),
    ("How many tables are about accuracy?", "subset", "accuracy"),
    ("List all the figures in the report.", "captions", "figures"),
)


def questions_of(r: Report) -> list[CountQuestion]:
    out = []
    for i, (question, family, key) in enumerate(QUESTIONS, start=1):
        found = [(p, text) for p, page in enumerate(r.pages, start=1)
                 for text, keys in page for k in keys if k == key]  # fmt: skip
        if key == "drawn":
            found = [(p, "") for p in sorted(r.drawn)]
        count = r.counts["chapters"] if key == "chapters" else len(found)
        if not count:
            continue
        numbered = key == "chapters" and count != len(found)
        out.append(CountQuestion(f"{r.name.removesuffix('.pdf')}-q{i}", r.name, question,
                                 "numbered" if numbered else family, count,
                                 [p for p, _ in found],
                                 [t for _, t in found if t]))  # fmt: skip
    return out


def write_pdf(path: Path, r: Report) -> None:
    import pymupdf

    doc = pymupdf.open()
    for number, lines in enumerate(r.pages, start=1):
        page = doc.new_page(width=595, height=842)
        for row, (text, _) in enumerate(lines):
            page.insert_text((60, 60 + row * 24), text, fontsize=9.5)
        if number in r.drawn:
            _draw_table(page, random.Random(number))
    doc.set_metadata({"title": path.stem.replace("-", " ").title()})
    doc.save(str(path))
    doc.close()


def _draw_table(page: Any, rng: random.Random) -> None:
    """A ruled grid: a header of years, four labelled rows of amounts."""
    rows = [["Item", "2023", "2022", "2021"]] + [
        [label] + [f"{rng.randint(100, 9999):,}" for _ in range(3)]
        for label in ("Revenue", "Costs", "Staff", "Sites")
    ]  # fmt: skip
    x0, widths, height = 60.0, (150.0, 90.0, 90.0, 90.0), 22.0
    for i, row in enumerate(rows):
        y = TABLE_TOP + i * height
        x = x0
        for w, cell in zip(widths, row, strict=True):
            page.draw_rect((x, y, x + w, y + height), color=(0, 0, 0), width=0.6)
            page.insert_text((x + 4, y + 15), cell, fontsize=9)
            x += w


def build(out: Path, seed: int = 23, small: bool = False) -> list[CountQuestion]:
    docs = out / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    questions: list[CountQuestion] = []
    for n in range(1, 3 if small else 7):
        r = report(rng, n, small)
        write_pdf(docs / r.name, r)
        questions += questions_of(r)
    write_questions(out, questions)
    return questions


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.parts_docs", __doc__, build, 23,
                          "two reports of 3-5 chapters", argv)  # fmt: skip


if __name__ == "__main__":
    main()
