"""CAG: time to first token with the cached core vs a full prefill of the same prompt.

A core of about --cag-core-tokens tokens is built from a real PDF (its first pages); the
questions then come with 0, 3 and 8 retrieved passages (later pages) after the core. Reports
core build time, cache file size, TTFT cached vs full per passage count, speed-up, break-even
questions (build time / time saved per question) and generation tokens/s.

    python -m bench.run cag                   # default profile (Qwen), full size
    python -m bench.run cag --profile tiny --quick
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from desktop_rag.answering import prompts
from desktop_rag.config import Settings
from desktop_rag.config.paths import resolve_paths
from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.domain.protocols import ChatMessage
from desktop_rag.ingest.loaders import load
from desktop_rag.llm.core_cache import CoreCacheFiles, restore, split_prompt
from desktop_rag.llm.llama_adapter import LlamaEngine
from desktop_rag.llm.llama_loading import engine_options
from desktop_rag.models import ModelRegistry

PDF = Path("/work/shared/data/mmlongbench/documents/2310.05634v2.pdf")
QUESTIONS = [
    "What problem does the paper address?",
    "Which datasets are used in the experiments?",
    "What is the main result reported by the authors?",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cag-pdf", type=Path, default=PDF, help="PDF for the core")
    parser.add_argument("--cag-core-tokens", type=int, default=3000, help="core size")
    parser.add_argument("--cag-questions", type=int, default=3, help="questions per setting")


def _passages(engine: LlamaEngine, pdf: Path, core_tokens: int) -> tuple[list[Passage], list[str]]:
    """Core passages (one per paragraph) up to `core_tokens`, and the remaining paragraphs."""
    texts = [s.text for s in load(pdf).segments if len(s.text.split()) > 20]
    return core_from_texts(engine, texts, pdf, core_tokens)


def core_from_texts(
    engine: LlamaEngine, texts: list[str], pdf: Path, core_tokens: int
) -> tuple[list[Passage], list[str]]:
    """The first `texts` up to `core_tokens` as numbered core passages, and the rest."""
    core: list[Passage] = []
    used = 0
    for i, text in enumerate(texts):
        used += engine.count_tokens(text) + 12
        if used > core_tokens:
            return core, texts[i:]
        chunk = Chunk(f"c{i}", "core", str(pdf), pdf.stem, DocKind.PDF, text, i, (1,), (0, 0))
        core.append(Passage(len(core) + 1, chunk, text, 1.0, is_core=True))
    return core, []


def _retrieved(rest: list[str], count: int, first_n: int) -> list[Passage]:
    out = []
    for i, text in enumerate(rest[:count]):
        chunk = Chunk(
            f"r{i}", "lib", "library.pdf", "Library", DocKind.PDF, text[:900], i, (2,), (0, 0)
        )
        out.append(Passage(first_n + i, chunk, text[:900], 0.5))
    return out


def _ttft(
    engine: LlamaEngine,
    files: CoreCacheFiles,
    key: dict[str, Any],
    messages: list[ChatMessage],
    cached: bool,
    max_tokens: int,
) -> tuple[float, float]:
    """(ms to first token, generation tokens/s) with the state file restored, or fully prefilled."""
    split = split_prompt(engine, messages)
    engine.generate([ChatMessage("user", "Hi")], 1)  # evict: every question starts cold
    start = time.perf_counter()
    if cached:
        restore(engine, files, key, split.prefix)
    generation = engine.generate_tokens(split.tokens, max_tokens, fresh=not cached)
    setup_ms = (time.perf_counter() - start) * 1000 - generation.total_ms
    return setup_ms + generation.ttft_ms, generation.extra.get("decode_tokens_per_s", 0.0)


def run(args: argparse.Namespace) -> dict[str, Any]:
    quick = bool(args.quick)
    settings = Settings(profile=args.profile)
    settings = settings.updated({"llm.context_size": 8192})
    registry = ModelRegistry(resolve_paths(args.data_dir), settings)
    engine = LlamaEngine(engine_options(registry.chat_model_path(), settings.llm))
    core_tokens = min(args.cag_core_tokens, 600) if quick else args.cag_core_tokens
    questions = QUESTIONS[: 1 if quick else args.cag_questions]
    max_tokens = 8 if quick else 32
    core, rest = _passages(engine, args.cag_pdf, core_tokens)
    with tempfile.TemporaryDirectory() as tmp:
        files = CoreCacheFiles(Path(tmp))
        system = prompts.system_message(core)
        key = {"bench": system}
        prefix = split_prompt(engine, prompts.build_messages(core, [], "?")).prefix
        start = time.perf_counter()
        meta = files.build(engine, key, prefix)
        build_s = time.perf_counter() - start
        result: dict[str, Any] = {
            "model": engine.name,
            "gpu_offload": engine.gpu_offload,
            "threads": engine.options.threads,
            "core_tokens": len(prefix),
            "core_build_s": round(build_s, 3),
            "cache_file_mb": round(meta["size"] / 2**20, 2),
        }
        rates: list[float] = []
        for count in (0, 3, 8):
            result[f"passages_{count}"] = _setting(
                engine, files, key, core, rest, count, questions, max_tokens, build_s, rates
            )
        result["generation_tokens_per_s"] = round(statistics.median(rates), 1) if rates else 0.0
    engine.close()
    return result


def _setting(
    engine: LlamaEngine,
    files: CoreCacheFiles,
    key: dict[str, Any],
    core: list[Passage],
    rest: list[str],
    count: int,
    questions: list[str],
    max_tokens: int,
    build_s: float,
    rates: list[float],
) -> dict[str, Any]:
    cached, full = [], []
    for question in questions:
        messages = prompts.build_messages(core, _retrieved(rest, count, len(core) + 1), question)
        ms, rate = _ttft(engine, files, key, messages, True, max_tokens)
        cached.append(ms)
        rates.append(rate)
        full.append(_ttft(engine, files, key, messages, False, max_tokens)[0])
    c, f = statistics.median(cached), statistics.median(full)
    saved_s = (f - c) / 1000
    return {
        "ttft_cached_ms": round(c, 1),
        "ttft_full_ms": round(f, 1),
        "speedup": round(f / c, 2) if c else 0.0,
        "break_even_questions": round(build_s / saved_s, 2) if saved_s > 0 else None,
    }
