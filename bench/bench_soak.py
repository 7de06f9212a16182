"""Soak: N sequential questions (default 1,000) with the tiny profile and real parts (MiniLM,
Chroma, SmolLM2) over a few real PDFs (MMLongBench questions, cycled). Reported: resident memory
growth after warm-up (target <= 10%), open file handles and threads before/after, the latency
trend (slope per 100 questions, first vs last decile after warm-up) and a memory curve.

    .venv/bin/python -m bench.run soak [--quick] [--soak-questions N] [--soak-reranker auto]
        [--soak-context-tokens N]
    .venv/bin/python -m bench.bench_soak --questions 1000 [--reranker auto] [--context-tokens N]

Answers are capped at 48 tokens. The re-ranker defaults to none: with `auto` the tiny profile
re-ranks 30 candidates with the LLM, which multiplies the time per question by about ten.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "mmlongbench"
log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--soak-questions", type=int, default=0, help="default 1000; quick 30")
    parser.add_argument("--soak-docs", type=int, default=3, help="PDFs in the library")
    parser.add_argument(
        "--soak-reranker", default="none", help="none (default: fast) or auto (the app default)"
    )
    parser.add_argument(
        "--soak-context-tokens", type=int, default=0,
        help="context budget per question (default: the app's); prompt evaluation dominates the "
        "time per question on a CPU",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    questions = args.soak_questions or (30 if args.quick else 1000)
    return soak(
        questions, args.soak_docs, args.data_dir, args.soak_reranker, args.soak_context_tokens
    )


def load_questions(docs: list[str]) -> list[str]:
    wanted = set(docs)
    rows = [json.loads(line) for line in (DATA / "questions.jsonl").open(encoding="utf-8")]
    return [r["question"] for r in rows if r["doc"] in wanted]


def pick_docs(count: int) -> list[Path]:
    pdfs = sorted((DATA / "documents").glob("*.pdf"), key=lambda p: p.stat().st_size)
    return pdfs[:count]


def soak(
    questions: int, doc_count: int, data_dir: str | None, reranker: str = "none",
    context_tokens: int = 0,
) -> dict[str, Any]:
    import psutil

    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    with tempfile.TemporaryDirectory(dir=data_dir) as tmp:
        docs = pick_docs(doc_count)
        asked = load_questions([d.name for d in docs]) or ["What is this document about?"]
        services = Services(build_context(str(Path(tmp) / "lib"), profile="tiny"))
        try:
            max_tokens = min(services.ctx.settings.llm.max_tokens, 48)
            services.ctx.update_settings(
                {"llm.max_tokens": max_tokens, "retrieval.reranker": reranker}
            )
            if context_tokens:
                services.ctx.update_settings({"retrieval.context_tokens": context_tokens})
            services.ingest(docs)
            samples = _ask_all(services, asked, questions, psutil.Process())
        finally:
            services.close()
    budget = context_tokens or "app default"
    return {"reranker": reranker, "context_tokens": budget, **summarise(samples, len(docs))}


def _ask_all(services: Any, asked: list[str], n: int, proc: Any) -> list[dict[str, float]]:
    samples = []
    for i in range(n):
        start = time.perf_counter()
        answer = services.ask(asked[i % len(asked)])
        latency = time.perf_counter() - start
        samples.append({
            "i": i, "latency_s": latency, "rss_mb": proc.memory_info().rss / 2**20,
            "fds": proc.num_fds(), "threads": proc.num_threads(), "refused": float(answer.refused),
        })
        if (i + 1) % max(1, n // 20) == 0:
            print(json.dumps({k: round(v, 3) for k, v in samples[-1].items()}), file=sys.stderr,
                  flush=True)
    return samples


def summarise(samples: list[dict[str, float]], docs: int) -> dict[str, Any]:
    n = len(samples)
    warm = max(5, n // 10)
    base, rest = samples[warm - 1], samples[warm:] or samples[-1:]
    peak_after = max(s["rss_mb"] for s in rest)
    lat = [s["latency_s"] for s in rest]
    decile = max(1, len(rest) // 10)
    step = max(1, n // 20)
    return {
        "questions": n, "documents": docs, "warmup_questions": warm,
        "rss_mb_after_warmup": round(base["rss_mb"], 1),
        "rss_mb_final": round(samples[-1]["rss_mb"], 1),
        "rss_mb_peak_after_warmup": round(peak_after, 1),
        "rss_growth_pct": round(100 * (peak_after - base["rss_mb"]) / base["rss_mb"], 2),
        "rss_growth_ok": peak_after <= 1.10 * base["rss_mb"],
        "fds_after_warmup": int(base["fds"]), "fds_final": int(samples[-1]["fds"]),
        "threads_after_warmup": int(base["threads"]), "threads_final": int(samples[-1]["threads"]),
        "latency_s_median": round(statistics.median(lat), 3),
        "latency_s_first_decile": round(statistics.mean(lat[:decile]), 3),
        "latency_s_last_decile": round(statistics.mean(lat[-decile:]), 3),
        "latency_slope_s_per_100q": round(100 * _slope(lat), 4),
        "refusals": int(sum(s["refused"] for s in samples)),
        "memory_curve_mb": {
            str(s["i"] + 1): round(s["rss_mb"], 1) for s in samples[step - 1 :: step]
        },
    }


def _slope(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    xs = range(len(values))
    mx, my = statistics.mean(xs), statistics.mean(values)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, values, strict=True)) / den


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=3)
    parser.add_argument("--reranker", default="none", help="none or auto (the app default)")
    parser.add_argument("--context-tokens", type=int, default=0, help="default: the app's")
    parser.add_argument("--data-dir")
    args = parser.parse_args()
    result = soak(
        args.questions, args.docs, args.data_dir, args.reranker, args.context_tokens
    )
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
