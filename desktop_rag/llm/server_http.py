"""HTTP plumbing for `ServerEngine`: an OpenAI-compatible endpoint over `http.client`, every
failure mapped to an `LLMError` whose hint names the URL, server-sent events, and a watcher that
closes a streaming connection the moment the user cancels."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from desktop_rag.domain.errors import ConfigError, LLMError
from desktop_rag.domain.progress import CancelToken

API_KEY_ENV = "DESKTOP_RAG_LLM_API_KEY"
CANCEL_POLL_S = 0.05
PROBE_TIMEOUT_S = 10.0
Connection = http.client.HTTPConnection
Response = http.client.HTTPResponse
TRANSPORT_ERRORS = (OSError, http.client.HTTPException)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where the server is: `url` is the OpenAI base (…/v1); extras live at the server root."""

    url: str
    https: bool
    host: str
    port: int
    path: str  # e.g. "/v1"

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"Invalid setting llm.server_url = {url!r}",
                "expected an http(s) URL such as http://127.0.0.1:8000/v1",
            )
        https = parts.scheme == "https"
        port = parts.port or (443 if https else 80)
        return cls(url.strip().rstrip("/"), https, parts.hostname, port, parts.path.rstrip("/"))

    @property
    def root(self) -> str:
        return self.path.removesuffix("/v1")

    def connect(self, timeout_s: float) -> Connection:
        kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        return kind(self.host, self.port, timeout=timeout_s)

    def down_hint(self) -> str:
        return (
            f"start the LLM server at {self.url} (for example `python -m llama_cpp.server "
            f"--model <file.gguf> --host {self.host} --port {self.port}`), fix "
            'llm.server_url, or set llm.backend = "local"'
        )


@dataclass(slots=True)
class Exchange:
    """One request's connection, response and socket (kept to cut a stream short)."""

    conn: Connection
    response: Response
    sock: socket.socket | None

    def shutdown(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.response.close()
        self.conn.close()


class ServerClient:
    """JSON requests to one endpoint; no connection is kept between requests."""

    def __init__(self, url: str, timeout_s: float, api_key: str = "") -> None:
        self.endpoint = Endpoint.parse(url)
        self.timeout_s = timeout_s
        self._api_key = api_key or os.environ.get(API_KEY_ENV, "")

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def open(
        self, method: str, path: str, body: dict[str, Any] | None, timeout_s: float
    ) -> Exchange:
        """Sends one request; returns the open exchange with its (successful) response."""
        conn = self.endpoint.connect(timeout_s)
        data = json.dumps(body).encode() if body is not None else None
        try:
            conn.request(method, path, body=data, headers=self._headers())
            sock = conn.sock  # getresponse() may hand the socket over to the response
            response = conn.getresponse()
        except TRANSPORT_ERRORS as exc:
            conn.close()
            raise self.transport_error(exc, timeout_s) from exc
        exchange = Exchange(conn, response, sock)
        if response.status >= 400:
            detail = _error_detail(response)
            exchange.close()
            raise self.status_error(response.status, detail, path)
        return exchange

    def call_json(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        timeout_s = min(self.timeout_s, PROBE_TIMEOUT_S)
        exchange = self.open(method, path, body, timeout_s)
        try:
            raw = exchange.response.read()
        except TRANSPORT_ERRORS as exc:
            raise self.transport_error(exc, timeout_s) from exc
        finally:
            exchange.close()
        return self.parse_json(raw, path)

    def parse_json(self, raw: bytes, what: str) -> Any:
        try:
            payload = json.loads(raw)
        except ValueError as exc:
            raise LLMError(
                f"The LLM server at {self.endpoint.url} sent an invalid answer ({what}): "
                f"{raw[:120]!r}",
                "is llm.server_url an OpenAI-compatible endpoint (usually ending in /v1)?",
            ) from exc
        if isinstance(payload, dict) and "error" in payload:
            raise LLMError(
                f"The LLM server at {self.endpoint.url} failed: {payload['error']}",
                "see the server's log",
            )
        return payload

    def transport_error(
        self, exc: OSError | http.client.HTTPException, timeout_s: float | None = None
    ) -> LLMError:
        url = self.endpoint.url
        if isinstance(exc, ConnectionRefusedError):
            return LLMError(f"The LLM server at {url} refused the connection",
                            self.endpoint.down_hint())
        if isinstance(exc, socket.gaierror):
            return LLMError(f"Cannot resolve the LLM server's host in {url}", "fix llm.server_url")
        if isinstance(exc, TimeoutError):
            return LLMError(
                f"The LLM server at {url} did not answer within {timeout_s or self.timeout_s:g} s",
                "it may be overloaded or down; raise llm.server_timeout_s or check the server",
            )
        return LLMError(f"Lost the connection to the LLM server at {url}: {exc}",
                        self.endpoint.down_hint())

    def status_error(self, status: int, detail: str, path: str) -> LLMError:
        message = f"The LLM server at {self.endpoint.url} answered HTTP {status} to {path}: "
        message += detail
        if status in (401, 403):
            return LLMError(message, f"the server needs an API key: set {API_KEY_ENV}")
        if status == 404:
            return LLMError(message, "check llm.server_url (an OpenAI-compatible base URL such "
                            "as http://host:8000/v1)")
        if status >= 500:
            return LLMError(message, "the server failed; see the server's log")
        return LLMError(message, "the request was refused; a shorter question or context may help")


def _error_detail(response: Response) -> str:
    try:
        raw = response.read(4096)
    except TRANSPORT_ERRORS:
        return response.reason
    try:
        error = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", errors="replace").strip()[:200] or response.reason
    if isinstance(error, dict):
        error = error.get("error", error.get("detail", error))
    if isinstance(error, dict):
        error = error.get("message", error)
    return str(error)[:300]


def sse_events(response: Response) -> Iterator[str]:
    """The data of each server-sent event; comments (pings) and other fields are skipped."""
    data: list[str] = []
    while raw := response.readline():
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line and data:
            yield "\n".join(data)
            data = []
    if data:
        yield "\n".join(data)


@contextlib.contextmanager
def closing_on_cancel(exchange: Exchange, cancel: CancelToken | None) -> Iterator[None]:
    """Shuts the exchange's socket down as soon as `cancel` fires (a blocked read then sees the
    end of the stream at once) and closes the exchange at the end."""
    done = threading.Event()

    def watch() -> None:
        while not done.wait(CANCEL_POLL_S):
            if cancel is not None and cancel.cancelled:
                exchange.shutdown()
                return

    watcher = threading.Thread(target=watch, name="llm-cancel", daemon=True)
    if cancel is not None:
        watcher.start()
    try:
        yield
    finally:
        done.set()
        if watcher.is_alive():
            watcher.join()
        exchange.close()
