"""Two rephrasings of every generated count question (bench/count_docs.py, values_docs.py,
parts_docs.py), written by hand before any of them was run: other verbs, word order,
synonyms, the document named or not. A question's rephrasing keeps its answer, so the generated
truth scores it.

The count questions are templates (the incident type, the person, the company change with the
seed), so the rephrasings are templates too: each original pattern below with its two
rewordings. `python -m bench.rephrase_counts OUT_DIR` writes OUT_DIR/questions-rephrased.jsonl
next to a generated OUT_DIR/questions.jsonl (any seed); `main()` without arguments adds the
default seeds' rows to bench/data/rephrasings.jsonl (set "counts").
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "rephrasings.jsonl"

# (pattern of the original question, ((rewording, kind of change), (rewording, kind)))
PATTERNS: tuple[tuple[str, tuple[tuple[str, str], tuple[str, str]]], ...] = (
    (r"How many (?P<x>.+) are recorded in the incident log\?",
     (("What is the number of {x} logged in the incident log?", "synonyms"),
      ("Count the {x} that the log records.", "verb,order"))),
    (r"List every (?P<x>.+) in the incident log\.",
     (("Which entries of the incident log are {x}s? List them all.", "order"),
      ("Show me all the {x} incidents that were logged.", "synonyms,verb"))),
    (r"List every action item assigned to (?P<x>.+)\.",
     (("Which action items does {x} own?", "verb"),
      ("What tasks were given to {x} in the meetings? List each.", "synonyms"))),
    (r"How many action items are in the meeting notes\?",
     (("What is the total number of action items in the minutes?", "synonyms"),
      ("Count the actions that the meeting notes record.", "verb"))),
    (r"How many invoices were paid late\?",
     (("How many invoices were settled after their due date?", "synonyms"),
      ("Count the invoices whose payment came in late.", "verb,order"))),
    (r"List every invoice from (?P<x>.+)\.",
     (("Which invoices did {x} send? List them.", "verb"),
      ("Show all invoices issued by {x}.", "synonyms"))),
    (r"How many times is Project Falcon mentioned in the status reports\?",
     (("How often do the status reports mention Project Falcon?", "synonyms"),
      ("Count the mentions of Project Falcon in the weekly reports.", "verb,order"))),
    (r"Which websites does the manual give\?",
     (("What web addresses are listed in the manual?", "synonyms"),
      ("List the websites that the manual refers to.", "verb"))),
    (r"List every e-mail address in the manual\.",
     (("Which email addresses does the manual give?", "synonyms"),
      ("What addresses can I write to, according to the manual?", "synonyms,verb"))),
    (r"How many phone numbers are listed in the manual\?",
     (("How many telephone numbers does the manual give?", "synonyms"),
      ("Count the phone numbers in the manual.", "verb"))),
    (r"How many pages contain a web address\?",
     (("On how many pages is there a website address?", "order"),
      ("Count the pages that show a URL.", "synonyms,verb"))),
    (r"How many countries are mentioned in the report\?",
     (("How many different countries does the report name?", "synonyms"),
      ("Count the countries that the report refers to.", "verb"))),
    (r"List all countries mentioned in the report, except the U\.S\. and Germany\.",
     (("Apart from the United States and Germany, which countries does the report mention?",
       "order,synonyms"),
      ("Which countries other than Germany and the US are named in the report?",
       "synonyms"))),
    (r"How many tables are in the report\?",
     (("How many tables does the report contain?", "synonyms"),
      ("Count the report's tables.", "verb"))),
    (r"How many figures does the report contain\?",
     (("How many figures are there in the report?", "synonyms"),
      ("Count the figures of the report.", "verb"))),
    (r"How many appendices does the report have\?",
     (("How many appendices are attached to the report?", "synonyms"),
      ("Count the report's appendices.", "verb"))),
    (r"How many chapters are in this report\?",
     (("How many chapters does the report have?", "synonyms"),
      ("Count the chapters of this report.", "verb"))),
    (r"How many exhibits are mentioned in the report\?",
     (("How many exhibits does the report refer to?", "synonyms"),
      ("Count the exhibits named in the report.", "verb"))),
    (r"How many pages contain tables\?",
     (("On how many pages is there a table?", "order"),
      ("Count the pages that have tables on them.", "verb"))),
    (r"How many charts are sourced from the Annual Survey of Members\?",
     (("How many charts use the Annual Survey of Members as their source?", "synonyms"),
      ("Count the charts whose data comes from the Annual Survey of Members.", "verb"))),
    (r"How many tables are about accuracy\?",
     (("How many tables deal with accuracy?", "synonyms"),
      ("Count the tables that report accuracy.", "verb"))),
    (r"List all the figures in the report\.",
     (("Which figures does the report contain?", "synonyms"),
      ("Give every figure of the report.", "verb"))),
)


def rephrasings(question: str) -> list[tuple[str, str]]:
    """The two rewordings of a generated question with their kinds; none for an unknown one."""
    for pattern, pair in PATTERNS:
        found = re.fullmatch(pattern, question.strip())
        if found:
            x = found.groupdict().get("x") or ""
            return [(text.format(x=x), kind) for text, kind in pair]
    return []


def rows_for(questions: Sequence[dict[str, Any]], set_name: str) -> list[dict[str, Any]]:
    """Rephrasing rows (bench/data/rephrasings.jsonl's format) for generated questions."""
    out = []
    for q in questions:
        for n, (text, kind) in enumerate(rephrasings(str(q["question"])), start=1):
            out.append({"id": f"{q['id']}~r{n}", "original": q["id"], "set": set_name,
                        "kind": kind.split(","), "question": text,
                        "original_question": q["question"]})  # fmt: skip
    return out


def rephrased_questions(path: Path) -> list[dict[str, Any]]:
    """A generated questions.jsonl's questions, each followed by its rewordings (same truth)."""
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    out: list[dict[str, Any]] = []
    for q in rows:
        out.append(q)
        for r in rows_for([q], "counts"):
            out.append(q | {"id": r["id"], "question": r["question"], "original": q["id"]})
    return out


def _default_sets() -> list[dict[str, Any]]:
    from dataclasses import asdict

    from bench import count_docs, parts_docs, values_docs

    count_qs = [asdict(q) for d in count_docs.drafts(17) for q in count_docs.questions_of(d)]
    parts_qs = [{"id": f"parts-q{i}", "question": q} for i, (q, _, _) in
                enumerate(parts_docs.QUESTIONS, start=1)]  # fmt: skip
    values = ("Which websites does the manual give?", "List every e-mail address in the manual.",
              "How many phone numbers are listed in the manual?",
              "How many pages contain a web address?",
              "How many countries are mentioned in the report?",
              "List all countries mentioned in the report, except the U.S. and Germany.")
    values_qs = [{"id": f"values-q{i}", "question": q} for i, q in enumerate(values, start=1)]
    del values_docs  # its questions are the fixed texts above
    return count_qs + parts_qs + values_qs


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args:
        out = Path(args[0])
        rows = rephrased_questions(out / "questions.jsonl")
        text = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
        (out / "questions-rephrased.jsonl").write_text(text, encoding="utf-8")
        print(json.dumps({"questions": len(rows)}))
        return 0
    kept = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]
    kept = [r for r in kept if r["set"] != "counts"]
    rows = kept + rows_for(_default_sets(), "counts")
    DATA.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                    encoding="utf-8")  # fmt: skip
    print(json.dumps({"rows": len(rows), "counts": len(rows) - len(kept)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
