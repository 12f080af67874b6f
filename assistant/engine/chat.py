"""Chat model: a protocol and its llama.cpp implementation.

The prompt is rendered with the chat template stored in the GGUF metadata
(``tokenizer.chat_template``; ChatML when absent). llama-cpp-python reuses the longest common
token prefix with the previous call, so an append-only conversation only evaluates new tokens;
:class:`GenerationStats.prompt_tokens_evaluated` reads llama.cpp's own counter (``n_p_eval``) to
prove it.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Protocol, Sequence

from assistant.engine import control, gguf_check
from assistant.engine.embedder import quiet_llama_logs
from assistant.engine.threads import reply_threads
from assistant.engine.errors import ModelError
from assistant.engine.names import display_name

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
#: Sampling penalties over the last 64 *generated* tokens (llama.cpp's sampler sees only what it
#: generated, never the prompt, so copying a memory from the prompt is not penalised). Measured
#: with ``keepsake bench answers``: see the README table.
REPEAT_PENALTY = 1.0
PRESENCE_PENALTY = 0.0
_MARK = "\ue000{}\ue001"  # private-use characters: where message i's content goes in the template
_MARK_RE = re.compile("\ue000(\\d+)\ue001")


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass
class GenerationStats:
    prompt_tokens: int = 0
    prompt_tokens_evaluated: int = 0
    generated_tokens: int = 0
    ttft_ms: float = 0.0
    total_ms: float = 0.0
    tokens_per_s: float = 0.0
    threads: int = 0  # llama.cpp threads of this reply (assistant.engine.threads); 0: not llama.cpp
    finish_reason: str = "stop"  # "stop" | "length" | "cancelled"
    #: where prompt_tokens_evaluated comes from: "model" (llama.cpp's own counter), "server"
    #: (the model server reported it) or "predicted" (see assistant.engine.server.prefix_ledger)
    evaluated_source: str = "model"


@dataclass
class Generation:
    """An in-progress reply: iterate for text pieces; ``text`` and ``stats`` fill in as it runs."""

    pieces: Iterator[str]
    stats: GenerationStats = field(default_factory=GenerationStats)
    text: str = ""

    def __iter__(self) -> Iterator[str]:
        for piece in self.pieces:
            self.text += piece
            yield piece

    def consume(self) -> str:
        for _ in self:
            pass
        return self.text


class ChatModel(Protocol):
    """What a chat session needs from an engine: :class:`LlamaChatModel` (llama.cpp, here) or
    :class:`assistant.engine.server.model.OpenAIChatModel` (an OpenAI-compatible server)."""

    name: str
    engine: str  # "llama.cpp" | "openai"

    def generate(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.7,
        cancel: threading.Event | None = None,
        json_schema: dict | None = None,
    ) -> Generation: ...

    def count_tokens(self, text: str) -> int: ...

    def render(self, messages: Sequence[ChatMessage]) -> str: ...


@dataclass(frozen=True)
class TokenCounting:
    """How the engine counts tokens: ``method`` is ``model`` (the loaded GGUF), ``server``,
    ``local`` or ``estimate``; ``detail`` says with what, for people."""

    method: str
    detail: str

    @property
    def exact(self) -> bool:
        return self.method in ("model", "server", "local")

    def to_json(self) -> dict[str, object]:
        return {"method": self.method, "detail": self.detail, "exact": self.exact}


class Completions:
    """``complete`` and ``complete_json`` on top of a ChatModel's ``generate`` (shared by the
    engines)."""

    def complete(self, messages: Sequence[ChatMessage], **kw) -> tuple[str, GenerationStats]:
        gen = self.generate(messages, **kw)
        return gen.consume(), gen.stats

    def complete_json(self, messages: Sequence[ChatMessage], schema: dict, *, max_tokens: int = 256) -> object:
        """Generate JSON constrained by ``schema`` and parse it. Raises ``ValueError`` when the
        output is not valid JSON."""
        text, _ = self.complete(messages, max_tokens=max_tokens, temperature=0.0, json_schema=schema)
        return json.loads(text)


class LlamaChatModel(Completions):
    """A GGUF chat model run by llama.cpp. Loads lazily on first use (call :meth:`load` from a
    worker thread to keep a UI responsive). One generation at a time per model. JSON output
    (``json_schema``) uses a grammar built directly, so a bad schema fails loudly."""

    engine = "llama.cpp"

    def __init__(self, path: Path | str, *, n_ctx: int = 4096, n_threads: int | None = None,
                 repeat_penalty: float = REPEAT_PENALTY, presence_penalty: float = PRESENCE_PENALTY) -> None:  # fmt: skip
        self.path = Path(path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.repeat_penalty = repeat_penalty
        self.presence_penalty = presence_penalty
        self.info = gguf_check.check_role(gguf_check.inspect(self.path), "chat")
        self.name = display_name(self.path)
        self._llm = None
        self._formatter = None
        self._bos_text = ""
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()

    # -- loading -----------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._llm is not None

    def load(self):
        with self._load_lock:
            if self._llm is None:
                from llama_cpp import Llama  # deferred: llama.cpp
                from llama_cpp.llama_chat_format import Jinja2ChatFormatter

                quiet_llama_logs()

                try:
                    llm = Llama(
                        model_path=str(self.path),
                        n_ctx=self.n_ctx,
                        n_threads=self.n_threads,
                        n_threads_batch=self.n_threads,
                        verbose=False,
                    )
                except (ValueError, RuntimeError) as exc:
                    raise ModelError(self.path, f"llama.cpp could not load it ({exc})") from None
                template = llm.metadata.get("tokenizer.chat_template") or CHATML
                eos = llm.detokenize([llm.token_eos()], special=True).decode("utf-8", "ignore")
                bos = llm.detokenize([llm.token_bos()], special=True).decode("utf-8", "ignore")
                self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
                self._bos_text = bos
                self._llm = llm
        return self._llm

    def close(self) -> None:
        """Free the llama.cpp model and context now (waits for a running generation; the next
        use reloads). Freeing at interpreter exit instead can run llama.cpp's log callback
        while Python is half torn down."""
        with self._load_lock, self._run_lock:
            llm, self._llm = self._llm, None
            if llm is not None:
                llm.close()

    @property
    def context_size(self) -> int:
        return self.n_ctx

    # -- tokens ------------------------------------------------------------------------------
    def tokenize(self, text: str) -> list[int]:
        """Tokens of ``text`` as plain text: a control string in it (``<|im_end|>``) is text,
        never a control token."""
        return self.load().tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text))

    @property
    def token_counting(self) -> TokenCounting:
        return TokenCounting("model", f"the model's own tokenizer ({self.path.name})")

    def render(self, messages: Sequence[ChatMessage]) -> str:
        self.load()
        return self._formatter(messages=[{"role": m.role, "content": m.content} for m in messages]).prompt

    def prompt_tokens(self, messages: Sequence[ChatMessage]) -> list[int]:
        """The prompt's tokens: the template's own text (role markers, BOS) tokenized with
        ``special=True``, every message content with ``special=False``, so text from people,
        imports and memories can never open or close a turn. The template is rendered once with
        placeholder contents to find where each content goes; a template that rewrites contents
        in a way other than trimming falls back to the whole prompt with control strings
        neutralised in the contents (:func:`assistant.engine.control.neutralise`)."""
        llm = self.load()
        prompt = self.render(messages)
        add_bos = not (self._bos_text and prompt.startswith(self._bos_text))
        marked = self._formatter(messages=[{"role": m.role, "content": _MARK.format(i)} for i, m in enumerate(messages)]).prompt
        parts = _MARK_RE.split(marked)  # template, index, template, index, ..., template
        contents = [m.content for m in messages]
        for shape in (_same, str.strip):
            if "".join(p if k % 2 == 0 else shape(contents[int(p)]) for k, p in enumerate(parts)) == prompt:
                break
        else:
            safe = self.render([ChatMessage(m.role, control.neutralise(m.content)) for m in messages])
            return llm.tokenize(safe.encode("utf-8"), add_bos=add_bos, special=True)
        tokens = llm.tokenize(parts[0].encode("utf-8"), add_bos=add_bos, special=True)
        for k in range(1, len(parts), 2):
            content = shape(contents[int(parts[k])])
            tokens += llm.tokenize(content.encode("utf-8"), add_bos=False, special=False) if content else []
            if parts[k + 1]:
                tokens += llm.tokenize(parts[k + 1].encode("utf-8"), add_bos=False, special=True)
        return tokens

    def _stop(self, messages: Sequence[ChatMessage]) -> list[str]:
        result = self._formatter(messages=[{"role": m.role, "content": m.content} for m in messages])
        stop = result.stop
        return [stop] if isinstance(stop, str) else list(stop or [])

    # -- generation --------------------------------------------------------------------------
    def generate(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.7,
        cancel: threading.Event | None = None,
        json_schema: dict | None = None,
        seed: int | None = None,
    ) -> Generation:
        """Start a reply. The returned :class:`Generation` streams text pieces when iterated."""
        llm = self.load()
        prompt_tokens = self.prompt_tokens(messages)
        gen = Generation(pieces=iter(()))
        gen.pieces = self._stream(llm, prompt_tokens, self._stop(messages), gen.stats, max_tokens, temperature, cancel,
                                  json_schema, seed)  # fmt: skip
        return gen

    def _stream(self, llm, prompt_tokens, stop, stats, max_tokens, temperature, cancel, json_schema, seed):
        import llama_cpp  # deferred: llama.cpp

        grammar = None
        if json_schema is not None:
            grammar = llama_cpp.LlamaGrammar.from_json_schema(json.dumps(json_schema), verbose=False)
        with self._run_lock:
            stats.prompt_tokens = len(prompt_tokens)
            budget = self.n_ctx - len(prompt_tokens)
            if budget <= 0:
                raise ModelError(self.path, f"prompt of {len(prompt_tokens)} tokens does not fit the {self.n_ctx}-token context")
            ctx = llm._ctx.ctx
            n_threads = reply_threads(self.n_threads)  # no more than other programs leave free
            llama_cpp.llama_set_n_threads(ctx, n_threads, n_threads)
            stats.threads = n_threads
            llama_cpp.llama_perf_context_reset(ctx)
            start = time.perf_counter()
            first = None
            n = 0
            try:
                stream = llm.create_completion(
                    prompt_tokens,
                    max_tokens=min(max_tokens, budget),
                    temperature=temperature,
                    stop=stop,
                    stream=True,
                    repeat_penalty=self.repeat_penalty if grammar is None else 1.0,
                    presence_penalty=self.presence_penalty if grammar is None else 0.0,
                    grammar=grammar,
                    seed=seed,
                )
                for chunk in stream:
                    if cancel is not None and cancel.is_set():
                        stats.finish_reason = "cancelled"
                        stream.close()
                        break
                    choice = chunk["choices"][0]
                    piece = choice.get("text") or ""
                    n += 1
                    if first is None:
                        first = time.perf_counter()
                    if choice.get("finish_reason"):
                        stats.finish_reason = choice["finish_reason"]
                    if piece:
                        yield piece
            finally:
                end = time.perf_counter()
                perf = llama_cpp.llama_perf_context(ctx)
                stats.prompt_tokens_evaluated = int(perf.n_p_eval)
                stats.generated_tokens = int(perf.n_eval) if perf.n_eval else n
                stats.ttft_ms = round(((first or end) - start) * 1000, 2)
                stats.total_ms = round((end - start) * 1000, 2)
                gen_time = end - (first or start)
                stats.tokens_per_s = round(stats.generated_tokens / gen_time, 2) if gen_time > 0 else 0.0

    def reset_cache(self) -> None:
        """Forget the KV/prompt cache (after a delete, no deleted text may stay in it). The next
        call evaluates its whole prompt again."""
        with self._run_lock:
            if self._llm is not None:
                self._llm.reset()
                self._llm._ctx.kv_cache_clear()
