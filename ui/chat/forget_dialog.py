"""Confirmation for the "forget …" chat command: the memories about it (pre-ticked only when they
state something about the person), each with the part that would go and what would stay; the
person ticks what should go (nothing is deleted without this), then sees the cascade preview."""

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

from ui.services.backend import Backend
from ui.widgets.delete_dialog import CascadeDialog, report_done
from assistant.memory.wording import clipped, found_phrase, quoted, true_since_phrase
from ui.format import KIND_LABELS

ID_ROLE = Qt.ItemDataRole.UserRole + 1


def candidate_label(c: dict[str, Any]) -> str:
    """What the list shows for one candidate: the memory, the part that goes, why."""
    meta = [KIND_LABELS.get(c.get("kind", ""), c.get("kind", ""))]
    if c.get("valid_at"):
        meta.append(true_since_phrase(c["valid_at"], c.get("start_kind")))
    meta.append(c.get("reason", ""))
    lines = [clipped(c.get("text", ""))]
    if not c.get("whole", True):
        lines.append("Removes: " + " ".join(quoted(s, 120) for s in c.get("removed", [])))
        lines.append("Stays: “" + clipped(c.get("kept", ""), 160) + "”")
    lines.append(" · ".join(x for x in meta if x))
    return "\n".join(lines)


class ForgetDialog(QDialog):
    def __init__(self, candidates: list[dict[str, Any]], query: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Forget")
        self.setMinimumWidth(560)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(20, 18, 20, 14)
        lay.setSpacing(10)
        about = f" about “{query}”" if query else ""
        head = QLabel(f"You asked Keepsake to forget something. It found {found_phrase(candidates)}{about}:", self)
        head.setObjectName("dialogHeadline")
        head.setWordWrap(True)
        lay.addWidget(head)
        hint = QLabel("Ticked: what you said about it; a memory holding other things too loses only the part shown. "
                      "Nothing is deleted until you confirm.", self)  # fmt: skip
        hint.setObjectName("dialogText")
        hint.setWordWrap(True)
        lay.addWidget(hint)
        self.list = QListWidget(self)
        self.list.setObjectName("forgetList")
        self.list.setWordWrap(True)
        self.candidates = {int(c["id"]): c for c in candidates}
        for c in candidates:
            item = QListWidgetItem(candidate_label(c))
            item.setData(ID_ROLE, int(c["id"]))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if c.get("pre_ticked") else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.list.setMinimumHeight(min(380, 78 * max(1, len(candidates)) + 8))
        lay.addWidget(self.list)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.confirm = QPushButton("Review and forget…", self)
        self.confirm.setObjectName("dangerButton")
        buttons.addButton(self.confirm, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.list.itemChanged.connect(lambda _i: self.confirm.setEnabled(bool(self.selected_ids())))
        self.confirm.setEnabled(bool(self.selected_ids()))
        lay.addWidget(buttons)

    def selected_ids(self) -> list[int]:
        return [int(self.list.item(i).data(ID_ROLE)) for i in range(self.list.count())
                if self.list.item(i).checkState() == Qt.CheckState.Checked]  # fmt: skip

    def selected(self) -> list[dict[str, Any]]:
        return [self.candidates[i] for i in self.selected_ids()]


def confirm_forget(backend: Backend, parent: QWidget, candidates: list[dict[str, Any]], *, query: str | None = None,
                   choose: Callable[[list[dict]], list[int]] | None = None,
                   confirm: Callable[[dict], bool] | None = None) -> None:  # fmt: skip
    """Ask which candidates to forget, preview the cascade (which sentences go, what stays),
    forget (the chat shows what stays through the store's change signal). ``choose``/``confirm``
    replace the dialogs (tests)."""
    from assistant.memory.forget.topic import Candidate, request_for  # deferred: the store (SQLCipher, numpy)

    if not candidates:
        return
    if choose is not None:
        ids = choose(candidates)
    else:
        dlg = ForgetDialog(candidates, query, parent)
        ids = dlg.selected_ids() if dlg.exec() == QDialog.DialogCode.Accepted else []
    if not ids:
        backend.status.emit("Nothing was forgotten.")
        return
    by_id = {int(c["id"]): c for c in candidates}
    request = request_for([Candidate.from_json(by_id[i]) for i in ids])
    # "1 memory and 1 of your messages": a message's kept copy is not counted as a memory
    what = found_phrase([{**by_id[i], "pre_ticked": True} for i in ids])

    def done(report) -> None:
        report_done(backend, report, f"Forgot {what}" + (f" about “{query}”." if query else "."))

    def ask(plan) -> None:
        data = plan.to_json()
        ok = confirm(data) if confirm else CascadeDialog(
            data, title="Forget", confirm="Forget", parent=parent,
            intro=f"Forget {what}" + (f" about “{query}”?" if query else "?"),
        ).exec() == CascadeDialog.DialogCode.Accepted  # fmt: skip
        if ok:
            backend.write(lambda store: store.forget(request), on_done=done, name="forget")

    backend.read(lambda store: store.forget_preview(request), on_done=ask, name="forget-preview")
