"""Hub downloads against a local HTTP server that serves files in the hub's URL layout."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.errors import DownloadError, ModelIntegrityError, ModelNotFoundError
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.models import ModelRegistry
from desktop_rag.models.hub import HubClient, RemoteFile, is_complete, repo_cache_dir

REPO = "acme/tiny-reranker"


@dataclass
class HubState:
    files: dict[str, bytes]
    announced_sha: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None  # close the connection after this many body bytes (once)
    tree_api: bool = True
    honor_range: bool = True
    redirect: bool = False  # like the real hub: resolve answers 302 to a CDN for large files
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)


class HubHandler(http.server.BaseHTTPRequestHandler):
    state: HubState

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def do_GET(self) -> None:
        self._serve(body=True)

    def _serve(self, body: bool) -> None:
        self.state.requests.append((self.command, self.path, self.headers.get("Range")))
        prefix = f"/{REPO}/resolve/main/"
        if self.path.startswith(prefix) and self.state.redirect:
            return self._redirect(self.path.removeprefix(prefix))
        if self.path.startswith(prefix):
            return self._file(self.path.removeprefix(prefix), body)
        if self.path.startswith("/cdn/"):
            return self._file(self.path.removeprefix("/cdn/"), body, linked=False)
        if self.path.startswith(f"/api/models/{REPO}/tree/main") and self.state.tree_api:
            return self._json([self._tree_item(n) for n in self.state.files])
        if self.path.startswith(f"/api/models/{REPO}?"):
            return self._json({"siblings": [{"rfilename": n} for n in self.state.files]})
        self.send_error(404)

    def _tree_item(self, name: str) -> dict[str, Any]:
        data = self.state.files[name]
        return {"type": "file", "path": name, "size": len(data)}

    def _json(self, payload: object) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _linked_headers(self, name: str) -> None:
        data = self.state.files[name]
        sha = self.state.announced_sha.get(name, hashlib.sha256(data).hexdigest())
        self.send_header("X-Linked-Etag", f'"{sha}"')
        self.send_header("X-Linked-Size", str(len(data)))

    def _redirect(self, name: str) -> None:
        self.send_response(302)
        self._linked_headers(name)
        self.send_header("Location", f"/cdn/{name}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _file(self, name: str, body: bool, linked: bool = True) -> None:
        data = self.state.files[name]
        start = 0
        if self.headers.get("Range") and self.state.honor_range:
            start = int(self.headers["Range"].removeprefix("bytes=").rstrip("-"))
        self.send_response(206 if start else 200)
        if linked:
            self._linked_headers(name)
        else:
            self.send_header("ETag", '"cdn-etag-not-a-sha"')
        self.send_header("Content-Length", str(len(data) - start))
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.end_headers()
        if body:
            self._body(data[start:])

    def _body(self, data: bytes) -> None:
        if self.state.cut_after is not None:
            cut, self.state.cut_after = self.state.cut_after, None
            self.wfile.write(data[:cut])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data)


@pytest.fixture
def hub() -> Iterator[tuple[str, HubState]]:
    state = HubState(
        files={
            "config.json": b'{"model_type": "bert"}',
            "model.safetensors": bytes(range(256)) * 4000,
            "onnx/model.onnx": b"not wanted",
        }
    )
    handler = type("Handler", (HubHandler,), {"state": state})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", state
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_full_repo_download_with_progress(hub: tuple[str, HubState], tmp_path: Path) -> None:
    endpoint, state = hub
    events: list[ProgressEvent] = []
    folder = HubClient(endpoint).download_repo(REPO, tmp_path / "m", progress=events.append)
    assert (folder / "model.safetensors").read_bytes() == state.files["model.safetensors"]
    assert (folder / "config.json").read_bytes() == state.files["config.json"]
    assert not (folder / "onnx").exists()
    assert is_complete(folder)
    assert {e.stage for e in events} == {"download"}
    last = [e for e in events if e.message == "model.safetensors"][-1]
    assert last.done == last.total == 1024000


def test_siblings_listing_is_used_when_tree_api_is_missing(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    state.tree_api = False
    files = HubClient(endpoint).list_files(REPO)
    assert sorted(f.name for f in files) == sorted(state.files)


def test_resume_after_connection_cut(hub: tuple[str, HubState], tmp_path: Path) -> None:
    endpoint, state = hub
    state.cut_after = 300_000
    client = HubClient(endpoint, retries=0)
    dest = tmp_path / "model.safetensors"
    with pytest.raises(DownloadError, match="resumes"):
        client.download_file(REPO, RemoteFile("model.safetensors"), dest)
    part = tmp_path / "model.safetensors.part"
    assert part.stat().st_size == 300_000
    assert not dest.exists()
    client.download_file(REPO, RemoteFile("model.safetensors"), dest)
    assert dest.read_bytes() == state.files["model.safetensors"]
    assert ("GET", f"/{REPO}/resolve/main/model.safetensors", "bytes=300000-") in state.requests
    assert not part.exists()


def test_redirect_to_a_cdn_with_linked_headers_and_resume(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    state.redirect = True
    state.cut_after = 5000
    dest = tmp_path / "model.safetensors"
    HubClient(endpoint, retries=1).download_file(REPO, RemoteFile("model.safetensors"), dest)
    assert dest.read_bytes() == state.files["model.safetensors"]
    assert ("GET", "/cdn/model.safetensors", "bytes=5000-") in state.requests


def test_redirected_file_with_a_wrong_linked_hash_is_refused(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    state.redirect = True
    state.announced_sha["model.safetensors"] = "cd" * 32
    with pytest.raises(ModelIntegrityError):
        HubClient(endpoint).download_file(
            REPO, RemoteFile("model.safetensors"), tmp_path / "model.safetensors"
        )
    assert list(tmp_path.iterdir()) == []


def test_retry_resumes_within_one_call(hub: tuple[str, HubState], tmp_path: Path) -> None:
    endpoint, state = hub
    state.cut_after = 1000
    dest = tmp_path / "model.safetensors"
    HubClient(endpoint, retries=1).download_file(REPO, RemoteFile("model.safetensors"), dest)
    assert dest.read_bytes() == state.files["model.safetensors"]
    ranges = [r for (_m, p, r) in state.requests if p.endswith("model.safetensors")]
    assert ranges == [None, None, "bytes=1000-"]  # HEAD, first GET, resumed GET


def test_server_ignoring_range_restarts_cleanly(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    state.honor_range = False
    (tmp_path / "model.safetensors.part").write_bytes(b"stale bytes from another version")
    dest = tmp_path / "model.safetensors"
    HubClient(endpoint).download_file(REPO, RemoteFile("model.safetensors"), dest)
    assert dest.read_bytes() == state.files["model.safetensors"]


def test_cancel_keeps_the_part_for_resuming(hub: tuple[str, HubState], tmp_path: Path) -> None:
    from desktop_rag.domain.errors import CancelledError
    from desktop_rag.domain.progress import CancelToken

    endpoint, state = hub
    state.files["big.bin"] = b"z" * (3 * 1024 * 1024)
    token = CancelToken()

    def progress(event: ProgressEvent) -> None:
        token.cancel()

    client = HubClient(endpoint)
    dest = tmp_path / "big.bin"
    with pytest.raises(CancelledError):
        client.download_file(REPO, RemoteFile("big.bin"), dest, progress=progress, cancel=token)
    assert not dest.exists()
    assert 0 < (tmp_path / "big.bin.part").stat().st_size < 3 * 1024 * 1024
    client.download_file(REPO, RemoteFile("big.bin"), dest)
    assert dest.read_bytes() == state.files["big.bin"]


def test_hash_mismatch_is_refused_and_deleted(hub: tuple[str, HubState], tmp_path: Path) -> None:
    endpoint, state = hub
    state.announced_sha["model.safetensors"] = "ab" * 32
    dest = tmp_path / "model.safetensors"
    with pytest.raises(ModelIntegrityError, match="does not match"):
        HubClient(endpoint).download_file(REPO, RemoteFile("model.safetensors"), dest)
    assert list(tmp_path.iterdir()) == []


def test_size_mismatch_from_listing_is_refused(hub: tuple[str, HubState], tmp_path: Path) -> None:
    endpoint, _state = hub
    dest = tmp_path / "config.json"
    with pytest.raises(ModelIntegrityError, match="expected 5"):
        HubClient(endpoint).download_file(REPO, RemoteFile("config.json", size=5), dest)
    assert list(tmp_path.iterdir()) == []


def registry(tmp_path: Path, endpoint: str, allow: bool) -> ModelRegistry:
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "k", tmp_path / "models")
    settings = Settings()
    settings = settings.updated({"models.cross_encoder": REPO})
    settings = settings.updated({"models.hub_endpoint": endpoint})
    settings = settings.updated({"models.allow_downloads": allow})
    return ModelRegistry(paths, settings)


def test_nothing_downloads_when_downloads_are_off(
    hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, state = hub
    with pytest.raises(ModelNotFoundError) as info:
        registry(tmp_path, endpoint, allow=False).cross_encoder_path()
    assert "allow_downloads = true" in info.value.hint
    assert state.requests == []
    assert not (tmp_path / "models").exists()


def test_registry_downloads_once_when_allowed(hub: tuple[str, HubState], tmp_path: Path) -> None:
    endpoint, state = hub
    folder = registry(tmp_path, endpoint, allow=True).cross_encoder_path()
    assert folder == repo_cache_dir(tmp_path / "models", REPO)
    assert (folder / "model.safetensors").exists()
    count = len(state.requests)
    again = registry(tmp_path, endpoint, allow=False).cross_encoder_path()
    assert again == folder
    assert len(state.requests) == count  # a complete download is used offline


def test_unreachable_hub_gives_download_error(tmp_path: Path) -> None:
    client = HubClient("http://127.0.0.1:9", timeout=2)
    with pytest.raises(DownloadError, match="Could not reach"):
        client.download_repo(REPO, tmp_path / "m")
