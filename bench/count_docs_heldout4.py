"""A fourth held-out count set (issue 38), written on 2026-12-06 (stop 54) before any change it
is to judge and before any run of the app on it. New vocabulary and phrasing again, and a
condition whose negation the other records state in the question's own words:

- tenant requests: 50 requests, 10 about the heating ("radiator cold in the bedroom", "no hot
  water since Monday", "boiler keeps cutting out"); no record says "heating";
- job applications: 42 applications, 8 invited to an interview ("shortlisted, interview on
  12 June", "moved to the panel stage", "asked to come in for a talk");
- a train punctuality sheet: 60 services, 12 late ("arrived 25 min behind schedule", "held at
  a signal, 40 minutes lost", "departure put back by an hour"), the others "on time", "a few
  minutes early", "to schedule": the rewording's "did not run on time" is the words of the
  services that did;
- a laptop register: 45 laptops, 9 lost ("reported stolen from a car", "missing after the
  office move", "left on a train, never recovered").

Each question has one rewording (`<question>~r1`), written with it, before any run. Reported
whole, never tuned on.

`python -m bench.count_docs_heldout4 OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl for `desktop-rag eval counts`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bench.count_docs import CountQuestion, Draft, Line, generator_main
from bench.count_docs_fresh import _day, _mixed, _paged, write_set

HEATING = ("radiator cold in the bedroom", "no hot water since Monday",
           "boiler keeps cutting out")  # fmt: skip
OTHER_REQUESTS = ("dripping kitchen tap", "front door lock sticks", "mould on the bathroom "
                  "ceiling", "broken window latch", "lift out of order")  # fmt: skip
FLATS = ("2A", "3C", "4B", "5D", "7A")
INVITED = ("shortlisted, interview on 12 June", "moved to the panel stage",
           "asked to come in for a talk")  # fmt: skip
NOT_INVITED = ("not shortlisted", "withdrew the application", "position already filled",
               "missing references, closed")  # fmt: skip
ROLES = ("data analyst", "office manager", "warehouse lead")
LATE = ("arrived 25 min behind schedule", "held at a signal, 40 minutes lost",
        "departure put back by an hour")  # fmt: skip
PUNCTUAL = ("on time", "a few minutes early", "to schedule")
ROUTES = ("Leeds - York", "York - Hull", "Hull - Selby", "Selby - Leeds")
LOST = ("reported stolen from a car", "missing after the office move",
        "left on a train, never recovered")  # fmt: skip
KEPT = ("in use", "returned to stock", "sent for a new battery", "reimaged and reissued")
USERS = ("Noor Haddad", "Piet Smit", "Aiko Mori", "Lars Dahl")
REWORDED = {
    "requests-1-q1": "Count the tenant requests that reported a heating fault.",
    "applications-1-q1": "Which candidates got through to an interview?",
    "trains-1-q1": "Which services did not run on time?",
    "laptops-1-q1": "List the devices that were lost or stolen.",
}


def requests(rng: random.Random, small: bool) -> Draft:
    total, heating, pages = (20, 4, 2) if small else (50, 10, 4)
    lines: list[Line] = [("Urgent requests are answered the same day.", ())]
    for number, hot in enumerate(_mixed(rng, total, heating), start=301):
        what = rng.choice(HEATING if hot else OTHER_REQUESTS)
        lines.append((f"MR-{number} flat {rng.choice(FLATS)}, {_day(rng):%d %b}: {what}.",
                      ("heating",) if hot else ()))  # fmt: skip
    asks = [("How many requests were about heating problems?", "reworded", "heating")]
    return Draft("requests-1.pdf", "Tenant requests", _paged(lines, pages, "Requests"), asks)


def applications(rng: random.Random, small: bool) -> Draft:
    total, invited, pages = (18, 4, 2) if small else (42, 8, 3)
    lines: list[Line] = []
    for number, yes in enumerate(_mixed(rng, total, invited), start=7001):
        what = rng.choice(INVITED if yes else NOT_INVITED)
        lines.append((f"APP-{number} ({_day(rng):%Y-%m-%d}) {rng.choice(ROLES)}: {what}.",
                      ("invited",) if yes else ()))  # fmt: skip
    asks = [("How many applicants were invited to an interview?", "reworded", "invited")]
    return Draft("applications-1.pdf", "Hiring tracker", _paged(lines, pages, "Hiring"), asks)


def trains(rng: random.Random, small: bool) -> Draft:
    total, late, pages = (24, 5, 2) if small else (60, 12, 5)
    lines: list[Line] = []
    for number, bad in enumerate(_mixed(rng, total, late), start=1501):
        what = rng.choice(LATE if bad else PUNCTUAL)
        lines.append((f"TR-{number} {_day(rng):%d.%m.} {rng.choice(ROUTES)} "
                      f"{rng.randint(6, 21)}:{rng.choice(('05', '20', '35', '50'))}: {what}.",
                      ("late",) if bad else ()))  # fmt: skip
    lines.append(("Times are taken at the final stop.", ()))
    asks = [("How many trains ran late?", "reworded", "late")]
    return Draft("trains-1.pdf", "Punctuality sheet", _paged(lines, pages, "Punctuality"), asks)


def laptops(rng: random.Random, small: bool) -> Draft:
    total, lost, pages = (20, 4, 2) if small else (45, 9, 4)
    lines: list[Line] = []
    for number, gone in enumerate(_mixed(rng, total, lost), start=4401):
        what = rng.choice(LOST if gone else KEPT)
        lines.append((f"AS-{number} laptop, user {rng.choice(USERS)}: {what}.",
                      ("lost",) if gone else ()))  # fmt: skip
    asks = [("How many laptops went missing?", "reworded", "lost")]
    return Draft("laptops-1.pdf", "Asset register", _paged(lines, pages, "Assets"), asks)


def build(out: Path, seed: int = 4409, small: bool = False) -> list[CountQuestion]:
    """Writes the set under OUT; returns the questions."""
    return write_set(out, seed, small, (requests, applications, trains, laptops), REWORDED)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.count_docs_heldout4", __doc__, build, 4409,
                          "small documents (2 pages each)", argv)  # fmt: skip


if __name__ == "__main__":
    main()
