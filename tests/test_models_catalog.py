"""The model catalog: the packaged file's content, the user's own entries, and refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.catalog.entries import CatalogError
from desktop_rag.catalog.loader import USER_FILE, load_catalog, packaged_text, parse_catalog
from desktop_rag.models import QWEN_FILE, QWEN_SHA256, SMOLLM_FILE


def own_entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": "acme-tiny-chat", "kind": "chat", "name": "Acme tiny chat",
        "repo": "acme/tiny-chat-GGUF", "revision": "main",
        "files": [{"name": "tiny.gguf", "size": None, "sha256": None}],
        "download_mb": 1, "licence": "MIT", "params_b": 0.01, "context_length": 2048,
        "chat_template": True, "languages": ["en"], "ram_mb": 100, "vram_mb": 100,
        "description": "a test model", "integrity": "hub",
    }
    entry.update(changes)
    return entry


def write_user(config: Path, entries: list[Any], **top: Any) -> Path:
    config.mkdir(parents=True, exist_ok=True)
    path = config / USER_FILE
    path.write_text(json.dumps({"schema": 1, "entries": entries, **top}), encoding="utf-8")
    return path


def test_packaged_catalog_covers_sizes_languages_and_kinds() -> None:
    catalog = load_catalog(None)
    chats = catalog.of_kind("chat")
    sizes = [e.params_b for e in chats if e.packaged is None]
    assert any(s <= 1.6 for s in sizes) and any(3 <= s <= 4 for s in sizes)
    assert any(7 <= s <= 9 for s in sizes)
    assert all(e.chat_template and e.files[0].name.endswith(".gguf") for e in chats)
    embedders = catalog.of_kind("embedder")
    assert {e.multilingual for e in embedders} == {True, False}
    e5 = catalog.get("multilingual-e5-small")
    assert e5.embedding is not None
    assert (e5.embedding.query_prefix, e5.embedding.passage_prefix) == ("query: ", "passage: ")
    rerankers = catalog.of_kind("cross-encoder")
    assert {e.multilingual for e in rerankers} == {True, False}
    assert catalog.version


def test_packaged_models_are_entries_with_their_real_hashes() -> None:
    catalog = load_catalog(None)
    packaged = {e.packaged: e for e in catalog.entries if e.packaged is not None}
    assert set(packaged) == {"default", "tiny", "embedder"}
    default = packaged["default"].files[0]
    assert (default.name, default.sha256) == (QWEN_FILE, QWEN_SHA256)
    assert packaged["tiny"].files[0].name == SMOLLM_FILE


def test_hashes_are_pinned_only_where_known_and_otherwise_left_to_the_hub() -> None:
    """No invented hashes: only the packaged files (hashed here) carry a sha256; every other
    entry says the hub's announced hash is verified instead."""
    for entry in load_catalog(None).entries:
        shas = [f.sha256 for f in entry.files]
        if entry.packaged in ("default", "tiny"):
            assert entry.integrity == "pinned" and all(shas)
        else:
            assert entry.integrity == "hub" and not any(shas), entry.id
    assert "verified at download" in json.loads(packaged_text())["note"]


def test_user_entries_are_added_and_name_their_file(tmp_path: Path) -> None:
    path = write_user(tmp_path, [own_entry()])
    catalog = load_catalog(tmp_path)
    entry = catalog.get("acme-tiny-chat")
    assert entry.source == str(path)
    assert len(catalog.entries) == len(load_catalog(None).entries) + 1


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (own_entry(kind="vision"), ["'kind'", "must be one of"]),
        (own_entry(params_b="big"), ["'params_b'", "must be a number"]),
        (own_entry(chat_template="yes"), ["'chat_template'", "true or false"]),
        (own_entry(ram_mb=True), ["'ram_mb'", "must be a number"]),
        ({k: v for k, v in own_entry().items() if k != "licence"}, ["'licence'", "missing"]),
        (own_entry(files=[{"name": "a.gguf", "sha256": "XYZ"}]), ["sha256", "64 lowercase"]),
        (own_entry(files=[{"name": "../evil.gguf"}]), ["relative path"]),
        (own_entry(files=[{"name": "weights.bin"}]), ["exactly one .gguf"]),
        (own_entry(kind="embedder"), ["'embedding'", "is needed"]),
        (own_entry(integrity="pinned"), ["'pinned' needs a sha256"]),
        (own_entry(repo="not a repo"), ["'repo'", "owner/name"]),
        (own_entry(repo=None), ["unless the model is packaged"]),
        (own_entry(id="Bad Id!"), ["'id'", "lowercase"]),
        (own_entry(languages=[]), ["'languages'"]),
    ],
)
def test_bad_user_entries_are_refused_naming_file_entry_and_field(
    tmp_path: Path, entry: dict[str, Any], words: list[str]
) -> None:
    path = write_user(tmp_path, [entry])
    with pytest.raises(CatalogError) as info:
        load_catalog(tmp_path)
    message = info.value.message
    assert str(path) in message
    assert "entry " in message
    for word in words:
        assert word in message


def test_a_user_entry_cannot_replace_a_packaged_one(tmp_path: Path) -> None:
    write_user(tmp_path, [own_entry(id="qwen2.5-7b-instruct-q4km")])
    with pytest.raises(CatalogError, match="defined twice"):
        load_catalog(tmp_path)


def test_a_newer_schema_and_broken_json_are_refused(tmp_path: Path) -> None:
    write_user(tmp_path, [], schema=2)
    with pytest.raises(CatalogError, match="schema 2 is not supported"):
        load_catalog(tmp_path)
    (tmp_path / USER_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(CatalogError, match="is not valid JSON") as info:
        load_catalog(tmp_path)
    assert str(tmp_path / USER_FILE) in info.value.message
    with pytest.raises(CatalogError, match="'entries' list"):
        parse_catalog("[]", "x.json")


def test_an_entry_that_is_not_an_object_is_named_by_position() -> None:
    with pytest.raises(CatalogError, match=r"x.json: entry #1 must be an object"):
        parse_catalog(json.dumps({"entries": [own_entry(), "oops"]}), "x.json")
