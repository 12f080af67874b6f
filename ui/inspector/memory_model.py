"""The inspector's item model: a ``QAbstractTableModel`` over the memory service, fetched lazily
page by page (``canFetchMore``/``fetchMore`` over ``list_memories(limit, offset)``), plus the
``QSortFilterProxyModel`` that sorts what is loaded.

Pages are requested through a *loader* so the same model works synchronously (tests,
``QAbstractItemModelTester``) and asynchronously (the app: the page is read on a worker thread
and handed back with :meth:`MemoryTableModel.receive_page`). A page that arrives for an older
query (the filters changed meanwhile) is dropped.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Protocol, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont

from ui.inspector.cells import COLUMNS, HEADER_TIPS, LOOSE_TAG, display, sort_key, tooltip
from ui.inspector.query import MemoryQuery

PAGE_SIZE = 200
MEMORY_ID_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
SCORE_ROLE = Qt.ItemDataRole.UserRole + 3

Index = QModelIndex | QPersistentModelIndex


class Loader(Protocol):
    def request(self, model: "MemoryTableModel", generation: int, query: MemoryQuery, offset: int, limit: int) -> None: ...


class SyncLoader:
    """Fetch pages on the calling thread with ``fetch(query, offset, limit) -> list[Memory]``.

    The page is read at once but delivered on the next event-loop turn (like a real async
    loader): views and ``QAbstractItemModelTester`` call ``fetchMore`` from inside model
    signals, where inserting rows synchronously would nest a change inside a reset.
    """

    def __init__(self, fetch: Callable[[MemoryQuery, int, int], Sequence[Any]]) -> None:
        self.fetch = fetch

    def request(self, model: "MemoryTableModel", generation: int, query: MemoryQuery, offset: int, limit: int) -> None:
        rows = list(self.fetch(query, offset, limit))
        QTimer.singleShot(0, model, lambda: model.receive_page(generation, offset, rows, limit))


def store_fetch(store) -> Callable[[MemoryQuery, int, int], list[Any]]:
    """A page fetcher over a memory store (``store.list_memories``)."""
    return lambda q, offset, limit: store.list_memories(**q.kwargs(), limit=limit, offset=offset)


class MemoryTableModel(QAbstractTableModel):
    """Rows are :class:`assistant.memory.records.Memory` objects (current versions)."""

    pageLoaded = Signal(int)  # rows now loaded
    loadingChanged = Signal(bool)

    def __init__(self, loader: Loader | None = None, parent=None, *, page_size: int = PAGE_SIZE) -> None:
        super().__init__(parent)
        self.loader = loader
        self.page_size = page_size
        self.query = MemoryQuery()
        self._rows: list[Any] = []
        self._scores: dict[int, float] = {}
        self._strong: set[int] | None = None
        self._generation = 0
        self._exhausted = loader is None
        self._loading = False
        self._pending_offset: int | None = None
        self.search_mode = False
        self._now = datetime.now().astimezone()
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._sorted = False
        self._arrival: dict[int, int] = {}  # memory id -> position in the store's order

    # ------------------------------------------------------------------ queries
    def set_query(self, query: MemoryQuery | None = None, *, fetch: bool = True) -> None:
        """Reset to the first page of ``query`` (the current query when None)."""
        self.beginResetModel()
        if query is not None:
            self.query = query
        self._rows = []
        self._arrival = {}
        self._sorted = False
        self._scores = {}
        self._strong = None
        self._generation += 1
        self._exhausted = self.loader is None
        self._pending_offset = None
        self._set_loading(False)
        self.search_mode = False
        self._now = datetime.now().astimezone()
        self.endResetModel()
        if fetch and self.canFetchMore(QModelIndex()):
            self.fetchMore(QModelIndex())

    def reload(self) -> None:
        self.set_query(None)

    def set_results(self, memories: Sequence[Any], scores: dict[int, float] | None = None, *, strong: set[int] | None = None) -> None:
        """Show a fixed list (hybrid-search results, in rank order); no further paging."""
        self.beginResetModel()
        self._generation += 1
        self._rows = list(memories)
        self._arrival = {m.id: i for i, m in enumerate(self._rows)}
        self._sort, self._sorted = None, False  # results stay in rank order
        self._scores = dict(scores or {})
        self._strong = set(strong) if strong is not None else None  # None: not a search, or strength unknown
        self._exhausted = True
        self._pending_offset = None
        self._set_loading(False)
        self.search_mode = True
        self.endResetModel()
        self.pageLoaded.emit(len(self._rows))

    def receive_page(self, generation: int, offset: int, rows: Sequence[Any], limit: int) -> None:
        """A page arrived (from the loader). Stale or out-of-order pages are dropped."""
        if generation != self._generation or offset != self._pending_offset:
            return  # an older query's page, or a request already answered
        self._pending_offset = None
        if offset != len(self._rows):  # rows were removed meanwhile: ask again from the new end
            self._set_loading(False)
            return
        if len(rows) < limit:
            self._exhausted = True
        seen = {m.id for m in self._rows}
        fresh = [m for m in rows if m.id not in seen]  # a row may shift pages if memories were added meanwhile
        if fresh:
            first = len(self._rows)
            base = len(self._arrival)
            self._arrival.update((m.id, base + i) for i, m in enumerate(fresh))
            self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
            self._rows.extend(fresh)
            self.endInsertRows()
            if self._sort is not None:
                self._apply_sort()
        elif not self._exhausted and rows:
            self._exhausted = True  # only duplicates: stop instead of looping
        self._set_loading(False)  # only now: views may ask for more from inside the insert signals
        self.pageLoaded.emit(len(self._rows))

    def page_failed(self, generation: int) -> None:
        if generation == self._generation:
            self._pending_offset = None
            self._set_loading(False)
            self._exhausted = True

    def _set_loading(self, loading: bool) -> None:
        if loading != self._loading:
            self._loading = loading
            self.loadingChanged.emit(loading)

    @property
    def loading(self) -> bool:
        return self._loading

    @property
    def exhausted(self) -> bool:
        return self._exhausted

    # ------------------------------------------------------------------ lazy fetch
    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: N802, B008
        return not parent.isValid() and not self._exhausted and not self._loading and self.loader is not None

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: N802, B008
        if not self.canFetchMore(parent):
            return
        self._set_loading(True)
        self._pending_offset = len(self._rows)
        self.loader.request(self, self._generation, self.query, len(self._rows), self.page_size)

    # ------------------------------------------------------------------ sorting
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the loaded rows (keys computed once per row, then one C-speed ``list.sort``);
        pages loaded later are merged in. ``column < 0`` restores the store's order."""
        self._sort = (column, order) if 0 <= column < len(COLUMNS) else None
        self._apply_sort()

    def _apply_sort(self) -> None:
        if self._sort is None and not self._sorted:
            return
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        held = [(self._rows[i.row()].id, i.column()) if i.row() < len(self._rows) else None for i in persistent]
        if self._sort is None:
            self._rows.sort(key=lambda m: self._arrival[m.id])
            self._sorted = False
        else:
            column, order = self._sort
            key = COLUMNS[column][0]
            self._rows.sort(key=lambda m: sort_key(m, key, 0), reverse=order == Qt.SortOrder.DescendingOrder)
            self._sorted = True
        where = {m.id: i for i, m in enumerate(self._rows)}
        self.changePersistentIndexList(
            persistent, [self.index(where[h[0]], h[1]) if h is not None and h[0] in where else QModelIndex() for h in held]
        )
        self.layoutChanged.emit()

    # ------------------------------------------------------------------ edits from the UI
    def memory_at(self, row: int) -> Any:
        return self._rows[row]

    def row_of(self, memory_id: int) -> int:
        return next((i for i, m in enumerate(self._rows) if m.id == memory_id), -1)

    def ids(self) -> list[int]:
        return [m.id for m in self._rows]

    def update_memory(self, memory: Any) -> None:
        """A memory changed: update its row, or drop the row when it no longer matches the
        view (e.g. marked no longer true while the view shows what is true now)."""
        row = self.row_of(memory.id)
        if row < 0:
            return
        if not self.query.accepts(memory):
            self.remove_ids([memory.id])
            return
        self._rows[row] = memory
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def remove_ids(self, ids: Sequence[int]) -> None:
        doomed = set(ids)
        for row in sorted((i for i, m in enumerate(self._rows) if m.id in doomed), reverse=True):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._rows[row]
            self.endRemoveRows()

    # ------------------------------------------------------------------ Qt model API
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section][1]
            if role == Qt.ItemDataRole.ToolTipRole:
                return HEADER_TIPS.get(COLUMNS[section][0])
        elif orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(self._rows):
            return str(section + 1)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.parent().isValid():
            return None
        row, col = index.row(), index.column()
        if not (0 <= row < len(self._rows) and 0 <= col < len(COLUMNS)):
            return None
        m = self._rows[row]
        key = COLUMNS[col][0]
        if role == Qt.ItemDataRole.DisplayRole:
            if key == "text" and self._strong is not None and m.id not in self._strong:
                return display(m, key) + LOOSE_TAG  # a search result that only loosely matches says so, not only in grey
            return display(m, key)
        if role == MEMORY_ID_ROLE:
            return m.id
        if role == SORT_ROLE:
            return sort_key(m, key, row)
        if role == SCORE_ROLE:
            return self._scores.get(m.id)
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip(m, key, self._scores.get(m.id), self._strong)
        if role == Qt.ItemDataRole.ForegroundRole:
            return QColor("#8a929b") if self._faded(m) or (self._strong is not None and m.id not in self._strong) else None
        if role == Qt.ItemDataRole.FontRole:
            if m.pinned and key == "text":
                f = QFont()
                f.setWeight(QFont.Weight.DemiBold)
                return f
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if key == "uses":
                return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            return Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        return None

    def _faded(self, m: Any) -> bool:
        if m.status.value in ("archived", "deleted") or m.expired_at is not None:
            return True
        return m.invalid_at is not None and m.invalid_at <= self._now


class MemoryProxy(QSortFilterProxyModel):
    """The view's model: sorting and (optional) filtering of the loaded rows.

    Sorting a Python model through ``QSortFilterProxyModel`` calls ``data()`` from C++ for every
    comparison (4,000 rows: ~1 s on the UI thread). Over a :class:`MemoryTableModel` the proxy
    hands the sort to the source, which computes each row's key once and sorts in C; the proxy
    then passes rows through in source order. Other source models sort the usual way.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        src = self.sourceModel()
        if isinstance(src, MemoryTableModel):
            super().sort(-1, Qt.SortOrder.AscendingOrder)  # pass-through: no per-comparison data() calls
            src.sort(column, order)
        else:
            super().sort(column, order)

    def memory_id(self, proxy_row: int) -> int | None:
        idx = self.index(proxy_row, 0)
        return idx.data(MEMORY_ID_ROLE) if idx.isValid() else None
