"""What the table pass reads in a PDF's pages, and the mark a document keeps of it: which
readers, of which version, its pages were queued for (ingest/catch_up.py says why)."""

from __future__ import annotations

from typing import Any

from desktop_rag.ingest.page_text import has_text
from desktop_rag.ingest.picture_text import has_pictures
from desktop_rag.ingest.table_rules import may_hold_table

# What the table pass reads, with the version of its reader: raise a version when that reader
# changes what it finds, and every library catches up at its next sync.
TABLES_READER = "tables-2"  # 2: ruled grids of words too (ingest/table_rules.py)
PICTURES_READER = "pictures-1"


def reader_mark(tables: bool, pictures: bool) -> str:
    """The mark of a PDF whose pages were queued with these readers on ("" with neither)."""
    return ",".join(r for r, on in ((TABLES_READER, tables), (PICTURES_READER, pictures)) if on)


def behind(mark: str | None, current: str) -> bool:
    """Whether a document marked `mark` (None: read before marks) lacks a reader of `current`."""
    have = set((mark or "").split(","))
    return any(reader not in have for reader in current.split(",") if reader)


def for_table_pass(page: Any, found: Any, tables: bool, pictures: bool) -> bool:
    """Whether a page waits for the table pass: tables to read, or a large picture's words."""
    if tables and may_hold_table(page, found):
        return True
    return pictures and has_text(found) and has_pictures(page, found)
