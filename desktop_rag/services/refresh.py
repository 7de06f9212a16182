"""What every write to the library ends with, whichever service wrote (ingest, removal, rename,
the table pass): the indexes that serve reads catch up, so that reads leave Chroma again.

The keyword index's in-memory snapshot, when one is in use, catches up in the background. The
vector store's copy on disk (store/vector_snapshot.py) is rewritten here, on the writer's thread:
until it is current, every search goes to Chroma, which holds its whole vector index in memory
(about 2 GB at a million vectors). Once the copy is current, the copy releases Chroma's memory.
"""

from __future__ import annotations

import logging

from desktop_rag.bootstrap import AppContext
from desktop_rag.services.ports import Refreshable, VectorCopy

log = logging.getLogger(__name__)


def refresh_after_write(ctx: AppContext) -> None:
    """Brings the loaded read indexes up to date with the catalog and the vector store."""
    if ctx.loaded("sparse") and isinstance(ctx.sparse, Refreshable):
        ctx.sparse.refresh()
    vectors = ctx.vectors if ctx.loaded("vectors") else None
    if isinstance(vectors, VectorCopy) and vectors.source_opened:
        try:
            vectors.refresh()
        except Exception:  # only a copy: Chroma keeps answering, and close() tries again
            log.warning("could not refresh the vector store's copy", exc_info=True)
