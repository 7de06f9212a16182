"""CLI commands of the search area:
`search QUERY [--k N] [--mode ...] [--rerank ...] [--doc PATH ...] [--json]`."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from desktop_rag.cli.output import emit_json, open_services, say, to_jsonable
from desktop_rag.config import RERANKERS, SEARCH_MODES
from desktop_rag.domain import EVERYWHERE, DocFocus, DocScope, ScoredChunk, SearchResult
from desktop_rag.domain.errors import ConfigError

SNIPPET_CHARS = 300


def register(sub: Any) -> None:  # argparse's _SubParsersAction is private
    parser = sub.add_parser("search", help="search the library (hybrid dense + BM25)")
    parser.add_argument("query", metavar="QUERY")
    parser.add_argument("--k", type=int, default=None, metavar="N", help="number of results")
    parser.add_argument("--mode", choices=SEARCH_MODES, default="hybrid")
    parser.add_argument("--rerank", choices=RERANKERS, default=None, help="default: the setting")
    add_doc_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(func=run_search)


def add_doc_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--doc", action="append", default=[], metavar="PATH",
        help="only this document (a file, a folder or a doc id in the library); repeatable",
    )


def result_json(item: ScoredChunk, rank: int) -> dict[str, Any]:
    c = item.chunk
    return {
        "rank": rank, "score": item.score, "chunk_id": c.chunk_id, "doc_id": c.doc_id,
        "path": c.path, "title": c.title, "page": item.page, "pages": list(c.pages),
        "text": c.text,
        "char_span": list(c.char_span), "bboxes": to_jsonable(c.bboxes),
    }  # fmt: skip


def search_json(result: SearchResult) -> dict[str, Any]:
    return {
        "query": result.query,
        "mode": result.mode,
        "reranker": result.reranker,
        "insufficient_evidence": result.insufficient_evidence,
        "results": [result_json(item, n) for n, item in enumerate(result.results, start=1)],
        "timings_ms": {name: round(ms, 3) for name, ms in result.timings_ms.items()},
        "focus": focus_json(result.focus),
        "added_terms": result.added_terms.split(),
    }


def focus_json(focus: DocFocus | None) -> dict[str, Any] | None:
    """The documents the question named, searched first (null when it named none clearly)."""
    if focus is None:
        return None
    return {
        "doc_ids": list(focus.doc_ids), "titles": list(focus.titles), "terms": list(focus.terms),
        "score": focus.score, "runner_up": focus.runner_up,
    }  # fmt: skip


def print_human(result: SearchResult, scope: DocScope = EVERYWHERE) -> None:
    within = "" if scope.only is None else f", within {len(scope.only)} document(s)"
    say(f"{len(result.results)} results ({result.mode}, re-ranker: {result.reranker}, "
        f"{result.timings_ms.get('total_ms', 0.0):.0f} ms{within})")  # fmt: skip
    if result.focus is not None:
        say(result.focus.describe() + ".")
    if result.added_terms:
        say(f"Also searched for the statement lines the ratio is computed from: "
            f"{result.added_terms}.")  # fmt: skip
    if result.insufficient_evidence:
        say("Insufficient evidence: nothing in the library looks relevant to this query.")
    for n, item in enumerate(result.results, start=1):
        page = f", page {item.page}" if item.page is not None else ""
        say(f"\n{n}. {item.chunk.title}{page}  [{item.score:.4f}]  {item.chunk.path}")
        snippet = textwrap.shorten(item.chunk.text, SNIPPET_CHARS, placeholder=" ...")
        say(textwrap.indent(textwrap.fill(snippet, 96), "   "))


def run_search(args: argparse.Namespace) -> int:
    if args.k is not None and not 1 <= args.k <= 100:
        raise ConfigError(f"Invalid --k {args.k}", "use a number from 1 to 100")
    needs_vectors = args.mode != "bm25"  # the query embedder loads while the rest starts
    with open_services(args, preload=("embedder",) if needs_vectors else ()) as services:
        scope = services.scope_of(args.doc)
        result = services.search(
            args.query, k=args.k, mode=args.mode, rerank=args.rerank, scope=scope
        )
    if args.json:
        emit_json(search_json(result))
    else:
        print_human(result, scope)
    return 0
