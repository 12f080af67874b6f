"""The message box: Enter sends, Shift+Enter starts a new line; Send turns into Stop while a
reply streams."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPlainTextEdit, QPushButton, QSizePolicy, QWidget

MAX_LINES = 8


class ComposerEdit(QPlainTextEdit):
    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composerEdit")
        self.setPlaceholderText("Message Keepsake…  (Enter to send, Shift+Enter for a new line)")
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().contentsChanged.connect(self._fit)
        self._fit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            mods = event.modifiers()
            if mods & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
                return
            if not (mods & (Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier)):
                self.submitted.emit()
                return
        super().keyPressEvent(event)

    def _fit(self) -> None:
        lines = max(1, min(MAX_LINES, int(self.document().size().height())))
        fm = self.fontMetrics()
        margins = self.contentsMargins()
        h = lines * fm.lineSpacing() + int(self.document().documentMargin() * 2) + margins.top() + margins.bottom() + 4
        self.setFixedHeight(max(h, 40))

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, self.height())


class Composer(QFrame):
    """Text box + Send/Stop. ``sendRequested(text)`` and ``stopRequested()``."""

    sendRequested = Signal(str)
    stopRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(12, 8, 8, 8)
        lay.setSpacing(8)
        self.edit = ComposerEdit(self)
        self.edit.submitted.connect(self._submit)
        lay.addWidget(self.edit, 1)
        self.button = QPushButton("Send", self)
        self.button.setObjectName("sendButton")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setMinimumWidth(84)
        self.button.clicked.connect(self._clicked)
        lay.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        self._busy = False

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.button.setText("Stop" if busy else "Send")
        self.button.setProperty("stop", busy)
        self.button.style().unpolish(self.button)
        self.button.style().polish(self.button)
        self.button.setToolTip("Stop the reply (Esc)" if busy else "Send (Enter)")

    def _clicked(self) -> None:
        if self._busy:
            self.stopRequested.emit()
        else:
            self._submit()

    def _submit(self) -> None:
        if self._busy:
            return
        text = self.edit.toPlainText()
        if not text.strip():
            return
        self.edit.clear()
        self.sendRequested.emit(text)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape and self._busy:
            self.stopRequested.emit()
            return
        super().keyPressEvent(event)
