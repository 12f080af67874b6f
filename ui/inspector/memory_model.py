"""The inspector's item model: a ``QAbstractTableModel`` over the memory service, fetched lazily
page by page (``canFetchMore``/``fetchMore`` over ``list_memories(limit, offset)``), plus the
``QSortFilterProxyModel`` that sorts what is loaded.

Pages are requested through a *loader* so the same model works synchronously (tests,
``QAbstractItemModelTester``) and asynchronously (the app: the page is read on a worker thread
and handed back with :meth:`MemoryTableModel.receive_page`). A page that arrives for an older
query (the filters changed meanwhile) is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Callable, Protocol, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont

from assistant.memory.consolidation.plans import temporal
from ui.format import KIND_LABELS, KIND_TIPS, TRUST_LABELS, day, short_date, source_label, status_label

PAGE_SIZE = 200
MEMORY_ID_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
SCORE_ROLE = Qt.ItemDataRole.UserRole + 3

COLUMNS: tuple[tuple[str, str], ...] = (
    ("text", "Memory"),
    ("kind", "Kind"),
    ("valid_from", "True from"),
    ("valid_to", "True until"),
    ("learned", "Learned"),
    ("trust", "Known from"),
    ("source", "Source"),
    ("status", "Status"),
    ("uses", "Uses"),
)
COLUMN = {key: i for i, (key, _) in enumerate(COLUMNS)}

Index = QModelIndex | QPersistentModelIndex


#: The default view lists facts, one row each; the messages they came from (episodes) are under
#: the "Your messages" kind filter and in each fact's sources, not listed beside it.
FACT_KINDS = ("profile", "fact", "experience")


@dataclass(frozen=True)
class MemoryQuery:
    """The inspector's filters, turned into ``list_memories`` keyword arguments."""

    kind: str | None = None
    status: str | None = None  # None: active + resolving (the default view); "any": every status
    trust: str | None = None
    text: str | None = None  # substring filter (hybrid search is separate)
    as_of: datetime | None = None  # "true on this date"
    include_history: bool = False  # superseded, no-longer-true and archived too

    def kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"kind": self.kind or FACT_KINDS}
        if self.status == "any":
            kw["include_archived"] = True
        elif self.status:
            kw["status"] = self.status
        if self.trust:
            kw["trust"] = self.trust
        if self.text:
            kw["text"] = self.text
        if self.as_of is not None:
            kw["as_of"] = self.as_of
        if self.include_history:
            kw["include_all"] = True
        return kw

    def with_text(self, text: str | None) -> "MemoryQuery":
        return replace(self, text=text or None)

    def accepts(self, memory: Any, now: datetime | None = None) -> bool:
        """Whether ``memory`` belongs in this view, by the store's own rules (a memory changed
        in place leaves a view it no longer matches; search hits get the same filters).
        Time: "true now" = valid now, not superseded, expiry not passed; "true on D" = valid on
        D; history = no time filter (:func:`assistant.memory.consolidation.plans.temporal.visible`)."""
        if memory.kind.value != self.kind if self.kind else memory.kind.value not in FACT_KINDS:
            return False
        if self.trust and memory.trust.value != self.trust:
            return False
        if self.status == "any" or self.include_history:
            status_ok = memory.status.value != "deleted"
        elif self.status:
            status_ok = memory.status.value == self.status
        else:
            status_ok = memory.status.value in ("active", "resolving")
        if not status_ok:
            return False
        if self.include_history:
            return True
        now = now or datetime.now(timezone.utc)
        if self.as_of is None and memory.expires_at is not None and memory.expires_at <= now:
            return False
        return temporal.visible(temporal.FactTimes.of(memory), now=now, as_of=self.as_of)


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
            self._rows.sort(key=lambda m: self._sort_key(m, key, 0), reverse=order == Qt.SortOrder.DescendingOrder)
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
                return _HEADER_TIPS.get(COLUMNS[section][0])
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
            return self._display(m, key)
        if role == MEMORY_ID_ROLE:
            return m.id
        if role == SORT_ROLE:
            return self._sort_key(m, key, row)
        if role == SCORE_ROLE:
            return self._scores.get(m.id)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(m, key)
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

    # ------------------------------------------------------------------ cell contents
    def _faded(self, m: Any) -> bool:
        if m.status.value in ("archived", "deleted") or m.expired_at is not None:
            return True
        return m.invalid_at is not None and m.invalid_at <= self._now

    @staticmethod
    def _display(m: Any, key: str) -> str:
        if key == "text":
            text = " ".join(m.text.split())
            return ("★ " if m.pinned else "") + text
        if key == "kind":
            return KIND_LABELS.get(m.kind.value, m.kind.value)
        if key == "valid_from":
            return day(m.valid_at) or "—"
        if key == "valid_to":
            return day(m.invalid_at) or "now"
        if key == "learned":
            return day(m.created_at)
        if key == "trust":
            return TRUST_LABELS.get(m.trust.value, m.trust.value)
        if key == "source":
            return source_label(m.sources)
        if key == "status":
            return status_label(m)
        if key == "uses":
            return str(m.use_count)
        return ""

    @staticmethod
    def _sort_key(m: Any, key: str, row: int) -> Any:
        if key == "text":
            return m.text.casefold()
        if key == "kind":
            return m.kind.value
        if key == "valid_from":
            return m.valid_at.isoformat() if m.valid_at else ""
        if key == "valid_to":
            return m.invalid_at.isoformat() if m.invalid_at else "9999"
        if key == "learned":
            return m.created_at.isoformat()
        if key == "trust":
            return m.trust.rank
        if key == "source":
            s = m.sources[0] if m.sources else None
            return (s.session_id or 0) * 1_000_000 + (s.message_id or 0) if s else -1
        if key == "status":
            return m.status.value
        if key == "uses":
            return m.use_count
        return row

    def _tooltip(self, m: Any, key: str) -> str:
        if key == "text":
            score = self._scores.get(m.id)
            extra = f"\n\nRelevance {score:.2f}" if score is not None else ""
            if self._strong is not None:
                extra += "\nClose match" if m.id in self._strong else "\nOnly loosely related to the search"
            return f"#{m.id} · version {m.version}\n\n{m.text}{extra}"
        if key == "source" and m.sources:
            return "\n".join(source_label([s]) + f" · {s.speaker} · {s.extractor}" for s in m.sources)
        if key == "kind":
            return KIND_TIPS.get(m.kind.value, self._display(m, key))
        if key == "status" and m.expires_at is not None:
            return f"{status_label(m)} · forgotten automatically on {short_date(m.expires_at)}"
        if key in ("valid_from", "valid_to", "learned"):
            value = {"valid_from": m.valid_at, "valid_to": m.invalid_at, "learned": m.created_at}[key]
            return short_date(value) or self._display(m, key)
        return self._display(m, key)


_HEADER_TIPS = {
    "text": "What Keepsake remembers (★ pinned: never fades)",
    "kind": "About you, a fact, one of your messages kept word for word, or a lesson about how to help you",
    "valid_from": "When it became true",
    "valid_to": "When it stopped being true (“now”: still true)",
    "learned": "When Keepsake learned it",
    "trust": "How Keepsake knows it: you said it, you confirmed it, or it is Keepsake's guess",
    "source": "The conversation it came from",
    "status": "Active; no longer true; replaced by a newer memory; expires on a date; awaiting tidy-up; faded",
    "uses": "How many replies used it",
}


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
