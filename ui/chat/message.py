"""One message bubble of the conversation: a reply rendered as Markdown (streamed, re-rendered at
most every RENDER_INTERVAL_MS), its copy button, the code-written notices at its top ("Saved to
memory: ..."), and under a reply the "From your memory" line (when the reply missed the memory
that answers the question) and the "memories used" expander; both open the memory in the
inspector."""

from __future__ import annotations

from datetime import datetime
from html import escape
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from assistant.memory.wording import true_since_phrase
from ui.chat.saved_line import SAVED_PREFIX, SavedLine
from ui.format import local_time

RENDER_INTERVAL_MS = 40  # a streaming reply re-renders its Markdown at most this often


class MemoriesUsed(QWidget):
    """"▸ 3 memories used" - expands to the memories injected into this reply."""

    memoryClicked = Signal(int)

    def __init__(self, memories: list[dict[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memories = list(memories)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 2, 0, 0)
        lay.setSpacing(4)
        self.toggle = QToolButton(self)
        self.toggle.setObjectName("memoriesToggle")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        n = len(self.memories)
        self.toggle.setText(f"{n} memor{'y' if n == 1 else 'ies'} used")
        self.toggle.setToolTip("What Keepsake recalled for this reply (click one to open it in the memory inspector)")
        self.toggle.toggled.connect(self._toggled)
        lay.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        self.panel = QFrame(self)
        self.panel.setObjectName("memoriesPanel")
        plist = QVBoxLayout(self.panel)
        plist.setContentsMargins(10, 6, 10, 6)
        plist.setSpacing(6)
        for m in self.memories:
            label = QLabel(self.panel)
            label.setObjectName("memoryUsedItem")
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setText(_memory_line(m))
            label.setToolTip(f"Open memory #{m['id']} in the inspector")
            label.linkActivated.connect(self._link)
            plist.addWidget(label)
        self.panel.setVisible(False)
        lay.addWidget(self.panel)

    def _toggled(self, on: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.panel.setVisible(on)

    def _link(self, href: str) -> None:
        if href.startswith("memory:"):
            self.memoryClicked.emit(int(href.split(":", 1)[1]))


def _memory_line(m: dict[str, Any]) -> str:
    bits = []
    if m.get("valid_at"):
        bits.append(escape(true_since_phrase(m["valid_at"], m.get("start_kind"))))
    bits.append(f"score {float(m.get('score') or 0):.2f}")
    src = m.get("source") or {}
    if src.get("session_id") is not None:
        bits.append(f"from conversation {src['session_id']}")
    elif src.get("extractor"):
        bits.append(escape(str(src["extractor"])))
    meta = " · ".join(bits)
    return (f"<a href='memory:{m['id']}' style='text-decoration:none'>{escape(m['text'])}</a>"
            f"<br><span style='color:#7a8088;font-size:small'>#{m['id']} · {meta}</span>")  # fmt: skip


class MemoryAnswerLine(QLabel):
    """"From your memory: <memory text> · true since 2025-03-01 · #12": the answer Keepsake's memory
    holds, under a reply that did not say it (or that code replaced with it). The memory text
    is a link to the memory in the inspector."""

    memoryClicked = Signal(int)

    def __init__(self, memory_answer: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory_answer = dict(memory_answer)
        self.setObjectName("memoryAnswer")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        mid = int(memory_answer["memory_id"])
        meta = " · ".join(b for b in (true_since_phrase(memory_answer.get("valid_at"), memory_answer.get("start_kind")), f"#{mid}") if b)
        note = ("<br><span style='color:#7a8088;font-size:small'>The model's reply did not match this memory, "
                "so Keepsake answered from it.</span>") if memory_answer.get("replaced_reply") else ""  # fmt: skip
        english = f" <i>[in English: {escape(memory_answer['english'])}]</i>" if memory_answer.get("english") else ""
        self.setText(f"<b>From your memory:</b> <a href='memory:{mid}' style='text-decoration:none'>"
                     f"{escape(memory_answer['text'])}</a>{english} <span style='color:#7a8088'>{escape(meta)}</span>{note}")  # fmt: skip
        self.setToolTip(f"Open memory #{mid} in the inspector")
        self.linkActivated.connect(lambda href: self.memoryClicked.emit(int(href.split(":", 1)[1])))


class MessageWidget(QFrame):
    """One message: who, when, the text (Markdown for replies), copy, memories used; a failed
    reply shows the reason and a Retry button (``retryRequested``)."""

    memoryClicked = Signal(int)
    retryRequested = Signal()
    takeBackRequested = Signal(int)  # a memory id from the "Saved: ..." line

    def __init__(self, role: str, text: str = "", *, at: datetime | None = None, message_id: int | None = None,
                 redacted: bool = False, parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.role = role
        self.message_id = message_id
        self.text = text
        self.setObjectName("userBubble" if role == "user" else "replyBubble")
        self.setProperty("highlight", False)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 10, 14, 10)
        lay.setSpacing(6)
        head = QHBoxLayout()
        head.setSpacing(8)
        self.who = QLabel("You" if role == "user" else "Keepsake", self)
        self.who.setObjectName("bubbleAuthor")
        head.addWidget(self.who)
        self.when = QLabel(local_time(at) if at else "", self)
        self.when.setObjectName("bubbleMeta")
        head.addWidget(self.when)
        self.badge = QLabel("", self)
        self.badge.setObjectName("bubbleBadge")
        self.badge.setVisible(False)
        head.addWidget(self.badge)
        head.addStretch(1)
        self.copy = QToolButton(self)
        self.copy.setObjectName("copyButton")
        self.copy.setText("Copy")
        self.copy.setToolTip("Copy this message")
        self.copy.setCursor(Qt.CursorShape.PointingHandCursor)
        self.copy.clicked.connect(self._copy)
        head.addWidget(self.copy)
        self.retry = QToolButton(self)
        self.retry.setObjectName("retryButton")
        self.retry.setText("Retry")
        self.retry.setToolTip("Send your message again (it is kept; it is not stored twice)")
        self.retry.setCursor(Qt.CursorShape.PointingHandCursor)
        self.retry.setVisible(False)
        self.retry.clicked.connect(self.retryRequested)
        head.addWidget(self.retry)
        lay.addLayout(head)
        self.notices = QLabel(self)
        self.notices.setObjectName("memoryNotice")
        self.notices.setWordWrap(True)
        self.notices.setVisible(False)
        lay.addWidget(self.notices)
        self.saved_line: SavedLine | None = None
        self.body = QLabel(self)
        self.body.setObjectName("bubbleText")
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.body.setOpenExternalLinks(False)
        self.body.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        lay.addWidget(self.body)
        self.memories: MemoriesUsed | None = None
        self.memory_answer: MemoryAnswerLine | None = None
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self._render)
        if redacted:
            self.set_deleted()
        else:
            self._render()

    def set_deleted(self) -> None:
        """The message's text was deleted (a memory or conversation delete redacted it)."""
        self._render_timer.stop()
        self.text = ""
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setText("<i>This message was deleted.</i>")
        self.copy.setEnabled(False)

    # -- text ------------------------------------------------------------------------------------
    def append(self, piece: str) -> None:
        self.text += piece
        if not self._render_timer.isActive():
            self._render_timer.start()

    def set_text(self, text: str) -> None:
        self.text = text
        self._render()

    def _render(self) -> None:
        self._render_timer.stop()
        if self.role == "user":
            self.body.setTextFormat(Qt.TextFormat.PlainText)
            self.body.setText(self.text)
        else:
            self.body.setTextFormat(Qt.TextFormat.MarkdownText)
            self.body.setText(self.text or "…")

    def finish(self, *, message_id: int | None = None, stopped: bool = False, failed: str | None = None,
               injected: list[dict[str, Any]] | None = None, at: datetime | None = None,
               memory_answer: dict[str, Any] | None = None, notices: list[str] | None = None,
               saved: list[dict[str, Any]] | None = None) -> None:  # fmt: skip
        if message_id is not None:
            self.message_id = message_id
        if at is not None:
            self.when.setText(local_time(at))
        self._render()
        if stopped:
            self.set_badge("stopped")
        if failed:
            self.set_badge("not sent" if self.role == "user" else "failed")
            self.retry.setVisible(self.role == "assistant")
            if not self.text:
                self.body.setTextFormat(Qt.TextFormat.PlainText)
                self.body.setText(failed)
        if saved:  # the "Saved: ..." notice becomes the line with an undo per item
            notices = [n for n in notices or () if not n.startswith(SAVED_PREFIX)]
            self.set_saved(saved)
        if notices:
            self.set_notices(notices)
        self.set_memory_answer(memory_answer)
        if injected:
            self.set_memories(injected)

    def mark_unanswered(self, on: bool = True) -> None:
        """The person's stored message has no reply yet (the model failed on it earlier, or an
        imported conversation ends with it): a "no reply" badge and Retry, which asks the model now."""
        self.set_badge("no reply" if on else "")
        self.retry.setVisible(on)

    def set_notices(self, notices: list[str]) -> None:
        """Code-written notices ("Saved to memory: ...") at the top of the reply."""
        self.notices.setText("\n".join(f"\u2713 {n}" for n in notices))
        self.notices.setVisible(bool(notices))

    def set_saved(self, saved: list[dict[str, Any]]) -> None:
        """What capture kept from the person's message, each with "undo" (ui/chat/saved_line.py)."""
        if self.saved_line is not None:
            self.saved_line.deleteLater()
            self.saved_line = None
        if not saved:
            return
        self.saved_line = SavedLine(saved, self)
        self.saved_line.takeBackRequested.connect(self.takeBackRequested)
        self.saved_line.memoryClicked.connect(self.memoryClicked)
        lay = self.layout()
        lay.insertWidget(lay.indexOf(self.notices) + 1, self.saved_line)

    def set_memory_answer(self, memory_answer: dict[str, Any] | None) -> None:
        """Show the "From your memory" line when the reply did not say the answer (or was
        replaced by it); nothing otherwise."""
        from assistant.answering import show_memory_line  # deferred: the store (SQLCipher, numpy)


        if self.memory_answer is not None:
            self.memory_answer.deleteLater()
            self.memory_answer = None
        if not show_memory_line(memory_answer):
            return
        assert memory_answer is not None
        self.memory_answer = MemoryAnswerLine(memory_answer, self)
        self.memory_answer.memoryClicked.connect(self.memoryClicked)
        lay = self.layout()
        at = lay.indexOf(self.memories) if self.memories is not None else -1
        lay.insertWidget(at if at >= 0 else lay.count(), self.memory_answer)

    def set_badge(self, text: str) -> None:
        self.badge.setText(text)
        self.badge.setVisible(bool(text))

    def set_memories(self, injected: list[dict[str, Any]]) -> None:
        if self.memories is not None:
            self.memories.deleteLater()
            self.memories = None
        if not injected:
            return
        self.memories = MemoriesUsed(injected, self)
        self.memories.memoryClicked.connect(self.memoryClicked)
        self.layout().addWidget(self.memories)

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text)
        self.copy.setText("Copied")
        QTimer.singleShot(1200, lambda: self.copy.setText("Copy"))

    def set_highlight(self, on: bool) -> None:
        self.setProperty("highlight", on)
        self.style().unpolish(self)
        self.style().polish(self)
