"""Questions that name their document: the matcher over profiles, and search through it."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.bootstrap import AppContext
from desktop_rag.config import Settings
from desktop_rag.domain import EVERYWHERE
from desktop_rag.retrieval.doc_match import DocMatcher, name_words, profile_of
from desktop_rag.services import Services
from desktop_rag.text.spelling import near
from tests.ingest_docs import text_pdfs

REPORTS = {
    "nike21": ("NIKE 2021 10K", "NIKE_2021_10K", "NIKE, INC. Annual report for the fiscal year "
               "ended May 31, 2021. Beaverton, Oregon. Athletic footwear and apparel."),
    "nike20": ("NIKE 2020 10K", "NIKE_2020_10K", "NIKE, INC. Annual report for the fiscal year "
               "ended May 31, 2020. Beaverton, Oregon."),
    "costco": ("COSTCO 2021 10K", "COSTCO_2021_10K", "Costco Wholesale Corporation. Form 10-K "
               "for the fiscal year ended August 29, 2021. Warehouse clubs."),
    "netflix": ("NETFLIX 2015 10K", "NETFLIX_2015_10K", "Netflix, Inc. Form 10-K for the fiscal "
                "year ended December 31, 2015. Streaming entertainment service."),
    "coffee": ("User Manual 1500S Classic EN", "User_Manual_1500S_Classic_EN",
               "WMF 1500 S coffee machine. User manual. Descaling, cleaning, milk system."),
    "paper": ("Retrieval augmented generation survey", "2312.10997v5",
              "Retrieval-Augmented Generation for Large Language Models: A Survey. Abstract."),
}  # fmt: skip


def matcher() -> DocMatcher:
    return DocMatcher(
        [profile_of(i, t, [t, stem], cover) for i, (t, stem, cover) in REPORTS.items()]
    )


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("What was Nike's revenue in fiscal 2021?", ("nike21",)),
        ("What is the inventory turnover of NIKE in FY2020?", ("nike20",)),
        ("what is research and development expense of Neflix in FY 2015?", ("netflix",)),
        ("what is total debt to total assets for costco in FY 2021?", ("costco",)),
        ("How do I descale the WMF coffee machine?", ("coffee",)),
        ("Compare Costco and Netflix on revenue growth.", ("costco", "netflix")),
    ],
)
def test_a_question_naming_its_document_finds_it(question: str, named: tuple[str, ...]) -> None:
    focus = matcher().focus(question)
    assert focus is not None and set(focus.doc_ids) == set(named), question


@pytest.mark.parametrize(
    "question",
    [
        "According to this report, what share of revenue came from abroad?",
        "What was revenue in fiscal 2021?",  # two reports of that year: no clear winner
        "How many tables are in the appendix?",
        "What is the fiscal year of the company?",
    ],
)
def test_a_question_naming_no_document_clearly_is_not_focused(question: str) -> None:
    assert matcher().focus(question) is None


def test_names_split_on_separators_and_case_and_drop_generic_words() -> None:
    assert name_words("NIKE_2021_10K") == {"nike", "2021"}
    assert name_words("GPL-Graduate-Studies-Brochure-Jul-2021") >= {"gpl", "graduate", "studies"}
    assert "brochure" not in name_words("GPL-Graduate-Studies-Brochure-Jul-2021")
    assert name_words("iPhoneUserGuide") == {"phone"}


def test_typos_are_one_edit_on_long_words_only() -> None:
    assert near("neflix", "netflix") and near("costko", "costco")
    assert near("netfilx", "netflix")  # two neighbours swapped
    assert not near("nkie", "nike")  # ...but too short to guess
    assert not near("netxlif", "netflix")  # two letters exchanged far apart: not one typo
    assert not near("nike", "mike")  # too short to guess
    assert not near("netflix", "netfilms")


def test_the_years_of_a_report_decide_between_two_of_one_company() -> None:
    ranked = matcher().ranked("Nike revenue 2020")
    assert [p.doc_id for _, p, _ in ranked[:2]] == ["nike20", "nike21"]


COVERS = {
    "acme_2021_annual_report.pdf": ["ACME Rockets Inc. Annual report 2021.",
                                    "Revenue was 4,180 million dollars in 2021."],
    "globex_2021_annual_report.pdf": ["Globex Corporation. Annual report 2021.",
                                      "Revenue was 7,300 million dollars in 2021."],
    "initech_2021_annual_report.pdf": ["Initech LLC. Annual report 2021.",
                                       "Revenue was 2,900 million dollars in 2021."],
}  # fmt: skip


def test_search_through_real_pdfs_reads_the_named_report_first(
    fake_context: AppContext, tmp_path: Path
) -> None:
    services = Services(fake_context)
    services.ingest([text_pdfs(tmp_path / "docs", COVERS)])
    result = services.search("What was Globex's revenue in 2021?", k=4)
    assert result.focus is not None and result.focus.titles == ("globex 2021 annual report",)
    assert "globex" in result.focus.terms
    assert Path(result.results[0].chunk.path).name == "globex_2021_annual_report.pdf"
    assert {Path(r.chunk.path).name for r in result.results[2:]} != {
        "globex_2021_annual_report.pdf"
    }
    assert "focus_ms" in result.timings_ms
    unnamed = services.search("What was revenue in 2021?", k=4)
    assert unnamed.focus is None


def test_the_setting_turns_the_focus_off(fake_context: AppContext, tmp_path: Path) -> None:
    services = Services(fake_context)
    services.ingest([text_pdfs(tmp_path / "docs", COVERS)])
    services.apply_settings(Settings().updated({"retrieval.focus_named": False}))
    assert services.search("What was Globex's revenue in 2021?", k=4).focus is None


def test_a_focused_search_keeps_one_place_in_five_for_the_other_documents(
    fake_context: AppContext, tmp_path: Path
) -> None:
    long_report = {
        "globex_2021_annual_report.pdf": ["Globex Corporation. Annual report 2021."]
        + [f"Globex revenue note {n}: revenue grew in 2021." for n in range(40)],
        "initech_2021_annual_report.pdf": ["Initech LLC. Annual report 2021.",
                                           "Initech revenue was 2,900 million dollars in 2021."],
    }  # fmt: skip
    services = Services(fake_context)
    services.ingest([text_pdfs(tmp_path / "docs", long_report)])
    result = services.search("What was Globex's revenue in 2021?", k=10)
    names = [Path(r.chunk.path).name for r in result.results]
    assert names[:8] == ["globex_2021_annual_report.pdf"] * 8
    assert "initech_2021_annual_report.pdf" in names[8:]


def test_an_answer_says_which_document_it_searched_first(
    fake_context: AppContext, tmp_path: Path
) -> None:
    from desktop_rag.cli.commands_answer import answer_json

    services = Services(fake_context)
    services.ingest([text_pdfs(tmp_path / "docs", COVERS)])
    answer = services.ask("What was Globex's revenue in 2021?")
    assert answer.focus is not None and answer.focus.titles == ("globex 2021 annual report",)
    assert "globex" in answer_json(answer)["focus"]["terms"]
    assert Path(answer.passages[0].chunk.path).name == "globex_2021_annual_report.pdf"


def test_the_chat_says_which_document_was_searched_first() -> None:
    from desktop_rag.domain import Answer, DocFocus
    from desktop_rag.gui.chat_pane import turn_from_answer
    from desktop_rag.gui.render import answer_html

    focus = DocFocus(("d1",), ("NIKE 2021 10K",), ("nike", "2021"), 3.1, 0.4)
    answer = Answer("Nike revenue 2021?", "It was $44.5 billion [1].", None, (), (), (), False,
                    "none", False, focus=focus)  # fmt: skip
    shown = answer_html(turn_from_answer(answer))
    assert "Searched NIKE 2021 10K first, as the question names it (nike, 2021)." in shown
    assert "not supported" not in shown


def test_a_new_process_reads_the_kept_profiles_and_a_changed_library_builds_them_again(
    fake_context: AppContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_rag.retrieval import doc_focus
    services = Services(fake_context)
    services.ingest([text_pdfs(tmp_path / "docs", COVERS)])
    kept = fake_context.paths.doc_profiles_file
    assert services.search("What was Globex's revenue in 2021?", k=4).focus is not None
    assert kept.is_file()

    def no_build(*_args: object) -> None:
        raise AssertionError("profiles built again although the kept ones are current")

    monkeypatch.setattr(doc_focus, "document_profile", no_build)
    fresh = doc_focus.FocusFinder(fake_context.catalog, kept)  # as in a new process
    found = fresh.focus("What was Globex's revenue in 2021?", EVERYWHERE)
    assert found is not None and found.titles == ("globex 2021 annual report",)
    monkeypatch.undo()

    services.rename(str(tmp_path / "docs" / "globex_2021_annual_report.pdf"), "Umbrella 2021")
    renamed = doc_focus.FocusFinder(fake_context.catalog, kept)
    assert renamed.focus("What was Umbrella's revenue in 2021?", EVERYWHERE) is not None
    kept.write_text("{not json", encoding="utf-8")  # damaged: built again, never an error
    damaged = doc_focus.FocusFinder(fake_context.catalog, kept)
    assert damaged.focus("What was Initech's revenue in 2021?", EVERYWHERE) is not None


def test_the_kept_index_needs_both_its_files_and_an_empty_library_has_one(tmp_path: Path) -> None:
    from desktop_rag.retrieval import doc_index

    stamp = {"version": 2, "generation": 1, "documents": "x"}
    profiles = [profile_of("d1", "Nike 2021", ["NIKE_2021_10K"], "Nike annual report 2021")]
    kept = tmp_path / "doc-profiles.json"
    doc_index.save(kept, stamp, doc_index.index_of(profiles))
    loaded = doc_index.load(kept, stamp)
    assert loaded is not None and loaded.doc_ids == ["d1"]
    assert DocMatcher(index=loaded).ranked("Nike revenue 2021")[0][1].doc_id == "d1"
    assert doc_index.load(kept, {**stamp, "generation": 2}) is None  # another library state
    kept.with_name(kept.name + ".npz").unlink()
    assert doc_index.load(kept, stamp) is None  # postings gone: built again
    doc_index.save(kept, stamp, doc_index.index_of([]))
    empty = doc_index.load(kept, stamp)
    assert empty is not None and DocMatcher(index=empty).focus("Nike revenue 2021") is None
