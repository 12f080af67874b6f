"""Token counts for a model that runs on a server, best source first.

1. ``server``: the server's own tokenizer - llama_cpp.server's ``POST /extras/tokenize/count``
   (``{"input"}`` -> ``{"count"}``) or llama-server's ``POST /tokenize`` (``{"content"}`` ->
   ``{"tokens"}``). Exact.
2. ``local``: a GGUF on this machine of the same model family (``family("qwen2.5:7b") ==
   family("Qwen2.5-0.5B-Instruct-Q4_K_M.gguf") == "qwen2.5"``): sizes of one family share a
   tokenizer. Only its vocabulary is loaded.
3. ``estimate``: characters / ``chars_per_token``. Starts at :data:`DEFAULT_CHARS_PER_TOKEN`
   (low on purpose: English runs ~4 chars/token, so budgets over-count and stay safe) and is
   re-measured from every reply whose ``usage.prompt_tokens`` the server reports:
   ``chars_per_token = prompt chars / usage.prompt_tokens`` (all replies so far, summed).

Whichever is used is described by :class:`TokenCounting` (the budget bar and ``--json`` say it).
"""

from __future__ import annotations

import math
import re
import threading
from pathlib import Path
from typing import Callable, Iterable

from assistant.engine.chat import TokenCounting
from assistant.engine.embedder import quiet_llama_logs
from assistant.engine.errors import EngineError

DEFAULT_CHARS_PER_TOKEN = 3.0
_SIZE = re.compile(r"-(?=\d+(?:\.\d+)?[bm](?:\b|_|-|$))")
_CUT = re.compile(r"[:_\s/]|-instruct|-chat|-it\b|\.q\d|-q\d|-f16|-bf16")


def family(name: str) -> str:
    """The model family in a file name or server model id: lower case, without path, quant,
    size and tag. ``SmolLM2-135M-Instruct.Q4_1.gguf`` -> ``smollm2``; ``llama3.2:3b`` and
    ``Llama-3.2-1B-Instruct.gguf`` -> ``llama3.2``; ``""`` when nothing is left."""
    base = name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
    base = re.sub(r"\.gguf$", "", base)
    base = _SIZE.split(base, maxsplit=1)[0]
    base = _CUT.split(base, maxsplit=1)[0]
    return re.sub(r"[^a-z0-9.]", "", base).strip(".")


def same_family_gguf(model_id: str, candidates: Iterable[tuple[str, Path]]) -> Path | None:
    """The first local GGUF ``(name, path)`` whose family matches ``model_id``'s."""
    want = family(model_id)
    if not want:
        return None
    for name, path in candidates:
        if family(path.name) == want or family(name) == want:
            return path
    return None


class ServerTokenizer:
    """Counts with the server's tokenizer (``flavor``: ``extras`` or ``tokenize``)."""

    def __init__(self, client, flavor: str, model_id: str) -> None:
        self.client, self.flavor, self.model_id = client, flavor, model_id
        path = "/extras/tokenize/count" if flavor == "extras" else "/tokenize"
        self.counting = TokenCounting("server", f"the server's tokenizer ({path})")

    def __call__(self, text: str) -> int:
        e = self.client.endpoint
        if self.flavor == "extras":
            out = self.client.post_json(e.root("/extras/tokenize/count"), {"input": text, "model": self.model_id})
            count = out.get("count") if isinstance(out, dict) else None
        else:
            out = self.client.post_json(e.root("/tokenize"), {"content": text, "add_special": False})
            tokens = out.get("tokens") if isinstance(out, dict) else None
            count = len(tokens) if isinstance(tokens, list) else None
        if not isinstance(count, int):
            raise EngineError("bad_reply", e.url, f"the model server at {e.url} sent a tokenizer reply without a count")
        return count


class LocalTokenizer:
    """Counts with a local GGUF's tokenizer (vocabulary only, loaded on first use)."""

    def __init__(self, path: Path, model_id: str) -> None:
        self.path = path
        self._llm = None
        self._lock = threading.Lock()
        self.counting = TokenCounting("local", f"the local tokenizer of the same family ({path.name}) for {model_id}")

    def __call__(self, text: str) -> int:
        with self._lock:
            if self._llm is None:
                from llama_cpp import Llama  # deferred: llama.cpp

                quiet_llama_logs()
                self._llm = Llama(model_path=str(self.path), vocab_only=True, verbose=False)
            return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))


class CharEstimate:
    """``ceil(len(text) / chars_per_token)``; :meth:`measure` refines the ratio from the
    server's reported prompt sizes."""

    def __init__(self, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN) -> None:
        self.chars_per_token = chars_per_token
        self._chars = 0
        self._tokens = 0
        self._lock = threading.Lock()

    def __call__(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token) if text else 0

    def measure(self, chars: int, tokens: int) -> None:
        """A reply reported ``tokens`` prompt tokens for ``chars`` characters sent."""
        if chars <= 0 or tokens <= 0:
            return
        with self._lock:
            self._chars += chars
            self._tokens += tokens
            self.chars_per_token = max(1.0, self._chars / self._tokens)

    @property
    def measured(self) -> bool:
        return self._tokens > 0

    @property
    def counting(self) -> TokenCounting:
        how = "measured from the server's reported usage" if self.measured else "a cautious default until the server reports usage"
        return TokenCounting("estimate", f"an estimate of {self.chars_per_token:.1f} characters per token ({how})")


def probe_server_tokenizer(client, model_id: str) -> ServerTokenizer | None:
    """The server's tokenizer when it has one: llama_cpp.server's, then llama-server's. A
    server without either (Ollama, vLLM, LM Studio) gives None; an unreachable server raises."""
    for flavor in ("extras", "tokenize"):
        counter = ServerTokenizer(client, flavor, model_id)
        try:
            counter("Keepsake")
            return counter
        except EngineError as exc:
            if exc.kind in ("unreachable", "timeout", "auth"):
                raise
    return None


def choose_counter(client, model_id: str, local_models: Callable[[], Iterable[tuple[str, Path]]]):
    """Server tokenizer, else the local one of the same family, else :class:`CharEstimate`."""
    counter = probe_server_tokenizer(client, model_id)
    if counter is not None:
        return counter
    try:
        path = same_family_gguf(model_id, local_models())
    except Exception:  # noqa: BLE001 - model discovery is best effort here
        path = None
    return LocalTokenizer(path, model_id) if path is not None else CharEstimate()
