"""A second count set in vocabulary no rule was written for (issue 38), made after the first
(bench/count_docs_fresh.py) had been read: a confirmation set for what was chosen on that one.

- a machine maintenance log: 60 jobs, 11 about a leak, worded "hydraulic hose leaking",
  "oil dripping under the gearbox", "coolant seeping from the pump";
- a library loan register: 70 loans, 14 returned late ("returned 3 weeks late", "brought back
  after the due date", "overdue when it came back");
- course feedback: 50 comments, 10 about the pace ("far too fast", "rushed through the last
  chapters", "hard to keep up with the speed");
- fleet inspections: 40 vehicles, 9 that did not pass ("failed the brake test", "taken off the
  road", "rejected at inspection").

Each question has one rewording (`<question>~r1`), written with it, before any run.

`python -m bench.count_docs_more OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl for `desktop-rag eval counts` and `bench.judge_check collect`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bench.count_docs import CountQuestion, Draft, Line, generator_main
from bench.count_docs_fresh import _day, _mixed, _paged, write_set

LEAK = ("hydraulic hose leaking at the joint", "oil dripping under the gearbox",
        "coolant seeping from the pump seal")  # fmt: skip
OTHER_JOBS = ("belt tension adjusted", "sensor recalibrated", "guard bolts tightened",
              "filter changed on schedule", "software updated to the new release",
              "bearing replaced after noise")  # fmt: skip
MACHINES = ("Press 2", "Press 4", "Lathe 1", "Mill 3")
LATE = ("returned 3 weeks late", "brought back after the due date", "overdue when it came back")
ON_TIME = ("returned on time", "returned early", "renewed once, returned on time")
BOOKS = ("Dune", "Middlemarch", "The Hobbit", "Beloved", "Ulysses", "Emma", "Kindred")
PACE = ("the lectures were far too fast", "we rushed through the last chapters",
        "it was hard to keep up with the speed")  # fmt: skip
OTHER_FEEDBACK = ("great worked examples", "the slides were hard to read",
                  "more exercises would help", "the room was too cold",
                  "the tutor answered questions well")  # fmt: skip
NOT_PASSED = ("failed the brake test", "taken off the road after inspection",
              "rejected at inspection: worn tyres")  # fmt: skip
PASSED = ("passed inspection", "passed with a note on the wipers", "cleared for service")
REWORDED = {
    "maintenance-1-q1": "Count the maintenance jobs caused by leaks.",
    "maintenance-1-q2": "How many jobs were carried out on Press 4?",
    "loans-1-q1": "Which loans came back late?",
    "feedback-1-q1": "Which comments say the course moved too quickly?",
    "fleet-1-q1": "Which vehicles failed inspection?",
}


def maintenance(rng: random.Random, small: bool) -> Draft:
    total, leaks, pages = (24, 5, 2) if small else (60, 11, 5)
    lines: list[Line] = []
    for number, leak in enumerate(_mixed(rng, total, leaks), start=700):
        machine = rng.choice(MACHINES)
        what = rng.choice(LEAK if leak else OTHER_JOBS)
        keys = (("leak",) if leak else ()) + (("press4",) if machine == "Press 4" else ())
        lines.append((f"Job MX-{number} {_day(rng):%Y-%m-%d}, {machine}: {what}; "
                      f"downtime {rng.randint(1, 9)} h.", keys))  # fmt: skip
    asks = [
        ("How many maintenance jobs were about leaks?", "reworded", "leak"),
        ("List the jobs done on Press 4.", "condition", "press4"),
    ]
    return Draft("maintenance-1.pdf", "Maintenance log", _paged(lines, pages, "Maintenance"), asks)


def loans(rng: random.Random, small: bool) -> Draft:
    total, late, pages = (28, 6, 2) if small else (70, 14, 6)
    lines: list[Line] = []
    for number, is_late in enumerate(_mixed(rng, total, late), start=300):
        verdict = rng.choice(LATE if is_late else ON_TIME)
        lines.append((f"Loan L-{number}: '{rng.choice(BOOKS)}' borrowed {_day(rng):%d %b %Y}, "
                      f"{verdict}.", ("late",) if is_late else ()))  # fmt: skip
    asks = [("How many loans were returned late?", "reworded", "late")]
    return Draft("loans-1.pdf", "Library loans", _paged(lines, pages, "Loans"), asks)


def feedback(rng: random.Random, small: bool) -> Draft:
    total, pace, pages = (20, 4, 2) if small else (50, 10, 4)
    lines: list[Line] = []
    for number, about_pace in enumerate(_mixed(rng, total, pace), start=1):
        text = rng.choice(PACE if about_pace else OTHER_FEEDBACK)
        lines.append((f"Comment {number}: {text}.", ("pace",) if about_pace else ()))
    asks = [("How many comments complained about the pace of the course?", "reworded", "pace")]
    return Draft("feedback-1.pdf", "Course feedback", _paged(lines, pages, "Feedback"), asks)


def fleet(rng: random.Random, small: bool) -> Draft:
    total, bad, pages = (16, 4, 2) if small else (40, 9, 3)
    lines: list[Line] = []
    for number, failed in enumerate(_mixed(rng, total, bad), start=10):
        verdict = rng.choice(NOT_PASSED if failed else PASSED)
        lines.append((f"Van {number}, checked {_day(rng):%Y-%m-%d}: {verdict}.",
                      ("failed",) if failed else ()))  # fmt: skip
    asks = [("How many vehicles did not pass the inspection?", "reworded", "failed")]
    return Draft("fleet-1.pdf", "Fleet inspections", _paged(lines, pages, "Fleet"), asks)


def build(out: Path, seed: int = 307, small: bool = False) -> list[CountQuestion]:
    """Writes the set under OUT; returns the questions."""
    return write_set(out, seed, small, (maintenance, loans, feedback, fleet), REWORDED)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.count_docs_more", __doc__, build, 307,
                          "small documents (2 pages each)", argv)  # fmt: skip


if __name__ == "__main__":
    main()
