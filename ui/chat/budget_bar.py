"""The context budget bar: how the model's window is shared by the assembler's sections
(system prompt, note, summary, conversation, memories, reminders, your message, reply reserve),
with the compaction threshold marked."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from ui.format import SECTION_LABELS

SECTION_COLORS = {
    "system": "#8fa3b8",
    "note": "#b79ad1",
    "summary": "#9cc5b4",
    "history": "#6f9fd8",
    "retrieved_memories": "#e2b25e",
    "reminders": "#e39b85",
    "current_input": "#5fb3a1",
    "output_reserve": "#d4d8de",
}


def budget_sections(budget: dict[str, Any] | None) -> tuple[int, int, list[dict[str, Any]]]:
    """(window, compaction threshold, sections) from a TurnResult.budget (assembler report)."""
    if not budget:
        return 0, 0, []
    report = budget.get("budget", budget)
    return int(report.get("window") or 0), int(report.get("compaction_threshold") or 0), list(report.get("sections") or [])


class BudgetStrip(QWidget):
    """The painted bar itself."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window_tokens = 0
        self.threshold = 0
        self.sections: list[dict[str, Any]] = []
        self.setMinimumWidth(120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(300, 10)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(120, 10)

    def paintEvent(self, _event) -> None:  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        clip = QPainterPath()
        clip.addRoundedRect(r, 4, 4)
        p.fillPath(clip, QColor("#edf0f3"))
        if self.window_tokens > 0:
            p.setClipPath(clip)
            x = r.left()
            for s in self.sections:
                used = int(s.get("allocated") or 0)
                if used <= 0:
                    continue
                w = r.width() * used / self.window_tokens
                p.fillRect(QRectF(x, r.top(), w, r.height()), QColor(SECTION_COLORS.get(s.get("name"), "#9aa4ae")))
                x += w
            p.setClipping(False)
            if 0 < self.threshold < self.window_tokens:
                tx = r.left() + r.width() * self.threshold / self.window_tokens
                p.setPen(QPen(QColor("#5d6670"), 1.2, Qt.PenStyle.DashLine))
                p.drawLine(int(tx), int(r.top()) - 1, int(tx), int(r.bottom()) + 1)
        p.setPen(QPen(QColor("#d5dae0"), 1))
        p.drawPath(clip)


class BudgetBar(QWidget):
    """Label + strip. ``set_budget(turn.budget)``; hover for the per-section table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("budgetBar")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(10)
        self.caption = QLabel("Context", self)
        self.caption.setObjectName("budgetCaption")
        lay.addWidget(self.caption)
        self.strip = BudgetStrip(self)
        self.strip.setFixedHeight(8)
        lay.addWidget(self.strip, 1, Qt.AlignmentFlag.AlignVCenter)
        self.figures = QLabel("", self)
        self.figures.setObjectName("budgetFigures")
        lay.addWidget(self.figures)
        self.set_budget(None)

    def set_budget(self, budget: dict[str, Any] | None, *, waiting: str = "appears after the first reply") -> None:
        """``waiting``: what the figures say with no budget yet (a reopened conversation's replies
        were sent in another context: "shown after your next message")."""
        window, threshold, sections = budget_sections(budget)
        self.strip.window_tokens, self.strip.threshold, self.strip.sections = window, threshold, sections
        self.strip.update()
        if not window:
            self.figures.setText(waiting)
            self.setToolTip("How the model's context window is used, section by section")
            return
        used = sum(int(s.get("allocated") or 0) for s in sections if s.get("name") != "output_reserve")
        counting = (budget or {}).get("token_counting") or {}
        estimated = counting.get("exact") is False
        self.figures.setText(f"≈{used:,} / {window:,} tokens (estimated)" if estimated else f"{used:,} / {window:,} tokens")
        how = f"<p>Tokens counted with {escape(str(counting['detail']), quote=False)}.</p>" if counting.get("detail") else ""
        rows = []
        for s in sections:
            name = s.get("name", "?")
            color = SECTION_COLORS.get(name, "#9aa4ae")
            rows.append(
                f"<tr><td><span style='color:{color}'>■</span> {SECTION_LABELS.get(name, name)}</td>"
                f"<td align=right>&nbsp;&nbsp;{int(s.get('allocated') or 0):,}</td>"
                f"<td align=right>&nbsp;/ {int(s.get('limit') or 0):,}</td></tr>"
            )
        self.setToolTip(
            "<b>Context window</b> (tokens used / section limit)<table>" + "".join(rows) + "</table>"
            f"<p>Compaction starts at {threshold:,} of {window:,} tokens (dashed line).</p>{how}"
        )

    def section_usage(self) -> dict[str, tuple[int, int]]:
        """{section: (used, limit)} as shown (tests, accessibility)."""
        return {s["name"]: (int(s.get("allocated") or 0), int(s.get("limit") or 0)) for s in self.strip.sections}
