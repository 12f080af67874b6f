"""The cascade preview shown before anything is deleted: what goes from each store."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from assistant.memory.wording import quoted
from ui.format import COUNT_LABELS, plural

MAX_CUTS = 8


def plan_rows(plan: dict[str, Any]) -> list[tuple[str, int]]:
    """Non-zero (label, count) rows of a DeletePlan.to_json(), in a stable, readable order."""
    counts = plan.get("counts") or {}
    rows = [(COUNT_LABELS.get(k, k.replace("_", " ")), int(v)) for k, v in counts.items() if int(v or 0) > 0]
    return rows


def plan_notes(plan: dict[str, Any]) -> list[str]:
    notes = []
    derived = plan.get("derived_ids") or []
    if derived:
        notes.append(f"{plural(len(derived), 'memory', 'memories')} built from or copying these will go too.")
    regen = plan.get("regenerate_ids") or []
    if regen:
        notes.append(f"{plural(len(regen), 'summary', 'summaries')} with other sources will be rebuilt now, without this text.")
    detached = plan.get("detached_ids") or []
    if detached:
        notes.append(f"{plural(len(detached), 'memory', 'memories')} also learned elsewhere will stay (they only lose this link).")
    for path in plan.get("exports") or []:
        notes.append(f"An export you made earlier still holds this: {path}. It is your file; Keepsake does not touch it.")
    notes += list(plan.get("notes") or [])
    return notes


def plan_cuts(plan: dict[str, Any]) -> list[str]:
    """Exactly which sentences go and what stays, for each memory and message that is kept."""
    lines = []
    said = {(tuple(c["removed"]), c["kept"]) for c in plan.get("message_edits") or []}
    for cut in plan.get("memory_edits") or []:
        if (tuple(cut["removed"]), cut["kept"]) in said:  # your message's kept copy: listed once, as the message
            continue
        lines.append(f"Memory #{cut['id']} loses {'; '.join(quoted(s) for s in cut['removed'])}. Stays: {quoted(cut['kept'])}")
    for cut in plan.get("message_edits") or []:
        who = "A reply" if cut.get("role") == "assistant" else "Your message"
        stays = f"Stays: {quoted(cut['kept'])}" if cut["kept"] else "Nothing of it stays."
        lines.append(f"{who} (#{cut['id']}) loses {'; '.join(quoted(s) for s in cut['removed'])}. {stays}")
    return lines


def copy_label(copy: dict[str, Any]) -> str:
    """A proposed copy as the CLI says it: "Also delete #2 “…” (same text as an old version of #1)"."""
    return f"Also delete #{copy['id']} {quoted(copy['text'], 90)} ({copy['reason']})"


class CascadeDialog(QDialog):
    """"Delete …?" with the per-table counts of a delete preview. ``exec()`` → Accepted to delete.
    Other memories that only hold the same text (``plan["proposed_copies"]``) are listed as
    unticked boxes when the caller can take them (``offer_copies``): they go only when ticked
    (:meth:`chosen_copies`), like ``--with-copies``; otherwise they are listed as staying."""

    def __init__(self, plan: dict[str, Any], *, title: str, intro: str, confirm: str = "Delete",
                 parent: QWidget | None = None, offer_copies: bool = False) -> None:  # fmt: skip
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setObjectName("cascadeDialog")
        self.setMinimumWidth(460)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(20, 18, 20, 14)
        lay.setSpacing(12)
        head = QLabel(intro, self)
        head.setObjectName("dialogHeadline")
        head.setWordWrap(True)
        lay.addWidget(head)
        sub = QLabel("It is removed for real, from every place Keepsake keeps it:", self)
        sub.setWordWrap(True)
        sub.setObjectName("dialogText")
        lay.addWidget(sub)
        rows = plan_rows(plan)
        box = QFrame(self)
        box.setObjectName("cascadeTable")
        grid = QGridLayout(box)
        grid.setContentsMargins(12, 8, 12, 8)
        grid.setHorizontalSpacing(24)
        grid.setVerticalSpacing(4)
        self.rows: dict[str, int] = {}
        for i, (label, n) in enumerate(rows):
            name = QLabel(label, box)
            num = QLabel(f"{n:,}", box)
            num.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            grid.addWidget(name, i, 0)
            grid.addWidget(num, i, 1)
            self.rows[label] = n
        grid.setColumnStretch(0, 1)
        lay.addWidget(box)
        self.cut_labels: list[QLabel] = []
        for line in plan_cuts(plan)[:MAX_CUTS]:
            n = QLabel("• " + line, self)
            n.setWordWrap(True)
            n.setObjectName("dialogText")
            lay.addWidget(n)
            self.cut_labels.append(n)
        if len(plan_cuts(plan)) > MAX_CUTS:
            more = QLabel(f"• … and {len(plan_cuts(plan)) - MAX_CUTS} more texts lose the same sentences.", self)
            more.setObjectName("dialogText")
            lay.addWidget(more)
        for note in plan_notes(plan):
            n = QLabel("• " + note, self)
            n.setWordWrap(True)
            n.setObjectName("dialogText")
            lay.addWidget(n)
        self.copy_boxes: dict[int, QCheckBox] = {}
        copies = plan.get("proposed_copies") or []
        if copies:
            head = QLabel("Other memories hold the same text. They stay unless you tick them:" if offer_copies
                          else "Other memories hold the same text; they stay:", self)  # fmt: skip
            head.setWordWrap(True)
            head.setObjectName("dialogText")
            lay.addWidget(head)
        for copy in copies if not offer_copies else ():
            note = QLabel(f"• #{copy['id']} {quoted(copy['text'], 90)} ({copy['reason']})", self)
            note.setWordWrap(True)
            note.setObjectName("dialogText")
            lay.addWidget(note)
        for copy in copies if offer_copies else ():
            box = QCheckBox(copy_label(copy), self)
            box.setChecked(False)
            box.setObjectName("copyOption")
            lay.addWidget(box)
            self.copy_boxes[int(copy["id"])] = box
        warn = QLabel("This can't be undone.", self)
        warn.setObjectName("dialogWarning")
        lay.addWidget(warn)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.confirm = QPushButton(confirm, self)
        self.confirm.setObjectName("dangerButton")  # before the button box polishes it
        buttons.addButton(self.confirm, QDialogButtonBox.ButtonRole.DestructiveRole)
        self.confirm.clicked.connect(self.accept)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setDefault(True)
        lay.addWidget(buttons)
        self.plan = plan

    def chosen_copies(self) -> list[int]:
        """The proposed copies the person ticked (to delete with the memories asked for)."""
        return [mid for mid, box in self.copy_boxes.items() if box.isChecked()]


def report_done(backend: Any, report: Any, message: str) -> None:
    """After a delete: the status line, and the errors of any holder that failed (never hidden:
    "Deleted, but ..." when the delete stands, "Nothing was deleted: ..." when it was rolled back)."""
    if report.executed and message:
        backend.status.emit(message)
    if not report.ok:
        backend.error.emit(("Deleted, but: " if report.executed else "Nothing was deleted: ") + "; ".join(report.errors))
