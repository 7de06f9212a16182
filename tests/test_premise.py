"""The premise check: the names, years and colours a question takes for granted, looked up in the
documents searched (answering/premise.py, FtsSparseIndex.mentions on a real catalog on disk),
and the refusal that names what is missing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_rag.answering.premise import (
    held_elsewhere,
    missing_terms,
    premise_refusal,
    premise_terms,
)
from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.routed import RouteInfo
from desktop_rag.store.documents import Catalog
from tests.test_store_catalog import chunks, doc

TEXTS = {
    "crisis": ["Germanwings flight 9525: Lufthansa and Airbus posted statements within hours.",
               "Tweets referencing #Germanwings passed 500,000 in the first six hours (2015)."],
    "survey": ["Americans and Germans differ on the U.S.-German relationship.",
               "Pew Research Center survey, fielded in 2019."],
    "manual": ["The green light means very cold milk; the gray cup holds the foam.",
               "Greenhouse gas emissions of the machine fell in 2021."],
}


def names(question: str) -> list[str]:
    return [t.text for t in premise_terms(question)]


def test_names_are_capitalised_words_not_opening_a_sentence() -> None:
    assert names("According to this document, Lebron Brennan belongs to which agency?") == [
        "Lebron Brennan"]
    assert names("How many Tweets are attributed to Boeing?") == ["Tweets", "Boeing"]
    assert names("What is the telephone no for the Care Quality Commission") == [
        "Care Quality Commission"]


def test_a_comma_or_a_word_in_lower_case_ends_a_name() -> None:
    assert names("Among Clinton, G.W.Bush, and Obama, whose rate rose?") == [
        "Clinton", "G.W.Bush", "Obama"]
    assert names("Between Java and Kotlin, which is larger?") == ["Java", "Kotlin"]


def test_years_count_and_the_first_word_of_each_sentence_does_not() -> None:
    assert names("In 2024, what share voted? Please answer in percent.") == ["2024"]
    assert names("what is the number of logos in page 10?") == []
    assert names("Which news appear in both Vietnam mobile news and Appota news?") == [
        "Vietnam", "Appota"]


def test_acronyms_periods_and_instructions() -> None:
    """An acronym may be spelt out in the documents; "FY2021" is its year; what follows the
    question mark says how to answer."""
    assert names("What is the EBITDA margin of Netflix in FY2015?") == ["Netflix", "2015"]
    assert names("WHAT IS ITC LIMITED LOGO COLOR?") == []
    assert names("What is the date of the report? Format it as Yyyy-Mm-Dd, Please.") == []
    assert names("Which 2015s trends, in Q3 2015, did Apple report?") == ["2015", "Apple"]


def test_lone_letters_pronouns_and_possessives() -> None:
    assert names("How many more times did Recruiter A view profiles than I did?") == ["Recruiter"]
    assert names("How many instances of Lufthansa's official website are there?") == ["Lufthansa"]


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    for n, (doc_id, texts) in enumerate(TEXTS.items()):
        catalog.add_pending(doc(doc_id, f"/{n}.pdf"), chunks(doc_id, texts))
        catalog.finalize(doc_id)
    yield catalog
    catalog.close()


def missing(catalog: Catalog, question: str, scope: DocScope = EVERYWHERE) -> list[str]:
    index = catalog.sparse_index()
    return [t.text for t in missing_terms(
        question, lambda found, exact: index.mentions(found, scope, exact))]


def test_a_name_no_document_holds_is_missing(catalog: Catalog) -> None:
    assert missing(catalog, "How many Tweets are attributed to Boeing?") == ["Boeing"]
    assert missing(catalog, "How many Tweets are attributed to Germanwings?") == []
    assert missing(catalog, "What share of Chinese respondents agree, as of 2024?") == [
        "Chinese", "2024"]


def test_the_scope_decides(catalog: Catalog) -> None:
    crisis = DocScope(only=frozenset({"crisis"}))
    assert missing(catalog, "What did Lufthansa post?", crisis) == []
    assert missing(catalog, "What do Americans think of Lufthansa?", crisis) == ["Americans"]
    assert missing(catalog, "What did Lufthansa post?", DocScope(only=frozenset({"survey"}))) == [
        "Lufthansa"]


def test_stems_and_typos_are_mentions(catalog: Catalog) -> None:
    assert missing(catalog, "How do the American and German views differ?") == []
    assert missing(catalog, "How do Americen and Germen views differ?") == []  # one typo each
    assert missing(catalog, "What did the Pew Reserch Center ask in 2019?") == []
    assert missing(catalog, "What did the Pew Center of Reserch ask?") == []
    assert missing(catalog, "What did the Pew Institute ask?") == ["Pew Institute"]
    assert missing(catalog, "What did Airbus tell Pew?") == []  # each word somewhere


def test_the_refusal_names_what_is_missing() -> None:
    terms = premise_terms("Which agency does Lebron Brennan belong to?")
    answer = premise_refusal("q", "chat", terms, RouteInfo.default(), False, 0.0)
    assert answer.refused and not answer.citations
    assert "\u201cLebron Brennan\u201d" in answer.answer
    assert "never mention \u201cLebron Brennan\u201d" in answer.route.reason
    assert answer.route.details["missing_names"] == 1


def test_a_name_with_stops_is_found_by_its_words(catalog: Catalog) -> None:
    assert missing(catalog, "What do Americans say of the G.W.Bush years?") == ["G.W.Bush"]  # bush
    assert missing(catalog, "What do Americans say of the German-Pew survey?") == []


def test_a_word_cut_short_is_looked_up_as_a_prefix(catalog: Catalog) -> None:
    terms = premise_terms("Who was interviewed by Lufthansa agents on Oct. 24, 2015?")
    assert [t.words for t in terms] == [("lufthansa",), ("oct*",), ("2015",)]
    assert missing(catalog, "Which statements did Lufthansa and Airb. post?") == []
    assert missing(catalog, "Which statements did Lufthansa and Boei. post?") == ["Boei."]


def test_a_title_or_initials_before_a_name_may_be_left_out(catalog: Catalog) -> None:
    assert [t.words for t in premise_terms("What did Mr Smith and G.W.Bush say?")] == [
        ("smith",), ("bush",)]
    assert missing(catalog, "What did Dr Lufthansa say?") == []
    assert missing(catalog, "What did Dr Brennan say?") == ["Dr Brennan"]


def test_a_title_with_its_stop_and_a_place_as_its_adjective(catalog: Catalog) -> None:
    assert [t.words for t in premise_terms("What is Mr. Hastings's role, and Mr.'s?")] == [
        ("hastings",)]
    assert missing(catalog, "What do Americans think of Germanwings in America?") == []
    assert missing(catalog, "What does America think of the flight?") == []  # "Americans"


def test_two_words_typed_without_a_space_are_mentions(catalog: Catalog) -> None:
    assert missing(catalog, "What did Lufthansa and Airbusposted say?") == []
    assert missing(catalog, "What did Lufthansa and Airbusfor say?") == []
    assert missing(catalog, "What did Lufthansa and Boeingfor say?") == ["Boeingfor"]


def test_a_word_labelling_a_number_is_no_name() -> None:
    """"Page 3" as a user writes it: a map or a photo never prints "Page" (mmlb-0195)."""
    assert names("What city has the largest font on the map on Page 3?") == []
    assert names("How many claims in Building 4 were turned down?") == []
    assert names("How many people are in Figure 7 of the Acme report?") == ["Acme"]
    assert names("Is iOS 7 adopted faster than Android 4?") == ["iOS"]
    assert names("What did Lebron Brennan 2 say?") == ["Lebron Brennan"]


def test_colours_are_premises_and_a_colour_in_a_name_is_the_name() -> None:
    assert names("What is the yellow color italic text on page 9?") == ["yellow"]
    assert names("what is the number of red logos in page 10?") == ["red"]
    assert names("How many Red Bull logos are there?") == ["Red Bull"]
    assert names("Which rows are shaded gray? Answer in Blue.") == ["gray"]
    assert names("What colour is the ITC logo?") == []  # no colour named, "ITC" in capitals


def test_a_colour_is_found_only_as_itself(catalog: Catalog) -> None:
    """A colour the text names passes, in either spelling of grey; "greenhouse" does not name
    green; a colour only pictures could show is missing."""
    manual = DocScope(only=frozenset({"manual"}))
    assert missing(catalog, "What does the green light mean?", manual) == []
    assert missing(catalog, "Which cup is grey?", manual) == []
    crisis = DocScope(only=frozenset({"crisis"}))
    assert missing(catalog, "What is printed in green on the first page?", crisis) == ["green"]
    assert missing(catalog, "Which line is highlighted in yellow?", manual) == ["yellow"]
    assert missing(catalog, "Which figure shows a greenhouse?", manual) == []


def test_the_refusal_of_a_colour_says_that_colours_of_pictures_are_not_read() -> None:
    terms = premise_terms("What is the yellow italic text on page 9?")
    answer = premise_refusal("q", "chat", terms, RouteInfo.default(), False, 0.0)
    assert answer.refused and "\u201cyellow\u201d" in answer.answer
    assert "colours of pictures" in answer.answer and "spelling" not in answer.answer
    both = premise_refusal("q", "chat", premise_terms("Is the Acme logo red?"),
                           RouteInfo.default(), False, 0.0)  # fmt: skip
    assert "\u201cAcme\u201d or \u201cred\u201d" in both.answer and "spelling" in both.answer


def test_the_documents_elsewhere_that_hold_what_the_chosen_ones_lack(catalog: Catalog) -> None:
    index = catalog.sparse_index()
    survey = DocScope(only=frozenset({"survey"}))
    rest = survey.rest
    assert rest == DocScope(exclude=frozenset({"survey"})) and EVERYWHERE.rest is None
    assert DocScope(exclude=frozenset({"crisis"})).rest == DocScope(only=frozenset({"crisis"}))
    terms = missing_terms("Did Lufthansa tweet in green?",
                          lambda found, exact: index.mentions(found, survey, exact))  # fmt: skip
    assert [t.text for t in terms] == ["Lufthansa", "green"]
    holders = lambda words: index.documents_mentioning(words, rest)  # noqa: E731
    assert held_elsewhere(terms[:1], holders) == {"crisis"}
    assert held_elsewhere(terms, holders) == set()  # a colour: about the chosen pages
    manual = DocScope(only=frozenset({"manual"}))
    both = missing_terms("Did Lufthansa tweet about Pew?",
                         lambda found, exact: index.mentions(found, manual, exact))  # fmt: skip
    assert [t.text for t in both] == ["Lufthansa", "Pew"]
    others = manual.rest
    assert others is not None
    assert held_elsewhere(both, lambda words: index.documents_mentioning(words, others)) == set()
    assert index.documents_mentioning(("pew", "survey"), EVERYWHERE) == {"survey"}
    answer = premise_refusal("q", "chat", terms[:1], RouteInfo.default(), False, 0.0,
                             ["Crisis report", "Airline news", "Blog", "Press"])  # fmt: skip
    assert ("Other documents of your library do: \u201cCrisis report\u201d, \u201cAirline "
            "news\u201d, \u201cBlog\u201d and 1 more.") in answer.answer
    assert "add the document" not in answer.answer
