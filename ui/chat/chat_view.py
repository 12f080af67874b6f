"""The conversation: a scrolling column of message bubbles (:mod:`ui.chat.message`) that follows
the newest one unless the person scrolled up (:mod:`ui.chat.follow_bottom`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLayout, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from ui.chat.chat_controller import HistoryItem
from ui.chat.follow_bottom import FittedCanvas, FollowBottom
from ui.chat.message import MessageWidget
from ui.chat.saved_line import SAVED, TAKEN_BACK

COLUMN_MAX_WIDTH = 860


class ChatView(QScrollArea):
    """A scrolling column of :class:`MessageWidget`; shows the newest message (after a send, a
    streamed piece, a retry, a reload, a resize) unless the person scrolled up (ui/chat/follow_bottom.py)."""

    memoryClicked = Signal(int)
    retryRequested = Signal(object)  # the failed reply's MessageWidget
    takeBackRequested = Signal(int)  # "undo" on a saved memory

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatView")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        canvas = FittedCanvas(self)
        canvas.setObjectName("chatCanvas")
        outer = QHBoxLayout(canvas)
        outer.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # see FittedCanvas
        outer.setContentsMargins(24, 18, 24, 18)
        outer.addStretch(1)
        self.column = QWidget(canvas)
        self.column.setObjectName("chatColumn")
        self.column.setMaximumWidth(COLUMN_MAX_WIDTH)
        self.column.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.list = QVBoxLayout(self.column)
        self.list.setContentsMargins(0, 0, 0, 0)
        self.list.setSpacing(12)
        self.placeholder = QLabel(self.column)
        self.placeholder.setObjectName("chatPlaceholder")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setText(
            "<p style='font-size:large'>Start a conversation</p>"
            "<p>Everything stays on this computer. What Keepsake remembers is listed under "
            "<b>Memory</b>, where you can see where it came from, correct it or delete it.</p>"
        )
        self.list.addWidget(self.placeholder)
        self.list.addStretch(1)
        outer.addWidget(self.column, 100)
        outer.addStretch(1)
        self.setWidget(canvas)
        self.messages: list[MessageWidget] = []
        self.follow = FollowBottom(self)
        self.saved: dict[int, list[dict[str, Any]]] = {}  # reply id -> its "Saved" line, kept across reloads

    # -- content ---------------------------------------------------------------------------------
    def clear(self) -> None:
        for w in self.messages:
            self.list.removeWidget(w)
            w.deleteLater()
        self.messages.clear()
        self.placeholder.setVisible(True)
        self.follow.to_bottom()

    def set_history(self, items: list[HistoryItem]) -> None:
        self.setUpdatesEnabled(False)
        try:
            self.clear()
            for item in items:
                w = self._add(item.role, item.text, at=item.at, message_id=item.message_id, redacted=item.redacted)
                if item.memory_answer is not None and not item.redacted:
                    w.set_memory_answer(item.memory_answer)
                if item.injected:
                    w.set_memories(item.injected)
                if item.message_id in self.saved:  # a reload (e.g. after an undo cut the message)
                    w.set_saved(self.saved[item.message_id])
        finally:
            self.setUpdatesEnabled(True)
        self.follow.to_bottom()
        self.follow.stick_later()  # once the reloaded messages are laid out

    def add_user(self, text: str, *, at: datetime | None = None) -> MessageWidget:
        w = self._add("user", text, at=at or datetime.now().astimezone())
        self.follow.to_bottom()  # the person sent it: show it
        return w

    def start_reply(self) -> MessageWidget:
        """A reply begins (right after a send, or on Retry): followed unless the person scrolled up."""
        return self._add("assistant", "", at=datetime.now().astimezone())

    def _add(self, role: str, text: str, **kw: Any) -> MessageWidget:
        self.placeholder.setVisible(False)
        w = MessageWidget(role, text, parent=self.column, **kw)
        w.memoryClicked.connect(self.memoryClicked)
        w.takeBackRequested.connect(self.takeBackRequested)
        w.retryRequested.connect(lambda w=w: (self.follow.to_bottom(), self.retryRequested.emit(w)))
        self.list.insertWidget(self.list.count() - 1, w)
        self.messages.append(w)
        return w

    def keep_saved(self, w: MessageWidget) -> None:
        """Remember the "Saved: ..." line of the reply ``w``, so a reload of its conversation shows it."""
        if w.message_id is not None and w.saved_line is not None:
            self.saved[w.message_id] = w.saved_line.items

    def taken_back(self, memory_id: int, ok: bool) -> None:
        """An "undo" finished: the item reads "Not kept" (or "Saved" again when the delete failed)."""
        for w in self.messages:
            if w.saved_line is not None:
                w.saved_line.set_state(memory_id, TAKEN_BACK if ok else SAVED)
        for items in self.saved.values():
            for s in items:
                if int(s["id"]) == int(memory_id):
                    s["state"] = TAKEN_BACK if ok else SAVED

    def message_ids(self) -> list[int]:
        return [w.message_id for w in self.messages if w.message_id is not None]

    def forget(self, message_ids: set[int], memory_ids: set[int]) -> None:
        """Deleted elsewhere: these messages show as deleted, these memories leave every
        "memories used" list (their text must not stay on screen)."""
        self._drop_saved(memory_ids)
        for w in self.messages:
            if w.message_id in message_ids and w.text:
                w.set_deleted()
            if w.memories is not None and any(m["id"] in memory_ids for m in w.memories.memories):
                w.set_memories([m for m in w.memories.memories if m["id"] not in memory_ids])

    def remove(self, w: MessageWidget) -> None:
        """Take a message out of the view (a failed reply that is being retried)."""
        if w in self.messages:
            self.messages.remove(w)
            self.list.removeWidget(w)
            w.deleteLater()

    def last(self, role: str | None = None) -> MessageWidget | None:
        for w in reversed(self.messages):
            if role is None or w.role == role:
                return w
        return None

    def find(self, message_id: int) -> MessageWidget | None:
        return next((w for w in self.messages if w.message_id == message_id), None)

    def highlight(self, message_id: int) -> bool:
        """Scroll to a message and mark it for a few seconds."""
        w = self.find(message_id)
        if w is None:
            return False
        for other in self.messages:
            other.set_highlight(False)
        w.set_highlight(True)
        self.follow.stop()
        # ``w`` as the timers' context: Qt drops them if the message widget is deleted first
        # (a cleared or closed chat), instead of calling into a dead C++ object.
        QTimer.singleShot(0, w, lambda: self.follow.move(lambda: self.ensureWidgetVisible(w, 0, 80)))
        QTimer.singleShot(4000, w, lambda: w.set_highlight(False))
        return True

    # -- following the bottom (ui/chat/follow_bottom.py) -------------------------------------------------
    def scroll_to_bottom(self) -> None:
        self.follow.to_bottom()

    def newest_visible(self) -> bool:
        """Whether the newest message's last line is inside the viewport."""
        w = self.last()
        if w is None:
            return True
        bottom = w.mapTo(self.viewport(), w.rect().bottomLeft()).y()
        return 0 <= bottom <= self.viewport().height()

    def _drop_saved(self, memory_ids: set[int]) -> None:
        """Memories deleted elsewhere (a forget, the inspector, tidy-up) leave the "Saved: ..."
        lines, on screen and kept for a reload: their text must not stay, and their "undo" has
        nothing left to take back. One the person took back here reads "Not kept"."""
        if not memory_ids:
            return

        def keep(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
            out = []
            for s in items:
                if int(s["id"]) not in memory_ids:
                    out.append(s)
                elif s["state"] != SAVED:  # this line's own undo: pending or done
                    out.append(dict(s, state=TAKEN_BACK))
            return out

        for mid in list(self.saved):
            self.saved[mid] = keep(self.saved[mid])
            if not self.saved[mid]:
                del self.saved[mid]
        for w in self.messages:
            if w.saved_line is not None and set(w.saved_line.ids()) & memory_ids:
                w.set_saved(keep(w.saved_line.items))
                if w.message_id in self.saved and w.saved_line is not None:
                    self.saved[w.message_id] = w.saved_line.items
