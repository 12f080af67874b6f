"""Keeping a scrolling conversation on its newest message.

A scroll area *follows* its bottom until the person scrolls up; then it stays where they are and
a "Jump to newest" button brings them back. The rule, on every change of the scroll range (a new
message, a streamed piece, a reload, a re-wrap after a resize):

    following  <=>  the person's last scroll left the value within SLACK px of the maximum
    following  =>   value := maximum

Scrolling done by code (following, jumping to a highlighted message) does not change the
person's choice.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import QScrollArea, QToolButton, QWidget

SLACK = 24  # px: within this of the bottom counts as "at the newest message"


class FittedCanvas(QWidget):
    """The scrolled widget of a resizable scroll area whose layout wraps text. Its height is the
    layout's height for the width it is laid out at (the scroll area asks ``heightForWidth``). Qt's
    default minimum size hint is the height at the *narrowest* width, every wrapped label a few
    words a line, which is taller than the content: the scroll range then ran past the newest
    message into blank space. Pair it with ``layout.setSizeConstraint(SetNoConstraint)``."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(super().minimumSizeHint().width(), 0)


class FollowBottom(QObject):
    """Follows the bottom of ``area`` and owns its "Jump to newest" button (``self.jump``)."""

    def __init__(self, area: QScrollArea) -> None:
        super().__init__(area)
        self.area = area
        self.following = True
        self._moving = False  # code is scrolling, not the person
        self.jump = QToolButton(area)
        self.jump.setObjectName("jumpToNewest")
        self.jump.setText("\u2193 Jump to newest")
        self.jump.setToolTip("Scroll to the newest message")
        self.jump.setCursor(Qt.CursorShape.PointingHandCursor)
        self.jump.setVisible(False)
        self.jump.clicked.connect(self.to_bottom)
        bar = area.verticalScrollBar()
        bar.rangeChanged.connect(self._on_range)
        bar.valueChanged.connect(self._on_scroll)
        self._viewport = area.viewport()
        self._viewport.installEventFilter(self)

    def to_bottom(self) -> None:
        """Show the newest message and follow it from now on."""
        self._set(True)
        self.stick()

    def stop(self) -> None:
        """Stop following (code shows something older, e.g. a highlighted message)."""
        self._set(False)

    def move(self, fn: Callable[[], None]) -> None:
        """Scroll from code without touching the person's choice."""
        self._moving = True
        try:
            fn()
        finally:
            self._moving = False
        self._place_jump()

    def stick(self) -> None:
        if self.following:
            bar = self.area.verticalScrollBar()
            self.move(lambda: bar.setValue(bar.maximum()))

    def stick_later(self) -> None:
        """Once pending layout has run (a reload, a re-wrap)."""
        QTimer.singleShot(0, self, self.stick)

    def _set(self, on: bool) -> None:
        self.following = on
        self._place_jump()

    def _on_scroll(self, value: int) -> None:
        if not self._moving:
            self._set(value >= self.area.verticalScrollBar().maximum() - SLACK)

    def _on_range(self, _lo: int, _hi: int) -> None:
        self.stick()
        self._place_jump()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        if obj is self._viewport and event.type() == QEvent.Type.Resize:
            self.stick_later()
            self._place_jump()
        return False

    def _place_jump(self) -> None:
        bar = self.area.verticalScrollBar()
        show = not self.following and bar.value() < bar.maximum() - SLACK
        if show:
            self.jump.adjustSize()
            vp = self.area.viewport().geometry()
            self.jump.move(vp.center().x() - self.jump.width() // 2, vp.bottom() - self.jump.height() - 12)
            self.jump.raise_()
        self.jump.setVisible(show)
