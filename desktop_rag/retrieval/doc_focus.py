"""The documents a question names, found against profiles built from the catalog.

Profiles are built once per catalog generation (every committed write changes it, in any
process), so a search pays for them only after the library changed: reading the first chunks of
every document is a few milliseconds a document, a dictionary lookup afterwards. They are kept on
disk too (`profiles_file`, as an inverted index: retrieval/doc_index.py), with the generation and
the documents they were built from, so a new process (a cold `search` on a library of 740
documents: 1.1 s) reads them instead.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from desktop_rag.domain import Chunk, DocFocus, DocScope, DocStatus, Document
from desktop_rag.retrieval import doc_index
from desktop_rag.retrieval.doc_index import MatchIndex, index_of
from desktop_rag.retrieval.doc_match import DocMatcher, DocProfile, profile_of

COVER_PAGES = 2  # a cover, a title page: where a document says what it is
COVER_CHARS = 2500
COVER_CHUNKS = 8
PROFILES_VERSION = 2  # 2: kept as an inverted index (retrieval/doc_index.py)


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
    """Finds the documents a question names, among those a search scope allows; the profiles
    are kept in `profiles_file` (if given) for the next process."""

    def __init__(self, source: ProfileSource, profiles_file: Path | None = None) -> None:
        self.source = source
        self.profiles_file = profiles_file
        self._lock = threading.Lock()
        self._built: tuple[int, DocMatcher] | None = None

    def matcher(self) -> DocMatcher:
        generation = self.source.generation()
        with self._lock:
            if self._built is None or self._built[0] != generation:
                self._built = (generation, DocMatcher(index=self._index(generation)))
            return self._built[1]

    def _index(self, generation: int) -> MatchIndex:
        docs = self.source.documents(DocStatus.INDEXED)
        stamp = {"version": PROFILES_VERSION, "generation": generation, "documents": _digest(docs)}
        kept = doc_index.load(self.profiles_file, stamp) if self.profiles_file else None
        if kept is not None:
            return kept
        index = index_of([document_profile(self.source, d) for d in docs])
        if self.profiles_file is not None:
            doc_index.save(self.profiles_file, stamp, index)
        return index

    def focus(self, question: str, scope: DocScope) -> DocFocus | None:
        """The named documents within `scope`; None for a scope of one document or none named."""
        allowed = scope.included
        if allowed is not None and len(allowed) <= 1:
            return None
        matcher = self.matcher()
        kept = None if scope.whole_library else [d for d in matcher.doc_ids if scope.allows(d)]
        return matcher.focus(question, kept)


def _digest(docs: Sequence[Document]) -> str:
    """Which documents, in which version, under which names: a profile changes with any of it."""
    h = hashlib.sha256()
    for d in sorted(docs, key=lambda d: d.doc_id):
        h.update("\x00".join((d.doc_id, d.sha256, d.path, d.title, d.stated_title or "")).encode())
    return h.hexdigest()
