"""One conversation at a time: open a session, send a message, stream the reply, stop it.

The :class:`ChatController` owns the current :class:`assistant.session.ChatSession` and runs its
turns on a worker thread; the chat view only listens to its signals. A new conversation is a
*draft* until its first message (no empty sessions are stored). A session the controller lets go
(another conversation opened, the model changed, the window closed) is closed at once: it stops
listening to the event bus, so its history is freed with it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject, Signal

from assistant.memory.errors import NotFound
from ui.services.backend import Backend
from ui.widgets.delete_dialog import report_done

log = logging.getLogger(__name__)


@dataclass
class HistoryItem:
    """A stored message as the chat view shows it."""

    message_id: int
    role: str  # "user" | "assistant"
    text: str
    at: datetime | None
    redacted: bool = False
    injected: list[dict[str, Any]] = field(default_factory=list)  # memories used for this reply
    memory_answer: dict[str, Any] | None = None  # the turn's memory answer (``chat --json`` shape)


def load_history(store, session_id: int) -> tuple[Any, list[HistoryItem]]:
    """The session and its user/assistant messages, each reply with the memories it used (and
    its memory answer)."""
    from assistant.memory.retrieval.answer import logged  # deferred: the store (SQLCipher, numpy) loads on a worker

    session = store.get_session(session_id)
    messages = [m for m in store.messages(session_id) if m.role.value in ("user", "assistant")]
    used: dict[int, list[tuple[int, float, dict[str, float]]]] = {}
    for row in store.injections(session_id=session_id):
        if row.message_id is not None:
            used.setdefault(row.message_id, []).append((row.memory_id, row.score, row.signals))
    ids = sorted({mid for rows in used.values() for mid, _, _ in rows})
    memories = {m.id: m for m in store.get_many(ids)} if ids else {}
    items: list[HistoryItem] = []
    pending: list[dict[str, Any]] = []
    answer: dict[str, Any] | None = None
    for m in messages:
        item = HistoryItem(m.id, m.role.value, m.content, m.observed_at, m.redacted)
        if m.role.value == "user":
            rows = [(memories[mid], score, sig) for mid, score, sig in used.get(m.id, []) if mid in memories]
            pending = [injected_json(mem, score) for mem, score, sig in rows if not sig.get("answer_only")]
            answer = next((a for mem, _, sig in rows if (a := logged(mem, sig)) is not None), None)
        else:
            item.injected, item.memory_answer, pending, answer = pending, answer, [], None
        items.append(item)
    return session, items


def gone_messages(store, session_id: int, shown: list[int]) -> set[int] | None:
    """Which of the ``shown`` messages were deleted or had their text deleted; None when the
    whole conversation is gone."""
    found = shown_changes(store, session_id, shown)
    return None if found is None else found[0]


def shown_changes(store, session_id: int, shown: list[int]) -> tuple[set[int], bool] | None:
    """(the ``shown`` messages deleted or emptied, whether one lost only some sentences - a
    forget removes the sentences about what was forgotten); None when the conversation is gone."""

    try:
        store.get_session(session_id)
    except NotFound:
        return None
    live = {m.id: m for m in store.messages(session_id)}
    gone = {mid for mid in shown if mid not in live or live[mid].redacted}
    return gone, any(mid in live and live[mid].partly_redacted for mid in shown)


def injected_json(memory, score: float) -> dict[str, Any]:
    src = memory.sources[0].to_json() if memory.sources else None
    return {"id": memory.id, "text": memory.text, "score": float(score),
            "valid_at": memory.valid_at.isoformat() if memory.valid_at else None, "source": src}  # fmt: skip


class ChatController(QObject):
    sessionOpened = Signal(object, object, object)  # session id (None: draft), Session|None, list[HistoryItem]
    sessionCreated = Signal(int)  # a draft became a stored session
    userMessage = Signal(str)
    replyStarted = Signal()
    replyPiece = Signal(str)
    replyFinished = Signal(object)  # assistant.session.TurnResult
    replyFailed = Signal(str)
    busyChanged = Signal(bool)
    incognitoChanged = Signal(bool)
    forgetRequested = Signal(object, object)  # candidate JSON dicts (forget.topic.Candidate), what to forget
    budgetChanged = Signal(object)  # the assembler report (TurnResult.budget)
    notice = Signal(str)
    contentDeleted = Signal(object, object)  # message ids, memory ids deleted elsewhere (hide their text)
    takenBack = Signal(int, bool)  # a memory "undo" from a "Saved: ..." line deleted (True) or failed (False)

    def __init__(self, backend: Backend, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.session_id: int | None = None
        self.incognito = False
        self.busy = False
        self.max_tokens = 512
        self._chat = None
        self._cancel: threading.Event | None = None
        self._generation = 0
        self._queued: str | None = None
        self._last_text: str | None = None  # the message of the running/failed turn (Retry resends it)
        backend.modelReady.connect(self._on_model_ready)
        backend.memoryReplaced.connect(self.forget_chat)  # a new embedder: the next turn opens the chat anew

    # ------------------------------------------------------------------ sessions
    def new_session(self, private: bool | None = None) -> None:
        """Start a draft conversation (stored on its first message); ``private``: nothing from it
        is remembered (default: the "every new conversation is private" setting)."""
        self._switch(None)
        if private is None:
            private = bool(self.backend.settings.incognito) if self.backend.settings else False
        self.incognito = private
        self.incognitoChanged.emit(self.incognito)
        self.sessionOpened.emit(None, None, [])

    def open_session(self, session_id: int, *, highlight: int | None = None, on_loaded=None) -> None:
        self._switch(session_id)
        generation = self._generation

        def loaded(result) -> None:
            if generation != self._generation:
                return
            session, items = result
            self.incognito = session.incognito
            self.incognitoChanged.emit(self.incognito)
            self.sessionOpened.emit(session_id, session, items)
            if on_loaded is not None:
                on_loaded(highlight)

        self.backend.read(lambda store: load_history(store, session_id), on_done=loaded, name="load-history")

    def reload(self) -> None:
        if self.session_id is not None and not self.busy:
            self.open_session(self.session_id)

    def _switch(self, session_id: int | None) -> None:
        if self.busy:
            self.stop()
        self._generation += 1
        self._queued = None
        self._last_text = None
        self._set_busy(False)
        self.session_id = session_id
        self._drop_chat()

    def _drop_chat(self) -> None:
        """Let the current ChatSession go, closed (a turn still running on it ends on its own)."""
        chat, self._chat = self._chat, None
        if chat is not None:
            chat.close(flush_capture=False)  # the capture queue is the app's: it keeps running

    def close(self) -> None:
        """The window is closing: stop a reply and close the session."""
        self.stop()
        self._drop_chat()

    def check_deleted(self, change, shown: list[int]) -> None:
        """After a store change: a delete anywhere (inspector, forget, tidy-up, a conversation's
        delete) may have redacted some of the ``shown`` messages or memories listed under the
        replies; :attr:`contentDeleted` says which."""
        if not change.removes_text:
            return
        memories = set(change.deleted_memory_ids)
        sid = self.session_id
        if sid is None or not shown:
            if memories:
                self.contentDeleted.emit(set(), memories)
            return

        def done(found: tuple[set[int], bool] | None) -> None:
            if sid != self.session_id:
                return
            if found is None:  # the conversation itself was deleted
                self.new_session()
                return
            gone, cut = found
            if cut:  # some messages lost sentences: show what stays (without the deleted memories)
                self.contentDeleted.emit(gone, memories)
                self.reload()
                return
            self.contentDeleted.emit(gone, memories)

        self.backend.read(lambda store: shown_changes(store, sid, shown), on_done=done, name="check-deleted")

    def take_back(self, memory_id: int) -> None:
        """"undo" on a "Saved: ..." line: delete exactly this memory for good, through the store's
        delete (what ``keepsake memory delete ID`` does: the sentence it came from leaves the
        message and its episode); :attr:`takenBack` says when it is done."""
        def done(report) -> None:
            self.takenBack.emit(memory_id, bool(report.executed))
            report_done(self.backend, report, f"Not kept: memory #{memory_id} deleted for good.")

        def failed(exc) -> None:
            self.takenBack.emit(memory_id, False)
            self.backend.error.emit(f"Could not take memory #{memory_id} back: {self.backend.describe(exc)}")

        self.backend.write(lambda store: store.delete([memory_id]), on_done=done, on_error=failed, name="take-back")

    def forget_chat(self) -> None:
        """Drop the cached ChatSession (e.g. after the model changed)."""
        if not self.busy:
            self._drop_chat()

    # ------------------------------------------------------------------ a turn
    def send(self, text: str) -> bool:
        text = text.strip("\n")
        if not text.strip() or self.busy:
            return False
        self.userMessage.emit(text)
        self._set_busy(True)
        self.replyStarted.emit()
        if not self.backend.model_ready:
            self._queued = text
            self.notice.emit("The model is still loading; your message will be sent as soon as it is ready.")
            return True
        self._start(text)
        return True

    def _on_model_ready(self, _name: str) -> None:
        self.forget_chat()
        if self._queued is not None:
            text, self._queued = self._queued, None
            self._start(text)

    @property
    def can_retry(self) -> bool:
        return not self.busy and (self.session_id is not None or self._last_text is not None)

    def retry(self) -> bool:
        """Answer the person's last message again after a failed reply: the stored message is
        resent (not stored twice); a message that never reached the store is sent anew."""
        if not self.can_retry:
            return False
        self._set_busy(True)
        self.replyStarted.emit()
        if not self.backend.model_ready:
            self._set_busy(False)
            self.replyFailed.emit("The model is still loading; try again in a moment.")
            return False
        self._start(self._last_text, retry=True)
        return True

    def _start(self, text: str | None, *, retry: bool = False) -> None:
        self._cancel = threading.Event()
        self._last_text = text
        generation = self._generation
        self.backend.call(
            self._turn, text, self._chat, self.session_id, self.incognito, self._cancel, retry,
            on_progress=lambda item: self._progress(generation, item),
            on_done=lambda turn: self._done(generation, turn),
            on_error=lambda exc: self._failed(generation, exc), name="chat-turn",
        )  # fmt: skip

    def _turn(self, text, chat, session_id, incognito, cancel, retry, progress):
        """Worker thread: open the session if needed, stream the reply (or, with ``retry``, answer
        the stored message that got none)."""
        if chat is None:
            chat = self.backend.open_chat(session_id, incognito=incognito if session_id is None else None)
        progress(("chat", chat))
        if retry and (chat.unanswered() is not None or text is None):
            pieces = chat.retry(cancel=cancel, max_tokens=self.max_tokens)
        else:
            pieces = chat.stream(text, cancel=cancel, max_tokens=self.max_tokens)
        for piece in pieces:
            progress(("piece", piece))
        turn = chat.last_turn
        if turn is not None and hasattr(chat, "note_saved"):
            try:  # "Saved: ..." under the reply once the message's capture is done (nothing when nothing was kept)
                chat.note_saved(turn, timeout=30, hint=False)
            except Exception:  # noqa: BLE001 - the notice is optional; the reply stands
                log.warning("could not list what was saved", exc_info=True)
        return turn

    def _progress(self, generation: int, item) -> None:
        kind, value = item
        if generation != self._generation:
            if kind == "chat" and value is not self._chat:  # opened for a conversation no longer shown
                value.close(flush_capture=False)
            return
        if kind == "chat":
            created = self.session_id is None
            if value is not self._chat:
                self._drop_chat()
            self._chat = value
            self.session_id = value.session_id
            if created:
                self.sessionCreated.emit(value.session_id)
        elif kind == "piece":
            self.replyPiece.emit(value)

    def _done(self, generation: int, turn) -> None:
        if generation != self._generation:
            return
        self._last_text = None
        self._set_busy(False)
        self.replyFinished.emit(turn)
        if self._chat is not None and turn is not None:
            # compaction (when due) while the person reads, not on their next message
            self.backend.call(self._chat.maintain, max_tokens=self.max_tokens,
                              on_error=lambda exc: log.warning("context maintenance failed: %s", exc), name="context-maintain")
        if turn is not None and turn.budget:
            self.budgetChanged.emit(turn.budget)
        if turn is not None and turn.forget_candidates:
            self.forgetRequested.emit(list(turn.forget_candidates), turn.forget_query)

    def _failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        self._set_busy(False)
        self.replyFailed.emit(self.backend.describe(exc))

    def stop(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
        if self._queued is not None:  # never started: nothing to wait for
            self._queued = None
            self._set_busy(False)
            self.replyFailed.emit("Stopped before the model was ready.")

    def _set_busy(self, busy: bool) -> None:
        if busy != self.busy:
            self.busy = busy
            self.busyChanged.emit(busy)
