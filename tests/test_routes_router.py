"""The question router and the parts of the exhaustive route that need no library: the rules,
the route table's fallback, what a question asks to count, items of a chunk, the judge's reply,
the answer's sentence, and the router's accuracy on the labelled set."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from desktop_rag.domain import Answer, Chunk, DocKind, DocStatus, Document, RouteName
from desktop_rag.evaluation import route_eval
from desktop_rag.routes.base import RouteRequest, RouteTable, parse_route
from desktop_rag.routes.compose import Reading, headline
from desktop_rag.routes.judge import judge_messages, parse_verdicts
from desktop_rag.routes.matching import match_items
from desktop_rag.routes.router import decide
from desktop_rag.routes.scope import named_documents
from desktop_rag.routes.target import Mode, parse
from desktop_rag.routes.units import item_spans, units_of

LABELLED = Path(__file__).resolve().parents[1] / "bench" / "data" / "route_questions.jsonl"


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("How many invoices were paid late?", "exhaustive"),
        ("List every deadline in these meeting notes.", "exhaustive"),
        ("How many times is Project Falcon mentioned in the reports?", "exhaustive"),
        ("Which invoices were paid late?", "exhaustive"),
        ("Which loans came back late?", "exhaustive"),  # a verb of any form after the plural
        ("Which comments say the course moved too quickly?", "exhaustive"),
        ("Which method integrates knowledge into white-box models?", "lookup"),  # verb in "s"
        ("Which reported bugs make the program crash?", "exhaustive"),  # a participle first
        ("Which proposed method beats the baseline?", "lookup"),  # one method: no set
        ("Which person heads this program?", "lookup"),
        ("How many employees did Netflix have at the end of 2015?", "lookup"),
        ("How many people are in the photograph on page 3?", "lookup"),
        ("How many more subscribers were there in 2015 compared to 2014?", "lookup"),
        ("What is the difference between gross and net margin?", "lookup"),
        ("Summarize this paper in five bullet points.", "summary"),
        ("What does the executive summary say about risks?", "lookup"),  # a known miss
        ("Compare the 2019 and 2021 annual reports on revenue.", "compare"),
        ("Summarize the differences between the two policies.", "compare"),
        ("Who founded the observatory?", "lookup"),
        # a plural noun phrase after "which", then its verb: a set, however it is led up to
        ("Which action items does Omar Haddad own?", "exhaustive"),
        ("Which email addresses does the manual give?", "exhaustive"),
        ("At the company, which directors are non-executive?", "exhaustive"),
        ("What web addresses are listed in the manual?", "exhaustive"),
        ("How many different countries does the report name?", "exhaustive"),
        ("Which degree has LEBOUR earned?", "lookup"),  # "has" is no plural noun
        ("Which dataset in this paper was introduced in 2022?", "lookup"),
        ("Which account tweets content tagged #WednesdayWisdom?", "lookup"),  # a verb in -s
    ],
)
def test_rules_route_questions(question: str, route: str) -> None:
    if "executive summary" in question:
        pytest.xfail("a document part named 'summary' reads as a request for one (held out)")
    assert decide(question).route.value == route


# Written before its first run (stop 46), to confirm "which" + a plural + a verb of any form
# outside the sets it was made on: list questions with irregular or present verbs, and lookups
# that could be mistaken for them. Routed right 10 of 20 before the rule, 19 after.
CONFIRM_WHICH = [
    ("Which invoices went unpaid?", "exhaustive"),
    ("Which patients took the higher dose?", "exhaustive"),
    ("Which employees left the company in 2023?", "exhaustive"),
    ("Which suppliers sent damaged goods?", "exhaustive"),
    ("Which tickets mention the VPN?", "exhaustive"),
    ("Which contracts run past 2026?", "exhaustive"),
    ("Which students wrote about climate change?", "exhaustive"),
    ("Which shipments arrive on Mondays?", "exhaustive"),
    ("Which trucks broke down during the winter?", "exhaustive"),
    ("Which projects ran over budget?", "exhaustive"),
    ("Which model performs best on ImageNet?", "lookup"),
    ("Which company reports the highest revenue in 2022?", "lookup"),
    ("Which figure shows the architecture of the system?", "lookup"),
    ("Which process handles the refunds?", "lookup"),
    ("Which year saw the largest drop in sales?", "lookup"),
    ("Which team leads the project?", "lookup"),
    ("Which section discusses the limitations?", "lookup"),
    ("Which dataset contains the most images?", "lookup"),
    ("Which version fixes the memory leak?", "lookup"),
    ("Which analysis uses regression?", "lookup"),
]


@pytest.mark.parametrize(("question", "route"), CONFIRM_WHICH)
def test_the_which_rule_on_its_confirmation_set(question: str, route: str) -> None:
    if question == "Which analysis uses regression?":
        pytest.xfail("'analysis' reads as a plural (the one miss; not tuned on)")
    assert decide(question).route.value == route


def test_the_default_is_a_lookup_the_router_is_unsure_of() -> None:
    decision = decide("Where is the plant?")
    assert decision.route is RouteName.LOOKUP and not decision.sure


class _Named:
    def __init__(self, name: str) -> None:
        self.name = name

    def answer(self, request: RouteRequest) -> Answer:
        return Answer(request.question, self.name, None, (), (), (), False, "none", False,
                      route=request.info)  # fmt: skip


def test_a_route_not_built_is_answered_by_lookup_and_says_so() -> None:
    table = RouteTable({RouteName.LOOKUP: _Named("lookup"), RouteName.EXHAUSTIVE: _Named("ex")})
    component, info = table.choose("Give me a short overview of the annual report.")
    assert isinstance(component, _Named) and component.name == "lookup"
    assert (info.route, info.handled_by) == (RouteName.SUMMARY, RouteName.LOOKUP)
    assert info.reason == "not built yet (router: a-summary)" and not info.forced
    component, info = table.choose("Who wrote it?", parse_route("exhaustive"))
    assert isinstance(component, _Named) and component.name == "ex" and info.forced
    assert parse_route("comparison") is RouteName.COMPARE and parse_route(None) is None
    with pytest.raises(ValueError, match="lookup"):
        RouteTable({RouteName.EXHAUSTIVE: _Named("ex")})


def test_targets_keep_the_thing_and_its_condition() -> None:
    late = parse("How many invoices were paid late?")
    assert (late.mode, late.noun, late.head, late.condition) == (
        Mode.COUNT, "invoices paid late", ("invoic",), ("paid", "late"))  # fmt: skip
    owned = parse("List every action item assigned to Maria Lopez in the meeting notes.")
    assert owned.head == ("action", "item") and owned.condition == ("maria", "lopez")
    assert owned.soft == {"item"} and owned.head_noun == "action item"
    leaks = parse("How many water leaks are recorded in the incident log?")
    assert leaks.noun == "water leaks" and leaks.condition == ()
    exhibit = parse("How many times does Exhibit P-10 appear in the document?")
    assert exhibit.mode is Mode.MENTIONS and exhibit.identifiers == ("P-10",)
    recorded = parse("Count the printer jams that the log records.")  # where, as a clause
    assert recorded.head == ("printer", "jam") and recorded.condition == ()
    caused = parse("List the incidents that the forklift caused.")  # no document: a condition
    assert caused.condition == ("forklift", "caus")


def test_a_modal_a_second_how_many_or_a_leading_clause_leave_the_thing_counted_as_it_is() -> None:
    """Rewordings of one question keep its thing: "must be followed" is no part of the steps,
    "strengths and how many weaknesses" counts strengths and weaknesses, and "In Appendix C,
    count the ..." counts what follows "count" (MMLongBench dev rewordings, mmlb-0090, -0328)."""
    steps = parse("How many steps are needed to customize the function of the Down Button?")
    must = parse("To customize the Down Button's function, how many steps must be followed?")
    assert steps.head == must.head == ("step",) and must.condition == ("follow",)
    both = parse("How many strengths and weaknesses are mentioned in Appendix C?")
    again = parse("How many strengths and how many weaknesses does Appendix C list?")
    led = parse("In Appendix C, count the strengths and the weaknesses mentioned.")
    assert both.head == again.head == led.head == ("strength", "weak")
    assert parse("How many unpaid May invoices were sent?").head == ("unpaid", "may", "invoic")
    aside = parse("In the paper's main body, count the prompt examples listed (integer).")
    assert aside.head == ("prompt", "exampl") and aside.condition == ()


def test_a_second_sentence_is_an_instruction_not_part_of_the_thing_counted() -> None:
    """mmlb-0485 counted "waveform figures contained for 272318? List the page numbers in the
    list format in ascending order"; with or without the instruction, the target is the same."""
    bare = parse("How many waveform figures are in the guidebook?")
    asked_ = "How many waveform figures are in the guidebook"
    for asked in (f"{asked_}? List the page numbers.", f"{asked_}?Please answer as an integer.",
                  f"{asked_}. Give the pages too."):  # fmt: skip
        target = parse(asked)
        assert (target.noun, target.head, target.condition) == (bare.noun, bare.head, ())
    assert parse("How many times is P. Smith mentioned?").phrase == "P. Smith"


def _chunk(text: str, n: int = 0) -> Chunk:
    return Chunk(f"c{n}", "d", "/x.pdf", "X", DocKind.PDF, text, n, (1,), (0, len(text)))


def test_items_are_lines_and_sentences_and_a_running_line_joins_the_next() -> None:
    text = (
        "Minutes, page 1\nAction item: Maria to send the\nbudget by May.\nThe team met. It rained."
    )
    got = [text[a:b] for a, b in item_spans(text)]
    assert got == ["Minutes, page 1", "Action item: Maria to send the\nbudget by May.",
                   "The team met.", "It rained."]  # fmt: skip


def test_matching_decides_what_it_can_and_leaves_the_rest_to_the_judge() -> None:
    units = units_of(_chunk("Invoice A from Acme: paid late.\nInvoice B from Acme: paid on time."
                            "\nInvoice C: no late payment recorded."))  # fmt: skip
    found = match_items(units, parse("How many invoices were paid late?"))
    assert [f.unit.text for f in found.items] == ["Invoice A from Acme: paid late."]
    # the other invoices may say it otherwise: judged, measured against the line that says it
    assert [u.text for u in found.candidates] == ["Invoice B from Acme: paid on time.",
                                                  "Invoice C: no late payment recorded."]
    assert [u.text for u in found.anchors] == ["Invoice A from Acme: paid late."]
    dates = match_items(units, parse("How many invoices were paid after the due date?"))
    assert dates.items == [] and len(dates.candidates) == 3 and not dates.condition_stated
    mentions = match_items(units_of(_chunk("Acme and acme. ACME!")), parse("Every mention of Acme"))
    assert len(mentions.items) == 3 and mentions.items[0].by == "phrase"


def test_a_head_word_the_documents_title_says_may_go_unsaid_in_its_lines() -> None:
    text = "INC-1 Login failure at the gate.\nINC-2 Printer jam.\nIncident log, page 2"
    logged = [dataclasses.replace(c, title="Incident log 1") for c in [_chunk(text)]]
    asked = parse("Show me all the login failure incidents that were logged.")
    found = match_items(units_of(logged[0]), asked)
    assert [f.unit.text for f in found.items] == ["INC-1 Login failure at the gate."]
    lines = dataclasses.replace(logged[0], text="INC-1 Login failure.\nINC-2 Printer jam.")
    every = match_items(units_of(lines), parse("How many incidents are in the log?"))
    assert every.items == []  # a head the title alone says makes no line an item
    elsewhere = match_items(units_of(_chunk(text)), asked)  # title "X": the lines must say it
    assert elsewhere.items == []


def test_the_judges_reply_is_read_per_number_and_a_silence_is_no_verdict() -> None:
    assert parse_verdicts("1: yes\n2. No\n3) yes\n1: no", 4) == [True, False, True, None]
    messages = judge_messages("Which?", "late invoices", ["see [1] <source>", "b"])
    assert "1) see (1) ‹source>" in messages[1].content and "lines 1 to 2" in messages[1].content


def test_a_condition_no_line_states_in_full_is_judged_on_the_lines_holding_its_stated_words() -> (
    None
):
    text = ("Invoice 1 from Acme Ltd, 200 EUR.\nInvoice 2 from Borealis GmbH, 300 EUR.\n"
            "Invoice 3 from Acme Ltd, 90 EUR.")
    found = match_items(units_of(_chunk(text)), parse("Which invoices did Acme Ltd send?"))
    assert found.items == [] and not found.condition_stated
    assert [u.text for u in found.candidates] == ["Invoice 1 from Acme Ltd, 200 EUR.",
                                                  "Invoice 3 from Acme Ltd, 90 EUR."]  # fmt: skip
    late = match_items(units_of(_chunk(text)), parse("Which invoices were paid late?"))
    assert len(late.candidates) == 3  # no name in the condition: every invoice is judged
    register = ("Complaint C-1: order turned up 6 days later than the confirmed delivery day.\n"
                "Complaint C-2: parcel arrived 5 days after the promised date.\n"
                "Complaint C-3: wrong colour sent.")  # fmt: skip
    asked = parse("How many complaints were about late delivery?")
    described = match_items(units_of(_chunk(register)), asked)
    assert len(described.candidates) == 3  # "late delivery" said in other words: all judged


def _doc(title: str, path: str, pages: int = 3) -> Document:
    return Document(title, path, title, DocKind.PDF, "s", 1, 1.0, pages, 9, DocStatus.INDEXED)


def test_a_question_names_documents_by_their_whole_title() -> None:
    docs = [_doc("Incident log 1", "/a/incident-log-1.pdf"), _doc("Incident log 12", "/b.pdf"),
            _doc("Notes", "/c/meeting_notes_2024.pdf")]  # fmt: skip
    assert named_documents("How many leaks are in Incident log 1?", docs) == docs[:1]
    assert named_documents("List every action in meeting notes 2024", docs) == docs[2:]
    assert named_documents("How many leaks are in the incident log?", docs) == []


def test_the_headline_states_the_number_and_what_was_read() -> None:
    docs = [_doc("Log", "/l.pdf", 40)]
    reading = Reading(docs, False, 120, 40)
    assert headline(parse("How many water leaks are there?"), 3, reading) == (
        "Found 3 matching items for “water leaks” in Log, reading all 120 passages (40 pages)."
    )
    unsure = Reading(docs, False, 120, 40, undecided=2)
    assert "“Falcon” is mentioned at least 1 time in Log" in headline(
        parse("How many times is Falcon mentioned?"), 1, unsure)  # fmt: skip


def test_router_accuracy_on_the_labelled_set() -> None:
    """The file's own dev split is what the rules were tuned on, its test split was held out of
    that; the hash split (evaluation/splits.py) every evaluation set shares holds too."""
    report = route_eval.evaluate(route_eval.load_labelled(LABELLED))
    assert report["questions"] >= 100
    assert report["by_file_split"]["dev"]["accuracy"] == 1.0
    assert report["by_file_split"]["test"]["accuracy"] >= 0.9
    assert min(row["accuracy"] for row in report["by_split"].values()) >= 0.9
