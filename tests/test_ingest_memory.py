"""The ingestion memory budget: heap trimming past the budget, and its setting."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from desktop_rag.config import load_settings
from desktop_rag.domain.errors import ConfigError
from desktop_rag.ingest.memory import MemoryBudget, resident_bytes

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc and /proc")


@linux
def test_resident_memory_is_read() -> None:
    assert (resident_bytes() or 0) > 10 * 2**20


@linux
def test_over_the_budget_the_heap_is_trimmed() -> None:
    garbage = [bytearray(4096) for _ in range(20_000)]  # freed pieces of heap
    del garbage
    budget = MemoryBudget(1)
    assert budget.enforce()
    assert budget.trims == 1


def test_a_zero_or_generous_budget_never_trims() -> None:
    assert not MemoryBudget(0).enforce()
    assert not MemoryBudget(1 << 20).enforce()


def test_the_budget_is_a_setting(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[ingest]\nmemory_budget_mb = 900\n", encoding="utf-8")
    assert load_settings(config).ingest.memory_budget_mb == 900
    config.write_text("[ingest]\nmemory_budget_mb = -1\n", encoding="utf-8")
    with pytest.raises(ConfigError):
        load_settings(config)
