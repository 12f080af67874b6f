"""A long job's progress: a title, a bar with Cancel beside it, and a detail line under it (a model
download, re-embedding the memories). Subclasses fill them in; this only lays them out."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget


class ProgressPanel(QWidget):
    """``title`` (wrapped), ``bar`` (0-1000), ``cancel`` (emits :attr:`cancelClicked`), ``detail``."""

    cancelClicked = Signal()

    def __init__(self, name: str, parent: QWidget | None = None, *, title_name: str = "") -> None:
        super().__init__(parent)
        self.setObjectName(name)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        self.title = QLabel("", self)
        if title_name:
            self.title.setObjectName(title_name)
        self.title.setWordWrap(True)
        lay.addWidget(self.title)
        row = QHBoxLayout()
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        row.addWidget(self.bar, 1)
        self.cancel = QPushButton("Cancel", self)
        self.cancel.clicked.connect(self.cancelClicked)
        row.addWidget(self.cancel)
        lay.addLayout(row)
        self.detail = QLabel("", self)
        self.detail.setObjectName("hint")
        self.detail.setWordWrap(True)
        lay.addWidget(self.detail)
