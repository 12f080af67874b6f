"""The consolidation ("tidy-up") panel: last run, next run, proposed changes (preview) and
applied changes per run with undo, and Run now. Talks to a
:class:`~ui.tidyup.consolidation_service.ConsolidationService` (the backend's, unless one is given)."""

from __future__ import annotations

from datetime import datetime, timezone

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.services.backend import Backend
from ui.tidyup.consolidation_service import ConsolidationService, RunView, StatusView
from ui.services.errors import describe
from ui.format import UPDATE_LABELS, local_time, plural

RUN_ROLE = Qt.ItemDataRole.UserRole + 1


NEXT_CHECK_MAX_S = 60.0


def _when(value) -> str:
    return local_time(value) if value else "—"


def _counts(run: RunView) -> str:
    if not run.counts:
        return "no changes"
    return ", ".join(f"{n} {UPDATE_LABELS.get(k, k).lower()}" for k, n in sorted(run.counts.items()))


#: How a run that did not simply finish is labelled (``RunRecord.state``).
_RUN_STATE = {"running": "Running · ", "interrupted": "Interrupted, being rolled back · ",
              "rolled back": "Interrupted, rolled back · ", "failed": "Failed · "}  # fmt: skip


class ConsolidationPanel(QWidget):
    def __init__(self, backend: Backend, service: ConsolidationService | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("consolidationPanel")
        self.backend = backend
        self._service_override = service
        self.status_view: StatusView | None = None
        self._proposed: RunView | None = None
        self._state_message = False  # the message shows the panel's state, not an action's result
        self._status_gen = 0
        self._next_check = QTimer(self)  # asks again once the shown next run has passed
        self._next_check.setSingleShot(True)
        self._next_check.timeout.connect(self._recheck)
        self._stale = False
        lay = QVBoxLayout(self)
        lay.setContentsMargins(16, 14, 16, 12)
        lay.setSpacing(10)
        title = QLabel("Memory tidy-up", self)
        title.setObjectName("pageTitle")
        lay.addWidget(title)
        intro = QLabel(
            "While the computer is idle (and every night), Keepsake merges duplicates, marks facts that stopped "
            "being true and lets unused memories fade. Nothing is deleted silently, and every run can be undone.", self,
        )  # fmt: skip
        intro.setObjectName("hint")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        row = QHBoxLayout()
        row.setSpacing(18)
        self.last = QLabel("Last run: —", self)
        self.next = QLabel("Next run: —", self)
        for w in (self.last, self.next):
            w.setObjectName("fieldValue")
            row.addWidget(w)
        row.addStretch(1)
        self.preview_button = QPushButton("Preview changes", self)
        self.preview_button.setObjectName("toolButton")
        self.preview_button.setToolTip("See what a run would change, without changing anything")
        self.preview_button.clicked.connect(self.preview)
        row.addWidget(self.preview_button)
        self.run_button = QPushButton("Run now", self)
        self.run_button.setObjectName("primaryButton")
        self.run_button.clicked.connect(self.run_now)
        row.addWidget(self.run_button)
        lay.addLayout(row)
        self.message = QLabel("", self)
        self.message.setObjectName("hint")
        self.message.setWordWrap(True)
        lay.addWidget(self.message)
        self.reading = QLabel("", self)  # the background model extraction of imported messages
        self.reading.setObjectName("hint")
        self.reading.setWordWrap(True)
        self.reading.hide()
        lay.addWidget(self.reading)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("runTree")
        self.tree.setHeaderLabels(["Run / change", "Kind", "Memories"])
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setStretchLastSection(False)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.setColumnWidth(1, 170)
        self.tree.setColumnWidth(2, 120)
        self.tree.currentItemChanged.connect(self._selected)
        self.tree.itemExpanded.connect(self._expanded)
        lay.addWidget(self.tree, 1)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        self.undo_button = QPushButton("Undo this run", self)
        self.undo_button.setObjectName("toolButton")
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(self.undo_selected)
        bottom.addWidget(self.undo_button)
        lay.addLayout(bottom)
        backend.consolidationEvent.connect(self._event)
        backend.memoryReady.connect(self.refresh)
        self._set_buttons(False)
        QTimer.singleShot(0, self.refresh)

    @property
    def service(self) -> ConsolidationService:
        return self._service_override or self.backend.consolidation

    # ------------------------------------------------------------------ status
    def _event(self, _payload) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Ask for the status; only the answer to the latest request is shown (an older one,
        e.g. "running" asked during a run, must not overwrite what the run's end showed)."""
        service = self.service
        self._status_gen += 1
        gen = self._status_gen

        def show(st: StatusView) -> None:
            if gen == self._status_gen:
                self._show_status(st)

        self.backend.call(service.status, on_done=show,
                          on_error=lambda exc: show(StatusView(False, describe(exc))), name="jobs-status")  # fmt: skip

    def _set_buttons(self, on: bool) -> None:
        self.run_button.setEnabled(on)
        self.preview_button.setEnabled(on)

    def _show_status(self, st: StatusView) -> None:
        self.status_view = st
        self._set_buttons(st.available and not st.running)
        if not st.available:
            self.last.setText("Last run: —")
            self.next.setText("Next run: —")
            self._set_state_message(st.reason)
            self.tree.clear()
            return
        self.last.setText(f"Last run: {_when(st.last_run)}")
        self.next.setText(f"Next run: {_when(st.next_run)}")
        self._check_again(st.next_run)
        left = st.model_extraction_left
        self.reading.setVisible(bool(left))
        self.reading.setText(f"The chat model still has {plural(left, 'imported message')} to read. It reads them while "
                             "the computer is idle; what you said in them is already in your memory." if left else "")
        self._set_state_message("Tidying up now…" if st.running else "")
        self._show_runs()

    def _check_again(self, when) -> None:
        """The shown next run must not stay on screen once it has passed: ask the scheduler again
        1 s after it (a minute at the latest: the person's activity moves the idle run later)."""
        if not isinstance(when, datetime):
            self._next_check.stop()
            return
        left = (when - datetime.now(timezone.utc)).total_seconds()
        self._next_check.start(int(min(max(left, 0.0) + 1.0, NEXT_CHECK_MAX_S) * 1000))

    def _recheck(self) -> None:
        if self.isVisible():
            self.refresh()
        else:
            self._stale = True  # asked again when the tab is shown

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self.refresh()

    def _say(self, text: str) -> None:
        """The result (or progress) of something the person did: stays until the next one."""
        self._state_message = False
        self.message.setText(text)

    def _set_state_message(self, text: str) -> None:
        """A message about the panel's state ("Opening your memory…", "Tidying up now…") goes
        when the state changes; the result of an action the person took stays until the next one."""
        if text or self._state_message:
            self.message.setText(text)
        self._state_message = bool(text)

    def _show_runs(self) -> None:
        self.tree.clear()
        if self._proposed is not None:
            self.tree.addTopLevelItem(self._run_item(self._proposed, "Proposed now — not applied"))
        for r in self.status_view.runs if self.status_view else []:
            if not r.applied:
                continue  # earlier previews
            label = f"{_RUN_STATE.get(r.status, 'Undone · ' if r.undone else '')}{_when(r.at)} · {r.trigger} · {_counts(r)}"
            self.tree.addTopLevelItem(self._run_item(r, label))
        if self._proposed is not None and self.tree.topLevelItemCount():
            self.tree.topLevelItem(0).setExpanded(True)
        if not self.tree.topLevelItemCount():
            empty = QTreeWidgetItem(["No tidy-up has run yet.", "", ""])
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.tree.addTopLevelItem(empty)

    def _run_item(self, run: RunView, label: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([label, "", plural(run.total, "change")])
        item.setData(0, RUN_ROLE, run)
        item.setToolTip(0, f"Run {run.run_id}")
        if run.changes is not None:
            self._fill(item, run)
        elif run.total:
            item.addChild(QTreeWidgetItem(["Loading…", "", ""]))
        return item

    def _fill(self, item: QTreeWidgetItem, run: RunView) -> None:
        item.takeChildren()
        for c in run.changes or []:
            child = QTreeWidgetItem([c.description, UPDATE_LABELS.get(c.kind, c.kind), ", ".join(f"#{i}" for i in c.memory_ids[:5])])
            child.setToolTip(0, c.description)
            item.addChild(child)
        if not run.changes:
            item.addChild(QTreeWidgetItem(["Nothing to change.", "", ""]))

    def _expanded(self, item: QTreeWidgetItem) -> None:
        run = item.data(0, RUN_ROLE)
        if run is None or run.changes is not None:
            return

        def done(changes) -> None:
            run.changes = changes
            self._fill(item, run)

        self.backend.call(self.service.changes, run.run_id, on_done=done, name="run-changes")

    def _selected(self, item: QTreeWidgetItem | None, _prev=None) -> None:
        run = self._run_of(item)
        self.undo_button.setEnabled(bool(run and run.applied and not run.undone and run.total))

    @staticmethod
    def _run_of(item: QTreeWidgetItem | None) -> RunView | None:
        while item is not None and item.parent() is not None:
            item = item.parent()
        return item.data(0, RUN_ROLE) if item is not None else None

    # ------------------------------------------------------------------ actions
    def preview(self) -> None:
        self._say("Looking for changes…")
        self._set_buttons(False)

        def done(run: RunView) -> None:
            self._proposed = run
            n = run.total or len(run.changes or [])  # records, as a run counts what it applied
            self._say(f"{plural(n, 'change')} would be made. Nothing has been applied." if n else "Nothing to tidy up right now.")
            self._set_buttons(True)
            self._show_runs()

        self.backend.call(self.service.preview, on_done=done, on_error=self._failed, name="jobs-preview")

    def run_now(self) -> None:
        self._set_buttons(False)
        self._say("Tidying up…")

        def done(run: RunView) -> None:
            self._proposed = None
            if self.status_view is not None:
                self.status_view.runs.insert(0, run)
                self._show_runs()
            self._say(f"Done: {plural(run.total, 'change')} applied ({_counts(run)}).")
            self.refresh()

        self.backend.call(self.service.run_now, on_done=done, on_error=self._failed, name="jobs-run")

    def undo_selected(self) -> None:
        run = self._run_of(self.tree.currentItem())
        if run is None or not run.run_id:
            return
        self.undo_button.setEnabled(False)

        def done(_r) -> None:
            self._say("Run undone: the memories are back as they were.")
            self.refresh()

        self.backend.call(self.service.undo, run.run_id, on_done=done, on_error=self._failed, name="jobs-undo")

    def _failed(self, exc: BaseException) -> None:
        self._say(describe(exc))
        self._set_buttons(bool(self.status_view and self.status_view.available))
