"""What the person can do to memories from the inspector: add, edit (new version), "no longer
true since…", set/clear expiry, pin, restore a version, delete with a cascade preview (one or
many), forget a conversation's memories, export selection or all to JSON.

Each action asks (dialog) on the UI thread and runs the store call on a worker thread. Tests call
the ``*_now`` variants (no dialog) or pass ``confirm=``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Sequence

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from ui.services.backend import Backend
from ui.widgets.delete_dialog import CascadeDialog, report_done
from ui.services.errors import describe
from ui.format import plural
from ui.inspector.dialogs import DateDialog, MemoryDialog
from ui.chat.sessions_panel import forget_session_memories

Confirm = Callable[[dict], bool]
_KEEP: Any = object()  # edit_now: leave "true since" as it is


def export_selection(store, ids: Sequence[int], path: str | Path) -> int:
    """Write the given memories (with their earlier versions) in Keepsake's export format."""
    return len(store.export_json(path, ids=ids, include_sessions=False)["memories"])


def export_all(store, path: str | Path) -> int:
    return len(store.export_json(path)["memories"])


class MemoryActions(QObject):
    changed = Signal(object)  # an updated Memory (the table updates that row)
    removed = Signal(object)  # ids deleted
    added = Signal(int)
    detailStale = Signal(int)  # memory id whose detail must be reloaded
    message = Signal(str)

    def __init__(self, backend: Backend, parent_widget: QWidget) -> None:
        super().__init__(parent_widget)
        self.backend = backend
        self.widget = parent_widget

    # ------------------------------------------------------------------ plumbing
    def _update(self, fn: Callable[[Any], Any], memory_id: int, done_text: str) -> None:
        def done(memory) -> None:
            self.changed.emit(memory)
            self.detailStale.emit(memory_id)
            self.message.emit(done_text)

        def failed(exc) -> None:
            self.detailStale.emit(memory_id)
            self.backend.error.emit(describe(exc))

        self.backend.write(fn, on_done=done, on_error=failed, name="memory-update")

    # ------------------------------------------------------------------ add / edit
    def add(self) -> None:
        dlg = MemoryDialog(self.widget)
        if dlg.exec() == MemoryDialog.DialogCode.Accepted:
            v = dlg.values()
            self.add_now(v["text"], kind=v["kind"], valid_at=v["valid_at"])

    def add_now(self, text: str, *, kind: str = "fact", valid_at: datetime | None = None) -> None:
        def run(store) -> int:
            return store.add(text, kind=kind, valid_at=valid_at, trust="user_stated", actor="user")

        def done(mid: int) -> None:
            self.added.emit(mid)
            self.message.emit("Memory added.")

        self.backend.write(run, on_done=done, name="memory-add")

    def edit(self, memory: Any) -> None:
        dlg = MemoryDialog(self.widget, text=memory.text, editing=True, valid_at=memory.valid_at)
        if dlg.exec() == MemoryDialog.DialogCode.Accepted:
            v = dlg.values()
            if v["text"] != memory.text or v["valid_at"] != memory.valid_at:
                self.edit_now(memory.id, v["text"], valid_at=v["valid_at"], expected_version=memory.version)

    def edit_now(self, memory_id: int, text: str, *, valid_at: Any = _KEEP, expected_version: int | None = None) -> None:
        """New text (and, if given, a new "true since" day) as one new version."""
        extra = {} if valid_at is _KEEP else {"valid_at": valid_at}

        def save(store):
            from assistant.memory.capture.rules import relink_entities  # deferred: runs on a worker

            m = store.update(memory_id, text=text, expected_version=expected_version, action="edit", **extra)
            return relink_entities(store, m)  # the mentions follow the new text

        self._update(save, memory_id, "Saved as a new version.")

    def restore_version(self, memory_id: int, version: int) -> None:
        self._update(lambda store: store.restore_version(memory_id, version), memory_id,
                     f"Version {version} restored (as a new version).")  # fmt: skip

    def forget_old_wording(self, memory_id: int, *, confirm: Confirm | None = None) -> None:
        """Edits forget too: the earlier versions of a memory go for real (preview first)."""

        def ask(plan) -> None:
            data = plan.to_json()
            ok = confirm(data) if confirm is not None else CascadeDialog(
                data, title="Forget the old wording", confirm="Forget", parent=self.widget,
                intro="Forget the earlier versions of this memory? The current text stays.",
            ).exec() == CascadeDialog.DialogCode.Accepted  # fmt: skip
            if ok:
                def done(report) -> None:
                    self.detailStale.emit(memory_id)
                    report_done(self.backend, report, "The old wording is forgotten; only the current text is kept.")

                self.backend.write(lambda store: store.purge_versions(memory_id), on_done=done, name="forget-versions")

        self.backend.read(lambda store: store.purge_versions_preview(memory_id), on_done=ask, name="forget-versions-preview")

    # ------------------------------------------------------------------ time
    def invalidate_dialog(self, memory: Any) -> DateDialog:
        return DateDialog(self.widget, title="No longer true", default=datetime.now().astimezone(),
                          prompt=f"Since when is this no longer true?\n\n“{memory.text}”")  # fmt: skip

    def invalidate(self, memory: Any) -> None:
        dlg = self.invalidate_dialog(memory)
        if dlg.exec() == DateDialog.DialogCode.Accepted:
            self.invalidate_now(memory.id, dlg.value())

    def invalidate_now(self, memory_id: int, at: datetime) -> None:
        self._update(lambda store: store.invalidate(memory_id, at), memory_id,
                     "Marked as no longer true; the history keeps what was true before.")  # fmt: skip

    def expiry_dialog(self) -> DateDialog:
        now = datetime.now().astimezone()
        return DateDialog(self.widget, title="Set expiry", default=now + timedelta(days=30), minimum=now,
                          prompt="Forget this memory automatically after:",
                          quick=[("1 day", timedelta(days=1)), ("1 week", timedelta(days=7)), ("30 days", timedelta(days=30))])  # fmt: skip

    def set_expiry(self, memory: Any) -> None:
        dlg = self.expiry_dialog()
        if dlg.exec() == DateDialog.DialogCode.Accepted:
            self.set_expiry_now(memory.id, dlg.value())

    def set_expiry_now(self, memory_id: int, when: datetime) -> None:
        self._update(lambda store: store.set_ttl(memory_id, when), memory_id, "Expiry set.")

    def clear_expiry(self, memory_id: int) -> None:
        self._update(lambda store: store.clear_ttl(memory_id), memory_id, "Expiry cleared.")

    def toggle_pin(self, memory: Any) -> None:
        if memory.pinned:
            self._update(lambda store: store.unpin(memory.id), memory.id, "Unpinned.")
        else:
            self._update(lambda store: store.pin(memory.id), memory.id, "Pinned: it will not fade with time.")

    # ------------------------------------------------------------------ delete / forget
    def delete(self, ids: Sequence[int], *, confirm: Confirm | None = None) -> None:
        ids = list(ids)
        if not ids:
            return

        def ask(plan) -> None:
            data = plan.to_json()
            copies: list[int] = []
            if confirm is not None:
                ok = confirm(data)
            else:
                dialog = self.delete_dialog(data)
                ok = dialog.exec() == CascadeDialog.DialogCode.Accepted
                copies = dialog.chosen_copies()  # only copies the preview listed, ticked by the person
            if ok:
                self.delete_now(ids, copies=copies)

        self.backend.read(lambda store: store.delete_preview(ids), on_done=ask, name="delete-preview")

    def delete_dialog(self, plan: dict) -> CascadeDialog:
        """The cascade preview of a delete (``plan``: ``DeletePlan.to_json()``)."""
        n = len(plan.get("requested_ids") or plan.get("memory_ids") or [])
        return CascadeDialog(plan, title="Delete memories" if n > 1 else "Delete memory",
                             intro=f"Delete {plural(n, 'memory', 'memories')}?", parent=self.widget, offer_copies=True)  # fmt: skip

    def delete_now(self, ids: Sequence[int], *, copies: Sequence[int] = ()) -> None:
        """Delete ``ids`` (and the proposed ``copies`` the person ticked) through the store's
        delete service, the same call as ``keepsake memory delete [--with-copies]``."""
        ids, copies = list(ids), list(copies)

        def done(plan) -> None:
            if plan.executed:
                self.removed.emit(list(plan.memory_ids))
                self.message.emit(f"Deleted {plural(len(plan.memory_ids), 'memory', 'memories')} for good.")
            report_done(self.backend, plan, "")

        self.backend.write(lambda store: store.delete(ids, copies=copies), on_done=done, name="delete")

    def forget_session(self, session_id: int, title: str, *, confirm: Confirm | None = None) -> None:
        forget_session_memories(self.backend, self.widget, session_id, title, confirm=confirm)

    # ------------------------------------------------------------------ export
    def export(self, ids: Sequence[int] | None) -> None:
        folder = self.backend.provider.paths.exports
        stamp = datetime.now().strftime("%Y%m%d-%H%M")
        default = str(folder / f"keepsake-memories-{'selection' if ids else 'all'}-{stamp}.json")
        path, _ = QFileDialog.getSaveFileName(self.widget, "Export memories", default, "JSON (*.json)")
        if path:
            self.export_now(ids, path)

    def export_now(self, ids: Sequence[int] | None, path: str | Path) -> None:
        ids = list(ids) if ids else None
        fn = (lambda store: export_selection(store, ids, path)) if ids else (lambda store: export_all(store, path))
        self.backend.read(fn, on_done=lambda n: self.message.emit(f"Exported {plural(n, 'memory', 'memories')} to {path}."),
                          name="export")  # fmt: skip
