"""A held-out count set (issue 38), written on 2026-12-06 before any change it is to judge and
before any run of the app on it: new vocabulary, records that never name the thing counted,
and notes that share the question's words without being records.

- a returns register: 60 returns, 12 damaged in transit ("arrived with a cracked screen",
  "box crushed and the lamp inside broken", "glass shattered during delivery");
- a visitor log: 50 visits, 10 without an appointment ("walked in without booking",
  "unannounced visit", "no appointment on file");
- a bug tracker: 70 bugs, 13 crashes ("app closes unexpectedly when saving", "segfault on
  start-up", "freezes and then quits"), 15 reported by Priya Nair;
- a shipping log: 45 lines "SH-…", 11 to Rotterdam (the records never say "shipment").

Each question has one rewording (`<question>~r1`), written with it, before any run. The set is
for confirmation: it is reported whole, never tuned on.

`python -m bench.count_docs_heldout OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl for `desktop-rag eval counts`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bench.count_docs import CountQuestion, Draft, Line, generator_main
from bench.count_docs_fresh import _day, _mixed, _paged, write_set

DAMAGED = ("arrived with a cracked screen", "box crushed and the lamp inside broken",
           "glass shattered during delivery")  # fmt: skip
OTHER_RETURNS = ("wrong size ordered", "customer changed their mind",
                 "colour differs from the photo", "duplicate order", "no longer needed")
PRODUCTS = ("desk lamp", "blender", "tablet", "kettle", "mirror", "monitor")
WALK_IN = ("walked in without booking", "unannounced visit", "no appointment on file")
BOOKED = ("scheduled meeting with HR", "booked interview", "delivery by appointment",
          "planned site tour")  # fmt: skip
VISITORS = ("Dana Okafor", "Tomas Berg", "Aiko Sato", "Luis Mendes", "Ruth Cohen")
CRASH = ("app closes unexpectedly when saving", "segfault on start-up",
         "freezes and then quits")  # fmt: skip
OTHER_BUGS = ("typo in the settings dialog", "button misaligned on small screens",
              "slow search on large folders", "tooltip shows the wrong shortcut",
              "dark mode colours too faint")  # fmt: skip
REPORTERS = ("Priya Nair", "Sven Holm", "Mei Lin", "Omar Haddad")
PORTS = ("Rotterdam", "Antwerp", "Hamburg", "Le Havre", "Gdansk")
REWORDED = {
    "returns-1-q1": "Which returned products were broken in shipping?",
    "visitors-1-q1": "Count the visits that were not booked in advance.",
    "bugs-1-q1": "Which reported bugs make the program crash?",
    "bugs-1-q2": "How many bugs did Priya Nair report?",
    "shipping-1-q1": "Count the consignments sent to Rotterdam.",
}


def returns(rng: random.Random, small: bool) -> Draft:
    total, damaged, pages = (24, 5, 2) if small else (60, 12, 5)
    lines: list[Line] = [("Note: damaged packaging is recycled at the depot.", ())]
    for number, is_damaged in enumerate(_mixed(rng, total, damaged), start=5001):
        why = rng.choice(DAMAGED if is_damaged else OTHER_RETURNS)
        lines.append((f"RMA {number} ({_day(rng):%d %b %Y}), {rng.choice(PRODUCTS)}: {why}; "
                      f"refund issued.", ("damaged",) if is_damaged else ()))  # fmt: skip
    asks = [("How many returns were because the item arrived damaged?", "reworded", "damaged")]
    return Draft("returns-1.pdf", "Returns register", _paged(lines, pages, "Returns"), asks)


def visitors(rng: random.Random, small: bool) -> Draft:
    total, walk_in, pages = (20, 4, 2) if small else (50, 10, 4)
    lines: list[Line] = []
    for number, is_walk_in in enumerate(_mixed(rng, total, walk_in), start=101):
        why = rng.choice(WALK_IN if is_walk_in else BOOKED)
        lines.append((f"V-{number}, {_day(rng):%Y-%m-%d} {rng.randint(8, 17)}:{rng.choice('03')}0,"
                      f" {rng.choice(VISITORS)}: {why}.", ("walkin",) if is_walk_in else ()))
    lines.append(("Reminder: appointments are booked through reception.", ()))
    asks = [("How many visitors came without an appointment?", "reworded", "walkin")]
    return Draft("visitors-1.pdf", "Visitor log", _paged(lines, pages, "Visitors"), asks)


def bugs(rng: random.Random, small: bool) -> Draft:
    total, crashes, pages = (28, 5, 2) if small else (70, 13, 6)
    lines: list[Line] = []
    for number, crash in enumerate(_mixed(rng, total, crashes), start=4400):
        what = rng.choice(CRASH if crash else OTHER_BUGS)
        who = rng.choice(REPORTERS)
        keys = (("crash",) if crash else ()) + (("priya",) if who == "Priya Nair" else ())
        lines.append((f"BUG-{number} [{rng.choice(('high', 'low', 'medium'))}] reported "
                      f"{_day(rng):%Y-%m-%d} by {who}: {what}.", keys))  # fmt: skip
    asks = [("How many bugs are crashes?", "reworded", "crash"),
            ("List the bugs reported by Priya Nair.", "condition", "priya")]  # fmt: skip
    return Draft("bugs-1.pdf", "Bug tracker", _paged(lines, pages, "Bugs"), asks)


def shipping(rng: random.Random, small: bool) -> Draft:
    total, pages = (18, 2) if small else (45, 3)
    lines: list[Line] = []
    for number in range(2201, 2201 + total):
        port = rng.choice(PORTS)
        keys = ("rotterdam",) if port == "Rotterdam" else ()
        lines.append((f"SH-{number} left {_day(rng):%d.%m.%Y} for {port}, "
                      f"{rng.randint(2, 40)} pallets.", keys))  # fmt: skip
    asks = [("How many shipments went to Rotterdam?", "condition", "rotterdam")]
    return Draft("shipping-1.pdf", "Shipping log", _paged(lines, pages, "Shipping"), asks)


def build(out: Path, seed: int = 911, small: bool = False) -> list[CountQuestion]:
    """Writes the set under OUT; returns the questions."""
    return write_set(out, seed, small, (returns, visitors, bugs, shipping), REWORDED)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.count_docs_heldout", __doc__, build, 911,
                          "small documents (2 pages each)", argv)  # fmt: skip


if __name__ == "__main__":
    main()
