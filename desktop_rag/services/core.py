"""Service facade: core operations (filled in by its issue)."""

from __future__ import annotations

from desktop_rag.bootstrap import AppContext


class CoreService:
    ctx: AppContext
