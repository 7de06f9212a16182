"""Evaluation, kept apart from the runtime: metrics, question sets and the services that run
them over throwaway libraries. Only the CLI's `eval` commands (and developers' benches and tests)
import this package; an import-linter contract keeps every runtime package from doing so.

`Evaluations(services)` is the entry point: the same operations the CLI's eval commands call,
built over the app's own services (their loaded models are shared)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_rag.services import Services


class Evaluations:
    """The evaluation operations over one app's services."""

    def __init__(self, services: Services) -> None:
        from desktop_rag.evaluation.route_runs import RouteEvalService
        from desktop_rag.evaluation.runs import EvalService

        self.evaluation = evaluation = EvalService(services.ctx, services.rerankers)
        self.eval_beir, self.eval_pdfqa, self.eval_answers = (
            evaluation.eval_beir, evaluation.eval_pdfqa, evaluation.eval_answers)
        self.eval_rerankers = evaluation.eval_rerankers
        self.route_evaluation = routes = RouteEvalService(evaluation)
        self.eval_routes, self.eval_counts = routes.eval_routes, routes.eval_counts


__all__ = ["Evaluations"]
