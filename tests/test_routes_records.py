"""The records of a register (routes/records.py): the lines that open with one shape of
identifier, which a count reads whole when no line names the thing counted."""

from __future__ import annotations

import pytest

from desktop_rag.domain import Chunk, DocKind
from desktop_rag.routes import records
from desktop_rag.routes.records import beyond_heads, opening, record_indices, with_records
from desktop_rag.routes.target import parse
from desktop_rag.routes.units import ItemUnit, units_of
from desktop_rag.text.words import stem_set

HELPDESK = [
    "Helpdesk tickets, exported 1 May",
    "HD-2001 (2025-01-03) laptop screen flickers when docked; handled by Lena Fischer.",
    "Note: printing costs are charged to each department from July.",
    "HD-2002 (2025-09-04) toner empty on the second floor; handled by Yuki Mori.",
    "HD-2003 (2025-05-15) printer on floor 3 shows a paper jam; handled by Lena Fischer.",
    "HD-2004 (2025-04-14) password reset for a new starter; handled by Marco Rossi.",
    "HD-2005 (2025-08-14) mailbox full warning; handled by Yuki Mori.",
    "HD-2006 (2025-05-12) cannot print to the plotter; handled by Ines Duarte.",
]
PROSE = [
    "The board met in March to discuss the budget.",
    "Revenue grew by 4 percent in 2024.",
    "In 2023 the company opened two plants.",
    "Staff numbers were stable.",
    "The outlook for next year is cautious.",
    "Costs rose in every region.",
]


def _units(doc_id: str, lines: list[str]) -> list[ItemUnit]:
    text = "\n".join(lines)
    chunk = Chunk(f"{doc_id}:0", doc_id, f"/{doc_id}.pdf", doc_id, DocKind.PDF, text, 0, (1,),
                  (0, len(text)))  # fmt: skip
    return units_of(chunk)


def test_an_opening_is_read_up_to_its_first_token_with_a_digit() -> None:
    assert opening("HD-2001 (2025-01-03) laptop screen") == "A-9"
    assert opening("Sample S-300 from Well 2") == opening("Sample S-417 from the river") == "Aa A-9"
    assert opening("Van 12, checked 2025-02-26") == opening("Van 3, passed") == "Aa 9,"
    assert opening("Revenue grew by 4 percent") is None  # prose: its first words hold no digit
    assert opening("Note: printing costs") is None


def test_the_lines_that_open_alike_are_a_registers_records() -> None:
    units = _units("helpdesk", HELPDESK)
    records = [units[i].text for i in record_indices(units)]
    assert records == [line for line in HELPDESK if line.startswith("HD-")]


def test_prose_and_a_few_numbered_lines_are_no_register() -> None:
    assert record_indices(_units("report", PROSE)) == []
    numbered = ["Step 1: open the lid.", "Step 2: fill the tank.", *PROSE]
    assert record_indices(_units("manual", numbered)) == []  # 2 lines: too few, too rare


def test_every_record_is_a_candidate_when_no_line_names_the_thing_counted() -> None:
    units = _units("helpdesk", HELPDESK)
    sets = [stem_set(u.text) for u in units]
    target = parse("How many tickets were about printing problems?")
    shared = [i for i, s in enumerate(sets) if "print" in s]  # the words alone: a sample
    indices, registers = with_records(units, sets, target, shared)
    picked = [units[i].text for i in indices]
    assert len(picked) == 6 and not any(t.startswith("Note:") for t in picked)
    assert registers == {"helpdesk"}  # its note is no item, not even by similarity
    assert any("toner empty" in t for t in picked)  # shares no word with the question


def test_a_name_some_record_states_narrows_the_records_and_one_none_states_does_not() -> None:
    units = _units("helpdesk", HELPDESK)
    sets = [stem_set(u.text) for u in units]
    lena, _ = with_records(units, sets, parse("How many tickets did Lena Fischer handle?"), [])
    assert [units[i].text[:7] for i in lena] == ["HD-2001", "HD-2003"]
    nobody, _ = with_records(units, sets, parse("How many tickets did Omar Haddad handle?"), [])
    assert len(nobody) == 6


def test_a_document_without_records_keeps_the_lines_sharing_the_questions_words() -> None:
    units = _units("helpdesk", HELPDESK) + _units("report", PROSE)
    sets = [stem_set(u.text) for u in units]
    revenue = [i for i, u in enumerate(units) if "Revenue" in u.text]
    picked, registers = with_records(units, sets, parse("How many tickets mention revenue?"),
                                     revenue)  # fmt: skip
    assert revenue[0] in picked and len(picked) == 7 and registers == {"helpdesk"}


def test_a_register_too_long_to_judge_whole_keeps_the_lines_sharing_the_questions_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    units = _units("helpdesk", HELPDESK)
    sets = [stem_set(u.text) for u in units]
    target = parse("How many tickets were about printing problems?")
    shared = [i for i, s in enumerate(sets) if "print" in s]
    monkeypatch.setattr(records, "MAX_RECORDS_JUDGED", 5)  # 6 records: over it
    assert with_records(units, sets, target, shared) == (shared, frozenset())


VISITORS = [
    "Visitor log, March",
    "V-101, 2025-03-02 9:30, Dana Okafor: walked in without booking.",
    "V-102, 2025-03-02 10:00, Tomas Berg: booked interview.",
    "V-103, 2025-03-03 11:30, Aiko Sato: unannounced visit.",
    "V-104, 2025-03-04 14:00, Luis Mendes: planned site tour.",
    "V-105, 2025-03-05 15:30, Ruth Cohen: no appointment on file.",
    "V-106, 2025-03-06 16:00, Dana Okafor: delivery by appointment.",
    "Reminder: a visit is booked through reception.",
]
WORKSHOP = [
    "WS-880 02.03.2025 inspection of pump 4: cracked housing.",
    "WS-881 03.03.2025 repair of valve 2: worn seal replaced.",
    "WS-882 04.03.2025 inspection of mixer 3: no findings.",
    "WS-883 05.03.2025 inspection of valve 2: worn bearing.",
    "WS-884 06.03.2025 repair of pump 4: motor rewired.",
]


def _heads(units: list[ItemUnit], sets: list[frozenset[str]], word: str) -> list[int]:
    return [i for i, s in enumerate(sets) if word in s]


def test_a_head_a_few_records_say_in_passing_gives_every_record_to_the_judge() -> None:
    units = _units("visitors", VISITORS)
    sets = [stem_set(u.text) for u in units]
    target = parse("Count the visits that were not booked in advance.")
    heads = _heads(units, sets, "visit")  # V-103 and the reminder
    picked, registers = beyond_heads(units, sets, target, heads, heads)
    assert [units[i].text[:5] for i in picked] == [f"V-10{n}" for n in range(1, 7)]
    assert registers == {"visitors"}  # the reminder is no record: no item


def test_a_head_that_half_the_records_say_keeps_its_lines() -> None:
    units = _units("workshop", WORKSHOP)
    sets = [stem_set(u.text) for u in units]
    target = parse("How many inspections found a problem?")
    heads = _heads(units, sets, "inspect")  # 3 of 5 records: what the records are
    assert beyond_heads(units, sets, target, heads, heads) == (heads, frozenset())


def test_a_register_that_never_says_the_head_is_not_added() -> None:
    units = _units("visitors", VISITORS) + _units("workshop", WORKSHOP)
    sets = [stem_set(u.text) for u in units]
    target = parse("How many inspections found a problem?")
    heads = _heads(units, sets, "inspect")
    assert beyond_heads(units, sets, target, heads, heads) == (heads, frozenset())


def test_matching_hands_the_judge_every_visit_when_a_few_say_visit() -> None:
    from desktop_rag.routes.matching import match_items

    units = _units("visitors", VISITORS)
    found = match_items(units, parse("Count the visits that were not booked in advance."))
    assert not found.items and not found.condition_stated
    assert [u.text[:5] for u in found.candidates] == [f"V-10{n}" for n in range(1, 7)]
    assert found.registers == {"visitors"}


REQUESTS = [
    "Urgent requests are answered the same day.",
    "MR-301 flat 2A, 03 Mar: radiator cold in the bedroom.",
    "MR-302 flat 3C, 11 Apr: dripping kitchen tap.",
    "MR-303 flat 4B, 19 Apr: no hot water since Monday.",
    "MR-304 flat 5D, 02 May: broken window latch.",
    "MR-305 flat 7A, 28 May: boiler keeps cutting out.",
]


def test_a_head_said_only_in_a_note_gives_every_record_to_the_judge() -> None:
    """No record says "request"; the register's note does: the records are the requests."""
    from desktop_rag.routes.matching import match_items

    units = _units("requests", REQUESTS)
    found = match_items(units, parse("How many requests were about heating problems?"))
    assert [u.text[:6] for u in found.candidates] == [f"MR-30{n}" for n in range(1, 6)]
    assert found.registers == {"requests"}  # the note is no record: no item


def test_a_day_and_month_written_with_dots_stay_in_their_record() -> None:
    lines = ["TR-1501 24.10. Selby - Leeds 10:50: a few minutes early.",
             "TR-1502 03.04. York - Hull 14:35: held at a signal, 40 minutes lost."]  # fmt: skip
    assert [u.text for u in _units("trains", lines)] == lines
    prose = _units("report", ["The ratio was 1.25. Costs fell by 2.5. Staff rose."])
    assert [u.text for u in prose] == ["The ratio was 1.25.", "Costs fell by 2.5.", "Staff rose."]


def test_a_note_alone_does_not_make_an_unrelated_register_the_items() -> None:
    """A staff list whose note mentions incidents is no incident log: its title does not name
    them and no record does, so the note stays the only candidate."""
    lines = ["Incidents are reported to the safety officer.",
             *(f"ST-{n} Kim Lee, forklift licence renewed." for n in range(401, 407))]  # fmt: skip
    units = _units("staff-list", lines)
    sets = [stem_set(u.text) for u in units]
    target = parse("How many incidents involved a forklift?")
    heads = _heads(units, sets, "incid")
    assert beyond_heads(units, sets, target, heads, heads) == (heads, frozenset())
