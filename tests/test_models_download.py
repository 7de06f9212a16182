"""Catalog downloads through a local server with the hub's URL layout: verified, resumable
(also after the process is killed), cancellable, disk-checked, and never unasked."""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop_rag.catalog import downloads
from desktop_rag.catalog.downloads import DownloadProgress
from desktop_rag.catalog.entries import EmbeddingInfo
from desktop_rag.catalog.installed import InstallState, embedding_info, entry_dir, read_marker
from desktop_rag.catalog.loader import USER_FILE
from desktop_rag.catalog.service import ModelsService
from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.errors import CancelledError, DownloadError, ModelIntegrityError
from desktop_rag.domain.progress import CancelToken
from desktop_rag.models.hub import HubClient
from tests.models_hub import HubState, Repo, serve

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from desktop_rag.cli import main; sys.exit(main(sys.argv[1:]))"
GGUF = struct.pack("<4sIQQ", b"GGUF", 3, 0, 0) + bytes(range(256)) * 8192  # ~2 MB, no tensors
ST_FILES = {
    "modules.json": b'[{"idx": 0, "name": "0", "path": "", "type": "Transformer"}]',
    "config.json": b'{"model_type": "bert"}',
    "1_Pooling/config.json": b'{"pooling_mode_mean_tokens": true}',
    "model.safetensors": bytes(range(256)) * 4096,
    "onnx/model.onnx": b"other framework: not fetched",
}


def catalog_entries(pinned_sha: str | None = None) -> list[dict[str, object]]:
    common = {"revision": "main", "licence": "MIT", "context_length": 2048,
              "languages": ["en"], "ram_mb": 100, "vram_mb": 0, "description": "test"}
    chat = {"id": "acme-chat", "kind": "chat", "name": "Acme chat", "repo": "acme/chat-GGUF",
            "files": [{"name": "chat.gguf", "size": None, "sha256": pinned_sha}],
            "download_mb": 2, "params_b": 0.01, "chat_template": True,
            "integrity": "pinned" if pinned_sha else "hub"}
    embedder = {"id": "acme-embedder", "kind": "embedder", "name": "Acme embedder",
                "repo": "acme/embedder", "files": [], "download_mb": 1, "params_b": 0.01,
                "chat_template": False, "integrity": "hub",
                "embedding": {"query_prefix": "query: ", "passage_prefix": "passage: ",
                              "max_length": 128, "dimensions": 8}}
    return [chat | common, embedder | common]


@pytest.fixture
def hub() -> Iterator[tuple[str, HubState]]:
    state = HubState(repos={"acme/chat-GGUF": Repo({"chat.gguf": GGUF}),
                            "acme/embedder": Repo(dict(ST_FILES))})
    with serve(state) as url:
        yield url, state


def make_paths(root: Path) -> AppPaths:
    return AppPaths(root / "config", root / "data", root / "cache", root / "models").ensure()


def service(root: Path, endpoint: str, pinned_sha: str | None = None,
            client: Callable[[str], HubClient] | None = None) -> ModelsService:
    paths = make_paths(root)
    (paths.config_dir / USER_FILE).write_text(
        json.dumps({"schema": 1, "entries": catalog_entries(pinned_sha)}), encoding="utf-8")
    settings = Settings().updated({"models.hub_endpoint": endpoint})
    return ModelsService(paths, settings, client=client)


def file_gets(state: HubState, name: str) -> list[str | None]:
    return [r for (m, p, r) in state.requests if m == "GET" and p.endswith(name)]


def test_a_chat_model_downloads_verified_with_speed_and_eta(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    state.rate_bps = 8 * 1024 * 1024
    models = service(tmp_path, endpoint)
    reports: list[DownloadProgress] = []
    path = models.download("acme-chat", reports.append)
    assert path.read_bytes() == GGUF
    assert path == entry_dir(models.paths.model_cache_dir, models.catalog.get("acme-chat")) / (
        "chat.gguf")
    moving = [r for r in reports if r.phase == "download" and r.speed_bps > 0]
    assert moving and all(r.total_bytes == len(GGUF) for r in moving)
    assert any(r.eta_s is not None and r.eta_s > 0 for r in moving)
    assert reports[-1].phase == "done" and reports[-1].done_bytes == len(GGUF)
    row = next(r for r in models.rows() if r.entry.id == "acme-chat")
    assert row.installed.state is InstallState.DOWNLOADED and row.installed.path == path


def test_a_sentence_transformers_folder_downloads_every_file_but_other_frameworks(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, _state = hub
    folder = service(tmp_path, endpoint).download("acme-embedder")
    for name, data in ST_FILES.items():
        if name.startswith("onnx/"):
            assert not (folder / name).exists()
        else:
            assert (folder / name).read_bytes() == data
    marker = read_marker(folder)
    assert marker is not None and marker["id"] == "acme-embedder"
    assert embedding_info(folder) == EmbeddingInfo("query: ", "passage: ", 128, 8)
    assert embedding_info(tmp_path) is None
    from desktop_rag.store.spaces import Prefixes, read_prefixes

    assert read_prefixes(folder) == Prefixes("query: ", "passage: ")  # what the embedder reads


def test_an_interrupted_download_resumes_where_it_stopped(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    state.cut_after = 700_000
    models = service(tmp_path, endpoint, client=lambda url: HubClient(url, retries=0))
    with pytest.raises(DownloadError, match="resumes"):
        models.download("acme-chat")
    row = next(r for r in models.rows() if r.entry.id == "acme-chat")
    assert row.installed.state is InstallState.PARTIAL and row.installed.partial_mb == 0
    again = service(tmp_path, endpoint)  # a new process would see the same folder
    assert again.download("acme-chat").read_bytes() == GGUF
    assert file_gets(state, "chat.gguf") == [None, "bytes=700000-"]


def test_a_killed_cli_download_resumes_in_the_next_process(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    state.rate_bps = 512 * 1024  # ~4 s for the file
    data_dir = tmp_path / "dd"
    service(data_dir, endpoint)  # writes the user catalog under dd/config
    (data_dir / "config" / "settings.toml").write_text(
        f'[models]\nhub_endpoint = "{endpoint}"\n', encoding="utf-8")
    env = dict(os.environ, DESKTOP_RAG_MODEL_CACHE=str(tmp_path / "cache"))
    command = [sys.executable, "-c", CLI, "--data-dir", str(data_dir),
               "models", "download", "acme-chat", "--json"]
    child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    part = tmp_path / "cache" / "catalog" / "acme-chat" / "chat.gguf.part"
    deadline = time.monotonic() + 30
    while not (part.exists() and part.stat().st_size > 300_000):
        assert time.monotonic() < deadline and child.poll() is None
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    kept = part.stat().st_size
    state.rate_bps = None
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # stdout is one JSON document, progress went to stderr
    assert Path(result["path"]).read_bytes() == GGUF
    assert f"bytes={kept}-" in file_gets(state, "chat.gguf")
    assert "chat.gguf" in done.stderr


def test_cancel_keeps_the_part_and_a_later_download_finishes(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    state.rate_bps = 2 * 1024 * 1024
    models = service(tmp_path, endpoint)
    token = CancelToken()

    def progress(report: DownloadProgress) -> None:
        if report.done_bytes > 200_000:
            token.cancel()

    with pytest.raises(CancelledError):
        models.download("acme-chat", progress, token)
    part = entry_dir(models.paths.model_cache_dir, models.catalog.get("acme-chat")) / (
        "chat.gguf.part")
    assert 0 < part.stat().st_size < len(GGUF)
    state.rate_bps = None
    assert models.download("acme-chat").read_bytes() == GGUF


def test_bytes_that_do_not_match_the_announced_hash_are_refused(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    state.wrong_body = True
    models = service(tmp_path, endpoint)
    with pytest.raises(ModelIntegrityError, match="does not match"):
        models.download("acme-chat")
    folder = entry_dir(models.paths.model_cache_dir, models.catalog.get("acme-chat"))
    assert list(folder.iterdir()) == []


def test_a_hash_pinned_in_the_catalog_wins_over_the_hub(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, _state = hub
    models = service(tmp_path, endpoint, pinned_sha="ab" * 32)
    with pytest.raises(ModelIntegrityError, match="ab" * 32):
        models.download("acme-chat")


def test_not_enough_disk_stops_before_any_byte_is_fetched(
    hub: tuple[str, HubState], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint, state = hub
    monkeypatch.setattr(downloads, "free_disk_mb", lambda _folder: 150)
    with pytest.raises(DownloadError, match="Not enough disk space") as info:
        service(tmp_path, endpoint).download("acme-chat")
    assert "MB free" in info.value.message
    assert file_gets(state, "chat.gguf") == []


def test_listing_and_choosing_never_touch_the_network(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    from desktop_rag.catalog.entries import CatalogError

    endpoint, state = hub
    models = service(tmp_path, endpoint)
    assert {r.entry.id for r in models.rows()} >= {"acme-chat", "acme-embedder"}
    with pytest.raises(CatalogError, match="not downloaded") as info:
        models.choose("acme-chat")
    assert "models download acme-chat" in info.value.hint
    assert state.requests == []
