"""The timings an answer reports: retrieval, first token, prompt and generated tokens."""

from __future__ import annotations

import time

from desktop_rag.domain.protocols import Generation


def since(start: float) -> float:
    """Milliseconds since `start` (a perf_counter reading), rounded for reports."""
    return round((time.perf_counter() - start) * 1000, 2)


def unasked_timings(start: float) -> dict[str, float]:
    """The timings of an answer the model was not asked for (a refusal the app makes)."""
    return {"ttft_ms": 0.0, "total_ms": since(start), "prompt_tokens": 0, "cached_tokens": 0,
            "generated_tokens": 0}  # fmt: skip


def generation_timings(g: Generation, gen_start: float, start: float) -> dict[str, float]:
    return {
        "ttft_ms": round((gen_start - start) * 1000 + g.ttft_ms, 2),
        "total_ms": since(start),
        "prompt_tokens": g.prompt_tokens,
        "cached_tokens": g.cached_tokens,
        "generated_tokens": g.generated_tokens,
        "generation_ttft_ms": round(g.ttft_ms, 2),
        "restore_ms": round(g.extra.get("restore_ms", 0.0), 2),
        "core_build_ms": round(g.extra.get("core_build_ms", 0.0), 2),
        "instructions_build_ms": round(g.extra.get("instructions_build_ms", 0.0), 2),
        "decode_tokens_per_s": round(g.extra.get("decode_tokens_per_s", 0.0), 2),
    }
