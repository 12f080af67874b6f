"""The model picker: the default model, GGUF files found in the models folders, the configured
model server (Settings → Model server), and "Open GGUF…". Broken files are listed (disabled)
with the reason."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QFileDialog, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

from assistant.config import SERVER_CHOICE
from assistant.engine.names import DEFAULT_CHAT_NAME
from assistant.engine.server.model import model_name
from ui.format import model_label

OPEN_GGUF = "__open__"
CHOICE_ROLE = Qt.ItemDataRole.UserRole
SHORT_ROLE = Qt.ItemDataRole.UserRole + 1  # the model's name alone: what the closed picker shows


def chat_entries(entries: list) -> list:
    """Registry entries usable as chat models (broken ones kept, to show why)."""
    return [e for e in entries if e.error is not None or "chat" in e.roles]


def entry_label(e) -> str:
    size = f" · {e.size_bytes / 1e6:,.0f} MB" if e.size_bytes else ""
    name = model_label(e.path)
    if e.source == "default":
        return f"{name} (default){size}"
    return f"{name}{size}"


class ModelPicker(QComboBox):
    """``modelChosen(choice)``: "default", a GGUF path or ``SERVER_CHOICE`` (the configured
    model server). Reverts itself if loading fails.

    The list shows each model with "(default)" and its size; the closed picker shows only the
    chosen model's name, and is exactly as wide as that name needs (never cut)."""

    modelChosen = Signal(str)
    popupAboutToShow = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelPicker")
        self.setToolTip("Chat model")
        self._model = QStandardItemModel(self)
        self.setModel(self._model)
        self.current_choice = "default"
        self._extra: list[str] = []
        self._entries: list = []
        self._server: tuple[str, str] | None = None  # (label, tooltip) of the configured server
        self._populating = False
        self.set_entries([])
        self.activated.connect(self._activated)
        self.currentIndexChanged.connect(lambda _i: self.updateGeometry())

    def current_name(self) -> str:
        return str(self.currentData(SHORT_ROLE) or self.currentText())

    def sizeHint(self) -> QSize:  # noqa: N802
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        fm = self.fontMetrics()
        text = QSize(fm.horizontalAdvance(self.current_name()) + 4, fm.height())
        return self.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, opt, text, self)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return self.sizeHint()

    def paintEvent(self, _event) -> None:  # noqa: N802
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        opt.currentText = self.current_name()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)

    def showPopup(self) -> None:  # noqa: N802
        self.popupAboutToShow.emit()
        fm = self.view().fontMetrics()
        widest = max((fm.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0)
        self.view().setMinimumWidth(widest + 48)  # the full labels, not cut to the closed width
        super().showPopup()

    def set_server(self, url: str | None, model: str | None = None) -> None:
        """Show (or with ``url`` empty, hide) the configured model server as a choice."""
        self._server = None
        if url:
            name = model_name(model) if model else "first listed model"
            self._server = (f"Model server · {name}", f"{model or 'the first model it lists'} on {url}\n"
                            "The chat runs there; memory, search and embeddings stay on this computer.")
        self.set_entries(self._entries, current=self.current_choice)

    def set_entries(self, entries: list, current: str | None = None) -> None:
        self._populating = True
        self._entries = chat_entries(entries)
        if current is not None:
            self.current_choice = current
        self._model.clear()
        if self._server is not None:
            item = self._add(self._server[0], SERVER_CHOICE)
            item.setToolTip(self._server[1])
        if not any(e.source == "default" for e in self._entries):
            self._add(f"{DEFAULT_CHAT_NAME} (default)", "default", DEFAULT_CHAT_NAME)
        for e in self._entries:
            choice = "default" if e.source == "default" else str(e.path)
            item = self._add(entry_label(e), choice, model_label(e.path))
            if e.error:
                item.setEnabled(False)
                item.setText(f"{model_label(e.path)} — can't be used")
                item.setToolTip(f"{e.path}\n{e.error}")
            else:
                item.setToolTip(str(e.path))
        for path in self._extra:
            if not any(self.itemData(i, CHOICE_ROLE) == path for i in range(self.count())):
                self._add(model_label(path), path)
        if self.current_choice not in ("", "default", SERVER_CHOICE) and not any(
            self.itemData(i, CHOICE_ROLE) == self.current_choice for i in range(self.count())
        ):
            self._add(model_label(self.current_choice), self.current_choice)
        self._add("Open GGUF…", OPEN_GGUF)
        self._select(self.current_choice)
        self._populating = False

    def _add(self, label: str, choice: str, short: str | None = None) -> QStandardItem:
        item = QStandardItem(label)
        item.setData(choice, CHOICE_ROLE)
        item.setData(short or label, SHORT_ROLE)
        self._model.appendRow(item)
        return item

    def _select(self, choice: str) -> None:
        for i in range(self.count()):
            if self.itemData(i, CHOICE_ROLE) == (choice or "default"):
                self.setCurrentIndex(i)
                return

    def _activated(self, index: int) -> None:
        if self._populating:
            return
        choice = self.itemData(index, CHOICE_ROLE)
        if choice == OPEN_GGUF:
            self._select(self.current_choice)
            path, _ = QFileDialog.getOpenFileName(self, "Open a GGUF chat model", str(Path.home()), "GGUF models (*.gguf);;All files (*)")
            if path:
                self.choose(path)
            return
        if choice and choice != self.current_choice:
            self.choose(choice)

    def choose(self, choice: str) -> None:
        """Ask for ``choice`` ("default" or a path); the owner loads it and calls
        :meth:`confirm` or :meth:`revert`."""
        if choice not in ("default", SERVER_CHOICE) and not any(self.itemData(i, CHOICE_ROLE) == choice for i in range(self.count())):
            self._populating = True
            self._model.insertRow(self.count() - 1, QStandardItem(model_label(choice)))
            self._model.item(self.count() - 2).setData(choice, CHOICE_ROLE)
            self._model.item(self.count() - 2).setData(model_label(choice), SHORT_ROLE)
            self._populating = False
        self._select(choice)
        self.pending = choice
        self.modelChosen.emit(choice)

    def confirm(self, choice: str) -> None:
        self.current_choice = choice
        if choice not in ("default", SERVER_CHOICE) and choice not in self._extra:
            self._extra.append(choice)
        self._select(choice)

    def revert(self) -> None:
        """Loading failed: drop an opened file that was never confirmed, select the previous model."""
        pending = getattr(self, "pending", None)
        if pending and pending != self.current_choice and pending not in self._extra:
            for i in range(self.count()):
                if self.itemData(i, CHOICE_ROLE) == pending and not any(
                    str(e.path) == pending for e in self._entries
                ):
                    self._model.removeRow(i)
                    break
        self._select(self.current_choice)
