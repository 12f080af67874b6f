"""A catalog download in the app: :class:`DownloadController` runs
:func:`assistant.engine.catalog.download.download` on a worker thread (progress, result and
errors come back through signals) and :class:`DownloadProgressView` shows it - a bar, the
speed, the time left and Cancel. Cancel deletes the partial file; nothing is listed before the
file is verified."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QWidget

from assistant.engine.catalog import download as dl
from assistant.engine.catalog.entries import CatalogEntry
from ui.services.workers import Runner
from ui.widgets.progress_panel import ProgressPanel


def wrapped_label(text: str, parent: QWidget, name: str | None = None) -> QLabel:
    """A plain-text, word-wrapped label (the catalog page and the first-run offer)."""
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if name:
        label.setObjectName(name)
    return label


class DownloadController(QObject):
    """One download at a time. ``progressed(DownloadProgress)``, ``finished(DownloadResult)``,
    ``failed(message)``, ``cancelled()``."""

    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, runner: Runner, models: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner, self.models = runner, Path(models)
        self.entry: CatalogEntry | None = None
        self._cancel: threading.Event | None = None

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, entry: CatalogEntry) -> None:
        if self.running:
            return
        self.entry, self._cancel = entry, threading.Event()
        self.runner.submit(dl.download, entry, self.models, cancel=self._cancel, on_progress=self.progressed.emit,
                           on_done=self._done, on_error=self._error, name=f"download-{entry.id}")  # fmt: skip

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def _done(self, result) -> None:
        self._cancel = None
        self.finished.emit(result)

    def _error(self, exc) -> None:
        self._cancel = None
        if isinstance(exc, dl.DownloadCancelled):
            self.cancelled.emit()
        elif isinstance(exc, dl.DownloadError):
            self.failed.emit(str(exc))
        else:
            self.failed.emit(f"The download failed: {type(exc).__name__}: {exc}")


class DownloadProgressView(ProgressPanel):
    """The model's name, a bar, "45% · 0.95 of 2.10 GB · 12.3 MB/s · 1 min 33 s left", Cancel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("downloadProgress", parent, title_name="downloadTitle")

    def begin(self, entry: CatalogEntry) -> None:
        self.title.setText(f"Downloading {entry.name} ({entry.size_gb} GB)")
        self.bar.setRange(0, 0)  # busy until the hub answers
        self.detail.setText(f"Connecting to {dl.endpoint()}…")
        self.cancel.setEnabled(True)

    def set_progress(self, p: dl.DownloadProgress) -> None:
        if p.phase in ("downloading", "verifying", "done") and p.total:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(p.fraction * 1000))
        self.detail.setText(dl.progress_text(p))
        self.cancel.setEnabled(p.phase != "done")
