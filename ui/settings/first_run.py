"""The first window's offer: Keepsake works offline with a tiny model; the recommended catalog
model is one click away (Download / Not now). Shown once (:mod:`assistant.engine.catalog.offer`),
never forced: "Not now" and closing keep the tiny model, and Settings → Models has the catalog."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from assistant.engine.catalog import download as dl
from assistant.engine.catalog import machine, offer
from assistant.engine.catalog.entries import CatalogEntry
from assistant.engine.names import DEFAULT_CHAT_NAME
from ui.settings.model_download import DownloadController, DownloadProgressView, wrapped_label


class FirstRunDialog(QDialog):
    """``useModel(path)``: the person wants to chat with the downloaded model now."""

    useModel = Signal(str)

    def __init__(self, entry: CatalogEntry, controller: DownloadController, paths, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Welcome to Keepsake")
        self.setObjectName("firstRunDialog")
        self.setMinimumWidth(520)
        self.entry, self.controller, self.paths = entry, controller, paths
        self.result_path: str | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(24, 20, 24, 16)
        lay.setSpacing(12)
        lay.addWidget(wrapped_label("Keepsake works offline right away", self, "pageTitle"))
        lay.addWidget(wrapped_label(f"It comes with a tiny model ({DEFAULT_CHAT_NAME}) that runs on any computer, but it "
                             "cannot hold a real conversation. Your memory works the same with any model.", self))  # fmt: skip
        self.offer = wrapped_label(f"Recommended for this computer: {entry.label()}. {entry.summary} "
                            f"Licence: {entry.license}.", self, "offer")  # fmt: skip
        lay.addWidget(self.offer)
        host = dl.endpoint().split("://", 1)[-1]
        self.note = wrapped_label(f"Download contacts {host} once and checks the file (SHA-256) before Keepsake uses it. "
                           "Nothing is downloaded unless you click Download; Settings → Models has more models.",
                           self, "hint")  # fmt: skip
        lay.addWidget(self.note)
        self.progress = DownloadProgressView(self)
        self.progress.setVisible(False)
        self.progress.cancelClicked.connect(controller.cancel)
        lay.addWidget(self.progress)
        self.message = wrapped_label("", self, "hint")
        self.message.setVisible(False)
        lay.addWidget(self.message)
        lay.addStretch(1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.not_now = QPushButton("Not now", self)
        self.not_now.clicked.connect(self._not_now)
        self.download = QPushButton("Download", self)
        self.download.clicked.connect(self.start_download)
        self.use = QPushButton("Use it now", self)
        self.use.setVisible(False)
        self.use.clicked.connect(self._use)
        for b in (self.not_now, self.download, self.use):
            # a download is a click, never a key: a person who starts typing their first message
            # while this is up must not start one with Enter (a default button) or Space (the focus)
            b.setAutoDefault(False)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            buttons.addWidget(b)
        lay.addLayout(buttons)
        controller.progressed.connect(self.progress.set_progress)
        controller.finished.connect(self._finished)
        controller.failed.connect(self._failed)
        controller.cancelled.connect(self._cancelled)
        self.fit()

    def sizeHint(self) -> QSize:  # noqa: N802 - as tall as the texts need at the minimum width, no more
        return QSize(self.minimumWidth(), self.layout().heightForWidth(self.minimumWidth()))

    def fit(self) -> None:
        """Minimum height = what the wrapped texts need at the minimum width (a dialog's minimum
        size ignores height-for-width); called whenever what is shown changes."""
        self.setMinimumHeight(self.layout().heightForWidth(self.minimumWidth()))

    # -- actions ---------------------------------------------------------------------------------
    def start_download(self) -> None:
        offer.mark_offered(self.paths, "download")
        self.progress.begin(self.entry)
        self.progress.setVisible(True)
        self.message.setVisible(False)
        self.download.setVisible(False)
        self.not_now.setText("Close")
        self.fit()
        self.controller.start(self.entry)

    def _not_now(self) -> None:
        if self.controller.running:
            self.controller.cancel()
        else:
            offer.mark_offered(self.paths, "not now")
        self.reject()

    def _use(self) -> None:
        if self.result_path:
            self.useModel.emit(self.result_path)
        self.accept()

    def closeEvent(self, event) -> None:  # noqa: N802 - closing the window is "Not now"
        self.controller.cancel()
        if not offer.offered(self.paths):
            offer.mark_offered(self.paths, "not now")
        super().closeEvent(event)

    # -- download events -------------------------------------------------------------------------
    def _finished(self, result) -> None:
        self.result_path = str(result.path)
        self.progress.setVisible(False)
        self._say(f"{self.entry.name} is downloaded and checked: {result.path}")
        self.use.setVisible(True)

    def _failed(self, message: str) -> None:
        self.progress.setVisible(False)
        self._say(message[:1].upper() + message[1:])
        self.download.setText("Try again")
        self.download.setVisible(True)

    def _cancelled(self) -> None:
        self.progress.setVisible(False)
        self.download.setVisible(True)
        self._say("Download cancelled; nothing was kept. You can download it later in Settings → Models.")

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(True)
        self.fit()
        self.adjustSize()


def maybe_offer(window) -> FirstRunDialog | None:
    """Show the offer over ``window`` when it is due (module docstring); the dialog or None."""
    provider = window.backend.provider
    paths, settings = provider.paths, provider.settings()
    try:
        entry = offer.first_run_offer(paths, settings, machine.probe(paths.models))
    except Exception:  # noqa: BLE001 - an unreadable catalog never stops the app: no offer
        return None
    if entry is None:
        return None
    controller = DownloadController(window.backend.runner, paths.models, window)
    dlg = FirstRunDialog(entry, controller, paths, window)
    dlg.useModel.connect(window.model_picker.choose)
    dlg.finished.connect(lambda _r: window.discover_models_again())
    QTimer.singleShot(0, dlg.open)
    return dlg
