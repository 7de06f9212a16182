"""The key sentences a long summary starts from (routes/key_sentences), and the summary route
using them: which sentences can be picked, what makes one a key sentence, that the picks are
diverse and in reading order, and that the route then needs one model pass, cites sections of
citation size, says what it read, and falls back to the model's section summaries."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from desktop_rag.answering.citations import CitationChecker
from desktop_rag.domain import PICTURE_TEXT, Chunk, DocKind
from desktop_rag.domain.fakes import HashEmbedder
from desktop_rag.routes.key_sentences import (
    Candidate,
    candidates,
    cue,
    framing,
    key_sentences,
    pick,
    place,
    scores,
    sentence_count,
)
from desktop_rag.routes.sections import Section
from desktop_rag.routes.summary import Parts, SummaryRoute, SummarySettings
from desktop_rag.routes.summary_prompts import PROMPT_VERSION
from desktop_rag.routes.summary_store import Identity, SummaryStore
from tests.test_routes_summary import _SOURCE, Library, SummaryEngine, paper, request, words

CONTRIBUTION = "In this paper we propose a lantern index that finds rare passages in long reports."
FINDING = "Results show that the lantern index halves the time needed to find a rare passage."


def section(n: int, *texts: str) -> Section:
    chunks = tuple(
        Chunk(f"d:{n}:{i}", "d", "/docs/p.pdf", "P", DocKind.PDF, t, i, (n,), (0, len(t)))
        for i, t in enumerate(texts)
    )
    return Section(n, f"Part {n}", chunks, sum(len(t.split()) for t in texts))


def test_only_sentences_of_prose_are_candidates_in_reading_order() -> None:
    first = section(1, f"{CONTRIBUTION} Too short to say much. Figure 2: the lantern index "
                       "at work on three reports of many pages each.")  # fmt: skip
    second = section(2, "Revenue 2019 2020 2021 was 10 12 14 16 18 20 22 24 and 26 in total "
                        "units. See https://example.org/lantern for the code of the index and "
                        f"more. {FINDING}")  # fmt: skip
    found = candidates([first, second])
    assert [(c.section, c.text) for c in found] == [(1, CONTRIBUTION), (2, FINDING)]
    assert [c.order for c in found] == [0, 1]


def test_entries_of_a_reference_list_are_no_candidates() -> None:
    entries = ("In Proceedings of the 25th International Conference on Automated Deduction "
               "(ICAD), volume 9195 of Lecture Notes in Computer Science, pages 378\u2013388. "
               "F. Wei, D. Deng, and Q. Zhang, \u201cUprise: universal prompt retrieval for "
               "improving zero-shot evaluation,\u201d arXiv preprint arXiv:2303.08518, 2023.")
    found = candidates([section(1, f"{CONTRIBUTION} {entries} {FINDING}")])
    assert [c.text for c in found] == [CONTRIBUTION, FINDING]


def test_words_read_from_a_picture_are_no_candidates() -> None:
    ocr = (f"{PICTURE_TEXT} iOS 9 has the fastest adoption rate ever, with more than fifty "
           "percent of devices. Apple measured it in the App Store on September nineteen.")
    found = candidates([section(1, f"{CONTRIBUTION}\n{ocr}\n{FINDING}")])
    assert [c.text for c in found] == [CONTRIBUTION, FINDING]


def test_a_sentence_cut_off_at_a_chunk_end_is_no_candidate() -> None:
    cut = section(1, f"{CONTRIBUTION} We summarize our contributions as follows: 1) We define "
                     "the task of Knowledge-aware Language")  # fmt: skip
    assert [c.text for c in candidates([cut])] == [CONTRIBUTION]


def test_introductions_and_conclusions_are_where_a_paper_states_itself() -> None:
    for title in ("1 INTRODUCTION (pages 1–2)", "7 DISCUSSION – 9 CONCLUSION (page 9)",
                  "Executive summary", "5 Conclusions and Future Work"):  # fmt: skip
        assert framing(title), title
    for title in ("3 Dataset Construction (pages 3–4)", "6 Related Work", "Part 2"):
        assert not framing(title), title
    plain = Section(2, "4 Experiments", section(2, FINDING).chunks, 14)
    closing = Section(2, "6 Conclusion", section(2, FINDING).chunks, 14)
    assert candidates([closing])[0].framing and not candidates([plain])[0].framing
    vectors = np.array([[1.0, 0.0]], dtype=np.float32)
    assert scores(candidates([closing]), vectors)[0] > scores(candidates([plain]), vectors)[0]


def test_stated_contributions_and_findings_weigh_more_than_others_work() -> None:
    plain = "The lantern index was stored on a disk with several folders of reports."
    others = "Earlier lantern indexes were slow [4, 5] as Smith et al found in their study."
    assert cue(CONTRIBUTION) > cue(plain) > cue(others)
    assert cue(FINDING) > cue(plain)
    assert place(0, 100) > place(50, 100) and place(99, 100) > place(50, 100)


def test_the_picks_are_diverse_and_come_back_in_reading_order() -> None:
    found = [Candidate(1, 0, "a"), Candidate(1, 1, "a again"), Candidate(2, 2, "b")]
    vectors = np.array([[1.0, 0.0], [0.995, 0.0998], [0.6, 0.8]], dtype=np.float32)
    picked = pick(found, vectors, 2)
    assert [c.text for c in picked] == ["a", "b"]  # not the near-copy of the first pick
    assert pick(found, vectors, 5) == found  # all of them, in reading order
    assert pick([], vectors[:0], 3) == []


def test_key_sentences_are_grouped_by_their_section() -> None:
    parts = [section(1, CONTRIBUTION), section(2, "Nothing here."), section(3, FINDING)]
    picked = key_sentences(parts, HashEmbedder(), 4)
    assert picked == {1: [CONTRIBUTION], 3: [FINDING]}
    assert key_sentences([section(1, "Short.")], HashEmbedder(), 4) == {}
    assert sentence_count(5) == 12 and sentence_count(8) == 16 and sentence_count(30) == 20


def made_up(seed: int, count: int) -> str:
    """`count` made-up words of letters that no other seed's words share."""
    return " ".join("".join(chr(97 + (seed * 31 + k * 7 + j * 3) % 26) for j in range(6)) + "q"
                    * (seed % 3) for k in range(count))  # fmt: skip


def long_paper(pages: int) -> list[str]:
    """A paper whose first page states its contribution and whose last its finding; every page
    between describes a part of the design in words of its own."""
    out = []
    for p in range(1, pages + 1):
        lead = CONTRIBUTION if p == 1 else FINDING if p == pages else made_up(p, 10) + "."
        out.append(f"{p}\nPart {p}\n{lead}")
    return out


def route(tmp_path: Path, lib: Library, engine: SummaryEngine, **settings: Any) -> SummaryRoute:
    store = SummaryStore(tmp_path / "summaries.sqlite3")
    config = SummarySettings(context_tokens=500, answer_tokens=200, overhead_tokens=100,
                             cite_tokens=150, fill=1.0, **settings)  # fmt: skip
    parts = Parts(lib, lambda: engine, store, lambda: Identity("fake", PROMPT_VERSION), words,
                  lambda: CitationChecker(None), lambda: config,
                  embedder=lambda: HashEmbedder())  # fmt: skip
    return SummaryRoute(parts)


def test_a_long_paper_is_summarised_from_its_key_sentences_in_one_pass(tmp_path: Path) -> None:
    lib = Library()
    lib.add("Long paper", long_paper(16))
    engine = SummaryEngine(bullets=5)
    answer = route(tmp_path, lib, engine).answer(request("Summarize the long paper in 5 bullets."))
    assert engine.kinds == ["reduce"]  # no model pass per section
    sources = _SOURCE.findall(engine.prompts[0][-1].content)
    texts = "\n".join(t for _, t in sources)
    assert CONTRIBUTION in texts and FINDING in texts
    numbers = [int(n) for n, _ in sources]
    assert numbers == sorted(numbers) and len(numbers) <= 12  # sections holding a key sentence
    details = answer.route.details
    assert details["passes"] == 1 and details["whole"] == 0 and details["model_calls"] == 1
    assert "1 pass over its 12 key sentences." in answer.answer
    assert {c.n for c in answer.citations} >= {numbers[0], numbers[-1]}  # first and last part
    listed = re.findall(r"\[(\d+)\]", answer.answer.split("Sections: ")[1])
    assert {int(n) for n in listed} == {c.n for c in answer.citations}  # the cited ones only
    again = route(tmp_path, lib, engine).answer(request("Summarize the long paper in 5 bullets."))
    assert "1 pass over its key sentences (this summary was kept" in again.answer


def test_the_model_map_is_kept_as_a_setting_and_as_the_fallback(tmp_path: Path) -> None:
    lib = Library()
    lib.add("Long paper", paper(12))
    engine = SummaryEngine()
    route(tmp_path, lib, engine, map="model").answer(request("Summarize the long paper."))
    assert engine.kinds.count("map") >= 3 and engine.kinds[-1] == "reduce"
    numbers = Library()
    numbers.add("Tables", [f"{p}\n10 20 30 40\n50 60 70 80 90 100\n" * 30 for p in range(1, 9)])
    fallback = SummaryEngine()
    route(tmp_path / "n", numbers, fallback).answer(request("Summarize the tables."))
    assert "map" in fallback.kinds  # no sentence of prose to pick: the model reads each part


def test_a_kept_summary_is_not_reused_once_the_picking_changed(
    tmp_path: Path, monkeypatch: Any
) -> None:
    import desktop_rag.routes.summary as summary_module

    lib = Library()
    lib.add("Long paper", long_paper(16))
    engine = SummaryEngine(bullets=5)
    route(tmp_path, lib, engine).answer(request("Summarize the long paper in 5 bullets."))
    monkeypatch.setattr(summary_module, "PICKER_VERSION", "key-sentences-test")
    again = route(tmp_path, lib, engine).answer(request("Summarize the long paper in 5 bullets."))
    assert again.route.details["final_reused"] == 0 and engine.kinds == ["reduce", "reduce"]


def test_without_a_gpu_a_text_that_fits_but_is_slow_to_read_starts_from_key_sentences(
    tmp_path: Path,
) -> None:
    """The whole text fits the context, but on a CPU reading it would take minutes: above the
    quick limit the key sentences stand in; with no limit (a GPU) it is read whole."""
    lib = Library()
    lib.add("Long paper", long_paper(4))
    quick = SummaryEngine(bullets=5)
    answer = route(tmp_path, lib, quick, quick_whole_tokens=20).answer(
        request("Summarize the long paper in 5 bullets."))  # fmt: skip
    assert answer.route.details["whole"] == 0 and "key sentences" in answer.answer
    on_gpu = SummaryEngine(bullets=5)
    whole = route(tmp_path / "g", lib, on_gpu).answer(
        request("Summarize the long paper in 5 bullets."))  # fmt: skip
    assert whole.route.details["whole"] == 1 and "map" not in on_gpu.kinds


def test_the_quick_limit_only_applies_where_key_sentences_can_stand_in() -> None:
    config = SummarySettings(context_tokens=1000, answer_tokens=100, overhead_tokens=100,
                             fill=1.0, quick_whole_tokens=300)  # fmt: skip
    assert config.reads_whole(300, picks=True) and not config.reads_whole(301, picks=True)
    assert config.reads_whole(800, picks=False)  # the model map: reading whole is still faster
    assert not config.reads_whole(801, picks=False)  # does not fit
    assert SummarySettings(quick_whole_tokens=None).reads_whole(5000, picks=True)
