"""A `ChatEngine` over an OpenAI-compatible HTTP server (llama.cpp's server, llama-cpp-python's
`python -m llama_cpp.server`, vLLM, ...), for a GPU box shared by a team.

Only the standard library is used: a streaming (SSE) POST to `/chat/completions`. Cancelling
closes the connection, which unblocks the reading thread at once and makes the server stop
generating. Every failure becomes an `LLMError` whose hint names the URL and says what to do.
There is no KV state to save here: the pinned core is sent as the same prompt prefix every time
and the server's own prefix reuse (or `--cache`) keeps it evaluated.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from desktop_rag.domain.errors import LLMError
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import (
    ChatMessage,
    Generation,
    StopReason,
    TokenCallback,
    TokenCounter,
)
from desktop_rag.llm.server_http import (
    TRANSPORT_ERRORS,
    Response,
    ServerClient,
    closing_on_cancel,
    sse_events,
)
from desktop_rag.llm.streaming import (
    LineLoopGuard,
    RepetitionGuard,
    StopText,
    without_repeated_lines,
)

if TYPE_CHECKING:
    from desktop_rag.config import Settings

log = logging.getLogger(__name__)

MESSAGE_OVERHEAD_TOKENS = 4  # role markers around each message, for the prompt estimate
TOKENIZE_PATHS = ("/extras/tokenize", "/tokenize")  # llama-cpp-python; llama.cpp and vLLM


class ServerEngine:
    """A chat model behind an OpenAI-compatible endpoint. One thread owns each instance.

    Construction asks the server for its model list, so a server that is down fails here with
    a clear `LLMError` rather than in the middle of an answer.
    """

    def __init__(
        self,
        url: str,
        timeout_s: float = 60.0,
        counter: TokenCounter | None = None,
        context_size: int = 8192,
        temperature: float = 0.0,
        api_key: str = "",
    ) -> None:
        self.client = ServerClient(url, timeout_s, api_key)
        self.endpoint = self.client.endpoint
        self.gpu_offload = False  # unknown: the server decides
        self.context_size = context_size
        self.temperature = temperature
        self._counter = counter
        self._tokenizer: str | None = None  # tokenize path; '' for none; None until probed
        self._bos_tokens = 0
        self.model_id = self._probe_model()
        self.name = self.model_id.rsplit("/", 1)[-1] or self.endpoint.url

    def _probe_model(self) -> str:
        """The first model the server lists (also proves that it is up)."""
        listing = self.client.call_json("GET", f"{self.endpoint.path}/models")
        try:
            return str(listing["data"][0]["id"])
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(
                f"The LLM server at {self.endpoint.url} lists no model: {str(listing)[:120]}",
                "is llm.server_url an OpenAI-compatible endpoint with a model loaded?",
            ) from exc

    # -- generation ------------------------------------------------------------------------
    def generate(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Generation:
        run = _Run(on_token, cancel)
        path = f"{self.endpoint.path}/chat/completions"
        body = self._chat_body(messages, max_tokens)
        exchange = self.client.open("POST", path, body, self.client.timeout_s)
        with closing_on_cancel(exchange, cancel):
            try:
                run.consume(self._pieces(exchange.response))
            except TRANSPORT_ERRORS as exc:
                if not run.cancelled():
                    raise self.client.transport_error(exc) from exc
                run.stopped_by = "cancel"
        return run.result(self._prompt_estimate(messages))

    def _chat_body(self, messages: Sequence[ChatMessage], max_tokens: int) -> dict[str, Any]:
        return {
            "model": self.model_id,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "temperature": self.temperature,
            "repeat_penalty": 1.0,  # as the local engine; llama-cpp-python's server uses 1.1
            "seed": 0,
            "stream": True,
        }

    def _pieces(self, response: Response) -> Iterator[tuple[str, str | None]]:
        """(text piece, finish_reason) from a streamed chat completion, or from a whole one
        when the server ignored `stream`."""
        if "text/event-stream" not in (response.getheader("Content-Type") or ""):
            yield _choice_piece(self.client.parse_json(response.read(), "completion"), "message")
            return
        finished = False
        for data in sse_events(response):
            if data.strip() == "[DONE]":
                return
            piece, finish = _choice_piece(self.client.parse_json(data.encode(), "stream"), "delta")
            finished = finish is not None
            yield piece, finish
        if not finished:
            raise ConnectionAbortedError("the stream ended before the answer was complete")

    def _prompt_estimate(self, messages: Sequence[ChatMessage]) -> int:
        return sum(self.count_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in messages)

    # -- tokens ----------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        """Exact count from the server's tokenize endpoint when it has one, else an estimate
        (the local token counter, or 4 characters a token)."""
        if self._tokenizer is None:
            self._tokenizer = self._probe_tokenizer()
        if self._tokenizer:
            return max(len(self._tokenize(self._tokenizer, text)) - self._bos_tokens, 0)
        if self._counter is not None:
            return self._counter.count(text)
        return (len(text) + 3) // 4

    def _tokenize(self, path: str, text: str) -> list[int]:
        body = {"input": text, "content": text, "prompt": text}  # llama-cpp-python, llama.cpp, vLLM
        return list(self.client.call_json("POST", f"{self.endpoint.root}{path}", body)["tokens"])

    def _probe_tokenizer(self) -> str:
        """The first tokenize endpoint that works ('' if none); also measures the BOS tokens."""
        for path in TOKENIZE_PATHS:
            try:
                self._bos_tokens = len(self._tokenize(path, ""))
            except (LLMError, KeyError, TypeError):
                continue
            return path
        log.info("%s has no tokenize endpoint; token counts are estimates", self.endpoint.url)
        return ""

    def close(self) -> None:
        """Nothing is held between requests."""


class _Run:
    """One streaming generation: pieces to the callback, the repetition guard and timings."""

    def __init__(self, on_token: TokenCallback | None, cancel: CancelToken | None) -> None:
        self.on_token, self.cancel = on_token, cancel
        self.start = time.perf_counter()
        self.ttft_ms = 0.0
        self.count = 0
        self.stopped_by: StopReason = "stop"
        self.text: list[str] = []
        self._guard = RepetitionGuard()
        self._lines = LineLoopGuard()
        self._stops = StopText()

    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.cancelled

    def consume(self, pieces: Iterator[tuple[str, str | None]]) -> None:
        for piece, finish in pieces:
            if self.cancelled():
                self.stopped_by = "cancel"
                return
            if self._step(piece, finish):
                break
        else:
            if self.cancelled():
                self.stopped_by = "cancel"
        self._show(self._stops.flush())

    def _step(self, piece: str, finish: str | None) -> bool:
        if piece:
            self._emit(piece)
            if self._stops.stopped:
                return True
            if self._guard.add(hash(piece)) or self._lines.feed(piece):
                self.stopped_by = "repetition"
                return True
        if finish is not None:
            self.stopped_by = "length" if finish == "length" else "stop"
        return False

    def _emit(self, piece: str) -> None:
        if self.count == 0:
            self.ttft_ms = (time.perf_counter() - self.start) * 1000
        self.count += 1
        self._show(self._stops.feed(piece))

    def _show(self, text: str) -> None:
        if text:
            self.text.append(text)
            if self.on_token is not None:
                self.on_token(text)

    def result(self, prompt_tokens: int) -> Generation:
        total = (time.perf_counter() - self.start) * 1000
        ttft = self.ttft_ms or total
        decode_s = (total - ttft) / 1000
        rate = (self.count - 1) / decode_s if self.count > 1 and decode_s > 0 else 0.0
        text = "".join(self.text)
        return Generation(
            without_repeated_lines(text) if self.stopped_by == "repetition" else text,
            prompt_tokens, 0, self.count, ttft, total, self.stopped_by,
            {"decode_tokens_per_s": rate},
        )


def _choice_piece(payload: Any, key: str) -> tuple[str, str | None]:
    try:
        choice = payload["choices"][0] if payload["choices"] else {}
        content = (choice.get(key) or {}).get("content") or ""
    except (KeyError, TypeError, AttributeError) as exc:
        raise LLMError(
            f"The LLM server sent an unexpected answer: {str(payload)[:120]}",
            "is llm.server_url an OpenAI-compatible chat endpoint?",
        ) from exc
    return str(content), choice.get("finish_reason")


def load_server_engine(settings: Settings, counter: TokenCounter | None = None) -> ServerEngine:
    """The engine for `llm.backend = "server"`; `counter` estimates tokens when the server has
    no tokenize endpoint."""
    llm = settings.llm
    return ServerEngine(
        llm.server_url, llm.server_timeout_s, counter, llm.context_size, llm.temperature
    )
