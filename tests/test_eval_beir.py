"""`eval beir` through the real catalog/FTS5 path (fake embedder and vectors), its metrics
checked against ir-measures on the very runs it produced, and the CLI on top."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.bootstrap import AppContext
from desktop_rag.evaluation import Evaluations
from desktop_rag.evaluation.beir import load_beir, read_qrels
from desktop_rag.retrieval.passages import split_passages
from desktop_rag.services import Services

TOPICS = ["gasket pump seal", "radiator coolant engine", "warranty defect repair",
          "battery charge voltage", "brake pad friction", "tyre pressure tread"]  # fmt: skip


def write_beir(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    docs, queries, qrels = [], [], ["query-id\tcorpus-id\tscore"]
    for i, topic in enumerate(TOPICS):
        for j in range(3):
            text = f"Notes on {topic} number {j}. " + " ".join(f"filler{i}x{k}" for k in range(40))
            docs.append({"_id": f"d{i}-{j}", "title": f"{topic.title()} {j}", "text": text})
        queries.append({"_id": f"q{i}", "text": f"what about {topic}"})
        qrels += [f"q{i}\td{i}-0\t1", f"q{i}\td{i}-1\t2"]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs), encoding="utf-8")
    (folder / "queries.jsonl").write_text(
        "\n".join(json.dumps(q) for q in queries), encoding="utf-8"
    )
    (folder / "qrels" / "test.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    return folder


def test_load_beir_reads_the_three_files(tmp_path: Path) -> None:
    data = load_beir(write_beir(tmp_path / "set"))
    assert len(data.corpus) == 18 and len(data.queries) == 6
    assert data.qrels["q0"] == {"d0-0": 1, "d0-1": 2}
    assert read_qrels(tmp_path / "set" / "qrels" / "test.tsv")["q5"]["d5-1"] == 2


def test_long_abstracts_become_title_led_passages_the_embedder_reads_whole() -> None:
    def count(texts: list[str] | tuple[str, ...]) -> list[int]:
        return [len(t.split()) for t in texts]

    text = " ".join(f"Sentence {i} has five words." for i in range(40))  # ~200 words
    passages = split_passages("A title", text, count, 64)
    assert len(passages) > 3
    assert all(p.startswith("A title. ") and count([p])[0] <= 62 for p in passages)
    covered = " ".join(passages)
    assert all(f"Sentence {i} " in covered for i in range(40))
    assert split_passages("T", "short text.", count, 64) == ["T. short text."]


def test_eval_beir_metrics_match_ir_measures(fake_context: AppContext, tmp_path: Path) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import MRR, R, nDCG

    services = Services(fake_context)
    report = Evaluations(services).eval_beir(write_beir(tmp_path / "set"), keep_runs=True)
    assert report["documents"] == 18 and report["passages"] >= 18
    assert set(report["metrics"]) >= {"dense", "bm25", "hybrid"}
    assert report["metrics"]["hybrid"]["nDCG@10"] > 0.5  # the topics are easy to tell apart
    qrels = load_beir(tmp_path / "set").qrels
    for mode, run in report["runs"].items():
        scored = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in run.items()}
        theirs = ir_measures.calc_aggregate([nDCG @ 10, R @ 100, MRR @ 10], qrels, scored)
        ours = report["metrics"][mode]
        assert ours["nDCG@10"] == pytest.approx(theirs[nDCG @ 10], abs=1e-4)
        assert ours["Recall@100"] == pytest.approx(theirs[R @ 100], abs=1e-4)
        assert ours["MRR@10"] == pytest.approx(theirs[MRR @ 10], abs=1e-4)
    again = Evaluations(services).eval_beir(tmp_path / "set")
    assert again["embedded_passages"] == 0  # the embedding cache served the second run
    for mode, metrics in report["metrics"].items():
        assert again["metrics"][mode]["nDCG@10"] == metrics["nDCG@10"]
