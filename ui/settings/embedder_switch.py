"""Switching the embedder in the app (Settings → Models → Use on a downloaded embedding model).

:class:`SwitchController` runs the switch on a worker thread (progress, result and errors come
back through signals) and :class:`SwitchProgressView` shows it: a bar, "640 of 1,000 memories ·
about 5 s left", Cancel. Cancel stops between two batches; the old index and embedder stay in use.
:class:`AppSwitch` is the thin adapter over :mod:`assistant.reembed` for the running app: after
the switch it opens the memory again with the new embedder and hands it to the
:class:`~ui.services.backend.Backend` (capture, tidy-up and open chats follow). No widget here touches the
store or a model."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from assistant import reembed
from assistant.engine.errors import ModelError
from assistant.memory.errors import StoreError
from ui.services.workers import Runner
from ui.widgets.progress_panel import ProgressPanel

Run = Callable[..., Any]  # run(name, progress=..., cancel=...) -> result, on a worker thread


@dataclass
class Switched:
    result: reembed.SwitchResult
    store: Any  # the embedder-backed store opened with the new embedder
    retriever: Any


class AppSwitch:
    """``run`` (worker thread): plan, re-embed, then open the memory with the new embedder and
    embed what the old one's store wrote without a vector meanwhile. ``apply`` (UI thread): the
    backend uses the new store and retriever."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def run(self, name: str, progress: Callable[[Any], None], cancel: threading.Event) -> Switched:
        provider = self.backend.provider
        services = provider.services
        result = reembed.switch_embedder(services, reembed.plan_switch(services, name), progress=progress, cancel=cancel)
        capture = self.backend.capture
        if capture is not None and hasattr(capture, "stop"):
            capture.stop()  # its worker reopens its store (with the new embedder) on start
        store = provider.open_store(with_embedder=True)
        store.backfill_vectors()
        return Switched(result, store, provider.retriever(store))

    def apply(self, done: Switched) -> None:
        """The backend serves from the new store and retriever; then the old embedder, which
        nothing holds any more, is closed (its model freed) on a worker."""
        self.backend.replace_memory(done.store, done.retriever)
        release = self.backend.provider.services.release_embedders
        runner = getattr(self.backend, "runner", None)
        if runner is not None:
            runner.submit(release, name="release-embedder")
        else:
            release()


class SwitchController(QObject):
    """One switch at a time. ``progressed(ReindexProgress)``, ``finished(SwitchResult)``,
    ``failed(message)``, ``cancelled()``."""

    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, runner: Runner, run: Run, apply: Callable[[Any], None] | None = None,
                 parent: QObject | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.runner, self._run, self._apply = runner, run, apply
        self._cancel: threading.Event | None = None

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, name: str) -> None:
        if self.running:
            return
        self._cancel = threading.Event()
        self.runner.submit(self._run, name, cancel=self._cancel, on_progress=self.progressed.emit, on_done=self._done,
                           on_error=self._error, name="switch-embedder")  # fmt: skip

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def _done(self, done) -> None:
        self._cancel = None
        if self._apply is not None:
            self._apply(done)
        self.finished.emit(getattr(done, "result", done))

    def _error(self, exc) -> None:
        self._cancel = None
        if isinstance(exc, reembed.ReindexCancelled):
            self.cancelled.emit()
        elif isinstance(exc, (StoreError, ModelError, reembed.SwitchError)):
            self.failed.emit(f"{exc}. The old index and embedder are still in use.")
        else:
            self.failed.emit(f"Re-embedding failed ({type(exc).__name__}: {exc}); the old index and embedder are still in use.")


def progress_text(p: reembed.ReindexProgress, seconds: float) -> str:
    """"640 of 1,000 memories · 9 s · about 5 s left" (the rest at the pace so far)."""
    left = f" · about {seconds / p.done * (p.total - p.done):.0f} s left" if 0 < p.done < p.total else ""
    return f"{p.done:,} of {p.total:,} memories · {seconds:.0f} s{left}"


class SwitchProgressView(ProgressPanel):
    """"Re-embedding your memories with X", a bar, Cancel, and the count."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("switchProgress", parent)
        self._t0 = time.monotonic()

    def begin(self, name: str) -> None:
        self._t0 = time.monotonic()
        self.title.setText(f"Re-embedding memories with {name}")
        self.bar.setRange(0, 0)  # busy while the model loads
        self.detail.setText("Loading the model… Search keeps using the old index until this is done.")
        self.cancel.setEnabled(True)

    def set_progress(self, p: reembed.ReindexProgress) -> None:
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(p.fraction * 1000))
        self.detail.setText(progress_text(p, time.monotonic() - self._t0))
