"""The facade that both the CLI and the GUI call. Qt-free; callbacks and cancel tokens only.

Each area lives in its own mixin module; `Services` puts them together over one AppContext.
"""

from __future__ import annotations

from desktop_rag.bootstrap import AppContext
from desktop_rag.services.answer import AnswerService
from desktop_rag.services.core import CoreService
from desktop_rag.services.evaluation import EvalService
from desktop_rag.services.library import LibraryService
from desktop_rag.services.search import SearchService


class Services(LibraryService, SearchService, AnswerService, CoreService, EvalService):
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    def close(self) -> None:
        self.ctx.close()


__all__ = ["Services"]
