"""An unsure "how many" decided from the scope's text (routes/count_evidence.py): a number the
documents state is looked up, a list of the things is counted through."""

from __future__ import annotations

from desktop_rag.domain import Chunk, DocKind, DocScope, DocStatus, Document
from desktop_rag.routes.count_evidence import CountEvidence, evidence, states_number
from desktop_rag.routes.router import decide
from desktop_rag.routes.target import parse
from desktop_rag.routes.units import ItemUnit, units_of
from desktop_rag.text.words import stems


def _units(title: str, text: str) -> list[ItemUnit]:
    chunk = Chunk("c1", "d1", f"/docs/{title}.pdf", title, DocKind.PDF, text, 1, (1,),
                  (0, len(text)))  # fmt: skip
    return units_of(chunk)


REPORT = (
    "Costco operates membership warehouses.\n"
    "At year end we operated 815 warehouses worldwide.\n"
    "Our warehouses carry about 4,000 items.\n"
    "New warehouses opened in Texas and Japan.\n"
)
LOG = "\n".join(
    f"2024-0{m}-1{m} 13:2{m} INC-10{m}3 Printer jam in building {b}; closed after {m}7 minutes."
    for m, b in zip(range(1, 8), "ABCABCA", strict=True)
)
REGISTER = "\n".join(f"C-10{n}: parcel arrived {n} days late; refund sent." for n in range(1, 9))


def test_a_number_beside_the_thing_is_stated_a_date_or_time_is_not() -> None:
    assert states_number("At year end we operated 815 warehouses.", stems("warehouses"))
    assert states_number("Warehouses \u2014 2021: 815 | 2020: 795", stems("warehouses"))
    assert states_number("The register holds 47 customer complaints.", stems("complaints"))
    assert states_number("Complaints: twelve", stems("complaints"))
    assert not states_number(LOG.splitlines()[0], stems("printer jams"))
    assert not states_number("In 2021 warehouses grew.", stems("warehouses"))
    assert not states_number("Action item 7: Omar to call the supplier.", stems("action items"))
    row = "Directors \u2014 Membership of Board of other Companies *: 14 11 5 | Attendance: 7"
    assert states_number(row, stems("membership"), stems("board other companies"))
    assert not states_number(row, stems("membership"))


def test_a_report_that_states_the_number_is_no_list() -> None:
    question = "How many warehouses did Costco operate?"
    assert decide(question).rule == "how-many:stated-number"
    found = evidence(parse(question), _units("Annual report", REPORT))
    assert found.stated == 1 and not found.listed


def test_a_log_of_the_things_is_a_list_to_count() -> None:
    found = evidence(parse("How many printer jams were there?"), _units("Incident log", LOG))
    assert (found.lines, found.stated, found.listed) == (7, 0, True)
    # a verb the question's parse keeps in the thing ("jams happened"): the words the log says
    found = evidence(parse("How many printer jams happened?"), _units("Incident log", LOG))
    assert (found.lines, found.listed) == (7, True)


def test_a_register_named_for_the_things_is_a_list_though_its_lines_do_not_say_them() -> None:
    question = "How many complaints were about late delivery?"
    found = evidence(parse(question), _units("Complaints register", REGISTER))
    assert found.titled and found.listed
    assert not evidence(parse(question), _units("Annual report", REPORT)).listed


def test_a_question_about_one_page_is_not_left_to_the_evidence() -> None:
    assert decide("How many people with scarves are there on page 5?").rule == (
        "how-many:one-place"
    )


class _Catalog:
    """Two indexed documents of 3,000 chunks each (their chunks are never read here)."""

    def documents(self, status: object = None) -> list[Document]:
        return [Document(f"d{n}", f"/r{n}.pdf", f"Report {n}", DocKind.PDF, "s", 1, 1.0, 90,
                         3000, DocStatus.INDEXED) for n in (1, 2)]  # fmt: skip

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        raise AssertionError("a scope too big to read is not read")


def test_a_scope_too_big_to_read_says_so_and_stays_with_lookup() -> None:
    found = CountEvidence(_Catalog()).weigh("How many printer jams were there?", DocScope())
    assert not found.listed and found.reason().startswith("6,000 passages in scope, more than")
    nothing = CountEvidence(_Catalog()).weigh("How many?", DocScope())
    assert not nothing.listed and nothing.reason() == "no thing to count named"


CALIBRATION = "\n".join(
    f"CAL-71{n:02d} (0{n % 9 + 1} Mar 2025) pressure gauge #{n + 10}: "
    + ("reading drifted 4% high, adjusted." if n % 4 == 0 else "within tolerance; sticker renewed.")
    for n in range(1, 13)
)


def test_a_register_the_questions_words_point_at_is_a_list_though_no_record_names_the_thing() -> (
    None
):
    """No record says "instrument", but the register's title holds "calibration": it lists
    them. The same question of a register about something else stays a lookup."""
    question = "How many instruments failed calibration?"
    assert decide(question).rule == "how-many:stated-number"
    found = evidence(parse(question), _units("Calibration register", CALIBRATION))
    assert (found.lines, found.records, found.listed) == (0, 12, True)
    assert "a register of 12 records" in found.reason()
    other = evidence(parse("How many instruments were sold?"), _units("Parcel register", REGISTER))
    assert (other.records, other.listed) == (0, False)


TRAINS = "\n".join(
    f"TR-15{n:02d} {n + 3:02d}.10. York - Hull 8:05: "
    + ("arrived 25 min behind schedule." if n % 4 == 0 else "on time.")
    for n in range(1, 13)
)


def test_a_register_the_user_chose_is_a_list_whatever_the_questions_words() -> None:
    """No word of "trains ran late" is in the punctuality sheet; asked of it alone, its records
    are still what the question counts (a sample of passages would count what it happens to
    see). Asked over the library, the words decide as before."""
    question = "How many trains ran late?"
    units = _units("Punctuality sheet", TRAINS)
    assert not evidence(parse(question), units).listed
    found = evidence(parse(question), units, chosen=True)
    assert (found.records, found.listed) == (12, True)
    assert "the documents chosen are registers of 12 records" in found.reason()
    assert not evidence(parse(question), _units("Annual report", REPORT), chosen=True).listed
