"""The answer flow with a scripted engine: citations, refusal, follow-ups, chats, core routing."""

from __future__ import annotations

import hashlib
from typing import Any

from answer_helpers import AnswerServices, add_document

from desktop_rag.cli.commands_answer import answer_json
from desktop_rag.domain import DocScope
from desktop_rag.domain.fakes import FakeChatEngine

STEEL = "The northern plant produced 420 tonnes of steel in 2019 according to the annual report."
BANANA = "Bananas grow in warm tropical places and are harvested green."


def _services(ctx: Any, reply: str) -> AnswerServices:
    ctx.provide(engine=FakeChatEngine(reply))
    add_document(ctx, "/lib/steel.pdf", "Steel report", [BANANA, STEEL])
    return AnswerServices(ctx)


def test_answer_cites_the_right_chunk_and_page(fake_context: Any) -> None:
    services = _services(fake_context, "The plant produced 420 tonnes of steel in 2019 [1].")
    streamed: list[str] = []
    answer = services.ask(
        "How much steel did the northern plant produce in 2019?", on_token=streamed.append
    )
    assert "".join(streamed).strip() == answer.answer
    assert not answer.refused and answer.unsupported_sentences == ()
    (citation,) = answer.citations
    assert citation.chunk.page == 2 and citation.chunk.path == "/lib/steel.pdf"
    assert citation.support > 0.5
    doc = answer_json(answer)
    assert set(doc) == {
        "answer",
        "chat_id",
        "citations",
        "unsupported_sentences",
        "calculations",
        "refused",
        "reranker",
        "gpu_offload",
        "timings",
        "route",
        "count",
        "items",
        "focus",
    }
    assert doc["focus"] is None  # one document: nothing to choose between
    assert doc["route"]["route"] == doc["route"]["handled_by"] == "lookup"
    assert doc["count"] is None and doc["items"] == []
    assert set(doc["citations"][0]) == {
        "n",
        "chunk_id",
        "doc_id",
        "path",
        "title",
        "page",
        "text",
        "char_span",
        "bboxes",
        "support",
        "inferred",
        "pages",
        "evidence",
        "place",
    }
    assert doc["citations"][0]["place"] is None  # a PDF is named by its page
    (evidence,) = doc["citations"][0]["evidence"]
    assert set(evidence) == {"sentence", "text", "page", "chunk_id", "char_span", "bboxes", "score"}
    assert evidence["text"] == STEEL and evidence["page"] == 2
    assert doc["citations"][0]["inferred"] is False
    assert doc["citations"][0]["text"] == STEEL
    assert set(doc["timings"]) == {
        "retrieve_ms",
        "rerank_ms",
        "ttft_ms",
        "total_ms",
        "prompt_tokens",
        "cached_tokens",
        "generated_tokens",
        "restore_ms",
        "prefill_ms",
    }


def test_citations_to_numbers_not_given_are_dropped(fake_context: Any) -> None:
    services = _services(fake_context, "Steel output was 420 tonnes in 2019 [1][7].")
    answer = services.ask("How much steel did the northern plant produce in 2019?")
    assert [c.n for c in answer.citations] == [1]


def test_insufficient_evidence_refuses_without_asking_the_model(fake_context: Any) -> None:
    services = _services(fake_context, "Invented answer [1].")
    answer = services.ask("zebra quantum violin")
    assert answer.refused and answer.citations == ()
    assert "do not contain" in answer.answer and "Steel report" in answer.answer
    assert fake_context.engine.prompts == []
    assert len(answer.passages) >= 1


def test_within_chosen_documents_weak_evidence_still_asks_the_model(fake_context: Any) -> None:
    """The user asked about these documents: their best passages go to the model, which may
    refuse itself (and its invented answer is flagged, not hidden)."""
    services = _services(fake_context, "Invented answer about zebras [1].")
    doc_id = hashlib.sha256(b"/lib/steel.pdf").hexdigest()[:16]  # as add_document names it
    answer = services.ask("zebra quantum violin", scope=DocScope(only=frozenset({doc_id})))
    assert len(fake_context.engine.prompts) == 1 and answer.passages
    assert answer.answer == "Invented answer about zebras [1]." and not answer.refused
    assert answer.unsupported_sentences == ("Invented answer about zebras.",)


def test_follow_up_is_rewritten_with_the_chat_history(fake_context: Any) -> None:
    services = _services(fake_context, "It was 420 tonnes [1].")
    first = services.ask("How much steel did the northern plant produce?")
    services.ask("and in 2019?", chat_id=first.chat_id)
    turns = services.chat_history(first.chat_id or "")
    assert [t.role for t in turns] == ["user", "assistant"] * 2
    assert turns[2].content == "and in 2019?"
    assert "steel" in (turns[2].query or "") and "2019" in (turns[2].query or "")
    assert services.list_chats()[0].messages == 4


def test_core_documents_are_excluded_from_retrieval_and_numbered_first(fake_context: Any) -> None:
    services = _services(fake_context, "Steel output was 420 tonnes [1].")
    add_document(
        fake_context, "/lib/handbook.md", "Handbook", ["Employees get 30 vacation days per year."]
    )
    services.core_add(["/lib/handbook.md"])
    status = services.core_status()
    assert [d.title for d in status.docs] == ["Handbook"] and status.total_tokens > 0
    answer = services.ask("How many vacation days do employees get per year?")
    assert answer.passages[0].is_core and answer.passages[0].n == 1
    assert all(p.is_core for p in answer.passages)  # routed: the core outscored the library
    prompt = fake_context.engine.prompts[-1]
    assert "30 vacation days" in prompt[0].content and "Sources:" not in prompt[1].content
    steel = services.ask("How much steel did the northern plant produce in 2019?")
    assert any(not p.is_core and p.n == 2 for p in steel.passages)


def test_a_question_within_chosen_documents_uses_only_them_and_no_core(fake_context: Any) -> None:
    services = _services(fake_context, "Steel output was 420 tonnes [1].")
    memo = add_document(fake_context, "/lib/memo.md", "Memo", ["The plant produced 7 tonnes."])
    handbook = add_document(fake_context, "/lib/handbook.md", "Handbook", ["30 vacation days."])
    services.core_add([handbook.path])
    steel = services.ask("How much steel did the plant produce?")
    assert {p.chunk.doc_id for p in steel.passages} >= {memo.doc_id}
    scope = DocScope(only=frozenset({memo.doc_id}))
    within = services.ask("How much steel did the plant produce?", scope=scope)
    assert within.passages and {p.chunk.doc_id for p in within.passages} == {memo.doc_id}
    assert not any(p.is_core for p in within.passages)
    assert "vacation" not in fake_context.engine.prompts[-1][0].content
