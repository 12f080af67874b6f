"""Small dialogs of the inspector: add/edit a memory, pick a date ("no longer true since",
expiry)."""

from __future__ import annotations

from datetime import datetime, timedelta

from PySide6.QtCore import QDateTime, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
    QHBoxLayout,
    QPushButton,
)

from ui.format import KIND_LABELS


def to_qdatetime(value: datetime) -> QDateTime:
    return QDateTime.fromSecsSinceEpoch(int(value.timestamp()))


def from_qdatetime(value: QDateTime) -> datetime:
    return datetime.fromtimestamp(value.toSecsSinceEpoch()).astimezone()


class MemoryDialog(QDialog):
    """Add a memory (text, kind, optionally since when) or edit one's text (a new version)."""

    def __init__(self, parent: QWidget | None = None, *, text: str = "", editing: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit memory" if editing else "Add a memory")
        self.setMinimumWidth(480)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(20, 18, 20, 14)
        lay.setSpacing(10)
        hint = QLabel(
            "Your edit becomes a new version; the old text stays in the history until you delete the memory."
            if editing else "Write it as a self-contained sentence, e.g. “My sister Ana lives in Porto.”",
            self,
        )  # fmt: skip
        hint.setWordWrap(True)
        hint.setObjectName("dialogText")
        lay.addWidget(hint)
        self.text = QPlainTextEdit(self)
        self.text.setPlainText(text)
        self.text.setMinimumHeight(96)
        lay.addWidget(self.text)
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.kind = QComboBox(self)
        for value, label in KIND_LABELS.items():
            self.kind.addItem(label, value)
        self.kind.setCurrentIndex(1)  # fact
        self.since_on = QCheckBox("True since", self)
        self.since = QDateTimeEdit(QDateTime.currentDateTime(), self)
        self.since.setCalendarPopup(True)
        self.since.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.since.setEnabled(False)
        self.since_on.toggled.connect(self.since.setEnabled)
        row = QHBoxLayout()
        row.addWidget(self.since_on)
        row.addWidget(self.since, 1)
        if not editing:
            form.addRow("Kind", self.kind)
            form.addRow("", _wrap(row, self))
        lay.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.text.setFocus()

    def _accept(self) -> None:
        if self.text.toPlainText().strip():
            self.accept()

    def values(self) -> dict:
        return {
            "text": self.text.toPlainText().strip(),
            "kind": self.kind.currentData(),
            "valid_at": from_qdatetime(self.since.dateTime()) if self.since_on.isChecked() else None,
        }


def _wrap(layout, parent: QWidget) -> QWidget:
    w = QWidget(parent)
    layout.setContentsMargins(0, 0, 0, 0)
    w.setLayout(layout)
    return w


class DateDialog(QDialog):
    """Pick a date and time, with optional quick choices (e.g. "in a week")."""

    def __init__(self, parent: QWidget | None, *, title: str, prompt: str, default: datetime,
                 quick: list[tuple[str, timedelta]] | None = None, minimum: datetime | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(380)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(20, 18, 20, 14)
        lay.setSpacing(10)
        label = QLabel(prompt, self)
        label.setWordWrap(True)
        label.setObjectName("dialogText")
        lay.addWidget(label)
        self.edit = QDateTimeEdit(to_qdatetime(default), self)
        self.edit.setCalendarPopup(True)
        self.edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        if minimum is not None:
            self.edit.setMinimumDateTime(to_qdatetime(minimum))
        lay.addWidget(self.edit)
        if quick:
            row = QHBoxLayout()
            for text, delta in quick:
                b = QPushButton(text, self)
                b.setObjectName("quickButton")
                b.clicked.connect(lambda _=False, d=delta: self.edit.setDateTime(to_qdatetime(datetime.now().astimezone() + d)))
                row.addWidget(b)
            row.addStretch(1)
            lay.addLayout(row)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def value(self) -> datetime:
        return from_qdatetime(self.edit.dateTime())
