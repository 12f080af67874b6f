"""The cascade preview shown before anything is deleted: what goes from each store."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.format import COUNT_LABELS, plural


def plan_rows(plan: dict[str, Any]) -> list[tuple[str, int]]:
    """Non-zero (label, count) rows of a DeletePlan.to_json(), in a stable, readable order."""
    counts = plan.get("counts") or {}
    rows = [(COUNT_LABELS.get(k, k.replace("_", " ")), int(v)) for k, v in counts.items() if int(v or 0) > 0]
    return rows


def plan_notes(plan: dict[str, Any]) -> list[str]:
    notes = []
    derived = plan.get("derived_ids") or []
    if derived:
        notes.append(f"{plural(len(derived), 'summary', 'summaries')} built only from these will be removed too.")
    regen = plan.get("regenerate_ids") or []
    if regen:
        notes.append(f"{plural(len(regen), 'summary', 'summaries')} with other sources will be kept and rebuilt.")
    detached = plan.get("detached_ids") or []
    if detached:
        notes.append(f"{plural(len(detached), 'memory', 'memories')} also learned elsewhere will stay (they only lose this link).")
    redacted = plan.get("redacted_message_ids") or []
    if redacted:
        notes.append(f"The text of {plural(len(redacted), 'source message')} will be removed from the conversation.")
    files = (plan.get("files_deleted") or []) + (plan.get("files_redacted") or [])
    if files:
        notes.append(f"{plural(len(files), 'file')} (archives or exports) holding this text will be cleaned.")
    return notes


class CascadeDialog(QDialog):
    """"Delete …?" with the per-table counts of a delete preview. ``exec()`` → Accepted to delete."""

    def __init__(self, plan: dict[str, Any], *, title: str, intro: str, confirm: str = "Delete",
                 parent: QWidget | None = None) -> None:  # fmt: skip
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
        for note in plan_notes(plan):
            n = QLabel("• " + note, self)
            n.setWordWrap(True)
            n.setObjectName("dialogText")
            lay.addWidget(n)
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
