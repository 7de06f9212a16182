"""A second held-out count set (issue 38), written on 2026-12-06 (stop 51) before any change it
is to judge and before any run of the app on it. New vocabulary and phrasing, and the two
shapes the first held-out set (bench/count_docs_heldout.py) left wrong, each beside a case where
the obvious fix would go wrong:

- a calibration register: 55 instruments, 11 that failed ("reading drifted 4% high, adjusted",
  "outside tolerance, tagged do-not-use"); the records never say "instrument";
- a delivery log: 48 drop-offs, 9 unsuccessful ("nobody home, parcel taken back to the depot",
  "address not found", "failed delivery: customer refused the parcel"); only a few records say
  "delivery", so the thing counted is stated by a minority of the records;
- a workshop log: 52 jobs, 20 inspections, of which 7 found a problem ("inspection of pump 4:
  cracked housing"), and repairs that also name problems ("repair of valve 2: worn seal
  replaced"): here the head word does pick the items, and a repair is no inspection;
- a permit register: 40 permits, 8 issued to Harbor Works Ltd.

Each question has one rewording (`<question>~r1`), written with it, before any run: other verbs,
order and synonyms, one a "which" with a participle before its noun. Reported whole, never tuned
on.

`python -m bench.count_docs_heldout2 OUT [--seed N] [--small]` writes OUT/documents/*.pdf and
OUT/questions.jsonl for `desktop-rag eval counts`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bench.count_docs import CountQuestion, Draft, Line, generator_main
from bench.count_docs_fresh import _day, _mixed, _paged, write_set

FAILED_CAL = ("reading drifted 4% high, adjusted", "outside tolerance, tagged do-not-use",
              "zero point off by 0.3 bar, sent for repair")  # fmt: skip
PASSED_CAL = ("within tolerance; sticker renewed", "readings agree with the reference",
              "no adjustment needed", "checked against the master gauge, fine")  # fmt: skip
GAUGES = ("pressure gauge", "torque wrench", "thermometer", "flow meter", "caliper")
UNDELIVERED = ("nobody home, parcel taken back to the depot", "address not found",
               "failed delivery: customer refused the parcel")  # fmt: skip
DELIVERED = ("left at the front door", "signed for by reception", "handed to the customer",
             "placed in the parcel locker")  # fmt: skip
DRIVERS = ("Ana Ruiz", "Kofi Mensah", "Jonas Weber", "Hana Kim")
INSPECTION_BAD = ("cracked housing", "worn bearing", "corroded flange")
INSPECTION_OK = ("no findings", "all within limits")
REPAIRS = ("worn seal replaced", "cracked gasket renewed", "corroded bolt swapped",
           "motor rewired")  # fmt: skip
MACHINES = ("pump 4", "valve 2", "compressor 1", "mixer 3", "conveyor 6")
HOLDERS = ("Harbor Works Ltd", "Linden Builders", "Castell Roofing", "Okoro Civil")
REWORDED = {
    "calibration-1-q1": "Which recorded instruments drift outside their tolerance?",
    "deliveries-1-q1": "Count the drop-offs that did not succeed.",
    "workshop-1-q1": "Which inspections turned up a defect?",
    "permits-1-q1": "List the permits that Harbor Works Ltd holds.",
}


def calibration(rng: random.Random, small: bool) -> Draft:
    total, failed, pages = (22, 5, 2) if small else (55, 11, 5)
    lines: list[Line] = [("All gauges are checked once a year.", ())]
    for number, bad in enumerate(_mixed(rng, total, failed), start=7101):
        why = rng.choice(FAILED_CAL if bad else PASSED_CAL)
        lines.append((f"CAL-{number} ({_day(rng):%d %b %Y}) {rng.choice(GAUGES)} "
                      f"#{rng.randint(10, 99)}: {why}.", ("failed",) if bad else ()))  # fmt: skip
    asks = [("How many instruments failed calibration?", "reworded", "failed")]
    return Draft("calibration-1.pdf", "Calibration register", _paged(lines, pages, "Calibration"),
                 asks)  # fmt: skip


def deliveries(rng: random.Random, small: bool) -> Draft:
    total, failed, pages = (20, 4, 2) if small else (48, 9, 4)
    lines: list[Line] = []
    for number, bad in enumerate(_mixed(rng, total, failed), start=501):
        what = rng.choice(UNDELIVERED if bad else DELIVERED)
        lines.append((f"DL-{number}, {_day(rng):%Y-%m-%d}, driver {rng.choice(DRIVERS)}: {what}.",
                      ("failed",) if bad else ()))  # fmt: skip
    lines.append(("Drivers log every stop before the end of the shift.", ()))
    asks = [("How many deliveries were unsuccessful?", "reworded", "failed")]
    return Draft("deliveries-1.pdf", "Route log", _paged(lines, pages, "Route"), asks)


def workshop(rng: random.Random, small: bool) -> Draft:
    total, inspections, bad, pages = (24, 10, 3, 2) if small else (52, 20, 7, 5)
    kinds = ["bad"] * bad + ["ok"] * (inspections - bad) + ["repair"] * (total - inspections)
    rng.shuffle(kinds)
    lines: list[Line] = []
    for number, kind in enumerate(kinds, start=880):
        machine = rng.choice(MACHINES)
        if kind == "repair":
            text = f"repair of {machine}: {rng.choice(REPAIRS)}"
        else:
            text = f"inspection of {machine}: " + rng.choice(
                INSPECTION_BAD if kind == "bad" else INSPECTION_OK)
        lines.append((f"WS-{number} {_day(rng):%d.%m.%Y} {text}.",
                      ("bad",) if kind == "bad" else ()))  # fmt: skip
    asks = [("How many inspections found a problem?", "reworded", "bad")]
    return Draft("workshop-1.pdf", "Workshop log", _paged(lines, pages, "Workshop"), asks)


def permits(rng: random.Random, small: bool) -> Draft:
    total, pages = (16, 2) if small else (40, 3)
    lines: list[Line] = []
    holders = ["Harbor Works Ltd"] * (4 if small else 8)
    holders += [rng.choice(HOLDERS[1:]) for _ in range(total - len(holders))]
    rng.shuffle(holders)
    for number, holder in enumerate(holders, start=3301):
        keys = ("harbor",) if holder == "Harbor Works Ltd" else ()
        lines.append((f"PRM-{number} issued {_day(rng):%d/%m/%Y} to {holder} for "
                      f"{rng.choice(('scaffolding', 'road closure', 'crane lift'))}.", keys))
    asks = [("How many permits were issued to Harbor Works Ltd?", "condition", "harbor")]
    return Draft("permits-1.pdf", "Permit register", _paged(lines, pages, "Permits"), asks)


def build(out: Path, seed: int = 1306, small: bool = False) -> list[CountQuestion]:
    """Writes the set under OUT; returns the questions."""
    return write_set(out, seed, small, (calibration, deliveries, workshop, permits), REWORDED)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return generator_main("python -m bench.count_docs_heldout2", __doc__, build, 1306,
                          "small documents (2 pages each)", argv)  # fmt: skip


if __name__ == "__main__":
    main()
