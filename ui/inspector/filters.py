"""The inspector's filter row: the search box and the kind / status / trust / time filters, read
as one :class:`~ui.inspector.query.MemoryQuery`."""

from __future__ import annotations

from datetime import datetime, time

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import QComboBox, QDateEdit, QHBoxLayout, QLineEdit, QWidget

from ui.format import KIND_LABELS, STATUS_LABELS, TRUST_LABELS
from ui.inspector.query import MemoryQuery

TIME_NOW, TIME_AS_OF, TIME_HISTORY = "now", "as_of", "history"


class FilterBar(QWidget):
    """Search box and filters; :attr:`changed` fires when a filter (not the search text) changes."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        top = QHBoxLayout(self)
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(8)
        self.search = QLineEdit(self)
        self.search.setObjectName("memorySearch")
        self.search.setPlaceholderText("Search by meaning or words")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(260)
        top.addWidget(self.search, 3)
        self.kind = self._combo("All facts", {**KIND_LABELS, "episode": "Your messages"})
        self.kind.setToolTip("All facts: one row per fact (the message it came from is in its details).\n"
                             "Your messages: the messages themselves, kept word for word.")
        self.status = self._combo("In use", {"any": "Any status", **{k: v for k, v in STATUS_LABELS.items() if k != "deleted"}})
        self.status.setToolTip("In use: active memories and those awaiting tidy-up (not faded ones)")
        self.trust = self._combo("Known from: any", TRUST_LABELS)
        self.trust.setToolTip("How Keepsake knows it")
        self.time = QComboBox(self)
        self.time.addItem("True now", TIME_NOW)
        self.time.addItem("True on…", TIME_AS_OF)
        self.time.addItem("Include history", TIME_HISTORY)
        self.time.setToolTip("True now: what Keepsake believes today.\nTrue on…: what was true on a date.\n"
                             "Include history: also superseded, no-longer-true and archived memories.")  # fmt: skip
        self.as_of = QDateEdit(QDate.currentDate(), self)
        self.as_of.setCalendarPopup(True)
        self.as_of.setDisplayFormat("yyyy-MM-dd")
        self.as_of.setVisible(False)
        for w in (self.kind, self.status, self.trust, self.time, self.as_of):
            top.addWidget(w)
        for c in (self.kind, self.status, self.trust):
            c.currentIndexChanged.connect(self.changed)
        self.time.currentIndexChanged.connect(self._time_changed)
        self.as_of.dateChanged.connect(self.changed)

    def _combo(self, first: str, items: dict[str, str]) -> QComboBox:
        c = QComboBox(self)
        c.addItem(first, None)
        for value, label in items.items():
            c.addItem(label, value)
        return c

    def _time_changed(self) -> None:
        self.as_of.setVisible(self.time.currentData() == TIME_AS_OF)
        self.changed.emit()

    def query(self) -> MemoryQuery:
        """The filters as a query; "True on <date>" means as of the end of that local day."""
        mode = self.time.currentData()
        as_of = None
        if mode == TIME_AS_OF:
            d = self.as_of.date().toPython()
            as_of = datetime.combine(d, time(23, 59, 59)).astimezone()
        return MemoryQuery(kind=self.kind.currentData(), status=self.status.currentData(), trust=self.trust.currentData(),
                           as_of=as_of, include_history=mode == TIME_HISTORY)  # fmt: skip
