"""Generated manuals and survey reports whose web addresses, e-mail addresses, phone numbers and
countries are known: `python -m bench.values_docs OUT [--seed N] [--small]` writes
OUT/documents/*.pdf and OUT/questions.jsonl for `desktop-rag eval counts`.

The true answers come from what was written, not from the rules that count them. Each value
may be written more than once (a support address on several pages: one value), countries
under other names ("U.S." and "United States": one country), and every document holds what a
shape would take wrongly: version numbers, dates, amounts, a year row of a table, a web domain
inside an e-mail address, nationalities ("German"), "Latin America", a heading "CONTACT US".
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.count_docs import CountQuestion, generator_main, write_questions

_SITES = ["www.brightkettle.com", "support.brightkettle.com/descale", "www.aquaserve.org",
          "https://partners.brightkettle.de/service", "www.recycle-now.eu", "docs.kettleworks.io",
          "www.energy-label.eu/models"]  # fmt: skip
_MAILS = ["help@brightkettle.com", "parts.orders@brightkettle.de", "warranty@aquaserve.org",
          "press-office@kettleworks.io", "j.moreau@recycle-now.eu"]  # fmt: skip
_PHONES = ["+49 30 1234 5678", "0800 555 0199", "+44 20 7946 0958", "+1 (212) 555-0147",
           "030 9876 5432"]  # fmt: skip
_PHONE_LEAD = ["Hotline: {}", "Call our service team on {} (weekdays).", "Tel. {}",
               "Spare parts, phone {}"]
_FILLER = ["Descale the machine every 200 cups or when the light turns orange.",
           "Firmware version 2.3.14 adds a quieter grinder mode.",
           "Models sold after 2021-03-04 carry the new seal.",
           "Spare filters cost 12.50 each, or 1,234.56 for a pallet.",
           "Year 2015 2014 2013 2012",
           "Keep the power cord away from hot surfaces.",
           "Rinse the water tank with fresh water before first use."]  # fmt: skip
_COUNTRIES = {"United States": ["U.S.", "United States"],
              "United Kingdom": ["UK", "United Kingdom"], "France": ["France"],
              "Japan": ["Japan"], "Brazil": ["Brazil"],
              "South Africa": ["South Africa"], "India": ["India"], "Canada": ["Canada"],
              "Germany": ["Germany"], "Mexico": ["Mexico"], "Poland": ["Poland"],
              "South Korea": ["South Korea"]}  # fmt: skip
_SAYS = ["In {}, most adults said they trust the survey.", "Views in {} changed little since 2019.",
         "Respondents in {} were asked the same questions.", "{}: 45% favourable, 38% not."]
_REPORT_FILLER = ["German and French respondents differ on defence spending.",
                  "Latin America was not part of this wave.", "CONTACT US",
                  "Answers are weighted to match each public's census profile.",
                  "Margins of error are 3.2 points at the 95% level."]  # fmt: skip


@dataclass
class Doc:
    name: str
    title: str
    pages: list[list[str]] = field(default_factory=list)
    questions: list[CountQuestion] = field(default_factory=list)


def _place(rng: random.Random, pages: int, lines: list[str]) -> list[tuple[int, str]]:
    """The lines at random pages, in reading order."""
    return sorted(((rng.randrange(pages), line) for line in lines), key=lambda p: p[0])


def _pages(rng: random.Random, n: int, placed: list[tuple[int, str]], filler: list[str],
           title: str) -> list[list[str]]:  # fmt: skip
    out = [[f"{title} - page {p + 1}"] for p in range(n)]
    for page, line in placed:
        out[page].append(line)
    for page in out:
        for _ in range(rng.randint(4, 8)):
            page.insert(rng.randrange(1, len(page) + 1), rng.choice(filler))
    return out


def _first_of(placed: list[tuple[int, str]], values: dict[str, str]) -> tuple[list[int],
                                                                              list[str]]:
    """Page and line of each value's first mention, in reading order (`values`: line → value)."""
    seen: dict[str, tuple[int, str]] = {}
    for page, line in placed:
        seen.setdefault(values[line], (page + 1, line))
    firsts = sorted(seen.values())
    return [p for p, _ in firsts], [line for _, line in firsts]


def manual(rng: random.Random, n: int, small: bool) -> Doc:
    doc = Doc(f"values-manual-{n}.pdf", f"Kettle manual {n}")
    sites, mails, phones = (rng.sample(pool, rng.randint(3, len(pool)))
                            for pool in (_SITES, _MAILS, _PHONES))  # fmt: skip
    value_of: dict[str, str] = {}
    site_lines = [(f"More help online: {s}", s) for s in sites for _ in range(rng.randint(1, 3))]
    mail_lines = [(f"Write to {m} for help.", m) for m in mails]
    phone_lines = [(rng.choice(_PHONE_LEAD).format(p), p) for p in phones]
    for line, value in site_lines + mail_lines + phone_lines:
        value_of[line] = value
    placed = _place(rng, rng.randint(6, 9) if small else rng.randint(20, 40), list(value_of))
    doc.pages = _pages(rng, max(p for p, _ in placed) + 2, placed, _FILLER, doc.title)
    asks = [("Which websites does the manual give?", "web", [ln for ln, _ in site_lines]),
            ("List every e-mail address in the manual.", "mail", [ln for ln, _ in mail_lines]),
            ("How many phone numbers are listed in the manual?", "phone",
             [ln for ln, _ in phone_lines])]  # fmt: skip
    for i, (question, family, lines) in enumerate(asks):
        pages, items = _first_of([p for p in placed if p[1] in lines], value_of)
        doc.questions.append(CountQuestion(f"{doc.name}-{i}", doc.name, question, family,
                                           len(items), pages, items))  # fmt: skip
    site_pages = sorted({p + 1 for p, line in placed if line in dict(site_lines)})
    doc.questions.append(CountQuestion(f"{doc.name}-pages", doc.name, "How many pages contain "
                                       "a web address?", "web pages", len(site_pages),
                                       site_pages))  # fmt: skip
    return doc


def report(rng: random.Random, n: int, small: bool) -> Doc:
    doc = Doc(f"values-survey-{n}.pdf", f"Survey report {n}")
    chosen = rng.sample(sorted(_COUNTRIES), rng.randint(5, len(_COUNTRIES)))
    value_of = {rng.choice(_SAYS).format(name): c for c in chosen for name in _COUNTRIES[c]}
    placed = _place(rng, rng.randint(5, 8) if small else rng.randint(15, 30), list(value_of))
    doc.pages = _pages(rng, max(p for p, _ in placed) + 2, placed, _REPORT_FILLER, doc.title)
    asks = [("How many countries are mentioned in the report?", []),
            ("List all countries mentioned in the report, except the U.S. and Germany.",
             ["United States", "Germany"])]  # fmt: skip
    for i, (question, excepted) in enumerate(asks):
        kept = [(p, line) for p, line in placed if value_of[line] not in excepted]
        pages, items = _first_of(kept, value_of)
        doc.questions.append(CountQuestion(f"{doc.name}-{i}", doc.name, question,
                                           "countries" if not excepted else "countries except",
                                           len(items), pages, items))  # fmt: skip
    return doc


def write_pdf(path: Path, doc: Doc) -> None:
    import pymupdf

    pdf = pymupdf.open()
    for lines in doc.pages:
        page = pdf.new_page(width=595, height=842)
        for row, text in enumerate(lines):
            page.insert_text((60, 60 + row * 24), text, fontsize=9.5)
    pdf.set_metadata({"title": doc.title})
    pdf.save(str(path))
    pdf.close()


def build(out: Path, seed: int = 29, small: bool = False) -> list[CountQuestion]:
    docs = out / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    questions: list[CountQuestion] = []
    for n in range(1, 2 if small else 4):
        for made in (manual(rng, n, small), report(rng, n, small)):
            write_pdf(docs / made.name, made)
            questions += made.questions
    write_questions(out, questions)
    return questions


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.values_docs", __doc__, build, 29,
                          "one manual and one report of 5-9 pages", argv)  # fmt: skip


if __name__ == "__main__":
    main()
