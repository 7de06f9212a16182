"""Service facade: search operations (filled in by its issue)."""

from __future__ import annotations

from desktop_rag.bootstrap import AppContext


class SearchService:
    ctx: AppContext
