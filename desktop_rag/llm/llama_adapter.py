"""A local GGUF chat model as a `ChatEngine`, through llama_cpp (loaded by llama_loading).

Besides `generate`, the engine exposes what the CAG core cache needs: rendering with the GGUF's
own chat template, exact tokenization, and saving/restoring the KV state with llama.cpp's state
*file* functions (never a pickled `LlamaState`, which carries the whole logits buffer).
A `LlamaEngine` is not thread-safe; `desktop_rag.llm.worker` gives it one owning thread.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from desktop_rag.domain.errors import CancelledError, LLMError
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import (
    ChatMessage,
    Generation,
    PrefillCallback,
    TokenCallback,
)
from desktop_rag.llm.llama_loading import (
    EngineOptions,
    ModelLoad,
    chat_formatter,
    chat_template,
    gpu_offload_supported,
    library_version,
    llama_cpp_module,
    load_model,
)
from desktop_rag.llm.streaming import StreamingRun

log = logging.getLogger(__name__)
__all__ = ["EngineOptions", "LlamaEngine", "gpu_offload_supported", "library_version"]


EVAL_STEP = 128  # prompt tokens per step (as fast as 512 on a CPU); light calls run in between
_ABORT_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p)


class _AbortHook:
    """llama.cpp's abort callback: stops a running decode (prefill) when the token is cancelled."""

    def __init__(self, ctx: Any) -> None:
        lib = llama_cpp_module()
        self.cancel: CancelToken | None = None
        self._callback = _ABORT_CALLBACK(self._should_abort)  # keep a reference
        setter = lib.llama_cpp._lib.llama_set_abort_callback
        setter.argtypes = [ctypes.c_void_p, _ABORT_CALLBACK, ctypes.c_void_p]
        setter.restype = None
        setter(ctx, self._callback, None)

    def _should_abort(self, _data: object) -> bool:
        return self.cancel is not None and self.cancel.cancelled

    @contextlib.contextmanager
    def watching(self, cancel: CancelToken | None) -> Iterator[None]:
        self.cancel = cancel
        try:
            yield
        finally:
            self.cancel = None


class LlamaEngine:
    """A llama.cpp chat model; greedy by default. One thread must own each instance."""

    def __init__(self, options: EngineOptions, loading: ModelLoad | None = None) -> None:
        """`loading`: the model file's load for `options`, begun earlier (`begin_load`)."""
        if not options.model_path.is_file():
            raise LLMError(
                f"Chat model {options.model_path} does not exist", "check models.chat_model"
            )
        self.options = options
        self.name = options.model_path.name
        self.gpu_offload = options.gpu_layers != 0 and gpu_offload_supported()
        self.context_size = options.context_size
        self._llm = loading.result() if loading is not None else load_model(options)
        self._vocab = self._llm._model.vocab
        self._abort = _AbortHook(self._llm.ctx)
        self._template = chat_template(self._llm)
        self.template_hash = hashlib.sha256(self._template.encode()).hexdigest()[:16]
        self._formatter = chat_formatter(self._llm, self._template)
        # Called between steps of a long prompt evaluation (the compute thread's light calls).
        self.between_steps: Callable[[], object] | None = None

    # -- text and tokens -------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def render(self, messages: Sequence[ChatMessage]) -> str:
        """The prompt text of `messages` in the model's own chat template (generation prompt on)."""
        dicts = [{"role": m.role, "content": m.content} for m in messages]
        return str(self._formatter(messages=dicts).prompt)

    def tokenize_prompt(self, text: str) -> list[int]:
        """Tokens of rendered prompt text (template markers become special tokens)."""
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    # -- generation ------------------------------------------------------------------------
    def generate(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Generation:
        tokens = self.tokenize_prompt(self.render(messages))
        return self.generate_tokens(tokens, max_tokens, on_token, cancel)

    def generate_tokens(
        self,
        tokens: Sequence[int],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
        fresh: bool = False,
        on_prefill: PrefillCallback | None = None,
    ) -> Generation:
        """Generates after `tokens`, reusing the longest prefix already in the KV cache
        (unless `fresh`). `on_prefill` hears how much of the prompt is evaluated."""
        if fresh:
            self._llm.reset()
        return self._generate(tokens, max_tokens, on_token, cancel, on_prefill)

    def _generate(
        self,
        tokens: Sequence[int],
        max_tokens: int,
        on_token: TokenCallback | None,
        cancel: CancelToken | None,
        on_prefill: PrefillCallback | None = None,
    ) -> Generation:
        max_tokens = self._fit(len(tokens), max_tokens)
        run = StreamingRun(self, len(tokens), self.reusable_prefix(tokens), on_token, cancel)
        with self._abort.watching(cancel):
            try:
                if self.between_steps is not None or on_prefill is not None:
                    self._eval_in_steps(tokens[:-1], cancel, on_prefill)  # generate() does the last
                run.consume(self._tokens_after(tokens), max_tokens)
            except CancelledError:  # Stop between two steps of the prompt: the cache is intact
                run.stopped_by = "cancel"
            except RuntimeError as exc:
                self._after_failed_decode()
                if cancel is None or not cancel.cancelled:
                    raise LLMError(f"The model failed to generate: {exc}") from exc
                run.stopped_by = "cancel"
        return run.result()

    def _eval_in_steps(
        self,
        tokens: Sequence[int],
        cancel: CancelToken | None = None,
        on_prefill: PrefillCallback | None = None,
    ) -> None:
        """Evaluates `tokens` after the prefix already in the KV cache, EVAL_STEP at a time.
        Between steps the light calls run, progress is reported and a Stop raises
        CancelledError (the abort hook only cuts a step short, which costs the cache's tail)."""
        keep = self.reusable_prefix([*tokens, -1])
        self._llm.n_tokens = keep
        report = on_prefill or _ignore_progress
        report(0, len(tokens) - keep)
        for start in range(keep, len(tokens), EVAL_STEP):
            if cancel is not None:
                cancel.raise_if_cancelled()
            end = min(start + EVAL_STEP, len(tokens))
            self._llm.eval(list(tokens[start:end]))
            report(end - keep, len(tokens) - keep)
            if self.between_steps is not None:
                self.between_steps()

    def _tokens_after(self, tokens: Sequence[int]) -> Iterator[int]:
        temp = self.options.temperature
        return self._llm.generate(  # type: ignore[no-any-return]
            list(tokens),
            temp=temp,
            top_k=40 if temp > 0 else 1,
            top_p=0.95,
            min_p=0.05,
            repeat_penalty=1.0,
            reset=True,
        )

    def _fit(self, prompt_tokens: int, max_tokens: int) -> int:
        room = self.context_size - prompt_tokens
        if room < 1:
            raise LLMError(
                f"The prompt has {prompt_tokens} tokens; the context holds {self.context_size}",
                "ask a shorter question, lower retrieval.context_tokens or raise llm.context_size",
            )
        return min(max_tokens, room)

    def reusable_prefix(self, tokens: Sequence[int]) -> int:
        """How many leading `tokens` are already evaluated in the KV cache."""
        current = self._llm.input_ids[: self._llm.n_tokens].tolist()
        same = 0
        for a, b in zip(current, tokens, strict=False):
            if a != b:
                break
            same += 1
        return min(same, max(len(tokens) - 1, 0))

    def _after_failed_decode(self) -> None:
        self._llm._ctx.kv_cache_seq_rm(-1, self._llm.n_tokens, -1)
        self._llm._requires_eval = True

    def next_token_logits(self, tokens: Sequence[int], candidates: Sequence[int]) -> list[float]:
        """Logits of `candidates` as the token after `tokens` (reusing the cached prefix)."""
        self._fit(len(tokens), 1)
        keep = self.reusable_prefix(tokens)
        self._llm.n_tokens = keep
        self._llm.eval(list(tokens[keep:]))
        logits = llama_cpp_module().llama_get_logits_ith(self._llm.ctx, -1)
        return [float(logits[t]) for t in candidates]

    def is_end(self, token: int) -> bool:
        return bool(llama_cpp_module().llama_vocab_is_eog(self._vocab, token))

    def piece(self, token: int) -> bytes:
        return bytes(self._llm.detokenize([token]))

    # -- KV state files --------------------------------------------------------------------
    def prefill(self, tokens: Sequence[int], cancel: CancelToken | None = None) -> None:
        """Evaluates `tokens` from an empty KV cache."""
        self._fit(len(tokens), 1)
        self._llm.reset()
        with self._abort.watching(cancel):
            try:
                self._eval_in_steps(tokens, cancel)
            except RuntimeError as exc:
                self._llm.reset()
                if cancel is not None and cancel.cancelled:
                    cancel.raise_if_cancelled()
                raise LLMError(f"The model failed to evaluate the prompt: {exc}") from exc

    def save_state(self, path: Path) -> None:
        """Writes the KV cache and its tokens with llama_state_save_file."""
        lib = llama_cpp_module()
        n = int(self._llm.n_tokens)
        tokens = (lib.llama_token * n)(*self._llm.input_ids[:n].tolist())
        if not lib.llama_state_save_file(self._llm.ctx, str(path).encode(), tokens, n):
            raise LLMError(f"Could not save the model state to {path}", "check free disk space")

    def load_state(self, path: Path, expected: Sequence[int]) -> bool:
        """Restores a state file; False (and an empty cache) unless it holds exactly `expected`."""
        lib = llama_cpp_module()
        capacity = max(len(expected), 1)
        tokens = (lib.llama_token * capacity)()
        count = ctypes.c_size_t(0)
        self._llm.reset()
        ok = lib.llama_state_load_file(
            self._llm.ctx, str(path).encode(), tokens, capacity, ctypes.byref(count)
        )
        if not ok or list(tokens[: count.value]) != list(expected):
            self._llm.reset()
            self._llm._ctx.kv_cache_clear()
            return False
        self._llm.input_ids[: count.value] = tokens[: count.value]
        self._llm.n_tokens = count.value
        self._llm._requires_eval = True
        return True

    def identity(self) -> dict[str, object]:
        """What the KV state depends on besides the prompt (for the core cache key)."""
        return {
            "model": self.name,
            "model_size": self.options.model_path.stat().st_size,
            "context_size": self.context_size,
            "kv_type": self.options.kv_type,
            "gpu_layers": self.options.gpu_layers if self.gpu_offload else 0,
            "template": self.template_hash,
        }

    def close(self) -> None:
        self._llm.close()


def _ignore_progress(_done: int, _total: int) -> None:
    """The prefill callback of a caller that does not ask for progress."""
