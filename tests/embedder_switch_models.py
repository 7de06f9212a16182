"""What the embedder switch tests build: a tiny sentence-transformers model (a second embedding
space, quick to run), copies of the packaged MiniLM, and PDFs whose every chunk is unique text."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pymupdf

from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.models import ModelRegistry

TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json",
)
WORDS = (
    "river", "harbour", "ledger", "copper", "violet", "orbit", "granite", "lantern", "meadow",
    "falcon", "saddle", "quartz", "timber", "beacon", "cipher", "willow", "ember", "summit",
    "canyon", "mosaic", "pepper", "anchor", "velvet", "glacier", "thunder", "cobalt", "marble",
)
SETTINGS = Settings().updated({"models.embedder_backend": "torch"})


def packaged_minilm() -> Path:
    return ModelRegistry(AppPaths(*[Path("/unused")] * 4), Settings()).embedder_path()


def build_tiny_model(folder: Path, seed: int = 7) -> Path:
    """A random 1-layer BERT (hidden 32, MiniLM's tokenizer), mean pooling, a projection to 384
    dimensions and L2 normalisation: MiniLM's dimension in another space. Same seed, same
    weights (so its space, and any cache keyed by it, is the same every run)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules as st
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    folder.mkdir(parents=True, exist_ok=True)
    config = BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=512)  # fmt: skip
    BertModel(config).save_pretrained(str(folder))
    for name in TOKENIZER_FILES:
        shutil.copy(packaged_minilm() / name, folder / name)
    dense = st.Dense(32, 384, activation_function=torch.nn.Identity())
    modules = [st.Transformer(str(folder), max_seq_length=256),
               st.Pooling(32, "mean"), dense, st.Normalize()]  # fmt: skip
    SentenceTransformer(modules=modules, device="cpu").save(str(folder))
    return folder


def copy_minilm(folder: Path, normalize: bool = True) -> Path:
    """The packaged MiniLM under another folder name (its weights linked, not copied); without
    its Normalize module when asked (another normalisation: another space, though the adapters
    still normalise)."""
    source = packaged_minilm()
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("*.safetensors"))
    for weights in source.glob("*.safetensors"):
        (folder / weights.name).symlink_to(weights)
    if not normalize:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        kept = [m for m in modules if not str(m["type"]).endswith("Normalize")]
        (folder / "modules.json").write_text(json.dumps(kept), encoding="utf-8")
    return folder


def unique_text(rng: random.Random, words: int) -> str:
    return " ".join(f"{rng.choice(WORDS)}{rng.randrange(1000)}" for _ in range(words)) + "."


def make_unique_pdf(path: Path, pages: int, seed: int) -> Path:
    """A PDF whose pages hold random words with numbers: no two chunks share their text."""
    rng = random.Random(seed)
    doc = pymupdf.open()
    for _ in range(pages):
        page = doc.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(60, 60, 535, 780), unique_text(rng, 220), fontsize=9)
    doc.save(path)
    doc.close()
    return path
