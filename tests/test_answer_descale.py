"""Slow, real: the default model answers "How do I descale the coffee machine?" from the WMF 1500 S
manual (MMLongBench's copy in ../shared/data). The steps it copies from pages 67-70 must not be
flagged as unsupported (at most one sentence), and every cited step points at its page there.

Skipped, with the reason, where the benchmark data is not beside the repository."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.services import Services

pytestmark = pytest.mark.slow
MANUAL = (
    Path(__file__).resolve().parents[2]
    / "shared" / "data" / "mmlongbench" / "documents" / "User_Manual_1500S_Classic_EN.pdf"
)  # fmt: skip
ARTIFACT = Path(__file__).resolve().parents[1] / "artifacts" / "descale-answer.json"


@pytest.fixture(scope="module")
def manual() -> Iterator[Services]:
    if not MANUAL.exists():
        pytest.skip(f"benchmark data not found: {MANUAL}")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        services = Services(build_context(folder, profile="default"))
        assert not services.ingest([MANUAL]).failed
        yield services
        services.close()


def test_descaling_steps_are_supported_and_cited_to_their_pages(manual: Services) -> None:
    from desktop_rag.cli.commands_answer import answer_json

    scope = manual.scope_of([str(MANUAL)])
    answer = manual.ask("How do I descale the coffee machine?", scope=scope)
    ARTIFACT.parent.mkdir(exist_ok=True)
    ARTIFACT.write_text(json.dumps(answer_json(answer), indent=1, ensure_ascii=False))
    assert not answer.refused, answer.answer
    assert len(answer.unsupported_sentences) <= 1, answer.unsupported_sentences
    evidence = [e for c in answer.citations for e in c.evidence]
    assert evidence, answer
    assert all(66 <= (e.page or 0) <= 72 for e in evidence), [e.page for e in evidence]
