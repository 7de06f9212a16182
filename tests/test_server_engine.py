"""ServerEngine against a scripted HTTP server on 127.0.0.1: real sockets, real SSE framing,
each failure mode a real server can show (down, slow, garbage, HTTP errors, cut streams)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from server_procs import free_port

from desktop_rag.domain.errors import ConfigError, LLMError
from desktop_rag.domain.fakes import WordTokenCounter
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import ChatMessage
from desktop_rag.llm.server_engine import ServerEngine
from desktop_rag.llm.server_http import Endpoint

Route = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]
MODELS = {"data": [{"id": "models/tiny-chat.gguf"}]}
ASK = [ChatMessage("user", "hello")]


def send_json(h: BaseHTTPRequestHandler, payload: object, status: int = 200) -> None:
    body = json.dumps(payload).encode()
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def start_sse(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/event-stream")
    h.end_headers()


def event(h: BaseHTTPRequestHandler, data: str) -> None:
    h.wfile.write(f"data: {data}\r\n\r\n".encode())
    h.wfile.flush()


def chunk(content: str | None, finish: str | None = None) -> str:
    delta = {"content": content} if content is not None else {"role": "assistant"}
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def stream(pieces: list[str], finish: str = "stop", delay_s: float = 0.0) -> Route:
    def route(h: BaseHTTPRequestHandler, _body: dict[str, Any]) -> None:
        start_sse(h)
        event(h, chunk(None))
        h.wfile.write(b": ping - keepalive\r\n\r\n")
        for piece in pieces:
            time.sleep(delay_s)
            event(h, chunk(piece))
        event(h, chunk(None, finish))
        event(h, "[DONE]")

    return route


class Scripted(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, routes: dict[str, Route]) -> None:
        super().__init__(("127.0.0.1", free_port()), Handler)
        self.routes = {"GET /v1/models": lambda h, _b: send_json(h, MODELS), **routes}
        self.bodies: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    server: Scripted

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else {}
        self.server.bodies.append({"path": self.path, **body})
        route = self.server.routes.get(f"{self.command} {self.path}")
        if route is None:
            send_json(self, {"detail": "Not Found"}, 404)
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            route(self, body)  # a client that hung up (cancel) is what a real server sees too

    do_GET = do_POST = _dispatch


@pytest.fixture
def serve() -> Iterator[Callable[[dict[str, Route]], Scripted]]:
    servers: list[Scripted] = []

    def start(routes: dict[str, Route]) -> Scripted:
        server = Scripted(routes)
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def engine_for(server: Scripted, timeout_s: float = 5.0) -> ServerEngine:
    return ServerEngine(server.url, timeout_s, WordTokenCounter(), context_size=2048)


def test_streams_pieces_in_order_and_reports_timings(serve: Any) -> None:
    server = serve({"POST /v1/chat/completions": stream(["Hel", "lo", " wörld"], "stop")})
    engine = engine_for(server)
    seen: list[str] = []
    gen = engine.generate(ASK, 16, on_token=seen.append)
    assert seen == ["Hel", "lo", " wörld"]
    assert gen.text == "Hello wörld" and gen.stopped_by == "stop" and gen.generated_tokens == 3
    assert 0 < gen.ttft_ms <= gen.total_ms
    assert engine.name == "tiny-chat.gguf" and engine.gpu_offload is False


def test_request_is_an_openai_streaming_chat_request(serve: Any) -> None:
    server = serve({"POST /v1/chat/completions": stream(["x"], "length")})
    gen = engine_for(server).generate([ChatMessage("system", "s"), *ASK], 7)
    body = next(b for b in server.bodies if b["path"] == "/v1/chat/completions")
    assert body["stream"] is True and body["max_tokens"] == 7 and body["temperature"] == 0.0
    assert body["model"] == "models/tiny-chat.gguf"
    assert body["messages"] == [
        {"role": "system", "content": "s"}, {"role": "user", "content": "hello"}
    ]
    assert gen.stopped_by == "length"


def test_cancel_closes_the_stream_within_200_ms(serve: Any) -> None:
    server = serve({"POST /v1/chat/completions": stream(["tick"] * 1000, delay_s=0.5)})
    engine = engine_for(server, timeout_s=30)
    cancel = CancelToken()
    threading.Timer(0.3, cancel.cancel).start()
    start = time.perf_counter()
    gen = engine.generate(ASK, 1000, cancel=cancel)
    elapsed = time.perf_counter() - start
    assert gen.stopped_by == "cancel"
    assert elapsed < 0.3 + 0.2, f"cancel took {elapsed - 0.3:.3f} s"


def test_connection_refused_names_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(LLMError) as err:
        ServerEngine(url, 5.0)
    assert "refused" in err.value.message and url in err.value.message
    assert url in err.value.hint and "llm.backend" in err.value.hint


def test_a_silent_server_times_out(serve: Any) -> None:
    def silent(h: BaseHTTPRequestHandler, _b: dict[str, Any]) -> None:
        time.sleep(2)

    server = serve({"POST /v1/chat/completions": silent})
    engine = engine_for(server, timeout_s=0.5)
    start = time.perf_counter()
    with pytest.raises(LLMError) as err:
        engine.generate(ASK, 8)
    assert "did not answer within 0.5 s" in err.value.message
    assert "llm.server_timeout_s" in err.value.hint
    assert time.perf_counter() - start < 1.5


def test_a_stall_in_the_middle_of_a_stream_times_out(serve: Any) -> None:
    server = serve({"POST /v1/chat/completions": stream(["a", "b"], delay_s=1.0)})
    with pytest.raises(LLMError, match="did not answer"):
        engine_for(server, timeout_s=0.4).generate(ASK, 8)


@pytest.mark.parametrize(
    ("status", "hint"),
    [(401, "API key"), (404, "llm.server_url"), (500, "server's log"), (400, "shorter")],
)
def test_http_errors_carry_the_server_message(serve: Any, status: int, hint: str) -> None:
    def refuse(h: BaseHTTPRequestHandler, _b: dict[str, Any]) -> None:
        send_json(h, {"error": {"message": "nope, because reasons"}}, status)

    server = serve({"POST /v1/chat/completions": refuse})
    with pytest.raises(LLMError) as err:
        engine_for(server).generate(ASK, 8)
    assert f"HTTP {status}" in err.value.message and "because reasons" in err.value.message
    assert hint in err.value.hint


def test_garbage_instead_of_events_is_a_clear_error(serve: Any) -> None:
    def garbage(h: BaseHTTPRequestHandler, _b: dict[str, Any]) -> None:
        start_sse(h)
        event(h, "<html>proxy error</html>")

    server = serve({"POST /v1/chat/completions": garbage})
    with pytest.raises(LLMError, match="invalid answer") as err:
        engine_for(server).generate(ASK, 8)
    assert "OpenAI-compatible" in err.value.hint


def test_a_non_openai_server_is_refused_at_start(serve: Any) -> None:
    def html(h: BaseHTTPRequestHandler, _b: dict[str, Any]) -> None:
        h.send_response(200)
        h.end_headers()
        h.wfile.write(b"<html>welcome</html>")

    server = serve({"GET /v1/models": html})
    with pytest.raises(LLMError, match="invalid answer"):
        engine_for(server)


def test_a_stream_cut_midway_is_a_lost_connection(serve: Any) -> None:
    def cut(h: BaseHTTPRequestHandler, _b: dict[str, Any]) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Content-Length", "100000")
        h.end_headers()
        event(h, chunk("partial"))

    server = serve({"POST /v1/chat/completions": cut})
    with pytest.raises(LLMError, match="Lost the connection"):
        engine_for(server).generate(ASK, 8)


def test_an_error_event_in_the_stream_is_reported(serve: Any) -> None:
    def failing(h: BaseHTTPRequestHandler, _b: dict[str, Any]) -> None:
        start_sse(h)
        event(h, chunk("a"))
        event(h, json.dumps({"error": {"message": "out of memory"}}))

    server = serve({"POST /v1/chat/completions": failing})
    with pytest.raises(LLMError, match="out of memory"):
        engine_for(server).generate(ASK, 8)


def test_a_server_that_ignores_stream_still_answers(serve: Any) -> None:
    whole = {"choices": [{"message": {"content": "all at once"}, "finish_reason": "stop"}]}
    server = serve({"POST /v1/chat/completions": lambda h, _b: send_json(h, whole)})
    seen: list[str] = []
    gen = engine_for(server).generate(ASK, 8, on_token=seen.append)
    assert gen.text == "all at once" and seen == ["all at once"]


def test_a_looping_model_is_stopped_by_the_repetition_guard(serve: Any) -> None:
    server = serve({"POST /v1/chat/completions": stream([" la"] * 500)})
    gen = engine_for(server).generate(ASK, 500)
    assert gen.stopped_by == "repetition" and gen.generated_tokens < 100


def test_count_tokens_uses_the_server_tokenizer_without_bos(serve: Any) -> None:
    def tokenize(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        send_json(h, {"tokens": [1] + [7] * len(body["input"])})  # BOS + one per character

    server = serve({"POST /extras/tokenize": tokenize})
    assert engine_for(server).count_tokens("abcde") == 5


def test_count_tokens_uses_a_llama_cpp_style_tokenize_endpoint(serve: Any) -> None:
    def tokenize(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        send_json(h, {"tokens": [7] * len(body["content"].split())})

    server = serve({"POST /tokenize": tokenize})
    assert engine_for(server).count_tokens("one two three four") == 4


def test_count_tokens_falls_back_to_the_local_counter(serve: Any) -> None:
    server = serve({})  # no /extras/tokenize: 404
    engine = engine_for(server)
    assert engine.count_tokens("three little words") == 3
    assert engine.count_tokens("and two") == 2  # the probe is not repeated


@pytest.mark.parametrize("url", ["127.0.0.1:8000", "ftp://host/v1", "http:///v1"])
def test_invalid_urls_are_configuration_errors(url: str) -> None:
    with pytest.raises(ConfigError, match=r"llm\.server_url"):
        Endpoint.parse(url)


def test_endpoint_root_strips_v1() -> None:
    endpoint = Endpoint.parse("https://gpu.example:9000/llm/v1/")
    assert (endpoint.https, endpoint.port, endpoint.path, endpoint.root) == (
        True, 9000, "/llm/v1", "/llm",
    )
