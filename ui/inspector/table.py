"""The inspector's memory list: a sortable, multi-select table whose optional columns hide when it
is narrow, with a line over the viewport when there is nothing to list."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QWidget

from ui.inspector.cells import COLUMN
from ui.inspector.memory_model import MemoryTableModel

#: When the table is narrow, these columns are hidden first (in this order) so that the Memory
#: column keeps at least MEMORY_SHARE of the width (and MEMORY_MIN_PX); the detail shows them all.
OPTIONAL_COLUMNS = ("uses", "learned", "source", "trust", "valid_from")
MEMORY_SHARE, MEMORY_MIN_PX = 0.28, 280
#: A wide value of each narrow column: its natural width is max(sample, title + 12) + 30 px.
SAMPLES = {"kind": "Your message", "valid_from": "2026-12-31", "valid_to": "2026-12-31", "learned": "2026-12-31",
           "trust": "You confirmed it", "source": "conversation 123", "status": "Expires 2026-12-31", "uses": "Uses"}  # fmt: skip


class MemoryTable(QTableView):
    def __init__(self, model: MemoryTableModel, proxy: QSortFilterProxyModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryTable")
        self.setModel(proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(30)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COLUMN["text"], QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(48)
        font = self.font()
        font.setPointSizeF(max(8.0, font.pointSizeF() - 0.5))
        self.setFont(font)
        fm = self.fontMetrics()
        hfm = header.fontMetrics()
        self._natural_widths: dict[str, int] = {}
        for key, sample in SAMPLES.items():
            header.setSectionResizeMode(COLUMN[key], QHeaderView.ResizeMode.Interactive)
            title = str(model.headerData(COLUMN[key], Qt.Orientation.Horizontal))
            width = max(fm.horizontalAdvance(sample), hfm.horizontalAdvance(title) + 12) + 30
            self._natural_widths[key] = width
            self.setColumnWidth(COLUMN[key], width)
        self.empty = QLabel("", self.viewport())
        self.empty.setObjectName("hint")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.viewport().installEventFilter(self)

    def show_empty(self, text: str | None) -> None:
        """Show ``text`` over the viewport (None hides it)."""
        if text is None:
            self.empty.setVisible(False)
            return
        self.empty.setText(text)
        self.empty.setGeometry(self.viewport().rect())
        self.empty.setVisible(True)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.viewport() and event.type() == QEvent.Type.Resize:
            self.empty.setGeometry(self.viewport().rect())
            self.fit_columns(self.viewport().width())
        return super().eventFilter(obj, event)

    def fit_columns(self, available: int) -> None:
        """Hide the optional columns, least useful first, until the Memory column gets
        max(MEMORY_MIN_PX, MEMORY_SHARE * available); show them again when there is room.
        E.g. 1220 px (a 1280 px window): the others take ~925, Memory would get 295 < 342, so
        Uses goes and Memory gets 355; 940 px (the minimum): Uses, Learned and Source go and
        Memory gets ~330 >= 280."""
        need = max(MEMORY_MIN_PX, int(available * MEMORY_SHARE))
        hidden: set[str] = set()
        for key in (None, *OPTIONAL_COLUMNS):
            if key is not None:
                hidden.add(key)
            if available - sum(w for k, w in self._natural_widths.items() if k not in hidden) >= need:
                break
        for key in self._natural_widths:
            self.setColumnHidden(COLUMN[key], key in hidden)
