"""Service facade: evaluation operations (filled in by its issue)."""

from __future__ import annotations

from desktop_rag.bootstrap import AppContext


class EvalService:
    ctx: AppContext
