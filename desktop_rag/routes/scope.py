"""The documents a list or count question names, when the user chose none: "how many water
leaks are in Incident log 2?" reads Incident log 2 only. A document is named when the question
holds its whole title, or its file name (without the extension, "-" and "_" read as spaces), as
words; a title of one short generic word names nothing. Exact, so never a guess: a question
naming no title reads the whole library, which is slower but never misses an item."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from desktop_rag.domain import DocScope, Document
from desktop_rag.routes.units import ChunkSource, documents_in

_MIN_CHARS = 6  # "Notes" or "Log" alone is too common a word to name a document


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"[^\W_]+", text.lower())) + " "


def _names(doc: Document) -> set[str]:
    stem = Path(doc.path).stem.replace("-", " ").replace("_", " ")
    names = {doc.title, stem, doc.stated_title or ""}
    return {n for n in (_words(x).strip() for x in names) if len(n) >= _MIN_CHARS and " " in n}


def named_documents(question: str, docs: Sequence[Document]) -> list[Document]:
    """The documents whose title or file name the question holds, in the order given."""
    text = _words(question)
    return [d for d in docs if any(f" {name} " in text for name in _names(d))]


def documents_asked(
    source: ChunkSource, question: str, scope: DocScope
) -> tuple[list[Document], int]:
    """The indexed documents a list or count question reads: those the user chose, else those
    the question names, else the library; and how many the question named."""
    docs = documents_in(source, scope)
    named = named_documents(question, docs) if scope.whole_library else []
    return named or docs, len(named)
