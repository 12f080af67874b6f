"""The Chat tab: the conversations list beside the conversation (a banner for private
conversations, a memory that is off or a model that failed; the messages; the context budget bar
and the composer), and what the chat controller's events do to them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from ui.chat.budget_bar import BudgetBar
from ui.chat.chat_controller import ChatController
from ui.chat.chat_view import ChatView
from ui.chat.composer import Composer
from ui.chat.forget_dialog import confirm_forget
from ui.chat.message import MessageWidget
from ui.chat.sessions_panel import SessionsPanel
from ui.services.backend import Backend


class ChatPage(QWidget):
    status = Signal(str)  # a calm line for the status bar
    error = Signal(str)

    def __init__(self, backend: Backend, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatPage")
        self.backend = backend
        self.controller = controller
        self._reply: MessageWidget | None = None
        self._user: MessageWidget | None = None
        self._build()
        self._wire()

    def _build(self) -> None:
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setChildrenCollapsible(False)
        split.setHandleWidth(1)
        self.sessions = SessionsPanel(self.backend, split)
        self.sessions.setMinimumWidth(220)
        chat_area = QWidget(split)
        chat_area.setObjectName("chatArea")
        col = QVBoxLayout(chat_area)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(0)
        self.banner = QLabel("", chat_area)
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setVisible(False)
        col.addWidget(self.banner)
        self.chat_view = ChatView(chat_area)
        col.addWidget(self.chat_view, 1)
        bottom = QWidget(chat_area)
        bottom.setObjectName("chatBottom")
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(24, 6, 24, 14)
        bl.setSpacing(8)
        self.budget = BudgetBar(bottom)
        bl.addWidget(self.budget)
        self.composer = Composer(bottom)
        bl.addWidget(self.composer)
        col.addWidget(bottom)
        split.addWidget(self.sessions)
        split.addWidget(chat_area)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([270, 1010])
        page_lay = QHBoxLayout(self)
        page_lay.setContentsMargins(0, 0, 0, 0)
        page_lay.addWidget(split)

    def _wire(self) -> None:
        b, c = self.backend, self.controller
        self.sessions.sessionSelected.connect(lambda sid: c.open_session(sid))
        self.sessions.newRequested.connect(c.new_session)
        self.sessions.sessionDeleted.connect(self._session_deleted)
        c.sessionOpened.connect(self._session_opened)
        c.sessionCreated.connect(self._session_created)
        c.userMessage.connect(self._user_message)
        c.replyStarted.connect(self._reply_started)
        c.replyPiece.connect(self._reply_piece)
        c.replyFinished.connect(self._reply_finished)
        c.replyFailed.connect(self._reply_failed)
        c.busyChanged.connect(self.composer.set_busy)
        c.incognitoChanged.connect(lambda _on: self.update_banner())
        c.forgetRequested.connect(lambda cands, query: confirm_forget(b, self.window(), cands, query=query))
        c.budgetChanged.connect(self.budget.set_budget)
        c.notice.connect(self.status)
        c.contentDeleted.connect(self.chat_view.forget)
        c.takenBack.connect(self.chat_view.taken_back)
        self.chat_view.takeBackRequested.connect(c.take_back)
        b.storeChanged.connect(lambda change: c.check_deleted(change, self.chat_view.message_ids()))
        self.composer.sendRequested.connect(c.send)
        self.composer.sendRequested.connect(lambda _t: b.note_activity())
        self.composer.edit.textChanged.connect(b.note_activity)
        self.composer.stopRequested.connect(c.stop)
        self.chat_view.retryRequested.connect(self._retry)

    # ------------------------------------------------------------------ chat events
    def _session_opened(self, sid: int | None, session: Any, items: list) -> None:
        self.chat_view.set_history(items)
        self.sessions.select(sid)
        replied = any(i.role == "assistant" for i in items)
        self.budget.set_budget(None, waiting="shown after your next message" if replied else "appears after the first reply")
        self._reply = self._user = None
        if items and items[-1].role == "user":  # no reply stored (the model failed on it): offer Retry
            self.chat_view.messages[-1].mark_unanswered()
        if sid is None:
            self.composer.edit.setFocus()

    def _session_created(self, sid: int) -> None:
        self.sessions.current_id = sid

    def _session_deleted(self, sid: int) -> None:
        if self.controller.session_id == sid:
            self.controller.new_session()
        self.status.emit("Conversation deleted.")

    def _user_message(self, text: str) -> None:
        self._user = self.chat_view.add_user(text)

    def _reply_started(self) -> None:
        self._reply = self.chat_view.start_reply()

    def _reply_piece(self, piece: str) -> None:
        if self._reply is not None:
            self._reply.append(piece)

    def _reply_finished(self, turn) -> None:
        if self._reply is not None and turn is not None:
            self._reply.set_text(turn.reply)
            self._reply.finish(
                message_id=turn.assistant_message_id,
                stopped=turn.stats.finish_reason == "cancelled",
                injected=[m.to_json() for m in turn.injected_memories],
                memory_answer=turn.memory_answer,
                notices=turn.notices,
                saved=turn.saved,
            )
            self.chat_view.keep_saved(self._reply)
        if self._user is not None and turn is not None:
            self._user.message_id = turn.user_message_id
        self._reply = None

    def _retry(self, w: MessageWidget) -> None:
        """Retry on a failed reply (which goes; the new reply takes its place) or on a stored
        message without a reply."""
        if self.controller.can_retry:
            if w.role == "assistant":
                self.chat_view.remove(w)
            else:
                w.mark_unanswered(False)
            self.controller.retry()

    def _reply_failed(self, message: str) -> None:
        if self._reply is not None:
            self._reply.finish(failed=message)
        self._reply = None
        self.error.emit(message)

    def update_banner(self, model_error: str | None = None) -> None:
        s = self.backend.settings
        text, kind = "", "info"
        if model_error:
            text, kind = f"The chat model could not be loaded: {model_error} Pick another one in the model list.", "error"
        elif self.controller.incognito:
            text = "Private conversation: nothing from it is remembered."
        elif s is not None and not s.memory_enabled:
            text = "Memory is off (Settings): Keepsake neither recalls nor remembers anything."
        self.banner.setText(text)
        self.banner.setProperty("kind", kind)
        self.banner.style().unpolish(self.banner)
        self.banner.style().polish(self.banner)
        self.banner.setVisible(bool(text))

    def open_message(self, session_id: int, message_id: int) -> None:
        """Show the message (loading its conversation if another one is open) and highlight it."""
        self.sessions.select(session_id)
        if self.controller.session_id == session_id and self.chat_view.find(message_id) is not None:
            self.chat_view.highlight(message_id)
            return
        self.controller.open_session(session_id, highlight=message_id,
                                     on_loaded=lambda mid: QTimer.singleShot(50, lambda: self.chat_view.highlight(mid)))  # fmt: skip
