"""Count documents nobody tuned on: other seeds, other vocabulary and questions whose condition
is worded unlike the text (issue 38), beside bench/count_docs.py's sets.

- a warehouse safety log: 120 incidents and 2 notes, four lines a page (31 pages), 17 of the
  incidents with a forklift, written in varied ways ("A forklift reversing out of aisle 4
  clipped ...", "... struck by a forklift tine"); the question asks which incidents
  "involved" a forklift, a word the log never uses; two notes mention forklifts without
  being incidents;
- a customer complaint register whose question ("about late delivery") only the complaint's
  text answers ("arrived four days after the promised date");
- site bulletins that mention a project under two spellings of its name, asked "how often".

`python -m bench.count_docs_reworded OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl (the format of bench/count_docs.py) for `desktop-rag eval counts`.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any

from bench.count_docs import (
    CountQuestion,
    Draft,
    Line,
    generator_main,
    questions_of,
    write_pdf,
    write_questions,
)

LINES_PER_PAGE = 22
FORKLIFT = (
    "A forklift reversing out of aisle {a} clipped a racking upright; no one was hurt.",
    "Pallet dropped from a forklift mast in bay {a}; stock damaged, area cordoned off.",
    "Picker's foot struck by a forklift tine near dock {a}; first aid given.",
    "Forklift collided with a roller door at dock {a}; door out of service.",
    "Near miss: pedestrian stepped into the path of a forklift in aisle {a}.",
    "Forklift tipped a stacked load while turning in bay {a}; nobody injured.",
)
OTHER = (
    "Slip on a wet floor by the canteen; bruised knee, first aid given.",
    "Cut to a hand while opening a carton with a blade in bay {a}.",
    "Conveyor belt jammed at station {a}; stopped for twenty minutes.",
    "Hydraulic oil spill under the baler; cleaned up with absorbent.",
    "Pallet collapsed on the top rack of aisle {a}; area cleared.",
    "Fire door in aisle {a} found wedged open; closed and reported.",
    "Delivery driver reversed into a bollard at gate {a}; minor damage.",
    "Strain injury while lifting a heavy box in aisle {a}.",
    "Ladder found with a broken rung in bay {a}; taken out of use.",
    "Smoke alarm triggered by dust from the loading bay; false alarm.",
)
NOTES = (
    "Note: forklift battery charging moves to bay 2 from next month.",
    "Note: forklift driver licences are due for renewal in March.",
)
LATE = (
    "parcel arrived {d} days after the promised date",
    "order turned up {d} days later than the confirmed delivery day",
    "goods were delivered {d} days after the date on the confirmation",
)
NOT_LATE = (
    "wrong colour sent", "item arrived damaged", "invoice shows the wrong amount",
    "courier was rude at the door", "missing instruction leaflet", "refund not yet received",
)  # fmt: skip
BULLETIN = (
    "The Orion upgrade moves to its testing phase next week.",
    "Budget for Project Orion was approved on Monday.",
    "Two technicians joined the Orion upgrade team.",
    "Training for the canteen staff is planned for June.",
    "The car park will be resurfaced over the weekend.",
    "Quarterly figures were shared at the town hall.",
)


def _day(rng: random.Random) -> dt.date:
    return dt.date(2025, 1, 1) + dt.timedelta(days=rng.randrange(330))


def _paged(rng: random.Random, items: list[Line], pages: int, header: str) -> list[list[Line]]:
    """The items in order, spread evenly over `pages` pages under a running header."""
    per = -(-len(items) // pages)
    out = [[(f"{header}, page {p + 1}", ()), *items[p * per : (p + 1) * per]]
           for p in range(pages)]  # fmt: skip
    return [page[:LINES_PER_PAGE] for page in out if len(page) > 1]


def safety_log(rng: random.Random, n: int, small: bool) -> Draft:
    total, forklifts, pages = (40, 7, 10) if small else (120, 17, 40)
    kinds = [True] * forklifts + [False] * (total - forklifts)
    rng.shuffle(kinds)
    lines: list[Line] = []
    for number, forklift in enumerate(kinds, start=1):
        text = rng.choice(FORKLIFT if forklift else OTHER).format(a=rng.randint(1, 12))
        stamp = f"{_day(rng):%d %b %Y} {rng.randrange(6, 22):02d}:{rng.randrange(60):02d}"
        lines.append((f"#{number:03d} {stamp} - {text}", ("forklift",) if forklift else ()))
    for note in NOTES:
        lines.insert(rng.randrange(len(lines)), (note, ()))
    asks = [("How many incidents in the log involved a forklift?", "reworded", "forklift"),
            ("Which incidents involved a forklift?", "reworded", "forklift")]
    return Draft(f"safety-log-{n}.pdf", f"Warehouse safety log {n}",
                 _paged(rng, lines, pages, f"Warehouse safety log {n}"), asks)  # fmt: skip


def complaints(rng: random.Random, n: int, small: bool) -> Draft:
    total, late, pages = (24, 6, 4) if small else (60, 14, 12)
    kinds = [True] * late + [False] * (total - late)
    rng.shuffle(kinds)
    lines: list[Line] = []
    for number, is_late in enumerate(kinds, start=501):
        what = rng.choice(LATE).format(d=rng.randint(2, 9)) if is_late else rng.choice(NOT_LATE)
        lines.append((f"Complaint C-{number}, {_day(rng):%Y-%m-%d}: {what}.",
                      ("late",) if is_late else ()))  # fmt: skip
    asks = [("How many complaints were about late delivery?", "judge", "late")]
    return Draft(f"complaints-{n}.pdf", f"Complaint register {n}",
                 _paged(rng, lines, pages, "Customer complaint register"), asks)  # fmt: skip


def bulletins(rng: random.Random, n: int, small: bool) -> Draft:
    lines: list[Line] = []
    for _ in range(30 if small else 80):
        text = rng.choice(BULLETIN)
        lines.append((text, ("orion",) if "Orion" in text else ()))
    asks = [("How often is Orion mentioned in the site bulletins?", "mention", "orion")]
    return Draft(f"bulletins-{n}.pdf", f"Site bulletins {n}",
                 _paged(rng, lines, 6 if small else 16, "Site bulletin"), asks)  # fmt: skip


def build(out: Path, seed: int = 101, small: bool = False) -> list[CountQuestion]:
    """Writes OUT/documents/*.pdf and OUT/questions.jsonl; returns the questions."""
    docs = out / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    questions: list[CountQuestion] = []
    for draft in (safety_log(rng, 1, small), complaints(rng, 1, small), bulletins(rng, 1, small)):
        write_pdf(docs / draft.name, draft)
        questions += questions_of(draft)
    write_questions(out, questions)
    return questions


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.count_docs_reworded", __doc__, build, 101,
                          "small documents (a 10-page log of 40 incidents)", argv)  # fmt: skip


if __name__ == "__main__":
    main()
