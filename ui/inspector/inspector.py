"""The memory inspector: search (hybrid), filters, the lazily loaded table and the detail panel,
with the actions of :mod:`ui.inspector.actions` on the selection."""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from PySide6.QtCore import QDate, QEvent, QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.services.backend import Backend
from ui.format import KIND_LABELS, STATUS_LABELS, TRUST_LABELS, plural
from ui.inspector.actions import MemoryActions
from ui.inspector.detail import MemoryDetail, load_detail
from ui.inspector.memory_model import COLUMN, MEMORY_ID_ROLE, MemoryProxy, MemoryQuery, MemoryTableModel
from ui.inspector.search import BackendLoader, match_strength, search_memories, strong_matches

SEARCH_DEBOUNCE_MS = 300
#: When the table is narrow, these columns are hidden first (in this order) so that the Memory
#: column keeps at least MEMORY_SHARE of the width (and MEMORY_MIN_PX); the detail shows them all.
OPTIONAL_COLUMNS = ("uses", "learned", "source", "trust", "valid_from")
MEMORY_SHARE, MEMORY_MIN_PX = 0.28, 280
REFRESH_DEBOUNCE_MS = 250
TIME_NOW, TIME_AS_OF, TIME_HISTORY = "now", "as_of", "history"


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
        self.total = 0
        self._build()
        self._wire()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        lay = QVBoxLayout(self)
        lay.setContentsMargins(16, 12, 16, 10)
        lay.setSpacing(8)

        top = QHBoxLayout()
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
        lay.addLayout(top)

        bar = QHBoxLayout()
        bar.setSpacing(6)
        self.add_button = self._button("Add…", "Add a memory yourself")
        self.edit_button = self._button("Edit…", "Change the text (saved as a new version)")
        self.invalidate_button = self._button("No longer true…", "It stopped being true at some date")
        self.expiry_button = QToolButton(self)
        self.expiry_button.setText("Expiry")
        self.expiry_button.setObjectName("toolButton")
        self.expiry_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        expiry_menu = QMenu(self.expiry_button)
        self.set_expiry_action = expiry_menu.addAction("Set expiry…", self._set_expiry)
        self.clear_expiry_action = expiry_menu.addAction("Clear expiry", self._clear_expiry)
        self.expiry_button.setMenu(expiry_menu)
        self.pin_button = self._button("Pin", "Pinned memories never fade with time")
        self.delete_button = self._button("Delete…", "Delete for real (shows what goes first)")
        self.delete_button.setObjectName("dangerLink")
        self.forget_session_button = self._button("Forget conversation…", "Forget every memory learned only from this memory's conversation")
        self.export_button = QToolButton(self)
        self.export_button.setText("Export")
        self.export_button.setObjectName("toolButton")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        export_menu = QMenu(self.export_button)
        self.export_selection_action = export_menu.addAction("Selected memories…", lambda: self.actions.export(self.selected_ids()))
        export_menu.addAction("All memories…", lambda: self.actions.export(None))
        self.export_button.setMenu(export_menu)
        for w in (self.add_button, self.edit_button, self.invalidate_button, self.expiry_button, self.pin_button,
                  self.delete_button, self.forget_session_button, self.export_button):  # fmt: skip
            bar.addWidget(w)
        bar.addStretch(1)
        self.count_label = QLabel("", self)
        self.count_label.setObjectName("countLabel")
        bar.addWidget(self.count_label)
        lay.addLayout(bar)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        self.table = QTableView(self.splitter)
        self.table.setObjectName("memoryTable")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(30)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COLUMN["text"], QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(48)
        font = self.table.font()
        font.setPointSizeF(max(8.0, font.pointSizeF() - 0.5))
        self.table.setFont(font)
        fm = self.table.fontMetrics()
        samples = {"kind": "Your message", "valid_from": "2026-12-31", "valid_to": "2026-12-31", "learned": "2026-12-31",
                   "trust": "You confirmed it", "source": "conversation 123", "status": "Expires 2026-12-31", "uses": "Uses"}  # fmt: skip
        hfm = header.fontMetrics()
        self._natural_widths: dict[str, int] = {}
        for key, sample in samples.items():
            header.setSectionResizeMode(COLUMN[key], QHeaderView.ResizeMode.Interactive)
            title = str(self.model.headerData(COLUMN[key], Qt.Orientation.Horizontal))
            width = max(fm.horizontalAdvance(sample), hfm.horizontalAdvance(title) + 12) + 30
            self._natural_widths[key] = width
            self.table.setColumnWidth(COLUMN[key], width)
        self.empty = QLabel("", self.table.viewport())
        self.empty.setObjectName("hint")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.table.viewport().installEventFilter(self)
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

    def _combo(self, first: str, items: dict[str, str]) -> QComboBox:
        c = QComboBox(self)
        c.addItem(first, None)
        for value, label in items.items():
            c.addItem(label, value)
        return c

    def _button(self, text: str, tip: str) -> QPushButton:
        b = QPushButton(text, self)
        b.setObjectName("toolButton")
        b.setToolTip(tip)
        b.setCursor(Qt.CursorShape.PointingHandCursor)
        return b

    def _wire(self) -> None:
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.run_search)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self.run_search)
        for c in (self.kind, self.status, self.trust):
            c.currentIndexChanged.connect(self.apply_filters)
        self.time.currentIndexChanged.connect(self._time_changed)
        self.as_of.dateChanged.connect(self.apply_filters)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.model.pageLoaded.connect(self._page_loaded)
        self.model.modelReset.connect(self._update_empty)
        self.add_button.clicked.connect(self.actions.add)
        self.edit_button.clicked.connect(lambda: self._with_current(self.actions.edit))
        self.invalidate_button.clicked.connect(lambda: self._with_current(self.actions.invalidate))
        self.pin_button.clicked.connect(lambda: self._with_current(self.actions.toggle_pin))
        self.delete_button.clicked.connect(lambda: self.actions.delete(self.selected_ids()))
        self.forget_session_button.clicked.connect(self._forget_session)
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
        mode = self.time.currentData()
        as_of = None
        if mode == TIME_AS_OF:
            d = self.as_of.date().toPython()
            as_of = datetime.combine(d, time(23, 59, 59)).astimezone()
        return MemoryQuery(kind=self.kind.currentData(), status=self.status.currentData(), trust=self.trust.currentData(),
                           as_of=as_of, include_history=mode == TIME_HISTORY)  # fmt: skip

    def _time_changed(self) -> None:
        self.as_of.setVisible(self.time.currentData() == TIME_AS_OF)
        self.apply_filters()

    def apply_filters(self) -> None:
        if not self.backend.store_ready:
            return
        if self.search.text().strip():
            self.run_search()
            return
        self._search_text = ""
        self._search_gen += 1  # a search still running must not replace this list when it returns
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
        if self._search_text:
            self.run_search()
        else:
            self.apply_filters()
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
            self.empty.setVisible(False)
            return
        if self.model.search_mode:
            text = "Nothing matches this search."
        elif not self.backend.store_ready:
            text = "Opening your memory…"
        elif self.current_query() != MemoryQuery():
            text = "No memory matches these filters."
        else:
            text = "Nothing remembered yet.\nWhat you tell Keepsake in a conversation shows up here."
        self.empty.setText(text)
        self.empty.setGeometry(self.table.viewport().rect())
        self.empty.setVisible(True)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self.empty.setGeometry(self.table.viewport().rect())
            self.fit_columns(self.table.viewport().width())
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
            self.table.setColumnHidden(COLUMN[key], key in hidden)

    def _update_actions(self) -> None:
        ids = self.selected_ids()
        one = self._current_memory()
        for b in (self.edit_button, self.invalidate_button, self.expiry_button, self.pin_button):
            b.setEnabled(one is not None)
        self.pin_button.setText("Unpin" if one is not None and one.pinned else "Pin")
        self.clear_expiry_action.setEnabled(one is not None and one.expires_at is not None)
        self.delete_button.setEnabled(bool(ids))
        self.delete_button.setText(f"Delete {len(ids)}…" if len(ids) > 1 else "Delete…")
        self.export_selection_action.setEnabled(bool(ids))
        self.forget_session_button.setEnabled(one is not None and any(s.session_id is not None for s in one.sources))

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
        if m is None:
            return
        src = next((s for s in m.sources if s.session_id is not None), None)
        if src is not None:
            title = f"conversation {src.session_id}"
            if self.detail.data is not None:
                info = next((i for i in self.detail.data.sources if i.source.session_id == src.session_id), None)
                if info is not None and info.session_title:
                    title = info.session_title
            self.actions.forget_session(src.session_id, title)

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
