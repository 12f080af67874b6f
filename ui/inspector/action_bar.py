"""The inspector's action row: what can be done to the selection (add, edit, no longer true,
expiry, pin, delete, forget the conversation, export) and the count of what is listed. Which
buttons are enabled follows the selection (:meth:`ActionBar.follow`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QPushButton, QSizePolicy, QToolButton, QWidget

COUNT_MIN_WIDTH = 110  # "100,000 memories" on one line


class ActionBar(QWidget):
    setExpiry = Signal()
    clearExpiry = Signal()
    exportSelected = Signal()
    exportAll = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(6)
        self.add_button = self._button("Add…", "Add a memory yourself")
        self.edit_button = self._button("Edit…", "Change the text (saved as a new version)")
        self.invalidate_button = self._button("No longer true…", "It stopped being true at some date")
        self.expiry_button = self._menu_button("Expiry")
        expiry_menu = self.expiry_button.menu()
        self.set_expiry_action = expiry_menu.addAction("Set expiry…", self.setExpiry.emit)
        self.clear_expiry_action = expiry_menu.addAction("Clear expiry", self.clearExpiry.emit)
        self.pin_button = self._button("Pin", "Pinned memories never fade with time")
        self.delete_button = self._button("Delete…", "Delete for real (shows what goes first)")
        self.delete_button.setObjectName("dangerLink")
        self.forget_session_button = self._button("Forget conversation…", "Forget every memory learned only from this memory's conversation")
        self.export_button = self._menu_button("Export")
        export_menu = self.export_button.menu()
        self.export_selection_action = export_menu.addAction("Selected memories…", self.exportSelected.emit)
        export_menu.addAction("All memories…", self.exportAll.emit)
        for w in (self.add_button, self.edit_button, self.invalidate_button, self.expiry_button, self.pin_button,
                  self.delete_button, self.forget_session_button, self.export_button):  # fmt: skip
            bar.addWidget(w)
        bar.addStretch(1)
        self.count_label = QLabel("", self)
        self.count_label.setObjectName("countLabel")
        # a long line ("1 result - nothing matches ... closely") wraps in the space left instead of
        # widening the window (new-user trial: 1280 -> 1315 px, and it stayed wider)
        self.count_label.setWordWrap(True)
        self.count_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.count_label.setMinimumWidth(COUNT_MIN_WIDTH)
        self.count_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar.addWidget(self.count_label, 1)

    def _button(self, text: str, tip: str) -> QPushButton:
        b = QPushButton(text, self)
        b.setObjectName("toolButton")
        b.setToolTip(tip)
        b.setCursor(Qt.CursorShape.PointingHandCursor)
        return b

    def _menu_button(self, text: str) -> QToolButton:
        b = QToolButton(self)
        b.setText(text)
        b.setObjectName("toolButton")
        b.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        b.setMenu(QMenu(b))
        return b

    def follow(self, ids: list[int], one: Any | None) -> None:
        """Enable what applies: ``ids`` are the selected rows, ``one`` the single memory shown
        (selected, or opened from elsewhere), or None."""
        for b in (self.edit_button, self.invalidate_button, self.expiry_button, self.pin_button):
            b.setEnabled(one is not None)
        self.pin_button.setText("Unpin" if one is not None and one.pinned else "Pin")
        self.clear_expiry_action.setEnabled(one is not None and one.expires_at is not None)
        self.delete_button.setEnabled(bool(ids))
        self.delete_button.setText(f"Delete {len(ids)}…" if len(ids) > 1 else "Delete…")
        self.export_selection_action.setEnabled(bool(ids))
        self.forget_session_button.setEnabled(one is not None and any(s.session_id is not None for s in one.sources))
