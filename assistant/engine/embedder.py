"""Text embeddings through llama.cpp.

:class:`Embedder` is the interface the memory layer depends on; :class:`LlamaEmbedder` is the
llama.cpp implementation. It owns its own ``llama_cpp.Llama`` (``embed()`` clears the KV cache,
so it must never share one with the chat model), loads it on first use, and returns
L2-normalised vectors exactly as sentence-transformers does (``normalize_embeddings=True``).

BERT-type models must see the whole input in one ubatch, so inputs are truncated to the model's
limit (512 tokens for MiniLM: ``[CLS]`` + 510 + ``[SEP]``), keeping the closing separator.
Several short texts are packed into one llama.cpp batch, one sequence id each.
"""

from __future__ import annotations

import collections
import ctypes
import logging
import math
import threading
from pathlib import Path
from typing import Any, Protocol

from assistant.engine.errors import ModelError
from assistant.engine.names import display_name

log = logging.getLogger(__name__)

CONTEXT_TOKENS = 512  # n_ctx / n_batch / n_ubatch: one BERT input always fits one ubatch
# Sequences encoded together in one llama_decode. Every token attends over the whole batch (masked),
# so big groups cost more per text: MiniLM, 1 thread, short messages, measured on a loaded 2-core
# machine: 1 a call 15-20 ms/text, 8 a call 14-18, 64 a call 24-38.
GROUP_SEQS = 8
GGUF_MAGIC = b"GGUF"

# llama.cpp's enum llama_pooling_type; "model" keeps what the GGUF declares.
POOLING_TYPES = {"model": -1, "none": 0, "mean": 1, "cls": 2, "last": 3}


class Embedder(Protocol):
    """Turns text into unit-length vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit vector per text, in order."""
        ...

    def embed_one(self, text: str) -> list[float]: ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for ``text`` (special tokens included, before truncation)."""
        ...


class LlamaEmbedder:
    """An :class:`Embedder` backed by a GGUF embedding model run by llama.cpp.

    Thread-safe: one lock serialises loading and inference (a llama.cpp context is not
    re-entrant). A missing or broken file raises :class:`ModelError` naming it, on first use.
    """

    def __init__(
        self,
        path: Path | str,
        n_threads: int | None = None,
        *,
        name: str | None = None,
        pooling: str = "mean",
    ) -> None:
        if pooling not in POOLING_TYPES:
            raise ValueError(f"pooling must be one of {sorted(POOLING_TYPES)}, not {pooling!r}")
        self.path = Path(path)
        self.n_threads = n_threads
        self._name = name or display_name(self.path)
        self._pooling = POOLING_TYPES[pooling]
        self._lock = threading.Lock()
        self._llm: Any = None  # llama_cpp.Llama once loaded
        self._batch: Any = None  # llama_cpp.llama_batch we fill ourselves
        self._dim = 0
        self._max_tokens = 0
        self._max_seqs = 1
        self._trailing: frozenset[int] = frozenset()

    # -- Embedder -----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        """Vector dimension (loads the model if needed)."""
        with self._lock:
            self._ensure_loaded()
            return self._dim

    @property
    def identity(self):
        """The model file's :class:`~assistant.engine.embedder_id.EmbedderIdentity` (no model
        load: header + fingerprint, cached)."""
        from assistant.engine import embedder_id

        return embedder_id.identify(self.path)

    @property
    def max_tokens(self) -> int:
        """Longest input, in tokens with specials, before truncation kicks in."""
        with self._lock:
            self._ensure_loaded()
            return self._max_tokens

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:
            llm = self._ensure_loaded()
            sequences = [self._truncate(self._tokenize(llm, t)) for t in texts]
            vectors: list[list[float]] = []
            for group in self._pack(sequences):
                vectors.extend(self._encode(group))
            return vectors

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def count_tokens(self, text: str) -> int:
        with self._lock:
            return len(self._tokenize(self._ensure_loaded(), text))

    # -- lifecycle ----------------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    def close(self) -> None:
        """Free the llama.cpp model and context (the next use reloads them)."""
        with self._lock:
            self._release()

    def _ensure_loaded(self) -> Any:
        if self._llm is None:
            self._load()
        return self._llm

    def _load(self) -> None:
        _check_gguf_file(self.path)
        quiet_llama_logs()
        import llama_cpp  # deferred: llama.cpp

        errors_before = _error_mark()
        try:
            llm = llama_cpp.Llama(
                model_path=str(self.path),
                embedding=True,
                n_ctx=CONTEXT_TOKENS,
                n_batch=CONTEXT_TOKENS,
                n_ubatch=CONTEXT_TOKENS,
                pooling_type=self._pooling,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            detail = _last_error_since(errors_before) or str(exc)
            raise ModelError(self.path, f"llama.cpp could not load it ({detail})") from exc
        try:
            ctx = llm.ctx
            dim = int(llama_cpp.llama_model_n_embd(llm.model))
            if dim <= 0:
                raise ModelError(self.path, "the model declares no embedding size")
            vocab = llama_cpp.llama_model_get_vocab(llm.model)
            n_train = int(llama_cpp.llama_model_n_ctx_train(llm.model))
            self._max_tokens = min(n_train if n_train > 0 else CONTEXT_TOKENS,
                                   int(llama_cpp.llama_n_ubatch(ctx)),
                                   int(llama_cpp.llama_n_ctx(ctx)))
            self._max_seqs = max(1, int(llama_cpp.llama_n_seq_max(ctx)))
            self._trailing = frozenset(
                t for t in (llama_cpp.llama_vocab_sep(vocab), llama_cpp.llama_vocab_eos(vocab)) if t >= 0
            )
            self._batch = llama_cpp.llama_batch_init(self._max_tokens, 0, 1)
        except BaseException:
            llm.close()
            raise
        self._llm = llm
        self._dim = dim
        log.info("loaded embedder %s (dim %d, max %d tokens)", self.path.name, dim, self._max_tokens)

    def _release(self) -> None:
        if self._batch is None and self._llm is None:
            return
        import llama_cpp  # deferred: llama.cpp

        if self._batch is not None:
            llama_cpp.llama_batch_free(self._batch)
            self._batch = None
        if self._llm is not None:
            self._llm.close()
            self._llm = None

    def __del__(self) -> None:  # best effort; close() is the real API
        try:
            self._release()
        except Exception:
            pass

    # -- inference ----------------------------------------------------------------------------

    @staticmethod
    def _tokenize(llm: Any, text: str) -> list[int]:
        return llm.tokenize(text.encode("utf-8", errors="replace"), add_bos=True, special=False)

    def _truncate(self, tokens: list[int]) -> list[int]:
        """Cut to the model's limit, keeping the closing [SEP]/EOS if the model adds one."""
        limit = self._max_tokens
        if len(tokens) <= limit:
            return tokens
        if tokens[-1] in self._trailing:
            return tokens[: limit - 1] + tokens[-1:]
        return tokens[:limit]

    def _pack(self, sequences: list[list[int]]) -> list[list[list[int]]]:
        """Group sequences so each group fits one batch (token and sequence-count limits)."""
        groups: list[list[list[int]]] = []
        current: list[list[int]] = []
        used = 0
        for seq in sequences:
            if current and (used + len(seq) > self._max_tokens or len(current) >= min(self._max_seqs, GROUP_SEQS)):
                groups.append(current)
                current, used = [], 0
            current.append(seq)
            used += len(seq)
        if current:
            groups.append(current)
        return groups

    def _encode(self, group: list[list[int]]) -> list[list[float]]:
        import llama_cpp  # deferred: llama.cpp

        ctx = self._llm.ctx
        batch = self._batch
        n = 0
        for seq_id, tokens in enumerate(group):
            for pos, token in enumerate(tokens):
                batch.token[n] = token
                batch.pos[n] = pos
                batch.n_seq_id[n] = 1
                batch.seq_id[n][0] = seq_id
                batch.logits[n] = True
                n += 1
        batch.n_tokens = n

        memory = llama_cpp.llama_get_memory(ctx)
        if memory:  # encoder-only models have none; decoder-based embedders do
            llama_cpp.llama_memory_clear(memory, True)
        errors_before = _error_mark()
        rc = llama_cpp.llama_decode(ctx, batch)
        if rc != 0:
            detail = _last_error_since(errors_before)
            raise RuntimeError(f"llama.cpp failed to embed with {self.path.name} (code {rc}) {detail}".strip())

        vectors = []
        for seq_id in range(len(group)):
            ptr = llama_cpp.llama_get_embeddings_seq(ctx, seq_id)
            if not ptr:
                raise RuntimeError(f"{self.path.name}: llama.cpp returned no pooled embedding")
            vectors.append(_normalize(ptr[: self._dim]))
        return vectors


def _normalize(values: list[float]) -> list[float]:
    """L2-normalise like torch.nn.functional.normalize (eps 1e-12)."""
    norm = math.sqrt(math.fsum(v * v for v in values))
    scale = 1.0 / max(norm, 1e-12)
    return [v * scale for v in values]


def _check_gguf_file(path: Path) -> None:
    """Fail with a clear :class:`ModelError` before handing a bad file to llama.cpp."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
    except FileNotFoundError:
        raise ModelError(path, "file not found") from None
    except IsADirectoryError:
        raise ModelError(path, "is a directory, not a GGUF file") from None
    except OSError as exc:
        raise ModelError(path, f"cannot be read: {exc.strerror or exc}") from exc
    if magic != GGUF_MAGIC:
        raise ModelError(path, f"not a GGUF file (starts with {magic!r}, expected {GGUF_MAGIC!r})")


# -- llama.cpp logging -------------------------------------------------------------------------
#
# llama.cpp logs to stderr by default. Route everything into Python logging instead, and keep the
# last few error lines so a failed load can say why.

_llama_log = logging.getLogger("assistant.engine.llama_cpp")
_recent_errors: collections.deque[tuple[int, str]] = collections.deque(maxlen=16)
_error_count = 0  # errors logged so far; a mark taken before a call finds that call's errors
# ggml_log_level: 0 none, 1 debug, 2 info, 3 warn, 4 error, 5 "continue the previous line".
# llama.cpp's info chatter goes to DEBUG so nothing reaches stderr unless asked for.
_LEVELS = {0: logging.DEBUG, 1: logging.DEBUG, 2: logging.DEBUG, 3: logging.WARNING, 4: logging.ERROR}
_GGML_ERROR, _GGML_CONT = 4, 5
_last_level = 0
_log_callback: Any = None  # keep a reference: ctypes callbacks must outlive their registration
_log_lock = threading.Lock()


def quiet_llama_logs() -> None:
    """Send llama.cpp's log lines to Python logging instead of stderr (idempotent)."""
    global _log_callback
    with _log_lock:
        if _log_callback is not None:
            return
        import llama_cpp  # deferred: llama.cpp

        @llama_cpp.llama_log_callback
        def _callback(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
            global _error_count, _last_level
            if level == _GGML_CONT:
                level = _last_level
            _last_level = level
            line = text.decode("utf-8", errors="replace").rstrip()
            if not line:
                return
            if level == _GGML_ERROR:
                _error_count += 1
                _recent_errors.append((_error_count, line))
            _llama_log.log(_LEVELS.get(level, logging.DEBUG), "%s", line)

        llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
        _log_callback = _callback
        _keep_std_streams()


class _NoRedirect:
    """Stands in for llama_cpp's ``suppress_stdout_stderr`` (see :func:`_keep_std_streams`)."""

    def __init__(self, disable: bool = True) -> None:
        pass

    def __enter__(self) -> "_NoRedirect":
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _keep_std_streams() -> None:
    """With ``verbose=False`` llama_cpp silences a model load by pointing file descriptors 1 and
    2 at /dev/null and back, for the whole process. With models loading on worker threads (the
    CLI and the app load both at once) that swallows what other threads print meanwhile, and two
    overlapping loads can restore each other's /dev/null for good. The log callback above already
    routes llama.cpp's output into logging, so the redirect is switched off."""
    import importlib

    for name in ("llama_cpp.llama", "llama_cpp._internals", "llama_cpp.llama_chat_format"):
        module = importlib.import_module(name)  # deferred: llama.cpp
        if hasattr(module, "suppress_stdout_stderr"):
            module.suppress_stdout_stderr = _NoRedirect


def _error_mark() -> int:
    return _error_count


def _last_error_since(mark: int) -> str:
    """The last few llama.cpp error lines logged after :func:`_error_mark` returned ``mark``."""
    return "; ".join([line for n, line in _recent_errors if n > mark][-3:])
