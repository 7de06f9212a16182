"""Experiment (issue 38): the route chosen by the chat model instead of the router's rules, to see
whether a decision from the model survives rewording better than keyword rules do.

    python -m bench.route_model [--data-dir DIR] [--limit N] [--out FILE]

The model reads a fixed instruction with four written examples (none from an evaluation set)
and the question, and the route is the letter (A lookup, B list or count through the documents,
C summary, D comparison) whose first token it scores highest: one constrained choice, no
generated text, the instruction's KV cache reused from question to question. Reported beside
the rules, split dev/test by question id: accuracy on the 108 labelled route questions
(bench/data/route_questions.jsonl) and the share of the 390 rewordings
(bench/data/rephrasings.jsonl) whose route is their original's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
LETTERS = {"A": "lookup", "B": "exhaustive", "C": "summary", "D": "compare"}
INSTRUCTION = (
    "You sort questions about a user's documents by the kind of work answering them takes.\n"
    "A: look up a fact, a value, a name or a short passage that the documents state in one "
    'place (also "how many" when the documents state that number, and calculations from '
    "stated values).\n"
    "B: go through the whole document to list or count every item of some kind "
    '("list all", "how many ... are mentioned", "which pages ...").\n'
    """C: summarise a document or a part of it.
D: compare two or more documents, periods or items side by side.
Reply with one letter.

Question: What was the company's net income in 2020?
Answer: A
Question: How many invoices in the ledger were paid late?
Answer: B
Question: Give me a short overview of the maintenance manual.
Answer: C
Question: How do the 2019 and 2021 safety reports differ?
Answer: D"""
)


def choose(engine: Any, question: str) -> str:
    """The route whose letter the model scores highest after the question."""
    from desktop_rag.domain.protocols import ChatMessage

    asked = " ".join(question.split())
    messages = [ChatMessage("system", INSTRUCTION),
                ChatMessage("user", f"Question: {asked}\nAnswer:")]  # fmt: skip
    tokens = engine.tokenize_prompt(engine.render(messages))
    ids = [engine.tokenize_prompt(letter)[0] for letter in LETTERS]
    logits = engine.next_token_logits(tokens, ids)
    return list(LETTERS.values())[max(range(len(ids)), key=logits.__getitem__)]


def measure(route_of: Callable[[str], str], limit: int) -> dict[str, Any]:
    from desktop_rag.evaluation.splits import base_id, split_of

    labelled = [json.loads(line) for line in (DATA / "route_questions.jsonl").open()][:limit]
    reworded = [json.loads(line) for line in (DATA / "rephrasings.jsonl").open()][:limit]
    out: dict[str, Any] = {}
    for split in ("dev", "test"):
        rows = [q for q in labelled if split_of(q["id"]) == split]
        out[f"labelled_{split}"] = round(statistics.mean(
            route_of(q["question"]) == q["route"] for q in rows), 4) if rows else None  # fmt: skip
        pairs = [r for r in reworded if split_of(base_id(r["id"])) == split]
        out[f"reworded_same_{split}"] = round(statistics.mean(
            route_of(r["question"]) == route_of(r["original_question"]) for r in pairs), 4
        ) if pairs else None  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", help="library folder for the context (default: temporary)")
    parser.add_argument("--limit", type=int, default=10_000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from desktop_rag.bootstrap import build_context
    from desktop_rag.llm.worker import run_on_engine
    from desktop_rag.routes.router import decide

    with tempfile.TemporaryDirectory() as tmp:
        ctx = build_context(args.data_dir or tmp)
        cache: dict[str, str] = {}

        def by_model(question: str) -> str:
            if question not in cache:
                cache[question] = run_on_engine(ctx.engine, lambda e: choose(e, question))
            return cache[question]

        start = time.perf_counter()
        result = {"rules": measure(lambda q: str(decide(q).route.value), args.limit),
                  "model": measure(by_model, args.limit)}  # fmt: skip
        took = (time.perf_counter() - start) / max(1, len(cache))
        result["model_s_per_question"] = round(took, 2)
        ctx.close()
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
