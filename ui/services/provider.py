"""What the UI's :class:`~ui.services.backend.Backend` runs: a :class:`Provider` wraps the app's
:class:`assistant.services.Services` (created by the app's edge, :func:`ui.app.main`): models,
store, retrieval, capture, the consolidation scheduler. Tests, the screenshot tool and the UI
benchmark pass :class:`NoModelsProvider` (or their own) to run without models.

No Qt here: every method runs on a worker thread of the backend's runner.
"""

from __future__ import annotations

import logging
from typing import Callable

from assistant.engine import registry
from assistant.engine.errors import EngineError
from assistant.engine.server import api_key
from assistant.services import Services, database_key_reader
from ui.tidyup import consolidation_service as cs

log = logging.getLogger(__name__)


class Provider:
    """The services the UI uses: ``services``' (one profile's) models, store and queues."""

    load_models = True

    def __init__(self, services: Services) -> None:
        self.services = services

    @property
    def paths(self):
        return self.services.profile.paths

    def settings(self):
        return self.services.settings

    def save_settings(self, settings) -> None:
        self.services.save_settings(settings)

    def open_store(self, with_embedder: bool):
        return self.services.open_store(with_embedder=with_embedder)

    def prepare_embedder(self, progress: Callable[[str], None]) -> None:
        """Convert the default embedder once (reports what it does), then load it (once: a
        second call waits for the first)."""
        self.services.embedder_path(progress=progress)
        _ = self.services.embedder().dim  # loads the model file

    def chat_model(self, choice: str | None):
        """Load the chosen model; a model server is checked once (an unreachable one is still
        returned: turns then fail with the reason and a Retry, and nothing is lost)."""
        model = self.services.chat_model(model=choice or None)
        model.load()
        if getattr(model, "engine", "") == "openai":
            try:
                model.connect()
            except EngineError as exc:
                log.warning("model server not usable yet: %s", exc)
                model.last_error = exc
        return model

    def check_server(self, url: str, model: str | None, key: str | None):
        """Settings → Model server → Check: the server's models, latency, token counting (with
        ``key``, else the key stored for ``url``)."""
        from assistant.engine.server.model import OpenAIChatModel  # the HTTP client: only when a server is checked

        p = self.paths
        probe = OpenAIChatModel(url, model=model or None, api_key=key or api_key.load(url, p, secret=database_key_reader(self.services.profile)), read_timeout=30.0,
                                local_models=lambda: registry.local_chat_models(p))  # fmt: skip
        try:
            return probe.connect()
        finally:
            probe.close()

    def save_api_key(self, url: str, key: str | None) -> str:
        return api_key.save(url, key, self.paths, secret=database_key_reader(self.services.profile))

    def api_key(self, url: str) -> str | None:
        return api_key.load(url, self.paths, secret=database_key_reader(self.services.profile))

    def retriever(self, store):
        return self.services.retriever(store)

    def capture_queue(self, store, chat_model):
        queue = self.services.capture_queue(store, chat_model)
        if queue is not None and hasattr(queue, "start"):
            queue.start()  # no-op when running; restarts one stopped by an earlier window
        return queue

    def open_chat(self, session_id, *, store, chat_model, retriever, capture, incognito):
        from assistant.session import ChatSession  # deferred: the store's modules load on a worker, after the window shows

        return ChatSession.open(self.services, session_id, store=store, chat_model=chat_model, retriever=retriever,
                                capture=capture, incognito=incognito, settings=self.settings())

    def start_jobs(self, store):
        """The background consolidation scheduler, or None when this build has none."""

        if not self.load_models or not cs.available():
            return None
        return cs.start_jobs(store, self.services)

    def discover_models(self) -> list:
        return registry.discover(self.paths)

    def note_store(self, store):
        """The person's note, kept in ``store``'s encrypted archive."""
        from assistant.context.note import NoteStore  # deferred: the store (SQLCipher, numpy)

        return NoteStore(store.context_archive)


class NoModelsProvider(Provider):
    """The real store and services, no model loaded and no model file read: screenshots, the UI
    benchmark and tests of panels that need no chat model."""

    load_models = False

    def discover_models(self) -> list:
        return []
