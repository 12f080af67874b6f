"""Confirmation for the "forget …" chat command: the assistant found these memories; the person
ticks what should go (nothing is deleted without this), then sees the cascade preview."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.backend import Backend
from ui.delete_dialog import CascadeDialog
from ui.format import KIND_LABELS, plural, short_date

ID_ROLE = Qt.ItemDataRole.UserRole + 1


class ForgetDialog(QDialog):
    def __init__(self, candidates: list[dict[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Forget")
        self.setMinimumWidth(520)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(20, 18, 20, 14)
        lay.setSpacing(10)
        head = QLabel(f"You asked Keepsake to forget something. It found {plural(len(candidates), 'matching memory', 'matching memories')}:", self)
        head.setObjectName("dialogHeadline")
        head.setWordWrap(True)
        lay.addWidget(head)
        hint = QLabel("Untick anything that should stay. Nothing is deleted until you confirm.", self)
        hint.setObjectName("dialogText")
        hint.setWordWrap(True)
        lay.addWidget(hint)
        self.list = QListWidget(self)
        self.list.setObjectName("forgetList")
        self.list.setWordWrap(True)
        for c in candidates:
            meta = [KIND_LABELS.get(c.get("kind", ""), c.get("kind", ""))]
            if c.get("valid_at"):
                meta.append(f"since {short_date(c['valid_at'])}")
            item = QListWidgetItem(f"{c.get('text', '')}\n{' · '.join(x for x in meta if x)}")
            item.setData(ID_ROLE, int(c["id"]))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.list.addItem(item)
        self.list.setMinimumHeight(min(360, 56 * max(1, len(candidates)) + 8))
        lay.addWidget(self.list)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.confirm = QPushButton("Review and forget…", self)
        self.confirm.setObjectName("dangerButton")
        buttons.addButton(self.confirm, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.list.itemChanged.connect(lambda _i: self.confirm.setEnabled(bool(self.selected_ids())))
        lay.addWidget(buttons)

    def selected_ids(self) -> list[int]:
        return [int(self.list.item(i).data(ID_ROLE)) for i in range(self.list.count())
                if self.list.item(i).checkState() == Qt.CheckState.Checked]  # fmt: skip


def confirm_forget(backend: Backend, parent: QWidget, candidates: list[dict[str, Any]], *,
                   choose: Callable[[list[dict]], list[int]] | None = None,
                   confirm: Callable[[dict], bool] | None = None) -> None:  # fmt: skip
    """Ask which candidates to forget, preview the cascade, delete. ``choose``/``confirm``
    replace the dialogs (tests)."""
    if not candidates:
        return
    if choose is not None:
        ids = choose(candidates)
    else:
        dlg = ForgetDialog(candidates, parent)
        ids = dlg.selected_ids() if dlg.exec() == QDialog.DialogCode.Accepted else []
    if not ids:
        backend.status.emit("Nothing was forgotten.")
        return

    def ask(plan) -> None:
        data = plan.to_json()
        ok = confirm(data) if confirm else CascadeDialog(
            data, title="Forget", confirm="Forget", parent=parent,
            intro=f"Forget {plural(len(ids), 'memory', 'memories')}?",
        ).exec() == CascadeDialog.DialogCode.Accepted  # fmt: skip
        if ok:
            backend.write(lambda store: store.delete(ids),
                          on_done=lambda p: backend.status.emit(f"Forgot {plural(len(p.memory_ids), 'memory', 'memories')}."))  # fmt: skip

    backend.read(lambda store: store.delete_preview(ids), on_done=ask, name="forget-preview")
