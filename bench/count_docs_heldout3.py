"""A third held-out count set (issue 38), written on 2026-12-06 (stop 51) after the second one's
first run had been read and before any run of the app with the changes that run led to (a
register the question's words point at makes a "how many" a count; a head that a register's
records mostly leave unsaid). New vocabulary and phrasing again:

- a pest control log: 45 visits, 8 that found pests ("two mice caught near the bins",
  "droppings behind the fridge"); no record says "inspection";
- a call log: 50 calls, 10 handed on ("passed to a supervisor", "escalated call: refund
  dispute", "transferred to second-line support"); only a few records say "call";
- an expense list: 40 expenses, 9 refused ("rejected: missing receipt", "declined, over the
  limit", "not reimbursed: personal expense").

Each question has one rewording (`<question>~r1`), written with it, before any run. Reported
whole, never tuned on.

`python -m bench.count_docs_heldout3 OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl for `desktop-rag eval counts`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bench.count_docs import CountQuestion, Draft, Line, generator_main
from bench.count_docs_fresh import _day, _mixed, _paged, write_set

PESTS = ("two mice caught near the bins", "droppings behind the fridge",
         "cockroach sighted under the sink")  # fmt: skip
CLEAN = ("traps clean", "bait stations untouched", "nothing to report", "seals intact")
AREAS = ("kitchen", "store room", "loading bay", "canteen", "cellar")
HANDED_ON = ("passed to a supervisor", "escalated call: refund dispute",
             "transferred to second-line support")  # fmt: skip
SETTLED = ("billing question answered", "password reset done", "address updated",
           "delivery date confirmed")  # fmt: skip
CALLERS = ("Mia Hart", "Raj Patel", "Ewa Nowak", "Sam Osei")
REFUSED = ("rejected: missing receipt", "declined, over the limit",
           "not reimbursed: personal expense")  # fmt: skip
PAID = ("approved", "paid with the May salary", "reimbursed in full")
ITEMS = ("taxi fare", "hotel night", "train ticket", "team lunch", "conference fee")
STAFF = ("Jon Park", "Lea Braun", "Ivo Petrov")
REWORDED = {
    "pests-1-q1": "Which visits found signs of vermin?",
    "calls-1-q1": "Which calls went up to a supervisor or the second-line team?",
    "expenses-1-q1": "Which submitted expenses come back unpaid?",
}


def pests(rng: random.Random, small: bool) -> Draft:
    total, found, pages = (20, 4, 2) if small else (45, 8, 4)
    lines: list[Line] = []
    for number, bad in enumerate(_mixed(rng, total, found), start=610):
        what = rng.choice(PESTS if bad else CLEAN)
        lines.append((f"PC-{number} ({_day(rng):%d %b %Y}) {rng.choice(AREAS)}: {what}.",
                      ("pests",) if bad else ()))  # fmt: skip
    asks = [("How many inspections detected pests?", "reworded", "pests")]
    return Draft("pests-1.pdf", "Pest control log", _paged(lines, pages, "Pest control"), asks)


def calls(rng: random.Random, small: bool) -> Draft:
    total, handed, pages = (22, 5, 2) if small else (50, 10, 4)
    lines: list[Line] = [("Calls are answered within three rings.", ())]
    for number, on in enumerate(_mixed(rng, total, handed), start=2201):
        what = rng.choice(HANDED_ON if on else SETTLED)
        lines.append((f"CL-{number} {rng.randint(8, 17)}:{rng.randint(10, 59)} caller "
                      f"{rng.choice(CALLERS)}: {what}.", ("on",) if on else ()))  # fmt: skip
    asks = [("How many calls needed a manager?", "reworded", "on")]
    return Draft("calls-1.pdf", "Contact centre log", _paged(lines, pages, "Contacts"), asks)


def expenses(rng: random.Random, small: bool) -> Draft:
    total, refused, pages = (18, 4, 2) if small else (40, 9, 3)
    lines: list[Line] = []
    for number, bad in enumerate(_mixed(rng, total, refused), start=90):
        what = rng.choice(REFUSED if bad else PAID)
        lines.append((f"EX-{number} ({_day(rng):%Y-%m-%d}) {rng.choice(ITEMS)}, "
                      f"{rng.randint(12, 400)}.{rng.randint(10, 99)} EUR, submitted by "
                      f"{rng.choice(STAFF)}: {what}.", ("refused",) if bad else ()))  # fmt: skip
    asks = [("How many expense claims were refused?", "reworded", "refused")]
    return Draft("expenses-1.pdf", "Expenses", _paged(lines, pages, "Expenses"), asks)


def build(out: Path, seed: int = 2207, small: bool = False) -> list[CountQuestion]:
    """Writes the set under OUT; returns the questions."""
    return write_set(out, seed, small, (pests, calls, expenses), REWORDED)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.count_docs_heldout3", __doc__, build, 2207,
                          "small documents (2 pages each)", argv)  # fmt: skip


if __name__ == "__main__":
    main()
