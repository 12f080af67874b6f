"""The person's "About me & instructions" note: an editor with its budget (32 KiB) shown live and
its version history (restore any version; saving never loses the old one)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ui.services.backend import Backend
from ui.services.errors import describe
from ui.format import local_time

MAX_NOTE_BYTES = 32 * 1024  # mirrors assistant.context.note.MAX_NOTE_BYTES (checked again on save)
VERSION_ROLE = Qt.ItemDataRole.UserRole + 1


class NoteEditor(QWidget):
    saved = Signal(int)  # version

    def __init__(self, backend: Backend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noteEditor")
        self.backend = backend
        self.saved_text = ""
        self.versions: list = []
        self.limit = MAX_NOTE_BYTES
        lay = QVBoxLayout(self)
        lay.setContentsMargins(16, 14, 16, 12)
        lay.setSpacing(10)
        title = QLabel("About me & instructions", self)
        title.setObjectName("pageTitle")
        lay.addWidget(title)
        intro = QLabel(
            "Written by you, read by the assistant at the start of every conversation. Keepsake never changes it. "
            "Every saved version is kept.", self,
        )  # fmt: skip
        intro.setObjectName("hint")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setChildrenCollapsible(False)
        left = QWidget(split)
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.setSpacing(8)
        self.edit = QPlainTextEdit(left)
        self.edit.setObjectName("noteEdit")
        self.edit.setPlaceholderText("For example:\nI'm Maya, a nurse in Lisbon. Keep answers short. I'm vegetarian.")
        self.edit.textChanged.connect(self._changed)
        ll.addWidget(self.edit, 1)
        row = QHBoxLayout()
        self.budget = QProgressBar(left)
        self.budget.setObjectName("noteBudget")
        self.budget.setTextVisible(False)
        self.budget.setFixedHeight(6)
        self.budget.setRange(0, self.limit)
        row.addWidget(self.budget, 1)
        self.budget_label = QLabel("", left)
        self.budget_label.setObjectName("hint")
        row.addWidget(self.budget_label)
        self.revert_button = QPushButton("Revert", left)
        self.revert_button.setObjectName("toolButton")
        self.revert_button.clicked.connect(lambda: self.edit.setPlainText(self.saved_text))
        row.addWidget(self.revert_button)
        self.save_button = QPushButton("Save", left)
        self.save_button.setObjectName("primaryButton")
        self.save_button.clicked.connect(self.save)
        row.addWidget(self.save_button)
        ll.addLayout(row)
        self.error = QLabel("", left)
        self.error.setObjectName("errorText")
        self.error.setWordWrap(True)
        self.error.setVisible(False)
        ll.addWidget(self.error)
        right = QWidget(split)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(8, 0, 0, 0)
        rl.setSpacing(8)
        head = QLabel("Versions", right)
        head.setObjectName("sectionTitle")
        rl.addWidget(head)
        self.history = QListWidget(right)
        self.history.setObjectName("noteHistory")
        self.history.currentItemChanged.connect(self._preview)
        rl.addWidget(self.history, 1)
        self.preview = QLabel("", right)
        self.preview.setObjectName("quote")
        self.preview.setWordWrap(True)
        self.preview.setMaximumHeight(160)
        self.preview.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        rl.addWidget(self.preview)
        self.restore_button = QPushButton("Restore this version", right)
        self.restore_button.setObjectName("toolButton")
        self.restore_button.clicked.connect(self._restore_selected)
        self.restore_button.setEnabled(False)
        rl.addWidget(self.restore_button)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([760, 300])
        lay.addWidget(split, 1)
        self._loaded = False
        self._changed()
        save = QShortcut(QKeySequence.StandardKey.Save, self, activated=self._save_shortcut)
        save.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.save_button.setToolTip(f"Save a new version ({save.key().toString(QKeySequence.SequenceFormat.NativeText)})")
        QTimer.singleShot(0, self.load)

    def _save_shortcut(self) -> None:
        if self.save_button.isEnabled():
            self.save()

    # ------------------------------------------------------------------ data
    def load(self) -> None:
        def read(store):
            notes = self.backend.provider.note_store(store)
            return notes.get(), notes.history()

        self.backend.read(read, on_done=self._loaded_note, name="note-load")

    def _loaded_note(self, result) -> None:
        current, history = result
        self.saved_text = current.text if current else ""
        if not self._loaded or self.edit.toPlainText() == "":
            self.edit.setPlainText(self.saved_text)
        self._loaded = True
        self.versions = history
        self.history.clear()
        for v in reversed(history):
            label = f"v{v.version} · {local_time(v.saved_at)} · {v.size_bytes:,} bytes"
            if v.restored_from:
                label += f" (from v{v.restored_from})"
            item = QListWidgetItem(label)
            item.setData(VERSION_ROLE, v.version)
            self.history.addItem(item)
        if not history:
            self.history.addItem(QListWidgetItem("No versions yet"))
            self.history.item(0).setFlags(Qt.ItemFlag.NoItemFlags)
        self._changed()

    def save(self) -> None:
        text = self.edit.toPlainText()

        def write(store):
            return self.backend.provider.note_store(store).save(text)

        def done(version) -> None:
            self.saved_text = version.text
            self.error.setVisible(False)
            self.backend.status.emit(f"Note saved (version {version.version}). The assistant reads it from the next message on.")
            self.saved.emit(version.version)
            self.load()

        self.backend.write(write, on_done=done, on_error=self._failed, name="note-save")

    def restore(self, version: int) -> None:
        def write(store):
            return self.backend.provider.note_store(store).restore(version)

        def done(v) -> None:
            self.edit.setPlainText(v.text)
            self.saved_text = v.text
            self.backend.status.emit(f"Version {version} restored as version {v.version}.")
            self.load()

        self.backend.write(write, on_done=done, on_error=self._failed, name="note-restore")

    def _failed(self, exc: BaseException) -> None:
        self.error.setText(describe(exc))
        self.error.setVisible(True)

    # ------------------------------------------------------------------ UI state
    def _changed(self) -> None:
        size = len(self.edit.toPlainText().replace("\r\n", "\n").encode("utf-8"))
        over = size > self.limit
        self.budget.setValue(min(size, self.limit))
        self.budget.setProperty("over", over)
        self.budget.style().unpolish(self.budget)
        self.budget.style().polish(self.budget)
        tokens = max(0, round(size / 4))
        self.budget_label.setText(f"{size:,} / {self.limit:,} bytes · ≈{tokens:,} tokens" + (" — too long" if over else ""))
        dirty = self.edit.toPlainText() != self.saved_text
        self.save_button.setEnabled(dirty and not over)
        self.revert_button.setEnabled(dirty)
        if not over and self.error.isVisible() and "limit" in self.error.text():
            self.error.setVisible(False)

    def _preview(self, item: QListWidgetItem | None, _prev=None) -> None:
        version = item.data(VERSION_ROLE) if item else None
        v = next((x for x in self.versions if x.version == version), None)
        self.preview.setText(v.text[:1200] if v else "")
        self.restore_button.setEnabled(v is not None and v.text != self.saved_text)

    def _restore_selected(self) -> None:
        item = self.history.currentItem()
        if item is not None and item.data(VERSION_ROLE):
            self.restore(int(item.data(VERSION_ROLE)))
