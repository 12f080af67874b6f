"""The service objects shared by the CLI and the UI, owned by one :class:`Services` per process.

    services = Services(profile)             # created by the edge (CLI entry, app, test fixture)
    store = services.open_store()
    model = services.chat_model()
    ...
    services.close()                         # capture workers stopped, models freed

Models are loaded lazily and cached per path; the store is opened per call site (one connection
per thread is enforced inside the store). Everything is read from the :class:`Profile` given;
nothing here looks up paths or settings on its own.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from assistant import events
from assistant.config import SERVER_CHOICE, Settings
from assistant.engine import embedder_id, gguf_check, registry
from assistant.engine.server import api_key
from assistant.engine.errors import EngineError
from assistant.privacy import make_private
from assistant.profile import Profile

if TYPE_CHECKING:
    from assistant.memory.capture.queue import CaptureQueue
    from assistant.memory.retrieval.retriever import Retriever

# The store, retrieval and capture modules (SQLCipher, sqlite-vec, numpy: ~1 s to import on a
# busy machine) and the model engines (llama_cpp) are imported inside the methods that first
# need them: the app creates Services before its window shows, and pays for them on a worker.

log = logging.getLogger(__name__)

SMALL_EMBEDDER_BYTES = 200 * 1024 * 1024
GGUF_VERDICTS_FILE = "gguf-verdicts.json"


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


class Services:
    """The models, stores and capture workers of one profile; :meth:`close` releases them."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self._lock = threading.Lock()
        self._embedders: dict[Path, object] = {}
        self._chat_models: dict[tuple, object] = {}
        self._capture_queues: dict[Path, "CaptureQueue"] = {}
        self._embedder_paths: dict[tuple[str, Path], Path] = {}
        self._loaders: list[threading.Thread] = []
        # A GGUF checked once is not parsed again by the next process (every CLI command is one).
        gguf_check.remember_in(profile.paths.cache / GGUF_VERDICTS_FILE)

    @property
    def settings(self) -> Settings:
        return self.profile.settings

    def save_settings(self, settings: Settings) -> Settings:
        """Save ``settings`` in the profile; models made from now on follow them."""
        self.profile = self.profile.save_settings(settings)
        return self.profile.settings

    # -- lifecycle -------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the capture workers and free every cached model (they reload on next use), so
        llama.cpp frees its models while Python is still whole."""
        for loader in self._loaders:  # a model still loading is freed below, not at interpreter exit
            loader.join()
        with self._lock:
            queues = list(self._capture_queues.values())
            models = [*self._chat_models.values(), *self._embedders.values()]
            self._capture_queues.clear()
            self._chat_models.clear()
            self._embedders.clear()
        for release in [*(q.stop for q in queues), *(m.close for m in models)]:
            try:
                release()
            except Exception:  # noqa: BLE001 - shutting down: log and go on with the rest
                log.exception("could not release %r", release)

    def __enter__(self) -> "Services":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- models ----------------------------------------------------------------------------------
    def load_in_background(self, *loads) -> None:
        """Run each ``load()`` (e.g. ``model.load``) on its own thread now, so a model file loads
        while the caller opens the store and retrieves (llama.cpp loads without the GIL). A
        failure is only logged: the caller's own use of that model raises it where it is
        handled. :meth:`close` waits for these threads."""
        def run(load) -> None:
            try:
                load()
            except Exception:  # noqa: BLE001 - raised again by the foreground use
                log.debug("background load failed", exc_info=True)

        for load in loads:
            t = threading.Thread(target=run, args=(load,), name="keepsake-load", daemon=True)
            t.start()
            self._loaders.append(t)

    def embedder_path(self, progress=None) -> Path:
        """The configured embedder's file (the default MiniLM is converted once, into the
        profile's models folder, reporting through ``progress``). Resolved once per setting: the
        store, the retriever and the capture worker all ask for it."""
        key = (self.settings.embed_model, self.profile.paths.models)
        with self._lock:
            path = self._embedder_paths.get(key)
        if path is not None and path.is_file():
            return path
        path = registry.resolve_embedder(key[0], key[1], progress=progress)
        with self._lock:
            self._embedder_paths[key] = path
        return path

    def embedder(self, path: Path | None = None):
        """The configured embedder (default: converted MiniLM), or the one in ``path``, loaded
        once per file."""
        from assistant.engine.embedder import LlamaEmbedder  # llama_cpp: heavy, loaded with the first model

        path = path or self.embedder_path()
        with self._lock:
            if path not in self._embedders:
                self._embedders[path] = LlamaEmbedder(path, n_threads=embed_threads(path, self.settings.threads))
            return self._embedders[path]

    def release_embedders(self, keep: Path | None = None) -> int:
        """Close every loaded embedder but the one in ``keep`` (default: the configured one), e.g.
        the old one after a switch, once the app no longer holds it: its llama.cpp model and
        context are freed (``close`` waits for an embedding in flight). Returns how many."""
        keep = keep or self.embedder_path()
        with self._lock:
            old = [self._embedders.pop(p) for p in list(self._embedders) if p != keep]
        for model in old:
            model.close()
        return len(old)

    def chat_model(self, model: str | None = None, settings: Settings | None = None):
        """The configured chat model, one per (file, context size) or (server, model, context
        size): the local llama.cpp engine (default: SmolLM2-135M), or with ``settings.uses_server``
        the OpenAI-compatible server (no socket is opened until the first turn). ``model`` picks a
        local GGUF (``"default"`` or a path) or :data:`SERVER_CHOICE`; ``settings`` (default: the
        profile's) those of this run (e.g. ``--engine-url``)."""
        settings = settings or self.settings
        if model == SERVER_CHOICE or (model is None and settings.uses_server):
            return self._server_model(settings)
        from assistant.engine.chat import LlamaChatModel  # llama_cpp: heavy, loaded with the first model

        path = registry.resolve_chat(model or settings.chat_model)
        key = (path, settings.context_size)
        with self._lock:
            if key not in self._chat_models:
                self._chat_models[key] = LlamaChatModel(path, n_ctx=settings.context_size, n_threads=settings.threads)
            return self._chat_models[key]

    def _server_model(self, settings: Settings):
        from assistant.engine.server.model import OpenAIChatModel  # the HTTP client: only with a server configured

        url = settings.engine_url
        if not url:
            raise EngineError("config", url, "no model server URL is configured (Settings → Model server)")
        p = self.profile.paths
        secret = api_key.load(url, p, secret=database_key_reader(self.profile))
        key = ("openai", url, settings.engine_model, settings.context_size, settings.engine_timeout, secret)
        with self._lock:
            if key not in self._chat_models:
                try:
                    self._chat_models[key] = OpenAIChatModel(url, model=settings.engine_model or None, api_key=secret, n_ctx=settings.context_size,
                                                             read_timeout=settings.engine_timeout, ledger_dir=p.cache / "engine",
                                                             local_models=lambda: registry.local_chat_models(p))  # fmt: skip
                except ValueError as exc:
                    raise EngineError("config", url, f"the model server URL is not valid: {exc}") from None
            return self._chat_models[key]

    # -- memory ----------------------------------------------------------------------------------
    def open_store(self, *, with_embedder: bool = True, lock_wait: float | None = None, path: Path | None = None,
                   warm: bool = False):  # fmt: skip
        """Open the memory store (default: the profile's database), with every holder of the
        person's text registered with its Forgetter. ``lock_wait``: seconds to wait for a database
        another program keeps locked (default: the store's, minutes). On every open the profile's
        folders and files are made private (0700/0600); on the first open, plaintext files an
        older Keepsake kept next to the database are moved into it and securely removed.
        ``warm``: :meth:`warm_vectors` as soon as the file is open (before the rest of the
        opening's imports and checks, which the read then overlaps)."""
        from assistant.memory.store.facade import MemoryStore  # deferred: the store (SQLCipher, numpy)

        p = self.profile.paths.ensure()
        make_private(p)
        ident = embedder_id.identify(self.embedder_path()) if with_embedder else None
        embed = self.embedder().embed if with_embedder else None
        waits = {} if lock_wait is None else {"busy_timeout": min(30.0, lock_wait / 2), "retry_deadline": lock_wait / 2}
        store = MemoryStore(path or p.database, key=self.profile.key.key, key_file=self.profile.key.key_file, embed=embed,
                            dim=ident.dim if ident else 384, check_dim=False, **waits)  # fmt: skip
        if warm:
            self.warm_vectors(store)
        from assistant.context.redact import ContextSummaries  # deferred: SQLCipher (see the imports)
        from assistant.memory.store.archive.migrate import migrate_plaintext
        from assistant.memory.store import vector_index

        store.forgetter.register(ContextSummaries(store.context_archive))
        store.forgetter.register(PromptCaches(self))
        store.forgetter.register(OpenSessions())
        if store.damage is None:  # a damaged file is never written (keepsake repair reads it)
            vector_index.clear_leftover(store)  # tables of a re-embedding that was killed
            if ident is not None and not self._index_follows(store, ident):
                store.close()
                return self.open_store(with_embedder=with_embedder, lock_wait=lock_wait, path=path, warm=warm)
            if ident is not None:
                vector_index.backfill_marked(store)  # stored without a vector by a process on the old index
                vector_index.reread(store)  # embedded before they were read in English: once
            if store.path == p.database.resolve():
                migrate_plaintext(store, p)
            _recover_runs(store)  # a tidy-up run a killed process left half-applied
        return store

    def warm_vectors(self, store) -> None:
        """Read ``store``'s vectors into its vector cache (:mod:`assistant.memory.store.vecscan.cache`)
        on a background thread with its own connection, so the first search finds them loaded
        while the caller imports, opens and embeds meanwhile (the read is O(memories): ~0.1 s of
        CPU at 10,000 on a quiet machine, 15 MB of vectors and the filter columns decrypted, which
        SQLite does without the GIL)."""

        def load() -> None:
            from assistant.memory.store.vecscan.cache import cache_for  # numpy: imported on the worker

            cache_for(store).sync(store)

        self.load_in_background(load)

    def _index_follows(self, store, ident) -> bool:
        """The search index was made by the configured embedder (else
        :class:`~assistant.memory.errors.EmbedderMismatchError`). False when a switch had
        committed but its process stopped before saving the settings: they are saved now and
        the store must be opened again (with that embedder)."""
        from assistant.memory.store import vector_index  # deferred (see the imports)

        index = store.read(vector_index.read_identity)
        if index.pending:
            setting = self.settings.embed_model
            if index.fingerprint != ident.fingerprint and index.setting and index.setting != setting:
                log.warning("finishing an embedder switch that stopped before the settings were saved: %s", index.setting)
                self.save_settings(replace(self.settings, embed_model=index.setting))
                store.write(vector_index.clear_pending)
                return False
            store.write(vector_index.clear_pending)
        try:
            vector_index.check(store, ident.fingerprint, ident.name, ident.dim, self.settings.embed_model)
        except Exception:
            store.close()
            raise
        return True

    def retriever(self, store) -> "Retriever":
        """Hybrid retrieval over ``store``."""
        from assistant.memory.retrieval.retriever import Retriever  # deferred: numpy, sqlite-vec (see the imports)

        return Retriever(store, self.embedder())

    def capture_queue(self, store, chat_model=None) -> "CaptureQueue":
        """The background capture worker for ``store``'s database (one per database per
        :class:`Services`); its worker opens its own store at that same path.

        Live capture uses the deterministic rules only: LLM extraction on the shared chat model
        would hold its lock for seconds and throw away the conversation's prompt cache (measured:
        the 135M default adds ~1 useful fact in 12 messages). Import uses the LLM on request."""
        from assistant.memory.capture.queue import JOURNAL_NAME, CaptureQueue  # deferred (see the imports)

        path = Path(store.path)
        with self._lock:
            queue = self._capture_queues.get(path)
            if queue is None:
                journal = self.profile.paths.ensure().data / JOURNAL_NAME
                if path != self.profile.database.resolve():  # another database keeps its own journal
                    journal = path.with_name(path.name + "." + JOURNAL_NAME)
                queue = self._capture_queues[path] = CaptureQueue(
                    lambda: self.open_store(with_embedder=True, path=path), chat_model, use_llm=False, journal=journal,
                    settings=lambda: self.settings)  # read at each capture: a setting changed in the app applies at once
            return queue


class PromptCaches:
    """After a delete: the loaded chat models drop their KV/prompt cache."""

    name = "prompt_caches"

    def __init__(self, services: Services) -> None:
        self.services = services

    def after(self, report) -> dict[str, int]:
        with self.services._lock:
            models = list(self.services._chat_models.values())
        for model in models:
            model.reset_cache()
        return {"prompt_caches": len(models)}


class OpenSessions:
    """After a delete: open chat sessions rebuild their context from the (redacted) store
    before their next turn (``memory_deleted`` on the event bus; they also compare the store's
    ``forget_generation``, so a failure here cannot make them send forgotten text)."""

    name = "open_sessions"

    def after(self, report) -> dict[str, int]:
        return {"open_sessions": events.publish("memory_deleted", report)}


def _recover_runs(store) -> None:
    """Roll back consolidation runs a killed process left half-applied (logged once each; see
    :func:`assistant.memory.store.tidying.recover.recover_on_open`). Never stops the open."""
    from assistant.memory.store.tidying.recover import recover_on_open  # deferred: the store (SQLCipher, numpy)

    try:
        recover_on_open(store)
    except Exception:  # noqa: BLE001 - the next open or run tries again
        log.exception("rolling back an interrupted consolidation run failed; the next start tries again")


def database_key_reader(profile) -> Callable[[], str | None]:
    """A function giving ``profile``'s database key (64 hex characters), made if the database
    has none yet: the model server's API key is encrypted with it when there is no OS keyring
    (:mod:`assistant.engine.server.api_key`)."""

    def read() -> str | None:
        from assistant.memory.store.sqlite import keys  # deferred: keyring

        if profile.key.key is not None:
            return keys.normalize_key(profile.key.key)
        return keys.get_or_create_key(profile.paths.database, profile.key.key_file)[0]

    return read
