"""The documents a question names, found against profiles built from the catalog.

Profiles are built once per catalog generation (every committed write changes it, in any
process), so a search pays for them only after the library changed: reading the first chunks of
every document is a few milliseconds a document, a dictionary lookup afterwards.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from desktop_rag.domain import Chunk, DocFocus, DocScope, DocStatus, Document
from desktop_rag.retrieval.doc_match import DocMatcher, DocProfile, profile_of

COVER_PAGES = 2  # a cover, a title page: where a document says what it is
COVER_CHARS = 2500
COVER_CHUNKS = 8


class ProfileSource(Protocol):
    """What the finder reads from the catalog."""

    def generation(self) -> int: ...

    def documents(self, status: DocStatus | None = None) -> list[Document]: ...

    def chunk_ids_of(self, doc_id: str) -> list[str]: ...

    def get_chunks(self, ids: Sequence[str]) -> dict[str, Chunk]: ...


def cover_text(source: ProfileSource, doc_id: str) -> str:
    """The text of the document's first pages, in reading order, up to COVER_CHARS."""
    ids = source.chunk_ids_of(doc_id)[:COVER_CHUNKS]
    found = source.get_chunks(ids)
    parts = [found[i].text for i in ids if i in found and _on_cover(found[i])]
    return "\n".join(parts)[:COVER_CHARS]


def _on_cover(chunk: Chunk) -> bool:
    return not chunk.pages or min(chunk.pages) <= COVER_PAGES


def document_profile(source: ProfileSource, doc: Document) -> DocProfile:
    names = [doc.title, Path(doc.path).stem, doc.stated_title or ""]
    return profile_of(doc.doc_id, doc.title, names, cover_text(source, doc.doc_id))


class FocusFinder:
    """Finds the documents a question names, among those a search scope allows."""

    def __init__(self, source: ProfileSource) -> None:
        self.source = source
        self._lock = threading.Lock()
        self._built: tuple[int, DocMatcher] | None = None

    def matcher(self) -> DocMatcher:
        generation = self.source.generation()
        with self._lock:
            if self._built is None or self._built[0] != generation:
                docs = self.source.documents(DocStatus.INDEXED)
                profiles = [document_profile(self.source, d) for d in docs]
                self._built = (generation, DocMatcher(profiles))
            return self._built[1]

    def focus(self, question: str, scope: DocScope) -> DocFocus | None:
        """The named documents within `scope`; None for a scope of one document or none named."""
        allowed = scope.included
        if allowed is not None and len(allowed) <= 1:
            return None
        matcher = self.matcher()
        kept = (
            None
            if scope.whole_library
            else [p.doc_id for p in matcher.profiles if scope.allows(p.doc_id)]
        )
        return matcher.focus(question, kept)
