"""Hybrid search through the real parts: Chroma on a temp folder, the catalog's FTS5 index and
the packaged MiniLM embedder, over Markdown notes ingested by the real pipeline."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.services import Services

NOTES = {
    "bulletin.md": "# Service bulletin 12\n\nField reports show early wear on pumps delivered in "
    "spring. Technicians should inspect the seal seat and replace the gasket with part XK-4471-B "
    "when scoring is visible. Torque the housing bolts to 45 Nm afterwards.\n",
    "cooling.md": "# Cooling problems\n\nThe automobile's motor overheats when the radiator fluid "
    "is low; top it up before long drives.\n",
    "insurance.md": "# Insurance\n\nCar insurance premiums rose this year for drivers under "
    "twenty-five.\n",
    "search.md": "# Search engines\n\nA web search engine crawls pages and keeps an inverted "
    "index of their words.\n",
    **{
        f"parts{i}.md": f"# Parts list {i}\n\nGaskets XK-44{i}1-A and XK-4{i}71-C fit the pump "
        f"housings of series {i}; seals are listed in the XK catalogue.\n"
        for i in range(1, 7)
    },
}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, Path]]:
    root = tmp_path_factory.mktemp("real-library")
    notes = root / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text, encoding="utf-8")
    services = Services(build_context(str(root / "data"), settings=Settings()))
    report = services.ingest([notes])
    assert not report.failed and report.embedded_chunks > 0
    yield services, root / "data"
    services.close()


def names(services: Services, query: str, mode: str, k: int = 3) -> list[str]:
    result = services.search(query, k=k, mode=mode, rerank="none")
    return [Path(r.chunk.path).name for r in result.results]


def test_exact_identifier_missed_by_dense_is_found_by_hybrid(
    library: tuple[Services, Path],
) -> None:
    services, _ = library
    assert "bulletin.md" not in names(services, "XK-4471-B", "dense")
    assert names(services, "XK-4471-B", "bm25")[0] == "bulletin.md"
    assert names(services, "XK-4471-B", "hybrid")[0] == "bulletin.md"


def test_paraphrase_missed_by_bm25_is_found_by_hybrid(library: tuple[Services, Path]) -> None:
    services, _ = library
    query = "car engine running too hot, coolant"
    assert "cooling.md" not in names(services, query, "bm25", k=10)
    assert names(services, query, "dense")[0] == "cooling.md"
    assert "cooling.md" in names(services, query, "hybrid")


def test_unrelated_query_has_insufficient_evidence(library: tuple[Services, Path]) -> None:
    services, _ = library
    unrelated = services.search("chocolate cake recipe with strawberries", rerank="none")
    assert unrelated.insufficient_evidence
    related = services.search("how tight should the pump housing bolts be", rerank="none")
    assert not related.insufficient_evidence
    assert Path(related.results[0].chunk.path).name == "bulletin.md"


def test_cli_search_json(
    library: tuple[Services, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_rag.cli import main

    _, data = library
    code = main(["--data-dir", str(data), "search", "XK-4471-B", "--k", "2", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["query"] == "XK-4471-B" and out["mode"] == "hybrid" and out["reranker"] == "none"
    assert out["insufficient_evidence"] is False and len(out["results"]) == 2
    first = out["results"][0]
    assert first["rank"] == 1 and first["path"].endswith("bulletin.md") and first["page"] is None
    assert first["char_span"][1] > first["char_span"][0] and first["bboxes"] == []
    assert {"embed_ms", "dense_ms", "bm25_ms", "total_ms"} <= set(out["timings_ms"])
    assert out["added_terms"] == []


def test_cli_search_says_what_a_named_ratio_added(
    library: tuple[Services, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_rag.cli import main

    _, data = library
    assert main(["--data-dir", str(data), "search", "What is the pump maker's current ratio?"]) == 0
    said = capsys.readouterr().out
    assert "Also searched for the statement lines the ratio is computed from: " in said
    assert "total current assets" in said
    code = main(["--data-dir", str(data), "search", "current ratio of the pump maker", "--json"])
    assert code == 0
    assert {"current", "liabilities"} <= set(json.loads(capsys.readouterr().out)["added_terms"])


def test_cli_search_within_chosen_documents(
    library: tuple[Services, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_rag.cli import main

    _, data = library
    notes = data.parent / "notes"
    argv = ["--data-dir", str(data), "search", "pump gasket part", "--k", "5"]
    scoped = [*argv, "--doc", str(notes / "parts3.md"), "--doc", str(notes / "cooling.md")]
    assert main([*scoped, "--json"]) == 0
    found = {Path(r["path"]).name for r in json.loads(capsys.readouterr().out)["results"]}
    assert found == {"parts3.md", "cooling.md"}
    assert main(scoped) == 0
    assert "within 2 document(s)" in capsys.readouterr().out
    assert main([*argv, "--doc", str(notes / "missing.md")]) == 1
    assert "missing.md is not in the library" in capsys.readouterr().err
