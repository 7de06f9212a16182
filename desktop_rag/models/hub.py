"""Opt-in model downloads from a Hugging Face-style hub, with urllib only.

Layout: files at {endpoint}/{repo_id}/resolve/{revision}/{filename}; the file list from
{endpoint}/api/models/{repo_id}/tree/{revision} (or the `siblings` of
{endpoint}/api/models/{repo_id}).
Downloads go to `<name>.part`, resume with an HTTP Range request, are checked against the size and
sha256 the hub announces (X-Linked-Etag / ETag headers, the API's lfs data) and are renamed into
place only when they match; a mismatching file is deleted and refused. Callers decide whether
downloading is allowed at all (ModelRegistry checks `models.allow_downloads`).
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from desktop_rag import __version__
from desktop_rag.config.files import file_sha256
from desktop_rag.domain.errors import DownloadError, ModelIntegrityError
from desktop_rag.domain.progress import CancelToken, ProgressCallback, ProgressEvent, no_progress

log = logging.getLogger(__name__)

COMPLETE_MARK = ".desktop-rag-complete"
CHUNK_BYTES = 1024 * 1024
SHA256 = re.compile(r"^[0-9a-f]{64}$")
SKIPPED_PREFIXES = ("onnx/", "openvino/", ".")
SKIPPED_SUFFIXES = (".h5", ".msgpack", ".ot", ".onnx", ".tflite")


@dataclass(frozen=True, slots=True)
class RemoteFile:
    name: str
    size: int | None = None
    sha256: str | None = None


def repo_cache_dir(model_cache_dir: Path, repo_id: str) -> Path:
    return model_cache_dir / "hub" / repo_id.replace("/", "--")


def is_complete(folder: Path) -> bool:
    return (folder / COMPLETE_MARK).is_file()


def wanted(name: str, names: set[str]) -> bool:
    """Skip other frameworks' copies of the weights (ONNX, TF, Flax, ...)."""
    if name.startswith(SKIPPED_PREFIXES) or name.endswith(SKIPPED_SUFFIXES):
        return False
    return not (name == "pytorch_model.bin" and "model.safetensors" in names)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx surfaces as HTTPError, whose headers we read


class HubClient:
    def __init__(self, endpoint: str, timeout: float = 30.0, retries: int = 2) -> None:
        if not endpoint.startswith(("http://", "https://")):
            raise DownloadError(f"Invalid hub endpoint {endpoint!r}", "use an http(s) URL")
        self.endpoint = endpoint.rstrip("/")
        self.timeout = timeout
        self.retries = retries

    def file_url(self, repo_id: str, filename: str, revision: str = "main") -> str:
        quoted = urllib.parse.quote(filename, safe="/")
        return f"{self.endpoint}/{repo_id}/resolve/{revision}/{quoted}"

    def list_files(self, repo_id: str, revision: str = "main") -> list[RemoteFile]:
        try:
            tree = self._get_json(f"/api/models/{repo_id}/tree/{revision}?recursive=true")
            return [_from_tree(item) for item in tree if item.get("type") == "file"]
        except urllib.error.HTTPError as exc:
            if exc.code != 404:
                raise _download_error(repo_id, exc) from exc
        info = self._get_json(f"/api/models/{repo_id}?blobs=true")
        return [_from_sibling(item) for item in info.get("siblings", [])]

    def describe(self, repo_id: str, remote: RemoteFile, revision: str = "main") -> RemoteFile:
        """`remote` with the size and sha256 the hub announces filled in where it had none."""
        return _merge(remote, self._head(self.file_url(repo_id, remote.name, revision)))

    def download_repo(
        self,
        repo_id: str,
        folder: Path,
        revision: str = "main",
        progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None,
    ) -> Path:
        """Every wanted file of the repo into `folder`, then a marker saying it is complete."""
        files = self.list_files(repo_id, revision)
        names = {f.name for f in files}
        for remote in (f for f in files if wanted(f.name, names)):
            self.download_file(repo_id, remote, folder / remote.name, revision, progress, cancel)
        (folder / COMPLETE_MARK).write_text(json.dumps({"repo": repo_id, "revision": revision}))
        return folder

    def download_file(
        self,
        repo_id: str,
        remote: RemoteFile,
        dest: Path,
        revision: str = "main",
        progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None,
    ) -> Path:
        url = self.file_url(repo_id, remote.name, revision)
        expected = _merge(remote, self._head(url))
        if dest.is_file() and _matches(dest, expected):
            return dest
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(dest.name + ".part")
        self._fetch_with_retries(url, part, expected, progress, cancel)
        _verify_or_delete(part, expected)
        os.replace(part, dest)
        return dest

    def _fetch_with_retries(
        self,
        url: str,
        part: Path,
        expected: RemoteFile,
        progress: ProgressCallback,
        cancel: CancelToken | None,
    ) -> None:
        error: Exception | None = None
        for attempt in range(self.retries + 1):
            try:
                self._fetch(url, part, expected, progress, cancel)
                return
            except (OSError, http.client.HTTPException) as exc:
                log.warning("download of %s interrupted (attempt %d): %s", url, attempt + 1, exc)
                error = exc
        raise DownloadError(
            f"Downloading {expected.name} failed: {error}",
            "run the same command again: the download resumes where it stopped",
        )

    def _fetch(
        self,
        url: str,
        part: Path,
        expected: RemoteFile,
        progress: ProgressCallback,
        cancel: CancelToken | None,
    ) -> None:
        offset = part.stat().st_size if part.exists() else 0
        if expected.size is not None and offset >= expected.size:
            if offset == expected.size:
                return
            offset = 0
        request = self._request(url)
        if offset:
            request.add_header("Range", f"bytes={offset}-")
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            if response.status != 206:
                offset = 0  # the server ignored the range: start over
            length = response.headers.get("Content-Length")
            total = expected.size or (offset + int(length) if length else 0)
            reporter = _Reporter(progress, expected.name, offset, total, cancel)
            with part.open("ab" if offset else "wb") as out:
                received = _stream(response, out, reporter)
        if length is not None and received < int(length):
            raise ConnectionError(f"connection closed after {received} of {length} bytes")

    def _head(self, url: str) -> RemoteFile:
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            with opener.open(self._request(url, "HEAD"), timeout=self.timeout) as response:
                return _meta(response.headers, redirected=False)
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                return _meta(exc.headers, redirected=True)
            raise _download_error(url, exc) from exc
        except OSError as exc:
            raise _download_error(url, exc) from exc

    def _get_json(self, path: str) -> Any:
        request = self._request(self.endpoint + path)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError:
            raise
        except (OSError, ValueError) as exc:
            raise _download_error(self.endpoint + path, exc) from exc

    def _request(self, url: str, method: str = "GET") -> urllib.request.Request:
        headers = {"User-Agent": f"desktop-rag/{__version__}"}
        return urllib.request.Request(url, method=method, headers=headers)


class _Reporter:
    def __init__(
        self,
        progress: ProgressCallback,
        name: str,
        done: int,
        total: int,
        cancel: CancelToken | None,
    ) -> None:
        self.progress, self.name, self.done, self.total, self.cancel = (
            progress, name, done, total, cancel
        )

    def check_cancel(self) -> None:
        if self.cancel is not None:
            self.cancel.raise_if_cancelled()

    def add(self, count: int) -> None:
        self.done += count
        self.progress(ProgressEvent("download", self.done, self.total, self.name))


def _stream(response: Any, out: Any, reporter: _Reporter) -> int:
    received = 0
    while block := response.read(CHUNK_BYTES):
        reporter.check_cancel()
        out.write(block)
        received += len(block)
        reporter.add(len(block))
    return received


def _etag_sha256(value: str | None) -> str | None:
    if not value:
        return None
    tag = value.removeprefix("W/").strip('"').lower()
    return tag if SHA256.match(tag) else None


def _meta(headers: Any, redirected: bool) -> RemoteFile:
    sha = _etag_sha256(headers.get("X-Linked-Etag")) or _etag_sha256(headers.get("ETag"))
    size = headers.get("X-Linked-Size") or (None if redirected else headers.get("Content-Length"))
    return RemoteFile("", int(size) if size else None, sha)


def _merge(remote: RemoteFile, head: RemoteFile) -> RemoteFile:
    return replace(remote, size=remote.size or head.size, sha256=remote.sha256 or head.sha256)


def _matches(path: Path, expected: RemoteFile) -> bool:
    if expected.size is not None and path.stat().st_size != expected.size:
        return False
    return expected.sha256 is None or file_sha256(path) == expected.sha256


def _verify_or_delete(part: Path, expected: RemoteFile) -> None:
    size = part.stat().st_size
    if expected.size is not None and size != expected.size:
        part.unlink()
        raise ModelIntegrityError(
            f"{expected.name}: downloaded {size} bytes, expected {expected.size}",
            "the file was deleted; try again later or check models.hub_endpoint",
        )
    digest = file_sha256(part)
    if expected.sha256 is not None and digest != expected.sha256:
        part.unlink()
        raise ModelIntegrityError(
            f"{expected.name}: sha256 {digest} does not match the hub's {expected.sha256}",
            "the file was deleted; try again later or check models.hub_endpoint",
        )


def _from_tree(item: dict[str, Any]) -> RemoteFile:
    lfs = item.get("lfs") or {}
    return RemoteFile(str(item["path"]), lfs.get("size") or item.get("size"), lfs.get("oid"))


def _from_sibling(item: dict[str, Any]) -> RemoteFile:
    lfs = item.get("lfs") or {}
    size = lfs.get("size") or item.get("size")
    return RemoteFile(str(item["rfilename"]), size, lfs.get("sha256"))


def _download_error(what: str, exc: Exception) -> DownloadError:
    return DownloadError(
        f"Could not reach {what}: {exc}", "check models.hub_endpoint and the network"
    )
