"""The route the app takes for a question over an evaluation library, before the model reads:
the router's, except where the router leaves a "how many" to the scope, which the question's own
document then decides (routes/count_evidence.py), as `ask --doc` does. A count that then matches
nothing falls back to lookup (services/routing.py); that needs the count route's matching and is
not followed here.

`eval decisions --workdir DIR --questions FILE` compares these routes across rewordings: the
route a user meets, not only the rule the question's words fire.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from desktop_rag.domain import DocScope
from desktop_rag.routes.count_evidence import UNSURE_RULE, CountEvidence
from desktop_rag.routes.router import decide
from desktop_rag.routes.units import ChunkSource


class EvidenceRoutes:
    """`(question, original id) -> route` over `source` (a catalog), each question within the
    document `documents` names for its original (a file name, as MMLongBench's questions give
    it); a question of no known document keeps the router's route."""

    def __init__(self, source: ChunkSource, documents: Mapping[str, str]) -> None:
        self.weigh = CountEvidence(source)
        self.documents = documents
        self.by_name = {Path(d.path).name: d.doc_id for d in source.documents()}

    def __call__(self, question: str, original: str) -> str:
        decision = decide(question)
        doc_id = self.by_name.get(self.documents.get(original, ""))
        if decision.rule != UNSURE_RULE or doc_id is None:
            return decision.route.value
        found = self.weigh.weigh(question, DocScope(only=frozenset({doc_id})))
        return "exhaustive" if found.listed else "lookup"
