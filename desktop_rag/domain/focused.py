"""The documents a question names, as plain data (desktop_rag.domain re-exports it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DocFocus:
    """The documents a question names ("Nike's revenue in fiscal 2021"), searched first, with
    the words that named them and the scores that made the match confident."""

    doc_ids: tuple[str, ...]
    titles: tuple[str, ...]
    terms: tuple[str, ...]
    score: float
    runner_up: float

    def describe(self) -> str:
        named = "; ".join(self.titles)
        return f"Searched {named} first, as the question names it ({', '.join(self.terms)})"
