"""Settings → Models: the curated catalog, sized to this computer, with Download / Use per model
and the running download's progress (bar, speed, time left, Cancel).

Nothing contacts the network until Download is clicked. "Use" picks a downloaded chat model in
the Chat model field (it loads when the settings are saved); on a downloaded embedding model it
re-embeds every memory with it at once (:mod:`ui.settings.embedder_switch`: progress, Cancel keeps the old
index). Closing Settings cancels a running download (the partial file is removed) or
re-embedding."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from assistant.engine.catalog import download as dl
from assistant.engine.catalog import entries as catalog
from assistant.engine.catalog import machine
from ui.settings.embedder_switch import SwitchController, SwitchProgressView
from ui.settings.model_download import DownloadController, DownloadProgressView, wrapped_label


def facts(entry: catalog.CatalogEntry) -> str:
    """"2.1 GB · needs 3.5 GB RAM · 32,768-token context · Apache-2.0"."""
    return (f"{entry.size_gb} GB · needs {entry.ram_gb:g} GB RAM · {entry.context_length:,}-token context · "
            f"{entry.license}")  # fmt: skip


class CatalogRow(QFrame):
    """One catalog entry: name (and "Recommended"), facts, summary, its button."""

    def __init__(self, entry: catalog.CatalogEntry, recommended: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("catalogRow")
        self.entry = entry
        grid = QGridLayout(self)
        grid.setContentsMargins(8, 8, 8, 8)
        grid.setHorizontalSpacing(12)
        title = entry.name + ("  ·  Recommended for this computer" if recommended else "")
        self.title = wrapped_label(title, self, "catalogName")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        grid.addWidget(self.title, 0, 0)
        role = "chat" if entry.role == "chat" else "memory search (embeddings)"
        grid.addWidget(wrapped_label(f"{facts(entry)} · {role}", self, "hint"), 1, 0)
        grid.addWidget(wrapped_label(entry.summary, self), 2, 0)
        self.button = QPushButton("Download", self)
        grid.addWidget(self.button, 0, 1, 3, 1, Qt.AlignmentFlag.AlignVCenter)
        grid.setColumnStretch(0, 1)

    def set_state(self, downloaded: bool, partial: int, busy: bool, can_switch: bool = False, in_use: bool = False) -> None:
        if downloaded:
            usable = self.entry.role == "chat" or (can_switch and not in_use)
            self.button.setText("In use" if in_use else "Use" if usable else "Downloaded")
            self.button.setEnabled(usable and not busy)
            tip = "Re-embeds your memories with it (you can cancel; the old index stays until it is done)"
            self.button.setToolTip("" if self.entry.role == "chat" else tip if usable else "")
        else:
            self.button.setText(f"Resume ({partial / 1e9:.1f} GB done)" if partial else "Download")
            self.button.setEnabled(not busy)
            self.button.setToolTip(f"From {self.entry.repo}; checked (SHA-256) before use")


class CatalogPage(QWidget):
    """``useModel(path)``: the person clicked Use on a downloaded chat model."""

    useModel = Signal(str)

    def __init__(self, controller: DownloadController, parent: QWidget | None = None, *,
                 switcher: SwitchController | None = None, embedder: str = "default") -> None:  # fmt: skip
        super().__init__(parent)
        self.setObjectName("catalogPage")
        self.controller, self.switcher, self.embedder = controller, switcher, embedder
        models = controller.models
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 14, 12, 10)
        lay.setSpacing(10)
        try:
            self.entries = catalog.load()
            error = None
        except catalog.CatalogError as exc:
            self.entries, error = (), str(exc)
        here = machine.probe(models)
        best = catalog.recommend(self.entries, here)
        host = dl.endpoint().split("://", 1)[-1]
        lay.addWidget(wrapped_label(
            f"This computer: {here.total_ram / 1e9:.0f} GB RAM ({here.available_ram / 1e9:.1f} GB free), "
            f"{here.free_disk / 1e9:.0f} GB free disk. Models come from {host} only when you click Download, "
            "and are checked (SHA-256) before Keepsake lists them.", self, "hint"))  # fmt: skip
        if error:
            lay.addWidget(wrapped_label(error, self))
        holder = QWidget(self)
        rows = QVBoxLayout(holder)
        rows.setContentsMargins(0, 0, 0, 0)
        self.rows: list[CatalogRow] = []
        for e in self.entries:
            row = CatalogRow(e, best is not None and e.id == best.id, holder)
            row.button.clicked.connect(lambda _c=False, r=row: self._clicked(r))
            rows.addWidget(row)
            self.rows.append(row)
        rows.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(holder)
        scroll.setMinimumHeight(220)
        lay.addWidget(scroll, 1)
        self.progress = DownloadProgressView(self)
        self.progress.setVisible(False)
        self.progress.cancelClicked.connect(controller.cancel)
        lay.addWidget(self.progress)
        self.switching = SwitchProgressView(self)
        self.switching.setVisible(False)
        lay.addWidget(self.switching)
        self.message = wrapped_label("", self, "hint")
        lay.addWidget(self.message)
        if switcher is not None:
            self.switching.cancelClicked.connect(switcher.cancel)
            switcher.progressed.connect(self.switching.set_progress)
            switcher.finished.connect(self._switched)
            switcher.failed.connect(self._switch_ended)
            switcher.cancelled.connect(lambda: self._switch_ended(
                "Cancelled: your memories are still searched with the previous embedder (its index is kept)."))  # fmt: skip
        controller.progressed.connect(self.progress.set_progress)
        controller.finished.connect(self._finished)
        controller.failed.connect(lambda m: self._ended(m[:1].upper() + m[1:]))
        controller.cancelled.connect(lambda: self._ended("Download cancelled; nothing was kept."))
        self.refresh()

    def refresh(self) -> None:
        models = self.controller.models
        switching = self.switcher is not None and self.switcher.running
        for row in self.rows:
            path = dl.downloaded(row.entry, models)
            row.set_state(path is not None, dl.partial_bytes(row.entry, models), self.controller.running or switching,
                          can_switch=self.switcher is not None, in_use=path is not None and str(path) == self.embedder)  # fmt: skip

    def row(self, entry_id: str) -> CatalogRow:
        return next(r for r in self.rows if r.entry.id == entry_id)

    def _clicked(self, row: CatalogRow) -> None:
        path = dl.downloaded(row.entry, self.controller.models)
        if path is not None and row.entry.role == "embedding" and self.switcher is not None:
            self.message.setText("")
            self.switching.begin(row.entry.name)
            self.switching.setVisible(True)
            self.switcher.start(row.entry.id)
            self.refresh()
            return
        if path is not None:
            self.useModel.emit(str(path))
            self.message.setText(f"{row.entry.name} is chosen as the chat model: Save to switch.")
            return
        self.message.setText("")
        self.progress.begin(row.entry)
        self.progress.setVisible(True)
        self.controller.start(row.entry)
        self.refresh()

    def _finished(self, result) -> None:
        self.progress.setVisible(False)
        self.message.setText(f"{self.controller.entry.name} is downloaded and checked: {result.path}")
        self.refresh()

    def _switched(self, result) -> None:
        self.switching.setVisible(False)
        self.embedder = result.setting
        self.message.setText(f"Memory search uses {result.name} from now on: {result.memories:,} memories "
                             f"re-embedded in {result.seconds:.1f} s.")  # fmt: skip
        self.refresh()

    def _switch_ended(self, text: str) -> None:
        self.switching.setVisible(False)
        self.message.setText(text)
        self.refresh()

    def _ended(self, text: str) -> None:
        self.progress.setVisible(False)
        self.message.setText(text)
        self.refresh()
