"""bench.answer_ceiling: each question read by the lookup route over its gold pages alone,
through a real catalog on disk and the real answer pipeline (a scripted engine)."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from bench.answer_ceiling import GoldPages, run
from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain import ScoredChunk
from desktop_rag.domain.fakes import HashEmbedder, InMemoryVectorIndex, WordTokenCounter
from desktop_rag.domain.protocols import ChatMessage, Generation
from desktop_rag.services import Services
from tests.test_eval_answers import ScriptedEngine, make_pdfs, write_questions


class Recording(ScriptedEngine):
    """The scripted engine, keeping the prompts it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def generate(self, messages: list[ChatMessage], max_tokens: int, on_token: object = None,
                 cancel: object = None) -> Generation:  # fmt: skip
        self.seen.append(messages[-1].content)
        return super().generate(messages, max_tokens, on_token, cancel)


def test_each_question_reads_its_gold_pages_only(tmp_path: Path, data_dir: Path) -> None:
    questions, docs = write_questions(tmp_path / "q.jsonl"), make_pdfs(tmp_path / "docs")
    engine = Recording()
    settings = Settings().updated({"retrieval.reranker": "none"})
    overrides = {"embedder": HashEmbedder(), "vectors": InMemoryVectorIndex(),
                 "token_counter": WordTokenCounter(), "engine": engine}  # fmt: skip
    services = Services(build_context(str(data_dir), settings=settings, overrides=overrides))
    services.ingest([docs])
    args = argparse.Namespace(questions=questions, workdir=data_dir, split="all", limit=None,
                              sources="", out=tmp_path / "records.jsonl")  # fmt: skip
    report = run(args, services)
    services.close()
    # the answerable ones with gold pages: q1-q5; q5's page 9 does not exist, so nothing is read
    assert report["questions"] == 5
    records = [json.loads(line) for line in args.out.read_text().splitlines() if line]
    assert [r["id"] for r in records] == ["q1", "q2", "q3", "q4", "q5"]
    # q1, q2 and q4 right; q3 names one of two staff; q5 refused unasked (no such page)
    assert [r["correct"] for r in records] == [True, True, False, True, False]
    assert records[4]["refused"] and len(engine.seen) == 4
    assert sum(row["right"] for row in report["by_split"].values()) == 3
    assert "1,250 engineers" in engine.seen[0]
    assert all(r["gold_page_given"] for r in records[:4])


def test_gold_pages_come_in_the_real_searchs_order_and_nothing_else() -> None:
    from desktop_rag.domain import SearchResult
    from tests.test_store_catalog import chunks

    page_chunks = [replace(c, pages=(n + 1,)) for n, c in
                   enumerate(chunks("d", ["one", "two", "three", "four"]))]  # fmt: skip
    gold = [page_chunks[1], page_chunks[3]]  # pages 2 and 4

    class Real:
        def search(self, query: str, k: int, scope: object) -> SearchResult:
            ranked = [ScoredChunk(c, 1.0) for c in (page_chunks[3], page_chunks[0])]
            return SearchResult(query, "hybrid", "none", False, tuple(ranked))

    result = GoldPages(Real(), gold, "d").search("q")
    assert [s.chunk.pages for s in result.results] == [(4,), (2,)]
    assert not result.insufficient_evidence
    assert GoldPages(Real(), [], "d").search("q").insufficient_evidence
