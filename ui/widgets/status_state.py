"""The status bar shows one state. What is in progress (the chat model loading, the memory
opening) and what is ready ("Model: SmolLM2-135M-Instruct") share the right-hand side; the
left-hand side holds the latest result or error for a few seconds. Both are read from one
:class:`StatusState`, so a finished step ("done in 3.0 s") never sits beside a step still running
("Loading the chat model..."): progress reports of a step belong to that step and go with it."""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QProgressBar, QStatusBar

from ui.widgets.elided_label import ElidedLabel

MESSAGE_MS = 6000  # a result stays this long; an error twice as long


@dataclass(frozen=True)
class StatusState:
    busy: tuple[tuple[str, str], ...] = ()  # (step, its latest progress text), in start order
    steps: tuple[int, int] = (0, 0)  # the model load's (step, steps); (0, 0): no known length
    ready: str = ""  # shown when nothing is in progress ("Model: ...", "No chat model")
    message: str = ""
    error: bool = False

    def started(self, step: str, text: str) -> StatusState:
        """``step`` is running and says ``text`` (a later report of the same step replaces it)."""
        busy = tuple((s, t) for s, t in self.busy if s != step)
        at = next((i for i, (s, _) in enumerate(self.busy) if s == step), len(busy))
        return replace(self, busy=busy[:at] + ((step, text),) + busy[at:])

    def finished(self, step: str, ready: str | None = None) -> StatusState:
        """``step`` is over (its progress texts go); ``ready`` replaces the idle text if given."""
        return replace(self, busy=tuple((s, t) for s, t in self.busy if s != step),
                       ready=self.ready if ready is None else ready)  # fmt: skip

    def said(self, text: str, *, error: bool = False) -> StatusState:
        return replace(self, message=text, error=error and bool(text))

    @property
    def right(self) -> str:
        """What is running (each step's latest report), else what is ready."""
        return " · ".join(t for _, t in self.busy) if self.busy else self.ready


class StatusBar(QObject):
    """Draws a :class:`StatusState` on ``bar``: ``label`` (left: result or error), ``progress_label``
    and ``progress`` (right: running steps, else ready)."""

    def __init__(self, bar: QStatusBar) -> None:
        super().__init__(bar)
        self.state = StatusState()
        bar.setSizeGripEnabled(False)
        self.label = ElidedLabel("", bar)
        self.label.setObjectName("statusText")
        bar.addWidget(self.label, 3)
        self.progress_label = ElidedLabel("", bar)
        self.progress_label.setObjectName("statusText")
        self.progress_label.setAlignment(Qt.AlignmentFlag.AlignRight)
        bar.addPermanentWidget(self.progress_label, 2)
        self.progress = QProgressBar(bar)
        self.progress.setObjectName("loadProgress")
        self.progress.setFixedWidth(120)
        self.progress.setFixedHeight(6)
        self.progress.setTextVisible(False)
        self.progress.setVisible(False)
        bar.addPermanentWidget(self.progress)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(lambda: self.set(self.state.said("")))

    def set(self, state: StatusState) -> None:
        old, self.state = self.state, state
        if (state.message, state.error) != (old.message, old.error):
            self.label.setProperty("error", state.error)
            self.label.style().unpolish(self.label)
            self.label.style().polish(self.label)
            self.label.setText(state.message)
        self.progress_label.setText(state.right)
        self.progress.setVisible(bool(state.busy))
        step, steps = state.steps
        self.progress.setRange(0, steps)
        if steps:
            self.progress.setValue(step)

    # the transitions the window uses
    def start(self, step: str, text: str, at: int = 0, of: int = 0) -> None:
        s = self.state.started(step, text)
        self.set(replace(s, steps=(at, of)) if step == "model" else s)

    def finish(self, step: str, ready: str | None = None) -> None:
        self.set(self.state.finished(step, ready))

    def say(self, text: str, *, error: bool = False) -> None:
        self.set(self.state.said(text, error=error))
        if text:
            self._timer.start(MESSAGE_MS * (2 if error else 1))
