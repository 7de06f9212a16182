"""The summary route's small parts alone: the sections of a text (headings, budgets, references
left out), the form a question asks for, the bullet gate, the store's keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_rag.domain import Chunk, DocKind
from desktop_rag.domain.progress import CancelToken
from desktop_rag.routes.router import decide
from desktop_rag.routes.sections import headings_in, sections, skipped_pages
from desktop_rag.routes.summary_format import (
    BulletGate,
    LinkedCancel,
    bullets_of,
    distinct,
    exactly,
    parse_format,
)
from desktop_rag.routes.summary_store import Identity, SummaryStore


def chunk(i: int, text: str, page: int, heading: tuple[str, ...] = ()) -> Chunk:
    return Chunk(f"c{i}", "d", "/p.pdf", "Paper", DocKind.PDF, text, i, (page,), (0, len(text)),
                 heading_path=heading)  # fmt: skip


def words(text: str) -> int:
    return len(text.split())


def test_pdf_headings_are_found_and_body_lines_are_not() -> None:
    text = ("Abstract\nWe study things.\n1\nIntroduction\nText here.\n2 Related Work\nMore.\n"
            "3 models scored 85.2 on the test.\n4. Results of the study were good.\n")  # fmt: skip
    assert [h.title for h in headings_in(text)] == ["Abstract", "1 Introduction",
                                                   "2 Related Work"]  # fmt: skip


def test_sections_follow_headings_fill_the_budget_and_leave_out_references() -> None:
    body = " word" * 30
    chunks = [chunk(0, "Abstract\nWe study." + body, 1),
              chunk(1, "1\nIntroduction\nWhy." + body, 1),
              chunk(2, "More intro." + body, 2), chunk(3, "2\nMethod\nHow." + body, 3),
              chunk(4, "References\nA. Author. 2020." + body, 4),
              chunk(5, "A B. 2021. Title." + body, 5),
              chunk(6, "Appendix A\nExtra." + body, 6)]  # fmt: skip
    cut = sections(chunks, budget=100, count=words)
    assert [s.title for s in cut] == ["Abstract; 1 Introduction", "2 Method", "Appendix A"]
    assert [s.place for s in cut] == ["pages 1\u20132", "page 3", "page 6"]
    assert all(s.tokens <= 100 for s in cut) and [s.n for s in cut] == [1, 2, 3]
    assert skipped_pages(chunks, cut) == 2  # the references' pages 4 and 5
    assert [c.chunk_id for s in cut for c in s.chunks] == ["c0", "c1", "c2", "c3", "c6"]


def test_a_text_without_headings_is_cut_into_page_ranges_that_fill_the_budget() -> None:
    chunks = [chunk(i, "plain text " * 20, i + 1) for i in range(10)]  # 40 words each
    cut = sections(chunks, budget=130, count=words, first=4)
    assert [s.place for s in cut] == ["pages 1\u20133", "pages 4\u20136", "pages 7\u20139",
                                      "page 10"]  # fmt: skip
    assert [s.n for s in cut] == [4, 5, 6, 7]


def test_note_headings_start_sections() -> None:
    chunks = [chunk(0, "a " * 10, 1, ("Intro",)), chunk(1, "b " * 10, 1, ("Intro", "Sub")),
              chunk(2, "c " * 10, 1, ("Plan",))]  # fmt: skip
    cut = sections(chunks, budget=25, count=words)
    assert [s.title for s in cut] == ["Intro", "Plan"]


def test_the_form_asked_for_is_read_from_the_words() -> None:
    assert parse_format("Summarize this paper in five bullet points.").bullets == 5
    assert parse_format("Give me 3 key takeaways").bullets == 3
    assert parse_format("Summarize in bullet points").bulleted
    assert parse_format("Summarize in bullet points").bullets is None
    assert parse_format("Summarize in two sentences").sentences == 2
    assert parse_format("Give a brief summary").brief
    assert parse_format("Summarize the 2023 report").bullets is None
    assert parse_format("Summarize in 40 bullet points").bullets is None


def test_summary_questions_are_routed_to_the_summary_route() -> None:
    for q in ("Summarize this paper in five bullet points.", "What is this report about?",
              "Give me an overview of the handbook", "Summarize “Beta handbook”."):
        assert decide(q).route == "summary", q


def test_the_gate_passes_bullets_until_the_count_and_then_stops_the_model() -> None:
    shown: list[str] = []
    user = CancelToken()
    stop = LinkedCancel(user)
    gate = BulletGate(shown.append, 2, stop)
    for piece in ["Intro", " line\n", "- one", " [1]\n", "-", " two [2]\n", "- th", "ree\n"]:
        gate(piece)
    gate.flush()
    assert "".join(shown) == "Intro line\n- one [1]\n- two [2]\n"
    assert stop.cancelled and not stop.by_user and gate.done
    user2 = CancelToken()
    linked = LinkedCancel(user2)
    user2.cancel()
    assert linked.cancelled and linked.by_user


def test_bullets_are_trimmed_or_split_to_the_count() -> None:
    lead, points = bullets_of("Here:\n- A one. [1]\n- B two. Then C. [2]\n* D.\n")
    assert lead == ["Here:"] and points == ["A one. [1]", "B two. Then C. [2]", "D."]
    assert exactly(points, 2) == ["A one. [1]", "B two. Then C. [2]"]
    assert exactly(points, 4) == ["A one. [1]", "B two.", "Then C. [2]", "D."]
    assert exactly(["Only one."], 3) == ["Only one."]  # nothing to split: stays short


def test_repeated_and_broken_off_bullets_are_dropped_to_be_asked_again() -> None:
    looped = ["The paper surveys self-correction of LLMs. [18]",
              "It covers training-time and post-hoc corrections. [8]",
              "It covers training-time and post-hoc corrections. [9]",  # the model looped
              "The paper covers"]  # and broke off  # fmt: skip
    assert distinct(looped) == looped[:2]
    assert exactly(looped, 5) == looped[:2]  # too few now: the route asks for three more
    alike_but_not_repeats = ["The paper studies ranking on page 2 with care.",
                             "The paper studies parsing on page 3 with care."]  # fmt: skip
    assert distinct(alike_but_not_repeats) == alike_but_not_repeats
    short_but_whole = ["Revenue grew 12%. [1]", "Costs fell. [2]"]
    assert distinct(short_but_whole) == short_but_whole
    assert distinct(["A first point stated in full. [1]", "Then a last one that"]) == [
        "A first point stated in full. [1]"]  # fmt: skip


def test_kept_summaries_depend_on_the_model_and_the_prompt(tmp_path: Path) -> None:
    store = SummaryStore(tmp_path / "s.sqlite3")
    a, b = Identity("m1", "v1"), Identity("m2", "v1")
    store.put_section("sha", a, "doc", "pages 1-2", "kept")
    assert store.section("sha", a) == "kept"
    assert store.section("sha", b) is None
    assert store.section("sha", Identity("m1", "v2")) is None
    again = SummaryStore(tmp_path / "s.sqlite3")  # a new process: still kept
    assert again.section("sha", a) == "kept" and again.sections_kept(a) == 1


def test_the_quick_whole_limit_applies_without_a_gpu_and_follows_the_setting(
    fake_context: Any,
) -> None:
    """The chat model on a CPU: a text above `llm.summary_whole_cpu_tokens` starts from its key
    sentences; the same model with GPU offload reads whatever fits."""
    from desktop_rag.domain.fakes import FakeChatEngine
    from desktop_rag.services.routing import summary_settings

    class OnGpu(FakeChatEngine):
        gpu_offload = True

    fake_context.provide(engine=FakeChatEngine(context_size=8192))
    assert summary_settings(fake_context).quick_whole_tokens == 2000
    fake_context.release("engine")
    fake_context.provide(engine=OnGpu(context_size=8192))
    assert summary_settings(fake_context).quick_whole_tokens is None
    fake_context.release("engine")
    fake_context.update_settings({"llm.summary_whole_cpu_tokens": 0})
    fake_context.provide(engine=FakeChatEngine(context_size=8192))
    assert summary_settings(fake_context).quick_whole_tokens == 0
