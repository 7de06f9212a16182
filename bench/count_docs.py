"""Documents whose counts are known: incident logs, meeting notes with action items, invoice
registers and status reports, generated with PyMuPDF with 10-60 matching items spread over
20-100 pages, and the questions about them with their true counts and item pages.

`python -m bench.count_docs OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl; `desktop-rag eval counts OUT/questions.jsonl OUT/documents` measures the
exhaustive route on them. Everything is drawn from one seeded random generator: the same seed
gives the same documents and answers.

Each question carries a `family`: `lexical` (the item's words are on its line), `condition`
(the items are a subset named by words on the line: "paid late", "from Acme"), `negation`
(some lines mention the thing only to deny it: only a judge tells them apart), `mention`
(occurrences of a name in prose) and `judge` (the condition needs reading: a payment after its
due date, with no word saying "late").
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

LINES_PER_PAGE = 30
Line = tuple[str, tuple[str, ...]]  # text, and the keys of the questions it counts for
MAX_ITEMS_PER_PAGE = 18

INCIDENT_TYPES = (
    "Network outage", "Power failure", "Printer jam", "Disk full alert", "Login failure",
    "Software crash", "Water leak", "Badge reader fault",
)  # fmt: skip
PLACES = ("building A", "building B", "the warehouse", "floor 3", "the data centre", "the lab")
PEOPLE = ("Maria Lopez", "Tom Becker", "Aiko Tanaka", "Sven Olsen", "Priya Nair", "Omar Haddad")
TASKS = (
    "send the revised budget", "book the venue", "update the risk register",
    "call the supplier", "draft the press note", "review the contract", "fix the test rig",
)  # fmt: skip
PROSE = (
    "{p} presented the quarterly figures and answered questions.",
    "The group discussed the delivery plan for the next release.",
    "{p} reported that the pilot customers are satisfied so far.",
    "Travel costs were slightly above the forecast this month.",
    "{p} asked whether the training budget can be moved to spring.",
    "The meeting agreed to keep the current supplier for now.",
)
COMPANIES = ("Acme Ltd", "Borealis GmbH", "Cobalt Partners", "Dunmore & Sons", "Eastwind Co")
REPORT_PROSE = (
    "Procurement closed two orders and opened a tender for cabling.",
    "The facilities team replaced the lighting in the east wing.",
    "Hiring for the support desk continued with three interviews.",
    "The audit of last year's accounts found no material issues.",
    "Customer satisfaction rose slightly compared with the last survey.",
)
MENTIONS = (
    "Project Falcon passed its design review this week.",
    "The budget for Project Falcon was confirmed by the board.",
    "Two engineers moved from support to Project Falcon.",
    "Testing of Project Falcon will start after the holidays.",
    "A risk workshop for Project Falcon is planned for the spring.",
)


@dataclass(frozen=True, slots=True)
class CountQuestion:
    """A question with its true answer: how many items, and the page of each."""

    id: str
    doc: str
    question: str
    family: str
    count: int
    pages: list[int] = field(default_factory=list)  # one per item, in reading order
    items: list[str] = field(default_factory=list)  # each item's line


@dataclass
class Draft:
    """A document being written: its pages of lines, and the questions to ask of it."""

    name: str
    title: str
    pages: list[list[Line]]
    asks: list[tuple[str, str, str]]  # (question, family, item key)


def _spread(rng: random.Random, pages: int, lines: list[Line], filler: Callable[[], Line],
            header: Callable[[int], str]) -> list[list[Line]]:  # fmt: skip
    """Item lines placed at random pages (in order), the rest of each page filler."""
    slots: list[int] = []
    for _ in lines:
        free = [p for p in range(pages) if slots.count(p) < MAX_ITEMS_PER_PAGE]
        slots.append(rng.choice(free))
    slots.sort()
    out: list[list[Line]] = [[(header(n + 1), ())] for n in range(pages)]
    for page, line in zip(slots, lines, strict=True):
        out[page].append(line)
    for page in out:
        while len(page) < LINES_PER_PAGE - 8:
            page.insert(rng.randrange(1, len(page) + 1), filler())
    return out


def plural(kind: str) -> str:
    """ "Software crash" -> "software crashes" (what a person asks)."""
    word = kind.lower()
    return word + ("es" if word.endswith(("sh", "ch", "s", "x")) else "s")


def _day(rng: random.Random) -> dt.date:
    return dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(360))


def incident_log(rng: random.Random, n: int, pages: int, negations: bool) -> Draft:
    target, listed = rng.sample(INCIDENT_TYPES, 2)
    counter = iter(range(1000, 9999))

    def line(kind: str) -> Line:
        day, place = _day(rng), rng.choice(PLACES)
        text = f"{day} {rng.randrange(24):02d}:{rng.randrange(60):02d} INC-{next(counter)} "
        return f"{text}{kind} in {place}; closed after {rng.randrange(5, 90)} minutes.", (kind,)

    others = [t for t in INCIDENT_TYPES if t not in (target, listed)]
    items = [line(target) for _ in range(rng.randint(10, 60))]
    items += [line(listed) for _ in range(rng.randint(10, 40))]
    if negations:
        items += [(f"Shift note: no {target.lower()} was seen during the night.", ())] * 4
    rng.shuffle(items)
    kind = "negation" if negations else "lexical"
    return Draft(f"incident-log-{n}.pdf", f"Incident log {n}",
                 _spread(rng, pages, items, lambda: line(rng.choice(others)),
                         lambda p: f"Incident log {n}, page {p}"),
                 [(f"How many {plural(target)} are recorded in the incident log?", kind, target),
                  (f"List every {listed.lower()} in the incident log.", "lexical",
                   listed)])  # fmt: skip


def meeting_notes(rng: random.Random, n: int, pages: int) -> Draft:
    person = rng.choice(PEOPLE)
    count = rng.randint(10, 30)
    owners = [person] * count + [rng.choice([p for p in PEOPLE if p != person])
                                 for _ in range(rng.randint(5, 30))]  # fmt: skip
    rng.shuffle(owners)

    def action(owner: str) -> Line:
        due = _day(rng)
        return f"Action item: {owner} to {rng.choice(TASKS)} by {due}.", (owner, "action")

    def prose() -> Line:
        return rng.choice(PROSE).format(p=rng.choice(PEOPLE)), ()

    return Draft(f"meeting-notes-{n}.pdf", f"Meeting notes {n}",
                 _spread(rng, pages, [action(o) for o in owners], prose,
                         lambda p: f"Team meeting {p}, minutes"),
                 [(f"List every action item assigned to {person}.", "condition", person),
                  ("How many action items are in the meeting notes?", "lexical",
                   "action")])  # fmt: skip


def invoice_register(rng: random.Random, n: int, pages: int, labelled: bool) -> Draft:
    company = rng.choice(COMPANIES)
    counter = iter(range(20000, 99999))

    def invoice(late: bool, firm: str) -> Line:
        due = _day(rng)
        paid = due + dt.timedelta(days=rng.randint(1, 40) if late else -rng.randint(0, 20))
        label = (" (late)" if late else " (on time)") if labelled else ""
        text = f"Invoice INV-{next(counter)} from {firm}: {rng.randrange(200, 9000)}.00 EUR, "
        return f"{text}due {due}, paid {paid}{label}.", (firm, *(("late",) if late else ()))

    lates = [invoice(True, rng.choice(COMPANIES)) for _ in range(rng.randint(10, 45))]
    own = [invoice(False, company) for _ in range(rng.randint(5, 20))]
    items = lates + own
    rng.shuffle(items)
    other = [c for c in COMPANIES if c != company]
    filler = lambda: invoice(False, rng.choice(other))  # noqa: E731
    asks = [("How many invoices were paid late?", "condition" if labelled else "judge", "late")]
    if labelled:
        asks.append((f"List every invoice from {company}.", "condition", company))
    name = f"invoice-register-{n}.pdf"
    return Draft(name, f"Invoice register {n}",
                 _spread(rng, pages, items, filler, lambda p: f"Invoice register, sheet {p}"),
                 asks)  # fmt: skip


def status_reports(rng: random.Random, n: int, pages: int) -> Draft:
    items: list[Line] = [(rng.choice(MENTIONS), ("falcon",)) for _ in range(rng.randint(10, 40))]
    return Draft(f"status-reports-{n}.pdf", f"Status reports {n}",
                 _spread(rng, pages, items, lambda: (rng.choice(REPORT_PROSE), ()),
                         lambda p: f"Weekly status report {p}"),
                 [("How many times is Project Falcon mentioned in the status reports?",
                   "mention", "falcon")])  # fmt: skip


def questions_of(draft: Draft) -> list[CountQuestion]:
    out = []
    for i, (question, family, key) in enumerate(draft.asks, start=1):
        found = [(p, text) for p, page in enumerate(draft.pages, start=1)
                 for text, keys in page if key in keys]  # fmt: skip
        stem = draft.name.removesuffix(".pdf")
        out.append(CountQuestion(f"{stem}-q{i}", draft.name, question, family, len(found),
                                 [p for p, _ in found], [t for _, t in found]))  # fmt: skip
    return out


def write_pdf(path: Path, draft: Draft) -> None:
    import pymupdf

    doc = pymupdf.open()
    for lines in draft.pages:
        page = doc.new_page(width=595, height=842)
        for row, (text, _) in enumerate(lines):
            page.insert_text((60, 60 + row * 24), text, fontsize=9.5)
    doc.set_metadata({"title": draft.title})
    doc.save(str(path))
    doc.close()


def drafts(seed: int, small: bool = False) -> list[Draft]:
    """The documents of one seed: ten of them (small: four, of 20-30 pages)."""
    rng = random.Random(seed)
    size = (lambda: rng.randint(20, 30)) if small else (lambda: rng.randint(20, 100))
    made = [incident_log(rng, 1, size(), False), meeting_notes(rng, 1, size()),
            invoice_register(rng, 1, size(), True), status_reports(rng, 1, size())]  # fmt: skip
    if not small:
        made += [incident_log(rng, 2, size(), False), incident_log(rng, 3, size(), True),
                 meeting_notes(rng, 2, size()), invoice_register(rng, 2, size(), True),
                 invoice_register(rng, 3, size(), False),
                 status_reports(rng, 2, size())]  # fmt: skip
    return made


def build(out: Path, seed: int = 17, small: bool = False) -> list[CountQuestion]:
    """Writes OUT/documents/*.pdf and OUT/questions.jsonl; returns the questions."""
    docs = out / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    questions: list[CountQuestion] = []
    for draft in drafts(seed, small):
        write_pdf(docs / draft.name, draft)
        questions += questions_of(draft)
    write_questions(out, questions)
    return questions


def write_questions(out: Path, questions: list[CountQuestion]) -> None:
    """OUT/questions.jsonl, one question a line (what `eval counts` reads)."""
    lines = [json.dumps(asdict(q), ensure_ascii=False) for q in questions]
    (out / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


Builder = Callable[[Path, int, bool], list[CountQuestion]]


def generator_main(
    prog: str, doc: str | None, build_set: Builder, seed: int, small_help: str,
    argv: list[str] | None,
) -> dict[str, Any]:
    """The command line every generated count set shares: OUT, --seed, --small."""
    parser = argparse.ArgumentParser(prog=prog, description=doc)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--small", action="store_true", help=small_help)
    args = parser.parse_args(argv)
    questions = build_set(args.out, args.seed, args.small)
    summary = {"questions": len(questions), "counts": [q.count for q in questions]}
    print(json.dumps(summary))
    return summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.count_docs", __doc__, build, 17,
                          "four documents of 20-30 pages", argv)  # fmt: skip


if __name__ == "__main__":
    main()
