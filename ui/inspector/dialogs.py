"""Small dialogs of the inspector: add/edit a memory, pick a date ("no longer true since",
expiry)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from PySide6.QtCore import QDate, QDateTime, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
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

from assistant.memory.wording import TRUE_SINCE
from ui.format import KIND_LABELS, day


def to_qdatetime(value: datetime) -> QDateTime:
    return QDateTime.fromSecsSinceEpoch(int(value.timestamp()))


def from_qdatetime(value: QDateTime) -> datetime:
    return datetime.fromtimestamp(value.toSecsSinceEpoch()).astimezone()


class MemoryDialog(QDialog):
    """Add a memory (text, kind, since when) or edit one (text and since when; saved as a new
    version). "True since" is a labeled date row, off unless the person sets it."""

    def __init__(self, parent: QWidget | None = None, *, text: str = "", editing: bool = False,
                 valid_at: datetime | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setObjectName("memoryDialog")
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
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.kind = QComboBox(self)
        for value, label in KIND_LABELS.items():
            self.kind.addItem(label, value)
        self.kind.setCurrentIndex(1)  # fact
        if editing:
            self.kind.setVisible(False)
        else:
            form.addRow("Kind", self.kind)
        self.since_on = QCheckBox("Known", self)
        self.since_on.setToolTip("Set the day this became true (leave it off when you don't know)")
        self.since = QDateEdit(self)
        self.since.setObjectName("sinceDate")
        self.since.setCalendarPopup(True)
        self.since.setDisplayFormat("yyyy-MM-dd")
        self.since.setDate(QDate.fromString(day(valid_at), "yyyy-MM-dd") if valid_at else QDate.currentDate())
        self.since_on.setChecked(valid_at is not None)
        self.since.setEnabled(valid_at is not None)
        self.since_on.toggled.connect(self.since.setEnabled)
        self.original_valid_at = valid_at
        row = QHBoxLayout()
        row.addWidget(self.since_on)
        row.addWidget(self.since)
        row.addStretch(1)
        since_label = QLabel(TRUE_SINCE, self)
        since_label.setBuddy(self.since)
        form.addRow(since_label, _wrap(row, self))
        lay.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.text.setFocus()

    def _accept(self) -> None:
        if self.text.toPlainText().strip():
            self.accept()

    def valid_at(self) -> datetime | None:
        """The chosen day as a date (midnight UTC, the store's convention for a day), or None."""
        if not self.since_on.isChecked():
            return None
        d = self.since.date().toPython()
        return datetime(d.year, d.month, d.day, tzinfo=timezone.utc)

    def values(self) -> dict:
        return {"text": self.text.toPlainText().strip(), "kind": self.kind.currentData(), "valid_at": self.valid_at()}


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
