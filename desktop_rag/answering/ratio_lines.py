"""The statement lines a named ratio needs, fetched from its document's statements when the
retrieved passages lack them.

A balance sheet is split into chunks of ten rows or so, and retrieval brings the ones most like
the question: for "What is Nike's current ratio?" the rows of current liabilities came, those of
current assets did not. An analyst turns the page; the app does the same: for each line the
ratio needs (llm.ratio_worksheet) that no given passage holds for the year, the first table chunk
of a primary statement (balance sheet, income statement, cash flows) of the passages' documents
that has it is added as a passage after the others. The model sees and cites it like any other.
Only the documents the passages already come from are read, so a library-wide question reads
one or two documents' chunks (a few milliseconds), not the library.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from desktop_rag.answering.periods import Period, column_period
from desktop_rag.answering.ratio_worksheet import asked_worksheet, needed_lines, worksheet
from desktop_rag.answering.statement_lines import find_line, is_statement
from desktop_rag.domain import Chunk, Passage

MAX_DOCUMENTS = 2  # the passages' first documents whose statements are read
ADDED_FOR = "a line the ratio needs"


class RatioLines:
    """Completes the passages of a ratio question with the statement rows it needs.
    `chunks_of(doc_id)` gives a document's chunks in reading order (the catalog's)."""

    def __init__(self, chunks_of: Callable[[str], list[Chunk]]) -> None:
        self._chunks_of = chunks_of

    def completed(
        self, query: str, given: Sequence[Passage], passages: Sequence[Passage]
    ) -> list[Passage]:
        """`passages`, then the statement chunks holding the lines the ratio `query` names
        needs that neither they nor the `given` (core) passages hold; numbered after both."""
        asked = asked_worksheet(query)
        every = [*given, *passages]
        if asked is None or not passages or worksheet(query, every) is not None:
            return list(passages)
        ratio, period = asked
        statements = self._statements(passages)
        added: list[Passage] = []
        for line, averaged in needed_lines(ratio):
            period = period or _latest(line, [*every, *added, *statements])
            years = [period, Period(period.year - 1)] if averaged and period else [period]
            for year in years:  # read from its own statement (a balance from the balance sheet)
                if find_line([*every, *added], line, year, own_only=True) is None:
                    added += _first_with(statements, line, year, len(every) + len(added) + 1)
        return [*passages, *added]

    def _statements(self, passages: Sequence[Passage]) -> list[Passage]:
        """The table chunks of primary statements of the passages' first documents, in reading
        order, as unnumbered passages."""
        docs = list(dict.fromkeys(p.chunk.doc_id for p in passages))[:MAX_DOCUMENTS]
        return [Passage(0, chunk, chunk.text, 0.0, added_for=ADDED_FOR) for doc in docs
                for chunk in self._chunks_of(doc) if is_statement(chunk.text)]  # fmt: skip


def _latest(line: str, passages: Sequence[Passage]) -> Period | None:
    """No year asked: the period of the line's first column (a statement's latest year)."""
    found = find_line(passages, line, None)
    return None if found is None else column_period(found.column)


def _first_with(
    statements: Sequence[Passage], line: str, period: Period | None, n: int
) -> list[Passage]:
    """The first statement chunk with the line for the period, numbered `n`, of the line's own
    statement if one has it; none when none has it."""
    for own_only in (True, False):
        for passage in statements:
            if find_line([passage], line, period, own_only) is not None:
                return [dataclasses.replace(passage, n=n)]
    return []
