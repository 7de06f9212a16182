"""Stemming from several threads at once, as the keyword index does (its background sync stems
chunks while searches stem queries): PyStemmer's stemmer is not thread-safe, and one shared
between the two crashed the test suite. Each thread now stems with its own."""

from __future__ import annotations

import threading

from desktop_rag.store.keyword_tokens import Tokenizer
from desktop_rag.text.words import stems

TEXTS = [f"The running runners ran {i} marathons, outages and outage reports in 20{i % 30:02d}"
         for i in range(400)]


def test_one_tokenizer_stems_the_same_from_many_threads() -> None:
    tokenize = Tokenizer()
    expected = [tokenize.plain(t) for t in TEXTS]
    results: dict[int, list[list[str]]] = {}

    def work(k: int) -> None:
        stem = tokenize.plain if k % 2 else tokenize
        results[k] = [stem(t) for t in TEXTS for _ in range(3)][::3]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[k] == expected for k in range(6))
    assert stems("outages and outage") == ("outag",)
