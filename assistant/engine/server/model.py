"""The OpenAI-compatible chat engine: a model on a server, behind the same interface as the local
llama.cpp engine (:class:`~assistant.engine.chat.ChatModel`).

Any server that speaks ``/v1/chat/completions`` (streaming SSE) and ``/v1/models`` works:
llama-server, Ollama, LM Studio, vLLM, llama-cpp-python's ``llama_cpp.server``. Memory,
retrieval, embeddings and encryption stay on this machine; the server receives only what a chat
turn sends (system prompt, the person's note, the compaction summary, the history, the memories
retrieved for this turn) plus token-count requests.

- The first use checks the server (``GET /v1/models``): it must list the configured model (a
  server that silently answers with another model - llama_cpp.server does - is refused), or,
  with no model configured, the first one it lists.
- Tokens: see :mod:`assistant.engine.server.tokens` (server tokenizer, local one of the same
  family, or a measured chars/token estimate; :attr:`OpenAIChatModel.token_counting` says which).
  While a reply streams, counts come from the cache or the estimate: llama_cpp.server cuts a
  running stream short when another request arrives.
- Prefix reuse: requests ask for ``cache_prompt`` (llama-server; others ignore it). Evaluated
  prompt tokens come from the server when it reports them (``timings.prompt_n``,
  ``usage.prompt_tokens_details.cached_tokens``), else from
  :mod:`assistant.engine.server.prefix_ledger`'s prediction (``stats.evaluated_source`` says which).
- Stop: the ``cancel`` event closes the connection (:mod:`assistant.engine.server.client`).
- Limits the server cannot stretch: one reply takes at most ``reply_timeout`` seconds (default:
  ``read_timeout``, the ``engine_timeout`` setting) and may go ``read_timeout`` seconds without
  new text (keep-alives and empty pieces do not count); ``max_tokens`` is enforced here too (a
  server that ignores it is cut off after ``max_tokens`` pieces, or ``MAX_CHARS_PER_TOKEN`` x
  ``max_tokens`` characters, ``finish_reason`` "length"). A reply cut off by a deadline keeps
  what arrived (``Generation.text``) and raises a ``timeout`` EngineError.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from assistant.engine import control
from assistant.engine.chat import ChatMessage, Completions, Generation, GenerationStats, TokenCounting
from assistant.engine.errors import EngineError
from assistant.engine.server.client import DEFAULT_READ_TIMEOUT, Client, Deadline, Endpoint
from assistant.engine.server.prefix_ledger import PrefixLedger, Sent, total_tokens
from assistant.engine.server.tokens import CharEstimate, ServerTokenizer, choose_counter

ENGINE = "openai"
TOKEN_CACHE = 8192  # texts whose counts are kept (messages are counted again every turn)
MAX_CHARS_PER_TOKEN = 16  # a reply longer than max_tokens x this is over max_tokens whatever the tokenizer


@dataclass(frozen=True)
class ServerInfo:
    """What the first contact with a server found (``doctor``, settings, ``keepsake engine``)."""

    url: str
    models: tuple[str, ...]
    model: str
    latency_ms: float
    tokens: TokenCounting
    n_ctx: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"url": self.url, "models": list(self.models), "model": self.model, "latency_ms": self.latency_ms,
                "token_counting": self.tokens.to_json(), "server_context": self.n_ctx}  # fmt: skip


def model_name(model_id: str) -> str:
    """A model id for people: llama_cpp.server names a model by its file path."""
    return model_id.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or model_id


class OpenAIChatModel(Completions):
    """A chat model served over the OpenAI API. No network until first used."""

    engine = ENGINE

    def __init__(self, url: str, *, model: str | None = None, api_key: str | None = None, n_ctx: int = 4096,
                 read_timeout: float = DEFAULT_READ_TIMEOUT, ledger_dir: Path | None = None,
                 local_models: Callable[[], Iterable[tuple[str, Path]]] | None = None,
                 reply_timeout: float | None = None) -> None:  # fmt: skip
        self.endpoint = Endpoint.parse(url, api_key=api_key, read_timeout=read_timeout)
        self.reply_timeout = float(reply_timeout if reply_timeout is not None else read_timeout)
        self.url = self.endpoint.url
        self.requested_model = model or None
        self.n_ctx = n_ctx
        self.client = Client(self.endpoint, overall=self.reply_timeout)
        self._local_models = local_models or (lambda: ())
        self._ledger_dir = ledger_dir
        self._info: ServerInfo | None = None
        self._counter = None
        self._estimate = CharEstimate()
        self._ledger = PrefixLedger(None)
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()
        self._streams = 0
        self._fresh_cache = False  # after reset_cache: the next request must not reuse the server's cache
        self._json_style = "json_object"
        self.last_error: EngineError | None = None  # the last failed check (the UI says it at start-up)

    # -- identity --------------------------------------------------------------------------------
    @property
    def model_id(self) -> str:
        return self._info.model if self._info else (self.requested_model or "")

    @property
    def name(self) -> str:
        return model_name(self.model_id) if self.model_id else "server model"

    @property
    def loaded(self) -> bool:
        return self._info is not None

    def load(self) -> "OpenAIChatModel":
        """Nothing to load: the server is contacted on first use (so an unreachable server
        shows as a failed turn with Retry, not as a model that cannot load)."""
        return self

    @property
    def context_size(self) -> int:
        server = self._info.n_ctx if self._info else None
        return min(self.n_ctx, server) if server else self.n_ctx

    # -- the server ------------------------------------------------------------------------------
    def connect(self) -> ServerInfo:
        """Check the server once: its models (the configured one must be listed), latency, how
        tokens are counted, its context size when it says (llama-server's ``/props``)."""
        with self._lock:
            if self._info is None:
                try:
                    self._info, self._counter = self._probe()
                except EngineError as exc:
                    self.last_error = exc
                    raise
                self.last_error = None
                if isinstance(self._counter, CharEstimate):
                    self._estimate = self._counter  # one estimate, re-measured by every reply
                if self._ledger_dir is not None:
                    key = hashlib.sha256(f"{self.url}\x00{self._info.model}".encode()).hexdigest()[:16]
                    self._ledger = PrefixLedger(self._ledger_dir / f"prefix-{key}.json")
            return self._info

    def _probe(self):
        start = time.perf_counter()
        listing = self.client.get_json(self.endpoint.api("/models"))
        latency = round((time.perf_counter() - start) * 1000, 1)
        data = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(data, list):
            raise EngineError("bad_reply", self.url, f"the model server at {self.url} sent no model list at /models")
        ids = tuple(str(m["id"]) for m in data if isinstance(m, dict) and m.get("id"))
        if self.requested_model:
            if self.requested_model not in ids and f"{self.requested_model}:latest" in ids:
                self.requested_model = f"{self.requested_model}:latest"  # Ollama's default tag
            if self.requested_model not in ids:
                listed = ", ".join(model_name(i) for i in ids[:8]) or "none"
                raise EngineError("unknown_model", self.url,
                                  f"the model server at {self.url} has no model {self.requested_model!r} (it lists: {listed})")
            model = self.requested_model
        elif ids:
            model = ids[0]
        else:
            raise EngineError("unknown_model", self.url, f"the model server at {self.url} lists no models")
        counter = choose_counter(self.client, model, self._local_models)
        info = ServerInfo(self.url, ids, model, latency, counter.counting, self._server_context())
        return info, counter

    def _server_context(self) -> int | None:
        try:
            props = self.client.get_json(self.endpoint.root("/props"))
        except EngineError:
            return None  # not llama-server
        if not isinstance(props, dict):
            return None
        settings = props.get("default_generation_settings")
        n = (settings or {}).get("n_ctx") if isinstance(settings, dict) else None
        n = n or props.get("n_ctx")
        return int(n) if isinstance(n, int) and n > 0 else None

    def close(self) -> None:
        self.client.close()
        counter = self._counter
        if counter is not None and hasattr(counter, "close"):
            counter.close()

    # -- tokens ----------------------------------------------------------------------------------
    @property
    def token_counting(self) -> TokenCounting:
        counter = self._counter
        if counter is None:
            return TokenCounting("estimate", "not connected to the model server yet")
        return counter.counting

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:
            if text in self._counts:
                self._counts.move_to_end(text)
                return self._counts[text]
            streaming = self._streams > 0
        self.connect()
        counter = self._counter
        if isinstance(counter, CharEstimate):
            return counter(text)  # not cached: the ratio is re-measured as replies come
        if streaming and isinstance(counter, ServerTokenizer):
            return self._estimate(text)  # not cached: the exact count comes after the reply
        n = counter(text)
        with self._lock:
            self._counts[text] = n
            if len(self._counts) > TOKEN_CACHE:
                self._counts.popitem(last=False)
        return n

    def render(self, messages: Sequence[ChatMessage]) -> str:
        """A readable transcript (the chat template is the server's business)."""
        return "\n".join(f"{m.role}: {m.content}" for m in messages)

    def reset_cache(self) -> None:
        """After a delete: the next request asks the server not to reuse its prompt cache
        (llama-server's ``cache_prompt``), and the prediction starts from nothing."""
        self._fresh_cache = True
        self._ledger.clear()

    # -- generation ------------------------------------------------------------------------------
    def generate(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.7,
                 cancel: threading.Event | None = None, json_schema: dict | None = None,
                 seed: int | None = None) -> Generation:  # fmt: skip
        """Start a reply; the returned :class:`Generation` streams text pieces when iterated.
        Chat-template control strings in the contents are neutralised first: a server applies
        its template to the text and may tokenize it with special tokens on (llama_cpp.server
        does), so ``<|im_start|>system`` in a message would become a real turn there."""
        messages = [ChatMessage(m.role, control.neutralise(m.content)) for m in messages]
        info = self.connect()
        sent = [Sent.of(m.role, m.content, self.count_tokens(m.content)) for m in messages]
        body: dict = {
            "model": info.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": max_tokens,
            "temperature": temperature,
            "cache_prompt": not self._fresh_cache,
        }
        if seed is not None:
            body["seed"] = seed
        gen = Generation(pieces=iter(()))
        chars = sum(len(m.content) for m in messages)
        gen.pieces = self._stream(body, sent, chars, gen, cancel, json_schema, max_tokens)
        return gen

    def _response_format(self, schema: dict) -> dict:
        if self._json_style == "json_object":  # llama_cpp.server and llama-server: a grammar from the schema
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "keepsake", "schema": schema, "strict": True}}

    def _events(self, body: dict, cancel, json_schema, deadline: Deadline | None = None) -> Iterator[dict]:
        """The server's events; a JSON request the server rejects in one style is retried in
        the other (OpenAI, Ollama and vLLM want ``json_schema``)."""
        for attempt in (0, 1):
            if json_schema is not None:
                body["response_format"] = self._response_format(json_schema)
            started = False
            try:
                for event in self.client.stream(self.endpoint.api("/chat/completions"), body, cancel, deadline):
                    started = True
                    yield event
                return
            except EngineError as exc:
                if json_schema is None or started or attempt or exc.status not in (400, 422):
                    raise
                self._json_style = "json_schema" if self._json_style == "json_object" else "json_object"

    def _stream(self, body: dict, sent: list[Sent], chars: int, gen: Generation, cancel, json_schema,
                max_tokens: int = 512) -> Iterator[str]:  # fmt: skip
        stats = gen.stats
        stats.prompt_tokens = total_tokens(sent)
        predicted = stats.prompt_tokens if self._fresh_cache else self._ledger.predict(sent)
        start, first, pieces = time.perf_counter(), None, 0
        usage: dict = {}
        timings: dict = {}
        finish = None
        ok = False
        with self._lock:
            self._streams += 1
        deadline = Deadline(self.reply_timeout, self.endpoint.read_timeout)
        events = self._events(body, cancel, json_schema, deadline)
        limit, chars_out, over = max(1, int(max_tokens)), 0, False
        try:
            for event in events:
                usage = event.get("usage") or usage
                timings = event.get("timings") or timings
                for choice in event.get("choices") or []:
                    finish = choice.get("finish_reason") or finish
                    delta = choice.get("delta") or choice.get("message") or {}
                    piece = (delta.get("content") if isinstance(delta, dict) else None) or choice.get("text") or ""
                    if not isinstance(piece, str):
                        piece = ""
                    if piece and (pieces >= limit or chars_out >= limit * MAX_CHARS_PER_TOKEN):
                        over = True  # text past max_tokens: the server ignores it; stop reading (the connection closes)
                        break
                    piece = piece[: limit * MAX_CHARS_PER_TOKEN - chars_out]
                    if piece:
                        deadline.progress()
                        pieces += 1
                        chars_out += len(piece)
                        first = first or time.perf_counter()
                        yield piece
                if over:
                    finish = "length"
                    break
            ok = True
        finally:
            events.close()
            end = time.perf_counter()
            with self._lock:
                self._streams -= 1
            cancelled = cancel is not None and cancel.is_set()
            stats.finish_reason = "cancelled" if cancelled else "timeout" if deadline.expired else (finish or "stop")
            self._fill(stats, chars, usage, timings, predicted, pieces)
            stats.ttft_ms = round(((first or end) - start) * 1000, 2)
            stats.total_ms = round((end - start) * 1000, 2)
            gen_time = end - (first or start)
            stats.tokens_per_s = round(stats.generated_tokens / gen_time, 2) if gen_time > 0 else 0.0
            if ok or cancelled:
                self._fresh_cache = False
                self._ledger.record(sent, Sent.of("assistant", gen.text, self._reply_tokens(gen.text, pieces)))
            else:
                self._ledger.clear()  # what the server holds now is unknown

    def _fill(self, stats: GenerationStats, chars: int, usage: dict, timings: dict, predicted: int, pieces: int) -> None:
        """Server-reported counts win; else the estimate and the ledger's prediction. A reported
        prompt size also re-measures the chars/token estimate (``chars`` were sent)."""
        prompt = usage.get("prompt_tokens") if isinstance(usage.get("prompt_tokens"), int) else None
        if prompt is None and isinstance(timings.get("prompt_n"), int):
            prompt = timings["prompt_n"] + int(timings.get("cache_n") or 0)
        if prompt:
            stats.prompt_tokens = prompt
            self._estimate.measure(chars, prompt)
        details = usage.get("prompt_tokens_details") or {}
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        if isinstance(timings.get("prompt_n"), int):
            stats.prompt_tokens_evaluated, stats.evaluated_source = timings["prompt_n"], "server"
        elif isinstance(cached, int) and prompt:
            stats.prompt_tokens_evaluated, stats.evaluated_source = max(0, prompt - cached), "server"
        else:  # never more than the prompt (the server's size when it reports one)
            stats.prompt_tokens_evaluated, stats.evaluated_source = min(predicted, stats.prompt_tokens), "predicted"
        done = usage.get("completion_tokens") or timings.get("predicted_n")
        stats.generated_tokens = int(done) if isinstance(done, int) else pieces

    def _reply_tokens(self, text: str, pieces: int) -> int:
        try:
            return self.count_tokens(text) if text else 0
        except EngineError:
            return pieces
