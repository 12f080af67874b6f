"""The "Saved: ..." line under a reply: what capture kept from the person's message, each item
with an "undo" link that takes exactly that memory back (deleted for real, through the same store
service as ``keepsake memory delete ID``; the widget only asks, :class:`ui.chat.chat_controller.ChatController`
does it). A taken-back item reads "Not kept: ..."; a message that stored nothing shows no line."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QWidget

SAVED, PENDING, TAKEN_BACK = "saved", "pending", "taken_back"
SAVED_PREFIX = "Saved: "  # the plain notice (assistant.memory.capture.saved.saved_notice) this line replaces


class SavedLine(QLabel):
    """``saved``: the turn's ``saved`` list ([{"id", "text", "kind"}], ``TurnResult.saved``); an
    item may carry ``"state"`` (saved | pending | taken_back) when the line is rebuilt."""

    takeBackRequested = Signal(int)  # memory id
    memoryClicked = Signal(int)

    def __init__(self, saved: list[dict[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items = [dict(s, state=s.get("state", SAVED)) for s in saved]
        self.setObjectName("memoryNotice")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setToolTip("What Keepsake kept from your message; “undo” deletes that memory for good")
        self.linkActivated.connect(self._link)
        self._render()

    # -- state -----------------------------------------------------------------------------------
    def ids(self, state: str | None = None) -> list[int]:
        return [int(s["id"]) for s in self.items if state is None or s["state"] == state]

    def set_state(self, memory_id: int, state: str) -> bool:
        """Mark one item (e.g. TAKEN_BACK once the delete is done); False for an id not listed."""
        hit = [s for s in self.items if int(s["id"]) == int(memory_id)]
        for s in hit:
            s["state"] = state
        if hit:
            self._render()
        return bool(hit)

    def _link(self, href: str) -> None:
        kind, _, value = href.partition(":")
        mid = int(value)
        if kind == "undo" and mid in self.ids(SAVED):
            self.set_state(mid, PENDING)
            self.takeBackRequested.emit(mid)
        elif kind == "memory":
            self.memoryClicked.emit(mid)

    # -- text ------------------------------------------------------------------------------------
    def _render(self) -> None:
        kept = [s for s in self.items if s["state"] != TAKEN_BACK]
        gone = [s for s in self.items if s["state"] == TAKEN_BACK]
        parts = []
        if kept:
            parts.append("\u2713 Saved: " + " · ".join(_kept(s) for s in kept))
        if gone:
            parts.append("Not kept: " + " · ".join(escape(str(s["text"])) for s in gone))
        self.setText("<br>".join(parts))
        self.setVisible(bool(self.items))

    def plain(self) -> str:
        """The line without markup (for tests and accessibility)."""
        kept = [s for s in self.items if s["state"] != TAKEN_BACK]
        gone = [s for s in self.items if s["state"] == TAKEN_BACK]
        out = []
        if kept:
            out.append("Saved: " + "; ".join(str(s["text"]) for s in kept))
        if gone:
            out.append("Not kept: " + "; ".join(str(s["text"]) for s in gone))
        return "\n".join(out)


def _kept(s: dict[str, Any]) -> str:
    mid = int(s["id"])
    text = f"<a href='memory:{mid}' style='text-decoration:none;color:#2f6b3a'>{escape(str(s['text']))}</a>"
    if s["state"] == PENDING:
        return f"{text} <span style='color:#7a8088'>(taking back…)</span>"
    return f"{text} <a href='undo:{mid}' title='Delete this memory (#{mid}) for good'>undo</a>"
