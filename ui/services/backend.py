"""The UI's access to Keepsake's services (store, models, retrieval, capture), off the UI thread.

Widgets never call the store or a model directly: they ask the :class:`Backend`, which runs the
call on its :class:`~ui.services.workers.Runner` and answers through callbacks on the UI thread.

Start-up (:meth:`Backend.start`) is staged so the window is useful at once:

1. the store opens **without** the embedder (fast): sessions and memories can be listed;
2. the embedding model is prepared (converted once) and the store reopens with it: writes and
   search use this one (a write asked for earlier waits for it, so no memory is written without
   its vector);
3. in parallel, the chat model loads; the chat is ready when it is.

The :class:`~ui.services.provider.Provider` (``ui/services/provider.py``) wraps the app's
services; tests and the screenshot tool pass their own to run without models.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from assistant import events
from assistant.engine.errors import ModelError
from assistant.memory.language import dates
from assistant.memory.store import diagnostics
from assistant.memory.errors import StoreError
from ui.tidyup import consolidation_service as cs
from ui.tidyup.consolidation_service import Unavailable
from ui.services.errors import describe, storage_fault
from ui.services.provider import Provider
from ui.services.store_watch import ExternalChanges
from ui.format import model_label
from ui.services.workers import Callback, Runner

log = logging.getLogger(__name__)

WRITE_WAIT_S = 300.0  # a write waits this long for the embedder-backed store


class Backend(QObject):
    """Service access for the widgets; all slow calls run on worker threads."""

    status = Signal(str)  # a calm one-line message for the status bar
    error = Signal(str)  # something failed (already described for the person)
    storeReady = Signal()  # reads work
    memoryReady = Signal()  # writes and search work (embedder loaded)
    modelProgress = Signal(str, int, int)  # message, step, steps
    memoryProgress = Signal(str)  # opening the memory (embedder conversion...); "": over
    modelReady = Signal(str)  # chat model name
    modelFailed = Signal(str)
    #: The one change signal: a committed store write (assistant.memory.store.diagnostics.StoreChange), from
    #: any thread or store object of this database. The two below are derived from it.
    storeChanged = Signal(object)
    memoriesChanged = Signal()  # memories were added/changed/deleted
    sessionsChanged = Signal()  # conversations were created/renamed/deleted or got messages
    consolidationEvent = Signal(object)
    storageFault = Signal(str)  # the database cannot be used (damaged, full, read-only, locked, key): a dialog
    memoryReplaced = Signal()  # the embedder was switched: a new store and retriever (open chats are rebuilt)

    def __init__(self, provider: Provider, runner: Runner | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.provider = provider
        self.runner = runner or Runner(self)
        self.runner.unhandledError.connect(self._report)
        self._reader = None
        self._store = None
        self._store_event = threading.Event()
        self._capture_lock = threading.Lock()
        self.chat_model = None
        self.retriever = None
        self.capture = None
        self.memory_error: str | None = None
        self._unsubscribe: list[Callable[[], None]] = []
        self._database = None  # the store's path, once open: changes to other databases are ignored
        self._external = ExternalChanges(self.read, self.storeChanged.emit, self)  # other processes' changes
        self.settings = None
        self.jobs = None
        self._closed = False
        #: time.monotonic_ns() of start-up marks: "start", "memory" (embedder-backed store and
        #: retrieval ready), "model" (chat model loaded); the bench and the log read them
        self.marks: dict[str, int] = {}

        self.consolidation = Unavailable("Opening your memory…")

    # ------------------------------------------------------------------ state
    @property
    def store(self):
        """The best store available now (embedder-backed once ready), or None."""
        return self._store or self._reader

    @property
    def store_ready(self) -> bool:
        return self.store is not None

    @property
    def memory_ready(self) -> bool:
        return self._store_event.is_set()

    @property
    def model_ready(self) -> bool:
        return self.chat_model is not None

    @property
    def search_available(self) -> bool:
        return self.retriever is not None

    # ------------------------------------------------------------------ start-up
    def start(self) -> None:
        """Open the store and load the models in the background (see the module docstring)."""
        self.marks = {"start": time.monotonic_ns()}
        self.settings = self.provider.settings()
        self._subscribe_events()
        self.runner.submit(self._open_memory, on_progress=self._memory_progress, on_done=self._memory_done,
                           on_error=self._memory_failed, name="open-memory")  # fmt: skip
        if self.provider.load_models:
            # The embedder's file loads now, alongside the store's opening and integrity check
            # (which _open_memory does first) and the chat model: memory search is ready soon
            # after the window instead of after the check.
            self.runner.submit(self.provider.prepare_embedder, on_progress=lambda msg: self.status.emit(str(msg)),
                               on_error=lambda _exc: None, name="load-embedder")  # fmt: skip
            self.load_model(self.settings.choice)
        else:
            self.modelFailed.emit("models are not loaded in this mode")

    def _open_memory(self, progress):
        light = self.provider.open_store(with_embedder=False)
        progress(("store", light))
        if hasattr(light, "verify_once"):  # the integrity check before any write (unless the file is as last checked): say at once if it is damaged
            light.verify_once()
            if light.damage_error() is not None:
                progress(("fault", light.damage_error()))
        if not self.provider.load_models:
            return light, None
        try:
            self.provider.prepare_embedder(lambda msg: progress(("progress", msg)))
            full = self.provider.open_store(with_embedder=True)
        except Exception as exc:  # noqa: BLE001 - memory still works, without semantic search
            log.warning("embedder unavailable: %s", exc)
            progress(("status", f"Search is limited: {describe(exc)}"))
            return light, None
        retriever = None
        try:
            retriever = self.provider.retriever(full)
        except Exception as exc:  # noqa: BLE001
            log.warning("retrieval unavailable: %s", exc)
        return full, retriever

    def _memory_progress(self, item) -> None:
        kind, value = item
        if kind == "store":
            self._reader = value
            self._database = value.path
            self.storeReady.emit()
            self._external.start()
        elif kind == "status":
            self.status.emit(str(value))
        elif kind == "progress":
            self.memoryProgress.emit(str(value))
        elif kind == "fault":  # readable but damaged: reads go on, writes are refused
            self._report(value)

    def _memory_done(self, result) -> None:
        store, retriever = result
        self._store = store
        self.retriever = retriever
        self._store_event.set()
        self._mark("memory")
        self.runner.submit(self._attach_capture, name="capture-queue")  # imports + journal replay: not here
        self.memoryProgress.emit("")
        self.memoryReady.emit()
        self.runner.submit(self._warm_up, name="warm-up")
        self.runner.submit(self.provider.start_jobs, store, on_done=self._jobs_started,
                           on_error=self._jobs_failed, name="start-jobs")  # fmt: skip

    def _warm_up(self) -> None:
        """One-time costs paid now, in the background, rather than during the first reply:
        the chat session's modules (importing them holds the interpreter lock the UI thread
        needs), date parsing (capture) and the retriever's vector cache."""
        import assistant.session  # noqa: F401 - what the first turn's open_chat imports

        try:
            if hasattr(dates, "preload"):
                dates.preload()
        except Exception:  # noqa: BLE001 - only an optimisation
            log.debug("date parser warm-up failed", exc_info=True)
        if self.retriever is not None:
            try:
                self.retriever.search("hello", k=1)
            except Exception:  # noqa: BLE001
                log.debug("retriever warm-up failed", exc_info=True)

    def _jobs_started(self, jobs) -> None:
        if self._closed:
            if jobs is not None:
                jobs.shutdown(wait=False)
            return
        self.jobs = jobs
        self.consolidation = cs.JobsService(jobs, self._store) if jobs is not None else cs.Unavailable(cs.NOT_AVAILABLE)
        self.consolidationEvent.emit({"started": True})

    def _jobs_failed(self, exc) -> None:
        self.consolidation = cs.Unavailable(f"Background tidying could not start: {describe(exc)}")
        self.consolidationEvent.emit({"started": False})

    def replace_memory(self, store, retriever) -> None:
        """After the embedder was switched (:mod:`ui.settings.embedder_switch`): the new embedder-backed
        store and retriever serve from now on; capture and the tidy-up restart on them."""
        self._store, self.retriever = store, retriever
        self.settings = self.provider.settings()
        with self._capture_lock:
            self.capture = None
        self.runner.submit(self._attach_capture, name="capture-queue")
        self.restart_jobs()
        self.memoryReplaced.emit()

    def restart_jobs(self) -> None:
        """Apply new idle/nightly settings: a fresh scheduler (a run in progress finishes first)."""
        old, self.jobs = self.jobs, None
        store = self._store

        def swap():
            if old is not None:
                old.shutdown(wait=True)
            return self.provider.start_jobs(store) if store is not None else None

        self.runner.submit(swap, on_done=self._jobs_started, on_error=self._jobs_failed, name="restart-jobs")

    def note_activity(self) -> None:
        """The person is typing: the idle tidy-up waits (cheap; call on every input)."""
        if self.jobs is not None:
            self.jobs.note_activity()

    def _memory_failed(self, exc) -> None:
        self.memory_error = self.describe(exc)
        self._store_event.set()  # writes fail fast with the reason instead of waiting
        self.memoryProgress.emit("")
        self._report(exc)

    def load_model(self, choice: str | None) -> None:
        """Load a chat model in the background (``"default"``, a GGUF path or None)."""
        self.modelProgress.emit("Loading the chat model…", 0, 0)
        self.runner.submit(self.provider.chat_model, choice, on_done=self._model_done,
                           on_error=self._model_failed, name="load-model")  # fmt: skip

    def _model_done(self, model) -> None:
        self.chat_model = model
        self._mark("model")
        self.runner.submit(self._attach_capture, name="capture-queue")
        path = getattr(model, "path", None)
        if getattr(model, "engine", "") == "openai":
            self.modelReady.emit(f"{model.name} (server {model.endpoint.host})")
            if getattr(model, "last_error", None) is not None:
                self.error.emit(f"{describe(model.last_error)} Messages you send are kept and can be retried.")
            return
        self.modelReady.emit(model_label(path) if path is not None else str(getattr(model, "name", "model")))

    def _mark(self, what: str) -> None:
        """Record a start-up mark; once memory and model are both ready, log how long after
        the start (the window is shown just before) the first reply could stream."""
        if what in self.marks or "start" not in self.marks:
            return
        self.marks[what] = time.monotonic_ns()
        if "memory" in self.marks and "model" in self.marks:
            ms = {k: (self.marks[k] - self.marks["start"]) / 1e6 for k in ("memory", "model")}
            log.info("ready for the first reply %.0f ms after start-up began (memory search %.0f ms, chat model %.0f ms)",
                     max(ms.values()), ms["memory"], ms["model"])  # fmt: skip

    def _model_failed(self, exc) -> None:
        self.modelFailed.emit(describe(exc))

    def _attach_capture(self) -> None:
        """The capture queue needs the embedder-backed store and a chat model (either thread)."""
        with self._capture_lock:
            if self.capture is not None or self._store is None or self.chat_model is None:
                return
            try:
                self.capture = self.provider.capture_queue(self._store, self.chat_model)
            except Exception as exc:  # noqa: BLE001
                log.warning("capture unavailable: %s", exc)
                self.capture = None

    def _subscribe_events(self) -> None:
        # Called on the publisher's thread (a worker, the capture queue, the tidy-up job): only
        # emit; Qt queues the signal to the UI thread.
        self._unsubscribe.append(events.subscribe(diagnostics.TOPIC, self._publish_store_change))
        self._unsubscribe.append(events.subscribe("consolidation", lambda payload: self.consolidationEvent.emit(payload)))
        self.storeChanged.connect(self._on_store_changed)

    def _publish_store_change(self, change) -> None:
        if not self._closed and (self._database is None or change.database == self._database):
            self.storeChanged.emit(change)

    def _on_store_changed(self, change) -> None:
        self._external.announced(change)
        if change.memories_changed:
            self.memoriesChanged.emit()
        if change.sessions_changed:
            self.sessionsChanged.emit()

    # ------------------------------------------------------------------ calls
    def read(self, fn: Callable[[Any], Any], *, on_done: Callback | None = None, on_error: Callback | None = None,
             on_progress: Callback | None = None, name: str | None = None) -> int:
        """Run ``fn(store)`` on a worker thread (waits for the store to open)."""
        return self.runner.submit(self._with_store, fn, False, on_done=on_done, on_error=on_error or self._report,
                                  on_progress=on_progress, name=name)  # fmt: skip

    def write(self, fn: Callable[[Any], Any], *, on_done: Callback | None = None, on_error: Callback | None = None,
              name: str | None = None) -> int:
        """Run ``fn(store)`` with the embedder-backed store. What it changed reaches every view
        through :attr:`storeChanged` (the store announces its own commits)."""
        return self.runner.submit(self._with_store, fn, True, on_done=on_done, on_error=on_error or self._report, name=name)

    def call(self, fn: Callable[..., Any], *args: Any, on_done: Callback | None = None, on_error: Callback | None = None,
             on_progress: Callback | None = None, name: str | None = None, **kw: Any) -> int:
        """Run any service call off the UI thread."""
        return self.runner.submit(fn, *args, on_done=on_done, on_error=on_error or self._report,
                                  on_progress=on_progress, name=name, **kw)  # fmt: skip

    def _with_store(self, fn: Callable[[Any], Any], need_full: bool, progress=None) -> Any:
        if need_full:
            if not self._store_event.wait(WRITE_WAIT_S):
                raise TimeoutError("the memory is still loading; please try again in a moment")
            store = self._store or self._reader
        else:
            store = self.store
            if store is None:
                self._store_event.wait(WRITE_WAIT_S)
                store = self.store
        if store is None:
            raise StoreError(self.memory_error or "the memory database is not open")
        return fn(store) if progress is None else fn(store, progress)

    def describe(self, exc: BaseException) -> str:
        """:func:`ui.services.errors.describe` for this profile's database."""
        return describe(exc, self.provider.paths.database)

    def _report(self, exc: BaseException) -> None:
        """Every failure goes to the status bar; a storage fault also opens a dialog."""
        text = self.describe(exc)
        self.error.emit(text)
        if storage_fault(exc, self.provider.paths.database) is not None:
            self.storageFault.emit(text)

    # ------------------------------------------------------------------ chat
    def open_chat(self, session_id, *, incognito: bool | None = None):
        """A :class:`assistant.session.ChatSession` (call from a worker thread)."""
        if not self._store_event.wait(WRITE_WAIT_S) or self._store is None:
            raise StoreError(self.memory_error or "the memory database is not open")
        if self.chat_model is None:
            raise ModelError("chat model", "no chat model is loaded yet")
        self._attach_capture()
        return self.provider.open_chat(session_id, store=self._store, chat_model=self.chat_model,
                                       retriever=self.retriever, capture=self.capture, incognito=incognito)  # fmt: skip

    def shutdown(self) -> None:
        self._closed = True
        self._external.stop()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        if self.jobs is not None:
            try:
                self.jobs.shutdown(wait=False)
            except Exception:  # noqa: BLE001
                log.exception("stopping the job scheduler failed")
            self.jobs = None
        if self.capture is not None and hasattr(self.capture, "stop"):
            try:  # the capture in progress finishes; queued ones stay in the journal for next time
                self.capture.stop(timeout=5)
            except Exception:  # noqa: BLE001
                log.exception("stopping the capture queue failed")
        self.runner.shutdown(1500)
