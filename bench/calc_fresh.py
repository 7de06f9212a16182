"""Calculations on questions nobody tuned for, asked as a user asks them (issue 38).

bench/calc_check.py measures the check on labelled answers whose wrong inputs swap rows and
years within one table; real answers go wrong in other ways (a column of another segment, a
table of percent changes, a row of another statement). Here sum and difference questions over
four 10-Ks of MMLongBench are asked through the app's own `ask` with the default model, and
each answer is sorted by what the user sees. The split is by document, fixed before any run:
Netflix 2015 and 3M 2018 are dev (earlier stops read answers over them), Costco 2021 and Nike
2021 test. Every question has a rewording ("~r1"): the test ones written with them before
either ran, the dev ones after the dev questions ran and before the rewordings did.
`gold` lists the right results, in the table's unit (two where the report prints two
readings: Costco's net income with and without its minority interests).

    D=../shared/data/mmlongbench/documents
    desktop-rag --data-dir DIR ingest $D/{NETFLIX_2015,3M_2018,COSTCO_2021,NIKE_2021}_10K.pdf
    .venv/bin/python -m bench.calc_fresh --data-dir DIR [--split dev|test|all] [--out RECORDS]
    .venv/bin/python -m bench.calc_fresh --records RECORDS   # sort saved answers again

What the user sees, per answer:
- right, checked: a computed result that is the gold, shown checked;
- right, corrected: the model's result was wrong, the app shows the right computed one beside it;
- right, flagged: the computed result is the gold but shown with a warning (a defect);
- wrong, checked: a computed result that is not the gold, shown checked (the worst defect);
- wrong, flagged: a computed result that is not the gold (or none), shown with a warning;
- stated: no calculation; right when the answer states a gold number;
- refused: the documents do not hold it, says the answer.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

QUESTIONS = Path(__file__).resolve().parent / "data" / "calc_fresh.jsonl"
OUTCOMES = ("right, checked", "right, corrected", "right, flagged", "wrong, checked",
            "wrong, flagged", "stated, right", "stated, wrong", "refused")  # fmt: skip
_NUMBER = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")
_SCALES = (1.0, 1e3, 1e6, 1e9, 1e-3, 1e-6)


def load(
    path: Path = QUESTIONS, split: str = "all", reworded: bool = False
) -> list[dict[str, Any]]:
    """The questions of `split` (all of them, or only the rewordings)."""
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return [r for r in rows if (split == "all" or r["split"] == split)
            and (not reworded or "~" in r["id"])]  # fmt: skip


def is_gold(value: float, gold: Sequence[float]) -> bool:
    """`value` is a gold result in some unit (6,133,774 thousand as 6.13 billion), to 0.5%."""
    return any(abs(value * s - g) <= 0.005 * abs(g) for g in gold for s in _SCALES if g)


def outcome(record: dict[str, Any]) -> str:
    """What the user saw in one answer (see the module text)."""
    if record["refused"]:
        return "refused"
    calcs = [c for c in record["calculations"] if c["result"] is not None or not c["checked"]]
    if not calcs:
        stated = [float(m.replace(",", "")) for m in _NUMBER.findall(record["answer"])]
        return "stated, right" if any(is_gold(v, record["gold"]) for v in stated) else \
            "stated, wrong"  # fmt: skip
    right = [c for c in calcs if c["result"] is not None and is_gold(c["result"], record["gold"])]
    if right:
        c = right[0]
        if c["checked"]:
            return "right, checked"
        return "right, corrected" if c["problem"] == "stated_result_wrong" else "right, flagged"
    return "wrong, checked" if any(c["checked"] for c in calcs) else "wrong, flagged"


def report(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Outcomes per split and wording ("dev", "dev, reworded", "test", …)."""
    out: dict[str, Counter[str]] = {}
    for r in records:
        group = r["split"] + (", reworded" if "~" in r["id"] else "")
        out.setdefault(group, Counter())[outcome(r)] += 1
    return {g: {o: c[o] for o in OUTCOMES if c[o]} for g, c in sorted(out.items())}


def ask_all(
    data_dir: str, rows: Sequence[dict[str, Any]], out: Path | None
) -> list[dict[str, Any]]:
    """Each question asked through the services over the whole library, as `ask` asks it."""
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    ctx = build_context(data_dir)
    services = Services(ctx)
    records = []
    try:
        names = {Path(d.path).name for d in services.list_documents()}
        missing = sorted({r["doc"] for r in rows} - names)
        if missing:
            raise SystemExit(f"not in the library at {data_dir}: {', '.join(missing)} "
                             "(ingest them first; see the module text)")  # fmt: skip
        for row in rows:
            answer = services.ask(row["question"])
            records.append(row | {"answer": answer.answer, "refused": answer.refused,
                                  "calculations": [c.to_record() for c in answer.calculations],
                                  "unsupported": list(answer.unsupported_sentences)})
            print(f"{row['id']}: {outcome(records[-1])}", flush=True)
            if out is not None:
                out.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    finally:
        services.close()
    return records


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="a library holding the four 10-Ks")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--out", type=Path, help="write the answers here (JSON lines)")
    parser.add_argument("--records", type=Path, help="sort saved answers instead of asking")
    parser.add_argument("--reworded", action="store_true", help="only the rewordings")
    args = parser.parse_args(argv)
    if args.records is not None:
        records = load(args.records, args.split, args.reworded)
    elif args.data_dir:
        records = ask_all(args.data_dir, load(split=args.split, reworded=args.reworded), args.out)
    else:
        parser.error("give --data-dir (to ask) or --records (to sort saved answers)")
    print(json.dumps(report(records), indent=2))


if __name__ == "__main__":
    main()
