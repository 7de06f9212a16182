"""Service facade: library operations (filled in by its issue)."""

from __future__ import annotations

from desktop_rag.bootstrap import AppContext


class LibraryService:
    ctx: AppContext
