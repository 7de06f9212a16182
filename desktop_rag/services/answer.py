"""Service facade: answer operations (filled in by its issue)."""

from __future__ import annotations

from desktop_rag.bootstrap import AppContext


class AnswerService:
    ctx: AppContext
