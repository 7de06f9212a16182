"""Answer streaming speed through the app's own path (retrieval, prompt, llama.cpp on the
compute thread), tiny profile (MiniLM + SmolLM2) over two MMLongBench PDFs.

    .venv/bin/python -m bench.bench_decode [--questions 6] [--max-tokens 96] [--profile tiny]

Reported per question and as medians: decode tokens/s (after the first token), time to first
token, prompt tokens. The embedder runs before every answer (query embedding), which is what
made generation on another thread slow before the compute thread
(see desktop_rag/llm/compute_thread.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from typing import Any

from bench.bench_soak import load_questions, pick_docs


def measure(questions: int, max_tokens: int, profile: str) -> dict[str, Any]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    docs = pick_docs(2)
    asked = load_questions([d.name for d in docs])[:questions]
    with tempfile.TemporaryDirectory() as tmp:
        services = Services(build_context(tmp, profile))
        settings = services.ctx.settings
        settings = settings.updated({"llm.max_tokens": max_tokens, "retrieval.reranker": "none"})
        try:
            services.ingest(docs)
            rows = [_ask(services, q) for q in asked]
        finally:
            services.close()
    answered = [r for r in rows if r["generated_tokens"] > 1]
    return {
        "profile": profile, "questions": len(rows), "answered": len(answered),
        "decode_tokens_per_s_median": _median(answered, "decode_tokens_per_s"),
        "ttft_ms_median": _median(answered, "ttft_ms"),
        "per_question": rows,
    }


def _ask(services: Any, question: str) -> dict[str, Any]:
    answer = services.ask(question)
    timings = answer.timings
    return {
        "generated_tokens": timings.get("generated_tokens", 0),
        "decode_tokens_per_s": round(timings.get("decode_tokens_per_s", 0.0), 1),
        "ttft_ms": round(timings.get("generation_ttft_ms", 0.0)),
        "prompt_tokens": timings.get("prompt_tokens", 0),
    }


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    return round(statistics.median(r[key] for r in rows), 1) if rows else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_decode", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--profile", default="tiny")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.questions, args.max_tokens, args.profile), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
