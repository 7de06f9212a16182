"""The one value an answer carries between the pipeline's steps (answering/pipeline.py).

A step reads the draft and returns it changed (new text, a note); what is derived from the text,
the checked calculations and whether it is a refusal, is computed once per text and kept, so no
step recomputes what an earlier one already knew."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from desktop_rag.answering.answer_rules import answer_refused
from desktop_rag.answering.calculations import check_calculations
from desktop_rag.answering.ratio_worksheet import Worksheet
from desktop_rag.domain import Passage, SearchResult
from desktop_rag.domain.computed import CheckedCalculation


@dataclass(frozen=True, slots=True)
class CoreContext:
    """The pinned core as the answer prompt sees it: its documents, its passages (numbered
    first), the system message (instructions + core sources: the cached prefix's text) and the
    key of its cached state."""

    doc_ids: frozenset[str]
    passages: tuple[Passage, ...]
    system: str
    key: dict[str, Any]


NO_CORE = CoreContext(frozenset(), (), "", {})


@dataclass(frozen=True, slots=True)
class Draft:
    """A question and everything gathered for its answer so far.

    `core` comes first in the prompt, `passages` (retrieved or given by a route) after it,
    numbered on; `note` is a route's word to the model (a comparison's sides); `compared` says
    the passages are a comparison's. `shape` and `worked` are the prompt step's decisions (the
    formula the question asks for, the ratio the app worked out); `text` is the answer as the
    steps after generation leave it."""

    question: str
    query: str
    chat_id: str
    core: CoreContext
    passages: tuple[Passage, ...]
    result: SearchResult
    timings: dict[str, float] = field(default_factory=dict)
    note: str = ""
    compared: bool = False
    shape: str | None = None
    worked: Worksheet | None = None
    text: str = ""
    _checked: dict[str, tuple[CheckedCalculation, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )  # a replaced draft starts with none: its sources may differ

    @property
    def every(self) -> tuple[Passage, ...]:
        """The answer's sources in prompt order: the core's, then the others."""
        return (*self.core.passages, *self.passages)

    @property
    def calculations(self) -> tuple[CheckedCalculation, ...]:
        """The text's "Calculation:" lines, checked against the sources (once per text)."""
        if self.text not in self._checked:
            self._checked[self.text] = check_calculations(self.text, self.every, self.question)
        return self._checked[self.text]

    @property
    def refused(self) -> bool:
        """The text is a refusal and no checked calculation answers instead."""
        return answer_refused(self.text, self.calculations)

    def with_text(self, text: str) -> Draft:
        return dataclasses.replace(self, text=text)
