"""Count documents in vocabulary no rule or prompt of this project was written for (issue 38):
a helpdesk ticket list, a water-sample register, expense claims and staff newsletters, with
questions and their rewordings written before any run of the app on them.

- Conditions are worded unlike the lines: "printing problems" for "paper jam", "toner empty",
  "cannot print"; "failed the test" for "above the limit"; "turned down" for "rejected",
  "declined", "not approved".
- Each document also holds lines that share the thing's words without being one ("Note: the
  printer lease is renewed in May.", a newsletter's "Helios" in a heading).
- Every question has one rewording (id `<question>~r1`), in its original's split (a hash of the
  id, evaluation/splits.py), so that the set reports dev and test beside each other.

`python -m bench.count_docs_fresh OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl (the format of bench/count_docs.py) for `desktop-rag eval counts`.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
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
STAFF = ("Lena Fischer", "Marco Rossi", "Ines Duarte", "Karl Berg", "Yuki Mori")
PRINTING = (
    "printer on floor {a} shows a paper jam",
    "toner empty in the copier next to room {a}",
    "cannot print to the plotter in room {a}",
    "print jobs stuck in the queue for the accounts team",
    "printouts come out blank from the printer by desk {a}",
)
OTHER_TICKETS = (
    "password reset for a new starter", "laptop screen flickers when docked",
    "VPN drops every few minutes", "mailbox full warning", "monitor arm broken at desk {a}",
    "keyboard missing two keys", "calendar invites arrive twice", "Wi-Fi weak in room {a}",
)  # fmt: skip
TICKET_NOTES = (
    "Note: the printer lease is renewed in May.",
    "Note: printing costs are charged to each department from July.",
)
WELLS = ("Well 2", "Well 4", "Well 7", "Well 9", "the river intake")
FAILED = ("above the limit", "exceeds the permitted level", "over the threshold, resampled")
PASSED = ("within the limit", "below the permitted level", "no issues found")
CLAIM_ITEMS = (
    "train ticket to Hamburg", "hotel night in Lyon", "taxi from the airport",
    "client lunch", "conference fee", "parking at the trade fair", "printer paper",
)  # fmt: skip
TURNED_DOWN = ("rejected (no receipt)", "declined: over the daily limit", "not approved")
ACCEPTED = ("approved", "approved and paid", "accepted")
NEWS_HELIOS = (
    "The Helios rollout reached the Lisbon office this month.",
    "Helios training sessions for the sales team are fully booked.",
    "Feedback on Helios has been mostly positive, says the project lead.",
    "From March, holiday requests go through Helios only.",
)
NEWS_OTHER = (
    "The canteen now offers a vegetarian dish every day.",
    "Our football team won the regional cup.",
    "The car park will be closed for repairs on Saturday.",
    "Welcome to the seven colleagues who joined in February.",
    "The summer party takes place on the roof terrace.",
)
REWORDED = {  # question id -> its rewording, written with the questions, before any run
    "helpdesk-1-q1": "Count the tickets that concern printers or printing.",
    "helpdesk-1-q2": "How many tickets had Lena Fischer as their handler?",
    "samples-1-q1": "Which samples exceeded the limit?",
    "samples-1-q2": "How many samples were taken at Well 7?",
    "claims-1-q1": "Which expense claims were rejected?",
    "claims-1-q2": "How many claims did Jonas Weber file?",
    "newsletters-1-q1": "Count every mention of Helios in the newsletters.",
}


def _day(rng: random.Random) -> dt.date:
    return dt.date(2025, 1, 1) + dt.timedelta(days=rng.randrange(330))


def _paged(items: list[Line], pages: int, header: str) -> list[list[Line]]:
    """The items in order, spread evenly over `pages` pages under a running header."""
    per = -(-len(items) // pages)
    out = [[(f"{header} - page {p + 1}", ()), *items[p * per : (p + 1) * per]]
           for p in range(pages)]  # fmt: skip
    return [page[:LINES_PER_PAGE] for page in out if len(page) > 1]


def _mixed(rng: random.Random, total: int, wanted: int) -> list[bool]:
    kinds = [True] * wanted + [False] * (total - wanted)
    rng.shuffle(kinds)
    return kinds


def helpdesk(rng: random.Random, small: bool) -> Draft:
    total, printing, pages = (30, 6, 3) if small else (90, 16, 8)
    lines: list[Line] = []
    for number, is_printing in enumerate(_mixed(rng, total, printing), start=2001):
        what = rng.choice(PRINTING if is_printing else OTHER_TICKETS).format(a=rng.randint(1, 40))
        who = rng.choice(STAFF)
        keys: tuple[str, ...] = ("printing",) if is_printing else ()
        keys += ("lena",) if who == "Lena Fischer" else ()
        lines.append((f"HD-{number} ({_day(rng):%Y-%m-%d}) {what}; handled by {who}.", keys))
    for note in TICKET_NOTES:
        lines.insert(rng.randrange(len(lines)), (note, ()))
    asks = [
        ("How many tickets were about printing problems?", "reworded", "printing"),
        ("List the tickets handled by Lena Fischer.", "condition", "lena"),
    ]
    return Draft("helpdesk-1.pdf", "IT helpdesk tickets", _paged(lines, pages, "Helpdesk"),
                 asks)  # fmt: skip


def samples(rng: random.Random, small: bool) -> Draft:
    total, failed, pages = (24, 5, 2) if small else (70, 12, 6)
    lines: list[Line] = []
    for number, bad in enumerate(_mixed(rng, total, failed), start=300):
        well = rng.choice(WELLS)
        verdict = rng.choice(FAILED if bad else PASSED)
        keys = (("failed",) if bad else ()) + (("well7",) if well == "Well 7" else ())
        lines.append((f"Sample S-{number} from {well}, received {_day(rng):%d.%m.%Y}: "
                      f"nitrate {rng.randint(5, 90)} mg/L, {verdict}.", keys))  # fmt: skip
    asks = [
        ("How many samples failed the test?", "reworded", "failed"),
        ("Which samples came from Well 7?", "condition", "well7"),
    ]
    return Draft("samples-1.pdf", "Water sample register", _paged(lines, pages, "Samples"),
                 asks)  # fmt: skip


def claims(rng: random.Random, small: bool) -> Draft:
    total, down, pages = (30, 6, 3) if small else (80, 15, 7)
    people = ("Jonas Weber", "Ana Silva", "Tariq Aziz", "Hanna Lind")
    lines: list[Line] = []
    for number, refused in enumerate(_mixed(rng, total, down), start=100):
        who = rng.choice(people)
        verdict = rng.choice(TURNED_DOWN if refused else ACCEPTED)
        keys = (("down",) if refused else ()) + (("jonas",) if who == "Jonas Weber" else ())
        amount = rng.randint(12, 640) + rng.choice((0, 0.5, 0.9))
        lines.append((f"Claim EC-{number} by {who}: {rng.choice(CLAIM_ITEMS)}, "
                      f"{amount:.2f} EUR, {verdict}.", keys))  # fmt: skip
    asks = [
        ("How many expense claims were turned down?", "reworded", "down"),
        ("List every claim that Jonas Weber submitted.", "condition", "jonas"),
    ]
    return Draft("claims-1.pdf", "Expense claims", _paged(lines, pages, "Expense claims"),
                 asks)  # fmt: skip


def newsletters(rng: random.Random, small: bool) -> Draft:
    lines: list[Line] = []
    for _ in range(30 if small else 70):
        helios = rng.random() < 0.3
        text = rng.choice(NEWS_HELIOS if helios else NEWS_OTHER)
        lines.append((text, ("helios",) if helios else ()))
    asks = [("How many times is Helios mentioned in the newsletters?", "mention", "helios")]
    return Draft("newsletters-1.pdf", "Staff newsletters",
                 _paged(lines, 4 if small else 10, "Staff newsletter"), asks)  # fmt: skip


Maker = Callable[[random.Random, bool], Draft]


def write_set(
    out: Path, seed: int, small: bool, makers: Sequence[Maker], reworded: Mapping[str, str]
) -> list[CountQuestion]:
    """Writes OUT/documents/*.pdf and OUT/questions.jsonl (the originals, then each one's
    rewording from `reworded`, under `<id>~r1`); returns the questions."""
    docs = out / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    questions: list[CountQuestion] = []
    for make in makers:
        draft = make(rng, small)
        write_pdf(docs / draft.name, draft)
        questions += questions_of(draft)
    again = [replace(q, id=f"{q.id}~r1", question=reworded[q.id]) for q in questions]
    write_questions(out, questions + again)
    return questions + again


def build(out: Path, seed: int = 211, small: bool = False) -> list[CountQuestion]:
    """Writes the set under OUT; returns the questions."""
    return write_set(out, seed, small, (helpdesk, samples, claims, newsletters), REWORDED)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.count_docs_fresh", __doc__, build, 211,
                          "small documents (2-4 pages each)", argv)  # fmt: skip


if __name__ == "__main__":
    main()
