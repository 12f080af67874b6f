"""The conversations list: new, rename, search (by title), delete with a cascade preview, and
"forget what was learned here" (the memories go, the conversation stays)."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from ui.services.backend import Backend
from ui.widgets.delete_dialog import CascadeDialog, report_done
from ui.format import plural, relative

SESSION_ROLE = Qt.ItemDataRole.UserRole + 1
META_ROLE = Qt.ItemDataRole.UserRole + 2
UNTITLED = "New conversation"
REFRESH_DEBOUNCE_MS = 120


class SessionDelegate(QStyledItemDelegate):
    """Title on the first line, "yesterday · 12 messages" underneath."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        fm = option.fontMetrics
        return QSize(200, fm.height() * 2 + 18)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hover = bool(option.state & QStyle.StateFlag.State_MouseOver)
        r = option.rect.adjusted(6, 2, -6, -2)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if selected or hover:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor("#dde8f4") if selected else QColor("#edf1f5"))
            painter.drawRoundedRect(r, 6, 6)
        inner = r.adjusted(10, 6, -10, -6)
        title_font = QFont(option.font)
        title_font.setWeight(QFont.Weight.DemiBold if selected else QFont.Weight.Medium)
        painter.setFont(title_font)
        painter.setPen(QColor("#1f2933"))
        fm = painter.fontMetrics()
        title = fm.elidedText(index.data(Qt.ItemDataRole.DisplayRole) or UNTITLED, Qt.TextElideMode.ElideRight, inner.width())
        painter.drawText(QRect(inner.left(), inner.top(), inner.width(), fm.height()), Qt.AlignmentFlag.AlignLeft, title)
        meta_font = QFont(option.font)
        meta_font.setPointSizeF(max(7.0, option.font.pointSizeF() - 1))
        painter.setFont(meta_font)
        painter.setPen(QColor("#76808a"))
        mfm = painter.fontMetrics()
        meta = mfm.elidedText(index.data(META_ROLE) or "", Qt.TextElideMode.ElideRight, inner.width())
        painter.drawText(QRect(inner.left(), inner.top() + fm.height() + 3, inner.width(), mfm.height()), Qt.AlignmentFlag.AlignLeft, meta)
        painter.restore()


class SessionsPanel(QWidget):
    sessionSelected = Signal(int)
    newRequested = Signal()
    sessionDeleted = Signal(int)

    def __init__(self, backend: Backend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.setObjectName("sessionsPanel")
        self.current_id: int | None = None
        self.sessions: list[Any] = []
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 12, 6, 10)
        lay.setSpacing(8)
        head = QHBoxLayout()
        title = QLabel("Conversations", self)
        title.setObjectName("panelTitle")
        head.addWidget(title)
        head.addStretch(1)
        self.new_button = QPushButton("New", self)
        self.new_button.setObjectName("newSessionButton")
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.new_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.new_button.clicked.connect(self.newRequested)
        head.addWidget(self.new_button)
        lay.addLayout(head)
        self.search = QLineEdit(self)
        self.search.setObjectName("sessionSearch")
        self.search.setPlaceholderText("Search conversations")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        lay.addWidget(self.search)
        self.list = QListWidget(self)
        self.list.setObjectName("sessionList")
        self.list.setItemDelegate(SessionDelegate(self.list))
        self.list.setMouseTracking(True)
        self.list.setUniformItemSizes(True)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemClicked.connect(self._clicked)
        self.list.itemActivated.connect(self._clicked)
        lay.addWidget(self.list, 1)
        self.empty = QLabel("No conversations yet.", self)
        self.empty.setObjectName("hint")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(self.empty)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_DEBOUNCE_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        backend.sessionsChanged.connect(self._refresh_timer.start)  # a turn adds two messages: one refresh
        backend.storeReady.connect(self.refresh)

    # ------------------------------------------------------------------ data
    def refresh(self) -> None:
        if not self.backend.store_ready:
            return
        self.backend.read(lambda store: store.list_sessions(), on_done=self._populate, name="list-sessions")

    def _populate(self, sessions: list[Any]) -> None:
        self.sessions = sessions
        self.list.clear()
        for s in sessions:
            item = QListWidgetItem(s.title or UNTITLED)
            meta = [relative(s.updated_at), plural(s.message_count, "message")]
            if s.incognito:
                meta.append("private")
            item.setData(META_ROLE, " · ".join(meta))
            item.setData(SESSION_ROLE, s.id)
            item.setToolTip(f"{s.title or UNTITLED}\nConversation {s.id}")
            self.list.addItem(item)
            if s.id == self.current_id:
                item.setSelected(True)
                self.list.setCurrentItem(item)
        self.empty.setVisible(not sessions)
        self._filter(self.search.text())

    def _filter(self, text: str) -> None:
        needle = text.strip().casefold()
        for i in range(self.list.count()):
            item = self.list.item(i)
            item.setHidden(bool(needle) and needle not in (item.text() or "").casefold())

    def select(self, session_id: int | None) -> None:
        self.current_id = session_id
        self.list.clearSelection()
        for i in range(self.list.count()):
            item = self.list.item(i)
            if item.data(SESSION_ROLE) == session_id:
                self.list.setCurrentItem(item)
                item.setSelected(True)
                return

    def title_of(self, session_id: int) -> str:
        return next((s.title or UNTITLED for s in self.sessions if s.id == session_id), f"Conversation {session_id}")

    # ------------------------------------------------------------------ actions
    def _clicked(self, item: QListWidgetItem) -> None:
        sid = item.data(SESSION_ROLE)
        if sid is not None and sid != self.current_id:
            self.current_id = sid
            self.sessionSelected.emit(int(sid))

    def _menu(self, pos) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        sid = int(item.data(SESSION_ROLE))
        menu = QMenu(self)
        menu.addAction("Rename…", lambda: self.rename(sid))
        menu.addSeparator()
        menu.addAction("Forget what was learned here…", lambda: self.forget_learned(sid))
        menu.addAction("Delete conversation…", lambda: self.delete(sid))
        menu.exec(self.list.viewport().mapToGlobal(pos))

    def rename(self, session_id: int) -> None:
        current = next((s.title for s in self.sessions if s.id == session_id), "")
        title, ok = QInputDialog.getText(self, "Rename conversation", "Name:", QLineEdit.EchoMode.Normal, current)
        if ok and title.strip() and title.strip() != current:
            self.backend.write(lambda store: store.rename_session(session_id, title.strip()))

    def delete(self, session_id: int, *, confirm: Callable[[dict], bool] | None = None) -> None:
        """Preview what deleting the conversation removes, ask, then delete."""
        title = self.title_of(session_id)

        def ask(plan) -> None:
            data = plan.to_json()
            ok = confirm(data) if confirm else CascadeDialog(
                data, title="Delete conversation", parent=self,
                intro=f"Delete “{title}”, its messages and the memories learned only from it?",
            ).exec() == CascadeDialog.DialogCode.Accepted  # fmt: skip
            if ok:
                self.backend.write(lambda store: store.delete_session(session_id),
                                   on_done=lambda r: self._deleted(session_id, r), name="delete-session")  # fmt: skip

        self.backend.read(lambda store: store.delete_session_preview(session_id), on_done=ask, name="preview-session")

    def _deleted(self, session_id: int, report: Any) -> None:
        if report.executed:
            self.sessionDeleted.emit(session_id)
        report_done(self.backend, report, "")

    def forget_learned(self, session_id: int, *, confirm: Callable[[dict], bool] | None = None) -> None:
        forget_session_memories(self.backend, self, session_id, self.title_of(session_id), confirm=confirm)


def forget_session_memories(backend: Backend, parent: QWidget, session_id: int, title: str, *,
                            confirm: Callable[[dict], bool] | None = None) -> None:  # fmt: skip
    """"Forget everything from this session": delete the memories learned only from it (the
    conversation itself stays; memories with other sources keep those)."""

    def preview(store):
        ids = list(store.delete_session_preview(session_id).memory_ids)
        return ids, (store.delete_preview(ids, redact_sources=False) if ids else None)

    def ask(result) -> None:
        ids, plan = result
        if not ids:
            backend.status.emit(f"Nothing was learned from “{title}”.")
            return
        data = plan.to_json()
        ok = confirm(data) if confirm else CascadeDialog(
            data, title="Forget this conversation's memories", parent=parent, confirm="Forget",
            intro=f"Forget the {plural(len(ids), 'memory', 'memories')} learned only from “{title}”? The conversation stays.",
        ).exec() == CascadeDialog.DialogCode.Accepted  # fmt: skip
        if ok:
            backend.write(lambda store: store.delete(ids, redact_sources=False),
                          on_done=lambda r: report_done(backend, r, f"Forgot {plural(len(ids), 'memory', 'memories')}."))  # fmt: skip

    backend.read(preview, on_done=ask, name="preview-forget-session")

