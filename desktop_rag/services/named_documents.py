"""One way for every command that names documents to find them: a doc id, a file or a folder,
given absolute or relative, through a symlink or not. The library stores absolute paths as they
were given (symlinks kept); a path is looked up that way first, then with symlinks resolved,
then by comparing each document's resolved path (a file ingested through a link)."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.domain import Document
from desktop_rag.ingest.scan import absolute
from desktop_rag.store.documents import Catalog


def documents_named(catalog: Catalog, raw: str | Path) -> list[Document]:
    """The documents `raw` names (a folder: every document under it); [] when none."""
    by_id = catalog.get_document(str(raw))
    if by_id is not None:
        return [by_id]
    real = Path(raw).expanduser().resolve()
    for path in dict.fromkeys((str(absolute(raw)), str(real))):
        found = catalog.documents_at(path) or catalog.documents_under(path)
        if found:
            return found
    return _same_files(catalog.documents(), real)


def _same_files(docs: list[Document], real: Path) -> list[Document]:
    """The documents whose file, symlinks resolved, is `real` or lies under it (a document
    ingested through a link, named by its real path; one stat per document, only here)."""
    found = []
    for doc in docs:
        resolved = Path(doc.path).resolve()
        if resolved == real or real in resolved.parents:
            found.append(doc)
    return found
