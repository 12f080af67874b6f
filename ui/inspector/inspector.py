"""The memory inspector: search (hybrid), filters, the lazily loaded table and the detail panel,
with the actions of :mod:`ui.inspector.actions` on the selection."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractItemView, QSplitter, QVBoxLayout, QWidget

from ui.format import plural
from ui.inspector.action_bar import ActionBar
from ui.inspector.actions import MemoryActions
from ui.inspector.detail import MemoryDetail, load_detail
from ui.inspector.filters import FilterBar
from ui.inspector.memory_model import MEMORY_ID_ROLE, MemoryProxy, MemoryTableModel
from ui.inspector.query import MemoryQuery
from ui.inspector.search import BackendLoader, match_strength, search_memories, strong_matches
from ui.inspector.table import MemoryTable
from ui.services.backend import Backend

SEARCH_DEBOUNCE_MS = 300
REFRESH_DEBOUNCE_MS = 250


class Inspector(QWidget):
    openMessage = Signal(int, int)  # session id, message id
    statusMessage = Signal(str)

    def __init__(self, backend: Backend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inspector")
        self.backend = backend
        self.model = MemoryTableModel(BackendLoader(backend), self)
        self.proxy = MemoryProxy(self)
        self.proxy.setSourceModel(self.model)
        self.actions = MemoryActions(backend, self)
        self.current_id: int | None = None
        self._pending_select: list[int] = []
        self._search_text = ""
        self._search_gen = 0
        self._dirty = False
        self._changed_ids: set[int] = set()  # memories changed since the last refresh
        #: the person changed the search or a filter: once the new list is in, a memory shown that
        #: is not in it leaves the detail (a refresh after a change elsewhere keeps it)
        self._detail_follows_list = False
        self._refreshing = False
        self.total = 0
        self._build()
        self._wire()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        lay = QVBoxLayout(self)
        lay.setContentsMargins(16, 12, 16, 10)
        lay.setSpacing(8)

        self.filters = FilterBar(self)
        f = self.filters
        self.search, self.kind, self.status, self.trust, self.time, self.as_of = f.search, f.kind, f.status, f.trust, f.time, f.as_of
        lay.addWidget(f)

        self.bar = ActionBar(self)
        b = self.bar
        self.add_button, self.edit_button, self.invalidate_button = b.add_button, b.edit_button, b.invalidate_button
        self.pin_button, self.delete_button, self.count_label = b.pin_button, b.delete_button, b.count_label
        lay.addWidget(b)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        self.table = MemoryTable(self.model, self.proxy, self.splitter)
        self.detail = MemoryDetail(self.splitter)
        self.detail.setMinimumHeight(180)
        self.table.setMinimumHeight(160)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 5)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setSizes([330, 300])
        lay.addWidget(self.splitter, 1)
        self._update_actions()

    def _wire(self) -> None:
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.run_search)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self.run_search)
        self.filters.changed.connect(self.apply_filters)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.model.pageLoaded.connect(self._page_loaded)
        self.model.modelReset.connect(self._update_empty)
        self.model.modelReset.connect(self._update_actions)  # a reset drops the selection without a signal
        self.add_button.clicked.connect(self.actions.add)
        self.edit_button.clicked.connect(lambda: self._with_current(self.actions.edit))
        self.invalidate_button.clicked.connect(lambda: self._with_current(self.actions.invalidate))
        self.pin_button.clicked.connect(lambda: self._with_current(self.actions.toggle_pin))
        self.delete_button.clicked.connect(lambda: self.actions.delete(self.selected_ids()))
        self.bar.forget_session_button.clicked.connect(self._forget_session)
        self.bar.setExpiry.connect(self._set_expiry)
        self.bar.clearExpiry.connect(self._clear_expiry)
        self.bar.exportSelected.connect(lambda: self.actions.export(self.selected_ids()))
        self.bar.exportAll.connect(lambda: self.actions.export(None))
        QShortcut(QKeySequence.StandardKey.Delete, self.table, activated=lambda: self.actions.delete(self.selected_ids()))
        self.detail.openMessage.connect(self.openMessage)
        self.detail.openMemory.connect(self.show_memory)
        self.detail.restoreVersion.connect(self.actions.restore_version)
        self.detail.forgetOldWording.connect(self.actions.forget_old_wording)
        self.actions.changed.connect(self._memory_changed)
        self.actions.removed.connect(self._memories_removed)
        self.actions.added.connect(self._memory_added)
        self.actions.detailStale.connect(self._reload_detail)
        self.actions.message.connect(self.statusMessage)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_DEBOUNCE_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        self.backend.storeChanged.connect(self._store_changed)
        self.backend.storeReady.connect(self.apply_filters)
        self.backend.memoryReady.connect(self._memory_ready)

    # ------------------------------------------------------------------ queries
    def current_query(self) -> MemoryQuery:
        return self.filters.query()

    def apply_filters(self) -> None:
        if not self.backend.store_ready:
            return
        if self.search.text().strip():
            self.run_search()
            return
        self._search_text = ""
        self._search_gen += 1  # a search still running must not replace this list when it returns
        self._detail_follows_list = not self._refreshing
        q = self.current_query()
        self._remember_selection()
        self.count_label.setText("counting…")
        self.model.set_query(q)
        self._count(q)

    def _count(self, q: MemoryQuery) -> None:
        kwargs = q.kwargs()
        self.backend.read(lambda store: store.count_memories(**kwargs), on_done=self._show_count, name="count")

    def _show_count(self, n: int) -> None:
        if not self.model.search_mode:
            self.count_label.setText(plural(n, "memory", "memories"))
            self.total = n
            self._update_empty()

    def run_search(self) -> None:
        self._search_timer.stop()
        text = self.search.text().strip()
        if not text:
            if self._search_text or self.model.search_mode:
                self._search_text = ""
                self.apply_filters()
            return
        if not self.backend.store_ready:
            return
        self._search_text = text
        self._search_gen += 1
        self._detail_follows_list = not self._refreshing
        gen = self._search_gen
        self.count_label.setText("searching…")
        q = self.current_query()
        retriever = self.backend.retriever

        def done(result) -> None:
            if gen != self._search_gen:
                return
            memories, scores, strong = result
            self._remember_selection()
            self.proxy.sort(-1)
            self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
            self.model.set_results(memories, scores, strong=strong)
            self.count_label.setText(match_strength(text, memories, scores, strong))
            self._update_empty()
            self._follow_list(complete=True)

        def run(store):
            memories, scores = search_memories(store, retriever, text, q)
            return memories, scores, strong_matches(store, retriever, text, q) & {m.id for m in memories}

        self.backend.read(run, on_done=done, name="search")

    def _store_changed(self, change) -> None:
        """The one change signal: whatever changed memories (here, the chat, a tidy-up run, an
        import), the list, the counts and the detail follow without a manual refresh."""
        if not change.memories_changed:
            return
        self._changed_ids |= change.memory_ids
        if self.isVisible():
            self._refresh_timer.start()
        else:
            self._dirty = True

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if self._dirty:
            self._dirty = False
            self.refresh()

    def refresh(self) -> None:
        """Reload what is shown (after memories changed elsewhere), keeping the selection."""
        changed, self._changed_ids = self._changed_ids, set()
        self._refreshing = True
        try:
            if self._search_text:
                self.run_search()
            else:
                self.apply_filters()
        finally:
            self._refreshing = False
        if self.current_id is not None and (self.current_id in changed or not changed):
            self._reload_detail(self.current_id)

    def _memory_ready(self) -> None:
        if self.search.text().strip():
            self.run_search()

    # ------------------------------------------------------------------ selection
    def selected_ids(self) -> list[int]:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return [r.data(MEMORY_ID_ROLE) for r in rows if r.data(MEMORY_ID_ROLE) is not None]

    def selected_memories(self) -> list[Any]:
        ids = set(self.selected_ids())
        return [self.model.memory_at(i) for i in range(self.model.rowCount()) if self.model.memory_at(i).id in ids]

    def _remember_selection(self) -> None:
        ids = self.selected_ids()
        if ids:
            self._pending_select = ids

    def _page_loaded(self, _n: int) -> None:
        if self._pending_select:
            if self.select_ids(self._pending_select, scroll=False):
                self._pending_select = []
                ids = self.selected_ids()
                if len(ids) == 1 and ids[0] != self.current_id:
                    self._load_detail(ids[0])  # select_ids is silent: the detail follows here
        self._update_empty()
        self._follow_list(complete=self.model.exhausted)

    def _follow_list(self, *, complete: bool) -> None:
        """After the person changed the search or a filter: the memory shown, if it is not in the
        new list, leaves the detail (and the actions), so nothing stale stays beside the list.
        ``complete``: every row is loaded (else a later page may still hold it)."""
        if not self._detail_follows_list or self.current_id is None:
            self._detail_follows_list = False
            return
        if self.model.row_of(self.current_id) >= 0:
            self._detail_follows_list = False
        elif complete:
            self._detail_follows_list = False
            self._pending_select = []
            self.current_id = None
            self.detail.show_empty("The memory you were looking at is not in this list. Select one to see it.")
            self._update_actions()

    def select_ids(self, ids: list[int], *, scroll: bool = True) -> bool:
        sel = self.table.selectionModel()
        found = False
        sel.blockSignals(True)
        sel.clearSelection()
        first = None
        for mid in ids:
            row = self.model.row_of(mid)
            if row < 0:
                continue
            idx = self.proxy.mapFromSource(self.model.index(row, 0))
            sel.select(idx, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
            first = first or idx
            found = True
        if first is not None:
            sel.setCurrentIndex(first, QItemSelectionModel.SelectionFlag.NoUpdate)
            if scroll:
                self.table.scrollTo(first, QAbstractItemView.ScrollHint.PositionAtCenter)
        sel.blockSignals(False)
        self.table.viewport().update()
        self._update_actions()
        return found

    def _selection_changed(self, *_args) -> None:
        ids = self.selected_ids()
        self._update_actions()
        if len(ids) == 1 and ids[0] != self.current_id:
            self._load_detail(ids[0])
        elif len(ids) > 1:
            self.current_id = None
            self.detail.show_empty(f"{len(ids)} memories selected. Delete or export them together.")

    def show_memory(self, memory_id: int) -> None:
        """Open one memory (e.g. from "memories used" in the chat): select it if listed, show it."""
        if not self.select_ids([memory_id]):
            self.table.clearSelection()
        self._load_detail(memory_id)

    def _load_detail(self, memory_id: int) -> None:
        self.current_id = memory_id
        self._update_actions()
        self.backend.read(lambda store: load_detail(store, memory_id), on_done=self._detail_loaded,
                          on_error=lambda exc: self._detail_failed(memory_id, exc), name="detail")  # fmt: skip

    def _reload_detail(self, memory_id: int) -> None:
        if memory_id == self.current_id:
            self._load_detail(memory_id)

    def _detail_loaded(self, data) -> None:
        if data.memory.id == self.current_id:
            self.detail.show_data(data)
            self.model.update_memory(data.memory)
            self._update_actions()

    def _detail_failed(self, memory_id: int, exc: BaseException) -> None:
        if memory_id == self.current_id:
            self.current_id = None
            self.detail.show_empty("This memory no longer exists.")
            self._update_actions()

    def _update_empty(self) -> None:
        has_rows = self.model.rowCount() > 0
        loading = self.model.loading
        if has_rows or loading:
            self.table.show_empty(None)
            return
        if self.model.search_mode:
            text = "Nothing matches this search."
        elif not self.backend.store_ready:
            text = "Opening your memory…"
        elif self.current_query() != MemoryQuery():
            text = "No memory matches these filters."
        else:
            text = "Nothing remembered yet.\nWhat you tell Keepsake in a conversation shows up here."
        self.table.show_empty(text)

    def _update_actions(self) -> None:
        self.bar.follow(self.selected_ids(), self._current_memory())

    def _current_memory(self) -> Any | None:
        ids = self.selected_ids()
        if len(ids) != 1 and not (not ids and self.current_id is not None):
            return None
        mid = ids[0] if ids else self.current_id
        row = self.model.row_of(mid)
        if row >= 0:
            return self.model.memory_at(row)
        data = self.detail.data
        return data.memory if data is not None and data.memory.id == mid else None

    def _with_current(self, fn) -> None:
        m = self._current_memory()
        if m is not None:
            fn(m)

    def _set_expiry(self) -> None:
        self._with_current(self.actions.set_expiry)

    def _clear_expiry(self) -> None:
        self._with_current(lambda m: self.actions.clear_expiry(m.id))

    def _forget_session(self) -> None:
        m = self._current_memory()
        if m is not None:
            self.actions.forget_memory_session(m, self.detail.data)

    # ------------------------------------------------------------------ results of actions
    def _memory_changed(self, memory) -> None:
        self.model.update_memory(memory)
        self._update_actions()

    def _memories_removed(self, ids) -> None:
        """Deleted: the rows go; if the memory shown was among them, the next one is shown."""
        doomed = set(ids)
        next_row = -1
        if self.current_id in doomed and (row := self.model.row_of(self.current_id)) >= 0:
            next_row = self.proxy.mapFromSource(self.model.index(row, 0)).row()
        self.model.remove_ids(ids)
        if self.current_id in doomed:
            self.current_id = None
            self.detail.show_empty("Deleted for good. Select a memory to see where it came from and how it changed.")
            if next_row >= 0 and self.proxy.rowCount() > 0:
                self.table.selectRow(min(next_row, self.proxy.rowCount() - 1))  # shows it (selection signal)
        self._update_actions()
        self._update_empty()
        self._refresh_timer.start()  # counts, search results

    def _memory_added(self, memory_id: int) -> None:
        self._pending_select = [memory_id]
        self._load_detail(memory_id)
