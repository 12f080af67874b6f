"""Process-wide service objects shared by the CLI and the UI.

Models are loaded lazily and cached per path; the store is opened per call site (one connection
per thread is enforced inside the store).
"""

from __future__ import annotations

import atexit
import logging
import threading
from pathlib import Path

from assistant.config import SERVER_CHOICE, Paths, Settings, load_settings, paths

_lock = threading.Lock()
_embedders: dict[Path, object] = {}
_chat_models: dict[tuple, object] = {}
_capture_queues: dict[Path, object] = {}
log = logging.getLogger(__name__)


def shutdown() -> None:
    """Stop the capture workers and free every cached model (they reload on next use). Runs at
    exit, so llama.cpp frees its models while Python is still whole."""
    with _lock:
        queues, models = list(_capture_queues.values()), [*_chat_models.values(), *_embedders.values()]
        _capture_queues.clear()
        _chat_models.clear()
        _embedders.clear()
    for release in [*(q.stop for q in queues), *(m.close for m in models)]:
        try:
            release()
        except Exception:  # noqa: BLE001 - shutting down: log and go on with the rest
            log.exception("could not release %r", release)


atexit.register(shutdown)


def get_embedder(p: Paths | None = None):
    """The configured embedder (default: converted MiniLM), loaded once per file."""
    from assistant.engine import registry
    from assistant.engine.embedder import LlamaEmbedder

    settings = load_settings(p or paths())
    path = registry.resolve_embedder(settings.embed_model)
    with _lock:
        if path not in _embedders:
            _embedders[path] = LlamaEmbedder(path, n_threads=embed_threads(path, settings.threads))
        return _embedders[path]


SMALL_EMBEDDER_BYTES = 200 * 1024 * 1024


def embed_threads(path: Path, threads: int) -> int:
    """Threads for an embedding model: 1 for a small one (the default MiniLM, 45 MB), else
    ``threads``. A small model's matrices are too small to gain from a second thread, and when the
    cores are busy (the chat model generating, other programs) llama.cpp's threads wait for each
    other: measured on a loaded 2-core machine, MiniLM took 15-20 ms a text with 1 thread and
    50-460 ms with 2."""
    try:
        small = path.stat().st_size < SMALL_EMBEDDER_BYTES
    except OSError:
        small = False
    return 1 if small else threads


def get_chat_model(p: Paths | None = None, model: str | None = None, settings: Settings | None = None):
    """The configured chat model, one per (file, context size) or (server, model, context size):
    the local llama.cpp engine (default: SmolLM2-135M), or with ``settings.uses_server`` the
    OpenAI-compatible server (no socket is opened until the first turn). ``model`` picks a
    local GGUF (``"default"`` or a path) or :data:`SERVER_CHOICE`."""
    p = p or paths()
    settings = settings or load_settings(p)
    if model == SERVER_CHOICE or (model is None and settings.uses_server):
        return _server_model(p, settings)
    from assistant.engine import registry
    from assistant.engine.chat import LlamaChatModel

    path = registry.resolve_chat(model or settings.chat_model)
    key = (path, settings.context_size)
    with _lock:
        if key not in _chat_models:
            _chat_models[key] = LlamaChatModel(path, n_ctx=settings.context_size, n_threads=settings.threads)
        return _chat_models[key]


def _server_model(p: Paths, settings: Settings):
    from assistant.engine import api_key
    from assistant.engine.errors import EngineError
    from assistant.engine.remote import OpenAIChatModel

    url = settings.engine_url
    if not url:
        raise EngineError("config", url, "no model server URL is configured (Settings → Model server)")
    secret = api_key.load(url, p)
    key = ("openai", url, settings.engine_model, settings.context_size, settings.engine_timeout, secret)
    with _lock:
        if key not in _chat_models:
            try:
                _chat_models[key] = OpenAIChatModel(url, model=settings.engine_model or None, api_key=secret, n_ctx=settings.context_size,
                                                    read_timeout=settings.engine_timeout, ledger_dir=p.cache / "engine")  # fmt: skip
            except ValueError as exc:
                raise EngineError("config", url, f"the model server URL is not valid: {exc}") from None
        return _chat_models[key]


def open_store(p: Paths | None = None, *, with_embedder: bool = True, lock_wait: float | None = None):
    """Open the memory store at the configured database path, with every holder of the
    person's text registered with its Forgetter. ``lock_wait``: seconds to wait for a database
    another program keeps locked (default: the store's, minutes). On every open the profile's
    folders and files are made private (0700/0600); on the first open, plaintext files an older
    Keepsake kept next to the database are moved into it and securely removed."""
    from assistant.context.redact import ContextSummaries
    from assistant.memory.store.archive.migrate import migrate_plaintext
    from assistant.memory.store import MemoryStore
    from assistant.privacy import make_private

    p = (p or paths()).ensure()
    make_private(p)
    embed = get_embedder(p).embed if with_embedder else None
    waits = {} if lock_wait is None else {"busy_timeout": min(30.0, lock_wait / 2), "retry_deadline": lock_wait / 2}
    store = MemoryStore(p.database, key_file=p.key_file, embed=embed, **waits)
    store.forgetter.register(ContextSummaries(store.context_archive))
    store.forgetter.register(PromptCaches())
    store.forgetter.register(OpenSessions())
    if store.damage is None:  # a damaged file is never written (keepsake repair reads it)
        migrate_plaintext(store, p)
    return store


class PromptCaches:
    """After a delete: the loaded chat models drop their KV/prompt cache."""

    name = "prompt_caches"

    def after(self, report) -> dict[str, int]:
        with _lock:
            models = list(_chat_models.values())
        for model in models:
            model.reset_cache()
        return {"prompt_caches": len(models)}


class OpenSessions:
    """After a delete: open chat sessions rebuild their context from the (redacted) store
    before their next turn (``memory_deleted`` on the event bus; they also compare the store's
    ``forget_generation``, so a failure here cannot make them send forgotten text)."""

    name = "open_sessions"

    def after(self, report) -> dict[str, int]:
        from assistant import events

        return {"open_sessions": events.publish("memory_deleted", report)}


def get_retriever(store):
    """Hybrid retrieval over ``store`` (None until the retrieval module is installed)."""
    from assistant.memory.retrieval.retriever import Retriever

    return Retriever(store, get_embedder())


def get_capture_queue(store, chat_model=None):
    """The background capture worker for ``store``'s database (one per database per process).

    Live capture uses the deterministic rules only: LLM extraction on the shared chat model would
    hold its lock for seconds and throw away the conversation's prompt cache (measured: the 135M
    default adds ~1 useful fact in 12 messages). Import uses the LLM on request (`--no-llm`)."""
    from assistant.memory.capture.queue import JOURNAL_NAME, CaptureQueue

    with _lock:
        queue = _capture_queues.get(store.path)
        if queue is None:
            queue = _capture_queues[store.path] = CaptureQueue(
                lambda: open_store(with_embedder=True), chat_model, use_llm=False,
                journal=paths().ensure().data / JOURNAL_NAME, settings=load_settings)
        return queue
