"""A local server with the Hugging Face URL layout, serving several repos, for model downloads.

Like the real hub, `/{repo}/resolve/{rev}/{file}` answers with X-Linked-Etag (the sha256),
X-Linked-Size, ETag and X-Repo-Commit headers and honours Range; `/api/models/{repo}/tree/{rev}`
lists the files with their LFS sha256. It can slow down (bytes per second), cut a connection once
after some bytes, or announce a wrong hash, so tests and the GUI screenshot see real downloads.

Run by hand to measure: `python -m tests.models_hub REPO=FOLDER ... [--port N] [--rate BPS]`.
"""

from __future__ import annotations

import argparse
import hashlib
import http.server
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class Repo:
    files: dict[str, bytes | Path]
    announced_sha: dict[str, str] = field(default_factory=dict)

    def chunks(self, name: str, start: int, step: int = 256 * 1024) -> Iterator[bytes]:
        value = self.files[name]
        if isinstance(value, bytes):
            for offset in range(start, len(value), step):
                yield value[offset:offset + step]
            return
        with value.open("rb") as f:
            f.seek(start)
            while block := f.read(step):
                yield block

    def size(self, name: str) -> int:
        value = self.files[name]
        return value.stat().st_size if isinstance(value, Path) else len(value)

    def sha(self, name: str) -> str:
        if name not in self.announced_sha:
            self.announced_sha[name] = _sha256(self.files[name])
        return self.announced_sha[name]


def _sha256(value: bytes | Path) -> str:
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()
    digest = hashlib.sha256()
    with value.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class HubState:
    repos: dict[str, Repo] = field(default_factory=dict)
    rate_bps: int | None = None  # throttle file bodies
    cut_after: int | None = None  # close one connection after this many body bytes
    wrong_body: bool = False  # send other bytes than announced (same size)
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)


class Handler(http.server.BaseHTTPRequestHandler):
    state: HubState
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def do_GET(self) -> None:
        try:
            self._serve(body=True)
        except (BrokenPipeError, ConnectionResetError):  # the client went away (a kill, a cancel)
            self.close_connection = True

    def _serve(self, body: bool) -> None:
        self.state.requests.append((self.command, self.path, self.headers.get("Range")))
        path = self.path.split("?", 1)[0]
        for repo_id, repo in self.state.repos.items():
            resolve = f"/{repo_id}/resolve/"
            if path.startswith(resolve):
                name = path.removeprefix(resolve).split("/", 1)[1]
                return self._file(repo, name, body)
            if path.startswith(f"/api/models/{repo_id}/tree/"):
                return self._json([self._tree_item(repo, n) for n in repo.files])
        self._send_empty(404)

    def _send_empty(self, code: int) -> None:
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _tree_item(self, repo: Repo, name: str) -> dict[str, Any]:
        size = repo.size(name)
        return {"type": "file", "path": name, "size": size,
                "lfs": {"oid": repo.sha(name), "size": size}}

    def _json(self, payload: object) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _file(self, repo: Repo, name: str, body: bool) -> None:
        if name not in repo.files:
            return self._send_empty(404)
        size, start = repo.size(name), 0
        if self.headers.get("Range"):
            start = int(self.headers["Range"].removeprefix("bytes=").split("-")[0])
        self.send_response(206 if start else 200)
        sha = repo.sha(name)
        for key, value in (("X-Linked-Etag", f'"{sha}"'), ("ETag", f'"{sha}"'),
                           ("X-Linked-Size", str(size)), ("X-Repo-Commit", COMMIT),
                           ("Content-Length", str(size - start))):
            self.send_header(key, value)
        if start:
            self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.end_headers()
        if body:
            self._body(repo.chunks(name, start, 64 * 1024 if self.state.rate_bps else 1 << 20))

    def _body(self, chunks: Iterator[bytes]) -> None:
        left = self.state.cut_after
        if left is not None:
            self.state.cut_after = None
            self.close_connection = True
        for block in chunks:
            if left is not None:
                block, left = block[:left], left - len(block[:left])
            self.wfile.write(bytes(len(block)) if self.state.wrong_body else block)
            if self.state.rate_bps:
                time.sleep(len(block) / self.state.rate_bps)
            if left == 0:
                return


@contextmanager
def serve(state: HubState, port: int = 0) -> Iterator[str]:
    """Serves `state` on 127.0.0.1 and yields the endpoint URL."""
    handler = type("Handler", (Handler,), {"state": state})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def folder_repo(folder: Path) -> Repo:
    return Repo({str(p.relative_to(folder)): p for p in sorted(folder.rglob("*")) if p.is_file()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("repos", nargs="+", metavar="REPO=PATH", help="a folder or one file")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--rate", type=int, default=None, help="bytes per second")
    args = parser.parse_args()
    state = HubState(rate_bps=args.rate)
    for spec in args.repos:
        repo_id, _, where = spec.partition("=")
        path = Path(where)
        state.repos[repo_id] = folder_repo(path) if path.is_dir() else Repo({path.name: path})
    with serve(state, args.port) as url:
        print(f"serving {', '.join(state.repos)} at {url}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
