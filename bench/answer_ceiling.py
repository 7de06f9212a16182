"""The answers' ceiling with perfect retrieval: each question read by the lookup route over its
gold pages only (MMLongBench's evidence pages), so that what is left wrong is the reading, not
the search.

`eval answers` puts every answerable question under "gold page given" or "missed", but a gold
page given among 8-12 passages is not the same as the evidence alone. Here the route's search
returns the chunks of the gold pages (in the order the real search ranks them, the rest after),
packed under the same token budget, and the same answer pipeline (prompt, model, table-cell
step, checks) reads them. No router, no premise check, no core: the lookup reading alone.
Questions are chosen as `eval answers` chooses them (`--split`, `--sources`, `--limit`), so the
figures sit beside its own.

    .venv/bin/python -m bench.answer_ceiling Q --workdir W --split test --limit 60 \\
        --sources text,table,layout --out RECORDS.jsonl

`W` is a library `eval answers --workdir W` built (it holds every question's document).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from desktop_rag.domain import EVERYWHERE, DocScope, Passage, ScoredChunk, SearchResult
from desktop_rag.evaluation import answer_eval
from desktop_rag.evaluation.eval_sets import split_summary
from desktop_rag.evaluation.splits import only, side_by_side


class GoldPages:
    """A search port that returns the chunks of the question's gold pages, in the real search's
    order first; packing is the real one's, under the same budget."""

    def __init__(self, real: Any, chunks: Sequence[Any], doc_id: str) -> None:
        self.real, self.chunks, self.doc_id = real, list(chunks), doc_id

    def search(
        self, query: str, k: int | None = None, mode: str = "hybrid",
        rerank: str | None = None, scope: DocScope = EVERYWHERE,
    ) -> SearchResult:  # fmt: skip
        ranked = self.real.search(query, k=50, scope=DocScope(only=frozenset({self.doc_id})))
        order = {s.chunk.chunk_id: n for n, s in enumerate(ranked.results)}
        chunks = sorted(self.chunks, key=lambda c: (order.get(c.chunk_id, len(order)), c.ordinal))
        results = tuple(ScoredChunk(c, 1.0 - n / 100) for n, c in enumerate(chunks))
        return replace(ranked, results=results, insufficient_evidence=not results, focus=None)

    def pack_context(self, result: SearchResult, budget_tokens: int,
                     first_n: int = 1) -> list[Passage]:  # fmt: skip
        packed: list[Passage] = self.real.pack_context(result, budget_tokens, first_n)
        return packed


def _ask(services: Any, q: answer_eval.AnswerQuestion, doc_id: str) -> Any:
    from desktop_rag.domain.routed import RouteInfo, RouteName
    from desktop_rag.routes.base import RouteRequest
    from desktop_rag.services.routing import lookup_route

    pages = set(q.base.pages)
    gold = [c for c in services.ctx.catalog.chunks_of(doc_id) if pages & set(c.pages)]
    route = lookup_route(services.ctx, GoldPages(services.searching, gold, doc_id), services.core)
    lookup = RouteName.LOOKUP
    info = RouteInfo(lookup, lookup, "gold pages only (bench.answer_ceiling)", forced=True)
    scope = DocScope(only=frozenset({doc_id}))
    request = RouteRequest(q.base.question, q.base.question, services.new_chat(), info, scope)
    return route.answer(request)


def run(args: argparse.Namespace, services: Any = None) -> dict[str, Any]:
    """Every chosen answerable question over its gold pages; `services` over `args.workdir`
    unless given (a test's fakes)."""
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    every = answer_eval.load_answer_questions(args.questions)
    names = tuple(s for s in args.sources.split(",") if s)
    asked = only(answer_eval.of_sources(every, names), args.split, lambda q: q.base.qid)
    items = [q for q in answer_eval.select(asked, args.limit) if q.answerable and q.base.pages]
    owned = services is None
    services = services or Services(build_context(str(args.workdir)))
    ids = {Path(d.path).name: d.doc_id for d in services.list_documents()}
    records = []
    with args.out.open("w", encoding="utf-8") as out:
        for n, q in enumerate(items, start=1):
            started = time.perf_counter()
            rec = answer_eval.record(q, _ask(services, q, ids[q.base.doc]))
            records.append(rec)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(f"{n}/{len(items)} {q.base.qid} {'right' if rec['correct'] else 'wrong'}"
                  f"{' (refused)' if rec['refused'] else ''} {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)  # fmt: skip
    if owned:
        services.close()
    return {"questions": len(records), "split": args.split, "sources": names,
            "by_split": side_by_side(records, split_summary),
            "by_source": answer_eval.summarise(records)["by_source"]}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--split", default="all", choices=("dev", "test", "all"))
    parser.add_argument("--limit", type=int)
    parser.add_argument("--sources", default="text,table,layout")
    parser.add_argument("--out", type=Path, default=Path("answer-ceiling.jsonl"))
    print(json.dumps(run(parser.parse_args(argv)), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
