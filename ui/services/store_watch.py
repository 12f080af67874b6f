"""Changes committed by *another process* (``keepsake import`` or ``memory edit`` in a terminal
while the app is open) reach the views like the app's own, within EXTERNAL_POLL_MS: a timer on the
UI thread asks a worker to read the store's change logs (``store.watch_changes`` /
``store.poll_changes``); what this process already announced is left out."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, QTimer

EXTERNAL_POLL_MS = 2000  # how often changes made by other processes (the CLI) are looked for


class ExternalChanges(QObject):
    """``read``: the backend's ``read`` (runs ``fn(store)`` on a worker); ``emit``: hands a
    change to the views (the backend's ``storeChanged.emit``)."""

    def __init__(self, read: Callable[..., Any], emit: Callable[[Any], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._read, self._emit = read, emit
        self._watch = None  # assistant.memory.store.diagnostics.ExternalWatch once the store is open
        self._polling = False
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setInterval(EXTERNAL_POLL_MS)
        self._timer.timeout.connect(self.poll)

    def start(self) -> None:
        def started(watch) -> None:
            self._watch = watch
            self._timer.start()

        self._read(lambda store: store.watch_changes(), on_done=started, on_error=lambda _e: None, name="watch-start")

    def poll(self) -> None:
        watch = self._watch
        if watch is None or self._polling or self._closed:
            return
        self._polling = True

        def done(polled) -> None:
            self._polling = False
            change = watch.take(polled)
            if change is not None and not self._closed:
                self._emit(change)

        def failed(_exc) -> None:
            self._polling = False

        self._read(lambda store: store.poll_changes(watch), on_done=done, on_error=failed, name="watch-poll")

    def announced(self, change: Any) -> None:
        """A change this process published: a later poll does not report it again."""
        if self._watch is not None:
            self._watch.announced(change)

    def stop(self) -> None:
        self._closed = True
        self._timer.stop()
