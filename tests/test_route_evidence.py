"""`eval decisions --workdir DIR --questions FILE`: the route the app takes, a "how many" the
router leaves to the scope decided by the question's own document (evaluation/route_evidence.py),
over a real catalog on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.cli import main
from desktop_rag.evaluation.rephrase_eval import Rephrasing, evaluate
from desktop_rag.evaluation.route_evidence import EvidenceRoutes
from desktop_rag.store.documents import Catalog
from tests.test_store_catalog import chunks, doc

LOG = [f"INC-10{n}3 Printer jam in building {b}; closed after {n}7 minutes."
       for n, b in zip(range(1, 8), "ABCABCA", strict=True)]  # fmt: skip
REPORT = ["At year end we operated 815 warehouses worldwide.", "Our warehouses carry 4,000 items."]
QUESTIONS = [{"id": "q-log", "doc": "log.pdf"}, {"id": "q-report", "doc": "report.pdf"}]


def _library(root: Path) -> Path:
    (root / "data").mkdir(parents=True)
    catalog = Catalog(root / "data" / "catalog.sqlite3")
    for doc_id, texts in (("log", LOG), ("report", REPORT)):
        catalog.add_pending(doc(doc_id, f"/docs/{doc_id}.pdf"), chunks(doc_id, texts))
        catalog.finalize(doc_id)
    catalog.close()
    return root


def test_the_document_decides_an_unsure_count(tmp_path: Path) -> None:
    catalog = Catalog(_library(tmp_path) / "data" / "catalog.sqlite3")
    routes = EvidenceRoutes(catalog, {q["id"]: q["doc"] for q in QUESTIONS})
    try:
        assert routes("How many printer jams happened?", "q-log") == "exhaustive"
        assert routes("How many warehouses did Costco operate?", "q-report") == "lookup"
        assert routes("How many warehouses did Costco operate?", "q-other") == "lookup"
        assert routes("Summarise the report.", "q-log") == "summary"  # the router is sure
        items = [Rephrasing("q-log~r1", "q-log", "counts", ("verb",),
                            "How many printer jams happened?", "List every printer jam.")]
        report = evaluate(items, route_of=routes)
        assert report["route_same"] == 1.0  # both read through the log
        assert evaluate(items)["route_same"] == 0.0  # the router alone: lookup, unsure
    finally:
        catalog.close()


def test_the_command_reports_the_apps_routes(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    library = _library(tmp_path / "lib")
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(json.dumps(q) for q in QUESTIONS), encoding="utf-8")
    rewordings = tmp_path / "rewordings.jsonl"
    rewordings.write_text(json.dumps({
        "id": "q-log~r1", "original": "q-log", "set": "counts", "kind": ["verb"],
        "question": "How many printer jams happened?",
        "original_question": "List every printer jam.",
    }), encoding="utf-8")  # fmt: skip
    args = ["eval", "decisions", str(rewordings), "--json"]
    main([*args, "--workdir", str(library), "--questions", str(questions)])
    assert json.loads(capsys.readouterr().out)["route_same"] == 1.0
    with pytest.raises(SystemExit, match="needs --questions"):
        main([*args, "--workdir", str(library)])
    with pytest.raises(SystemExit, match="no evaluation library"):
        main([*args, "--workdir", str(tmp_path), "--questions", str(questions)])


def test_a_chosen_register_is_counted_whatever_the_questions_words(tmp_path: Path) -> None:
    """A punctuality sheet on disk whose records never say "train" nor "late": asked of it
    alone (as `ask --doc` and `eval` ask), "How many trains ran late?" is a count through its
    records; over the library, where a report sits beside it, the words decide: lookup."""
    from desktop_rag.domain import DocScope
    from desktop_rag.routes.count_evidence import CountEvidence

    sheet = [f"TR-15{n:02d} {n + 3:02d}.10. York - Hull 8:05: "
             + ("arrived 25 min behind schedule." if n % 4 == 0 else "on time.")
             for n in range(1, 13)]  # fmt: skip
    (tmp_path / "data").mkdir()
    catalog = Catalog(tmp_path / "data" / "catalog.sqlite3")
    for doc_id, texts in (("sheet", sheet), ("report", REPORT)):
        catalog.add_pending(doc(doc_id, f"/docs/{doc_id}.pdf"), chunks(doc_id, texts))
        catalog.finalize(doc_id)
    try:
        routes = EvidenceRoutes(catalog, {"q-trains": "sheet.pdf"})
        assert routes("How many trains ran late?", "q-trains") == "exhaustive"
        whole = CountEvidence(catalog).weigh("How many trains ran late?", DocScope())
        assert not whole.listed
    finally:
        catalog.close()
