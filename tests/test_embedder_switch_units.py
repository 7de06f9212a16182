"""The embedder switch's parts: space naming, the persisted state, prefixes, and a switch through
the real catalog and Chroma that is cancelled midway and resumed."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.bootstrap import AppContext, build_context
from desktop_rag.config import load_settings, save_settings
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.domain.progress import CancelToken, ProgressEvent
from desktop_rag.domain.protocols import Vector
from desktop_rag.retrieval.embedder_parts import PrefixedEmbedder, with_prefixes
from desktop_rag.services import Services
from desktop_rag.services import embedder_switch_run as run_module
from desktop_rag.services.embedder_switch import switch_embedder, switch_status
from desktop_rag.store.documents import Catalog
from desktop_rag.store.spaces import (
    LEGACY_COLLECTION,
    EmbeddingSpace,
    Prefixes,
    space_of,
    weights_hash,
    write_prefixes,
)
from desktop_rag.store.switch_state import (
    LEGACY,
    ActiveSpace,
    PendingSwitch,
    active_collection,
    loaded_embedder,
)
from desktop_rag.store.vectors import collection_names
from tests.embedder_switch_models import (
    SETTINGS,
    build_tiny_model,
    copy_minilm,
    packaged_minilm,
    unique_text,
)

NAME_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$")


# ---- naming ------------------------------------------------------------------------------------
def test_a_space_is_named_by_model_weights_normalisation_and_prefixes(tmp_path: Path) -> None:
    packaged = space_of(packaged_minilm())
    renamed = space_of(copy_minilm(tmp_path / "other-minilm"))
    unnormalised = space_of(copy_minilm(tmp_path / "raw-minilm", normalize=False))
    prefixed_dir = copy_minilm(tmp_path / "e5-like")
    write_prefixes(prefixed_dir, Prefixes("query: ", "passage: "))
    prefixed = space_of(prefixed_dir)

    assert packaged.model == "all-minilm-l6-v2" and packaged.normalize
    assert renamed.weights == packaged.weights  # the same files, linked
    assert not unnormalised.normalize
    assert (prefixed.query_prefix, prefixed.passage_prefix) == ("query: ", "passage: ")
    names = {s.collection for s in (packaged, renamed, unnormalised, prefixed)}
    assert len(names) == 4
    assert all(NAME_RULE.match(name) and name != LEGACY_COLLECTION for name in names)
    assert space_of(packaged_minilm()) == packaged  # stable: the same name every time
    assert EmbeddingSpace.from_json(prefixed.to_json()) == prefixed


def test_the_weights_hash_follows_the_weights(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    (folder / "model.safetensors").write_bytes(b"a" * 100)
    (folder / "README.md").write_text("not part of the space", encoding="utf-8")
    before = weights_hash(folder)
    (folder / "README.md").write_text("edited", encoding="utf-8")
    assert weights_hash(folder) == before
    time.sleep(0.01)
    (folder / "model.safetensors").write_bytes(b"b" * 100)
    assert weights_hash(folder) != before


def test_a_long_odd_folder_name_still_makes_a_valid_collection_name() -> None:
    space = EmbeddingSpace("ünïcode model/" + "x" * 90 + "!", "0" * 16, True)
    assert NAME_RULE.match(space.collection) and len(space.collection) <= 63


# ---- persisted state ---------------------------------------------------------------------------
def _pending(space: EmbeddingSpace) -> PendingSwitch:
    return PendingSwitch("/m", "tiny", space.collection, space, "chunks", "embedding", 0, 10,
                         0.0, "t0", "t0")  # fmt: skip


def test_switch_state_survives_reopening_and_progress_leaves_the_generation(
    tmp_path: Path,
) -> None:
    db = tmp_path / "catalog.db"
    space = EmbeddingSpace("tiny", "ab" * 8, True)
    catalog = Catalog(db)
    store = catalog.spaces()
    assert store.active() == LEGACY and store.pending() is None
    assert active_collection(db) == LEGACY_COLLECTION
    store.begin(_pending(space))
    generation = catalog.generation()
    store.log_batch([("d:00000", "sha0"), ("d:00001", "sha1")], (2, 10), 1.5, "t1")
    assert catalog.generation() == generation  # no BM25 rebuild per batch
    catalog.close()

    store = Catalog(db).spaces()
    pending = store.pending()
    assert pending is not None and (pending.done, pending.total, pending.seconds) == (2, 10, 1.5)
    assert pending.space == space and store.embedded() == {"d:00000": "sha0", "d:00001": "sha1"}
    store.flip(ActiveSpace(space.collection, "/m", "tiny", space))
    assert active_collection(db) == space.collection
    after = store.pending()
    assert after is not None and after.phase == "settings" and store.embedded() == {}
    store.finish()
    assert store.pending() is None and store.active().space == space


def test_a_missing_catalog_reads_as_the_legacy_collection(tmp_path: Path) -> None:
    assert active_collection(tmp_path / "none.db") == LEGACY_COLLECTION


def test_the_embedder_loads_from_the_active_space_not_the_wanted_one(tmp_path: Path) -> None:
    store = Catalog(tmp_path / "catalog.db").spaces()
    first = SETTINGS.updated({"models.embedder": "/first"})
    assert loaded_embedder(store, first) == (first, LEGACY_COLLECTION)  # the settings made it
    pinned = store.active()
    assert pinned.pinned and pinned.model_dir == "/first" and pinned.space is None
    edited = SETTINGS.updated({"models.embedder": "/edited"})  # edited without a switch
    assert loaded_embedder(store, edited)[0].models.embedder == "/first"
    space = EmbeddingSpace("tiny", "ab" * 8, True)
    store.flip(ActiveSpace("c", "/switched", "tiny", space))
    assert loaded_embedder(store, edited) == (edited.updated({"models.embedder": "/switched"}), "c")
    assert LEGACY.pinned is False


# ---- prefixes ----------------------------------------------------------------------------------
class Recording(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(max_word_pieces=100)
        self.seen: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        self.seen += list(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> Vector:
        self.seen.append(text)
        return super().embed_query(text)


def test_prefixes_reach_the_model_and_shorten_the_chunk_limit(tmp_path: Path) -> None:
    folder = tmp_path / "e5"
    folder.mkdir()
    plain = Recording()
    assert with_prefixes(plain, folder) is plain  # none declared: unchanged
    write_prefixes(folder, Prefixes("query: ", "passage: "))
    inner = Recording()
    wrapped = with_prefixes(inner, folder)
    assert isinstance(wrapped, PrefixedEmbedder)
    wrapped.embed_documents(["alpha beta"])
    wrapped.embed_query("gamma")
    assert inner.seen == ["passage: alpha beta", "query: gamma"]
    spent = inner.count_word_pieces(["passage: "])[0]
    assert spent > 0 and wrapped.max_word_pieces == 100 - spent
    assert wrapped.thread_counter().max_word_pieces == 100 - spent


def test_declared_sentence_transformers_prompts_are_used(tmp_path: Path) -> None:
    from desktop_rag.store.spaces import read_prefixes

    (tmp_path / "config_sentence_transformers.json").write_text(
        '{"prompts": {"query": "query: ", "document": "passage: "}}', encoding="utf-8"
    )
    assert read_prefixes(tmp_path) == Prefixes("query: ", "passage: ")


# ---- a real switch, cancelled and resumed -----------------------------------------------------
@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny-switch-model")


@pytest.fixture
def library(data_dir: Path, tmp_path: Path) -> Iterator[AppContext]:
    """Six Markdown documents (about 24 unique chunks) in a real catalog and Chroma."""
    save_settings(SETTINGS, data_dir / "config" / "settings.toml")
    ctx = build_context(str(data_dir), overrides={
        "embedder": HashEmbedder(), "token_counter": WordTokenCounter(),
    })
    notes = tmp_path / "notes"
    notes.mkdir()
    rng = random.Random(3)
    for n in range(6):
        body = "\n\n".join(unique_text(rng, 120) for _ in range(4))
        (notes / f"note{n}.md").write_text(f"# Note {n}\n\n{body}\n", encoding="utf-8")
    Services(ctx).ingest([notes])
    yield ctx
    ctx.close()


def test_a_cancelled_switch_stops_within_a_second_and_resumes_where_it_stopped(
    library: AppContext, tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("FIRST_BATCH", "MIN_BATCH", "MAX_BATCH"):  # batches of exactly 4
        monkeypatch.setattr(run_module, name, 4)
    total = len(library.catalog.spaces().wanted())
    assert total >= 20
    cancel, asked = CancelToken(), []

    def cancel_after_two_batches(event: ProgressEvent) -> None:
        if event.done >= 8 and not asked:
            asked.append(time.perf_counter())
            cancel.cancel()

    first = switch_embedder(library, tiny_model, "tiny", cancel_after_two_batches, cancel)
    assert first.status == "cancelled" and time.perf_counter() - asked[0] < 1.0
    status = switch_status(library)
    assert status is not None and status.done == 8 and status.total == total
    assert not status.running and status.collection == space_of(tiny_model).collection
    assert active_collection(library.paths.catalog_db) == LEGACY_COLLECTION  # search: unchanged

    second = switch_embedder(library, tiny_model, "tiny")
    assert second.status == "switched" and second.old_deleted
    assert second.embedded == total - 8  # resumed: the first 8 were not embedded again
    new = space_of(tiny_model).collection
    assert collection_names(library.paths, library.settings.store) == [new]
    assert switch_status(library) is None
    assert library.vectors.count() == total
    saved = load_settings(library.paths.settings_file)
    assert saved.models.embedder == str(tiny_model) == library.settings.models.embedder
    query = library.catalog.get_chunks(sorted(library.catalog.spaces().wanted())[:1])
    chunk = next(iter(query.values()))
    hits = library.vectors.query(library.embedder.embed_query(chunk.text), 1)
    assert hits[0][0] == chunk.chunk_id and hits[0][1] > 0.99


def test_switching_to_the_active_model_on_another_backend_changes_nothing(
    library: AppContext,
) -> None:
    library.update_settings({"models.embedder_backend": "onnx"})  # same space, other backend
    outcome = switch_embedder(library, packaged_minilm(), "all-MiniLM-L6-v2")
    assert outcome.status == "already-active" and outcome.embedded == 0
    assert collection_names(library.paths, library.settings.store) == [LEGACY_COLLECTION]
    assert library.catalog.spaces().active().space == space_of(packaged_minilm())


def test_a_new_target_replaces_a_stopped_switch_and_its_partial_collection(
    library: AppContext, tiny_model: Path, tmp_path: Path,
) -> None:
    cancel = CancelToken()
    switch_embedder(library, tiny_model, "tiny", lambda e: cancel.cancel(), cancel)
    partial = space_of(tiny_model).collection
    assert partial in collection_names(library.paths, library.settings.store)
    other = build_tiny_model(tmp_path / "tiny-other", seed=8)
    outcome = switch_embedder(library, other, "tiny-other")
    assert outcome.status == "switched"
    assert collection_names(library.paths, library.settings.store) == [space_of(other).collection]
    vectors = library.vectors.get_embeddings(sorted(library.catalog.spaces().wanted())[:3])
    assert all(np.isclose(np.linalg.norm(v), 1.0, atol=1e-4) for v in vectors.values())


def test_doctor_reports_the_space_a_mismatch_and_a_stopped_switch(
    library: AppContext, tiny_model: Path
) -> None:
    from desktop_rag.services.doctor import check_space

    check = check_space(library)
    assert check.ok and check.info["collection"] == LEGACY_COLLECTION
    assert "all-minilm-l6-v2" in check.detail
    loaded_embedder(library.catalog.spaces(), library.settings)  # as the app's first load does

    library.update_settings({"models.embedder": str(tiny_model)})  # edited, not switched
    check = check_space(library)
    assert not check.ok and "run the switch" in check.detail

    cancel = CancelToken()
    switch_embedder(library, tiny_model, "tiny", lambda e: cancel.cancel(), cancel)
    check = check_space(library)
    assert not check.ok and "stopped: resume it" in check.detail
    assert "resume the switch" in check.detail and check.info["switch"]["running"] is False

    assert switch_embedder(library, tiny_model, "tiny").status == "switched"
    check = check_space(library)
    assert check.ok and check.info["switch"] is None and "tiny-switch-model" in check.detail


def test_a_context_opened_before_another_switched_refuses_then_follows(
    library: AppContext, tiny_model: Path, data_dir: Path
) -> None:
    from desktop_rag.services.embedder_switch import follow_switch
    from desktop_rag.store.vectors import SpaceChangedError

    stale = build_context(str(data_dir))  # as another process: its own context
    try:
        stale.embedder.embed_query("warm up")  # MiniLM, for the library's legacy collection
        assert stale.embedder_collection == LEGACY_COLLECTION
        assert switch_embedder(library, tiny_model, "tiny").status == "switched"
        with pytest.raises(SpaceChangedError):
            _ = stale.vectors  # the embedder it holds is of the old space: never mixed
        assert follow_switch(stale) and not follow_switch(stale)
        new = space_of(tiny_model).collection
        assert "tiny-switch-model" in stale.embedder.name  # loaded again, from the new space
        assert stale.embedder_collection == new == stale.vectors.collection_name
        chunk = next(iter(stale.catalog.get_chunks(sorted(stale.catalog.spaces().wanted())[:1])
                          .values()))  # fmt: skip
        hits = stale.vectors.query(stale.embedder.embed_query(chunk.text), 1)
        assert hits[0][0] == chunk.chunk_id and hits[0][1] > 0.99
    finally:
        stale.close()


def test_dropping_a_collection_that_is_gone_is_not_an_error(library: AppContext) -> None:
    from desktop_rag.store.vectors import drop_collection

    assert not drop_collection(library.paths, library.settings.store, "chunks-never-made-0")
    assert collection_names(library.paths, library.settings.store) == [LEGACY_COLLECTION]


def test_a_crash_after_the_flip_keeps_search_consistent_and_resuming_tidies_up(
    library: AppContext, tiny_model: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_rag.services.doctor import check_space
    from desktop_rag.services.embedder_switch import _Switch

    def crash(self: _Switch) -> None:
        raise RuntimeError("killed between the flip and saving the settings")

    monkeypatch.setattr(_Switch, "_adopt", crash)
    with pytest.raises(RuntimeError):
        switch_embedder(library, tiny_model, "tiny")
    monkeypatch.undo()
    new = space_of(tiny_model).collection
    restarted = build_context(str(data_dir))
    try:
        assert restarted.settings.models.embedder == ""  # not saved: the crash came first
        assert "tiny-switch-model" in restarted.embedder.name  # loaded from the pointer
        assert restarted.vectors.collection_name == new
        check = check_space(restarted)
        assert not check.ok and "only saves the setting" in check.detail
        outcome = switch_embedder(restarted, tiny_model, "tiny")
        assert outcome.status == "switched" and outcome.old_deleted
        assert load_settings(restarted.paths.settings_file).models.embedder == str(tiny_model)
        assert collection_names(restarted.paths, restarted.settings.store) == [new]
        assert check_space(restarted).ok
    finally:
        restarted.close()
