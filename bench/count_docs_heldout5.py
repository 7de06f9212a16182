"""A fifth held-out count set (issue 38), written on 2026-12-06 (stop 54) after the fourth set's
first offline run had shown two defects (a day and month written "24.10." ended a record; a
register whose only line naming the thing counted is a note kept that note as its one
candidate) and before any run of the app with their repairs, to judge them on documents
nobody has read. New vocabulary and phrasing again:

- a housekeeping log: 48 room checks, 9 finding damage ("broken lamp", "stained carpet,
  cleaning charged", "cracked mirror in the bathroom");
- an order sheet: 44 orders, 8 cancelled ("cancelled by the customer", "order withdrawn,
  refund sent", "called off before dispatch");
- a gym's member list: 40 members, 7 who paused ("membership on hold until June", "paused for
  travel", "frozen for medical reasons").

Each question has one rewording (`<question>~r1`), written with it, before any run. Reported
whole, never tuned on.

`python -m bench.count_docs_heldout5 OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl for `desktop-rag eval counts`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bench.count_docs import CountQuestion, Draft, Line, generator_main
from bench.count_docs_fresh import _day, _mixed, _paged, write_set

DAMAGE = ("broken lamp", "stained carpet, cleaning charged", "cracked mirror in the bathroom")
TIDY = ("room in good order", "minibar restocked", "linen changed", "towels replaced")
CANCELLED = ("cancelled by the customer", "order withdrawn, refund sent",
             "called off before dispatch")  # fmt: skip
SHIPPED = ("dispatched", "delivered to the door", "awaiting stock", "packed, ready to ship")
PRODUCTS = ("desk chair", "standing lamp", "bookshelf", "side table")
PAUSED = ("membership on hold until June", "paused for travel", "frozen for medical reasons")
ACTIVE = ("active", "renewed for a year", "moved to off-peak", "upgraded to the pool plan")
MEMBERS = ("Jana Novak", "Omar Said", "Lucia Ferro", "Ben Carter", "Mei Lin")
REWORDED = {
    "housekeeping-1-q1": "Which room checks found something broken or stained?",
    "orders-1-q1": "Which orders did customers back out of?",
    "members-1-q1": "Which members have suspended their plan?",
}


def housekeeping(rng: random.Random, small: bool) -> Draft:
    total, damaged, pages = (20, 4, 2) if small else (48, 9, 4)
    lines: list[Line] = [("Checks are made after every departure.", ())]
    for bad in _mixed(rng, total, damaged):
        what = rng.choice(DAMAGE if bad else TIDY)
        lines.append((f"Room {rng.randint(101, 420)} ({_day(rng):%Y-%m-%d}): {what}.",
                      ("damage",) if bad else ()))  # fmt: skip
    asks = [("How many rooms were left damaged?", "reworded", "damage")]
    return Draft("housekeeping-1.pdf", "Housekeeping log", _paged(lines, pages, "Housekeeping"),
                 asks)  # fmt: skip


def orders(rng: random.Random, small: bool) -> Draft:
    total, cancelled, pages = (18, 4, 2) if small else (44, 8, 3)
    lines: list[Line] = []
    for number, off in enumerate(_mixed(rng, total, cancelled), start=5501):
        what = rng.choice(CANCELLED if off else SHIPPED)
        lines.append((f"#{number}, {_day(rng):%d %b %Y}, {rng.choice(PRODUCTS)}: {what}.",
                      ("cancelled",) if off else ()))  # fmt: skip
    asks = [("How many orders were cancelled?", "reworded", "cancelled")]
    return Draft("orders-1.pdf", "Order sheet", _paged(lines, pages, "Orders"), asks)


def members(rng: random.Random, small: bool) -> Draft:
    total, paused, pages = (18, 4, 2) if small else (40, 7, 3)
    lines: list[Line] = []
    for number, held in enumerate(_mixed(rng, total, paused), start=40):
        what = rng.choice(PAUSED if held else ACTIVE)
        lines.append((f"M-{number:04d} {rng.choice(MEMBERS)}: {what}.",
                      ("paused",) if held else ()))  # fmt: skip
    lines.append(("Fees are taken on the first of each month.", ()))
    asks = [("How many members paused their membership?", "reworded", "paused")]
    return Draft("members-1.pdf", "Member list", _paged(lines, pages, "Members"), asks)


def build(out: Path, seed: int = 5517, small: bool = False) -> list[CountQuestion]:
    """Writes the set under OUT; returns the questions."""
    return write_set(out, seed, small, (housekeeping, orders, members), REWORDED)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.count_docs_heldout5", __doc__, build, 5517,
                          "small documents (2 pages each)", argv)  # fmt: skip


if __name__ == "__main__":
    main()
