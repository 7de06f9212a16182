"""Finishing interrupted work and checking that catalog, vectors and sparse index agree.

The consistency protocol (every step is crash-safe because each catalog step is one transaction):
  ingest:  1. doc `pending` + chunks  2. vectors upserted  3. FTS rows + `indexed`
  remove:  1. `removing` + FTS rows deleted  2. vectors deleted  3. rows deleted
Search sees only `indexed` documents, so an interrupted document is never half-visible. `resume`
finishes both kinds of interrupted work; vectors without a catalog chunk are deleted, and so are
those a table pass left in its outbox without a chunk (store/table_steps.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from desktop_rag.domain import DocStatus
from desktop_rag.domain.protocols import Embedder, VectorIndex
from desktop_rag.ingest.embedding import GuardedEmbedder, embed_chunks
from desktop_rag.store.documents import Catalog

log = logging.getLogger(__name__)
SAMPLE = 20


def remove_documents(catalog: Catalog, vectors: VectorIndex, doc_ids: Iterable[str]) -> None:
    for doc_id in doc_ids:
        catalog.begin_remove(doc_id)
        vectors.delete(catalog.chunk_ids_of(doc_id))
        catalog.finish_remove(doc_id)


def finish_pending(
    catalog: Catalog, vectors: VectorIndex, embedder: Embedder, doc_id: str
) -> None:
    """Embeds what is missing of a pending document (reusing stored vectors) and indexes it."""
    chunks = catalog.chunks_of(doc_id)
    embeddings = embed_chunks(chunks, catalog, vectors, embedder)
    vectors.upsert([c.chunk_id for c in chunks], embeddings, [doc_id] * len(chunks))
    remove_documents(catalog, vectors, catalog.finalize(doc_id))


def resume(
    catalog: Catalog, vectors: VectorIndex, embedder: Embedder | Callable[[], Embedder] | None
) -> dict[str, int]:
    """Finishes interrupted removals and ingestions. Returns what it did."""
    removing = [d.doc_id for d in catalog.documents(DocStatus.REMOVING)]
    remove_documents(catalog, vectors, removing)
    pending = [d.doc_id for d in catalog.documents(DocStatus.PENDING)]
    if pending and embedder is not None:
        guarded = GuardedEmbedder(embedder)
        for doc_id in pending:
            log.info("finishing interrupted ingestion of %s", doc_id)
            finish_pending(catalog, vectors, guarded, doc_id)
    orphans = flush_outbox(catalog, vectors)
    if removing or pending:
        orphans += delete_orphans(catalog, vectors)
    return {"removals_finished": len(removing), "ingestions_finished": len(pending),
            "orphan_vectors_deleted": orphans}


def flush_outbox(catalog: Catalog, vectors: VectorIndex) -> int:
    """Deletes the vectors a table pass that stopped midway left without a chunk."""
    steps = catalog.tables()
    waiting = steps.outbox()
    if not waiting:
        return 0
    unowned = steps.unowned(waiting)
    vectors.delete(unowned)
    steps.settle(waiting)
    return len(unowned)


def delete_orphans(catalog: Catalog, vectors: VectorIndex) -> int:
    known = catalog.chunk_ids([DocStatus.INDEXED, DocStatus.PENDING])
    orphans = sorted(vectors.all_ids() - known)
    vectors.delete(orphans)
    return len(orphans)


def repair_missing_vectors(
    catalog: Catalog, vectors: VectorIndex, embedder: Embedder | Callable[[], Embedder]
) -> int:
    missing = catalog.chunk_ids([DocStatus.INDEXED]) - vectors.all_ids()
    chunks = list(catalog.get_chunks(sorted(missing)).values())
    if chunks:
        embeddings = embed_chunks(chunks, catalog, vectors, GuardedEmbedder(embedder))
        vectors.upsert([c.chunk_id for c in chunks], embeddings, [c.doc_id for c in chunks])
    return len(chunks)


def consistency_report(catalog: Catalog, vectors: VectorIndex) -> dict[str, Any]:
    """Catalog vs vectors vs sparse index, chunk for chunk."""
    docs = catalog.documents()
    by_status = {s.value: sum(1 for d in docs if d.status is s) for s in DocStatus}
    indexed = catalog.chunk_ids([DocStatus.INDEXED])
    unfinished = catalog.chunk_ids([DocStatus.PENDING, DocStatus.REMOVING])
    unfinished |= set(catalog.tables().outbox())  # a table pass's, deleted at the next run
    vector_ids = vectors.all_ids()
    sparse_ids = catalog.sparse_chunk_ids()
    problems = {
        "missing_vectors": sorted(indexed - vector_ids),
        "orphan_vectors": sorted(vector_ids - indexed - unfinished),
        "missing_sparse": sorted(indexed - sparse_ids),
        "orphan_sparse": sorted(sparse_ids - indexed - unfinished),
    }
    sparse_rows = catalog.sparse_row_count()
    consistent = not any(problems.values()) and sparse_rows == len(sparse_ids)
    report: dict[str, Any] = {
        "consistent": consistent, "documents": by_status, "indexed_chunks": len(indexed),
        "vectors": len(vector_ids), "sparse_rows": sparse_rows,
        # work a stopped process left (documents pending or being removed): not a disagreement
        # between the stores; the next ingest or sync finishes it
        "interrupted": by_status["pending"] + by_status["removing"],
    }
    for name, ids in problems.items():
        report[name] = len(ids)
        report[f"{name}_sample"] = ids[:SAMPLE]
    return report
