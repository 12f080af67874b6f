"""The main window: the chat (ui/chat/chat_page.py), the memory inspector, the note, the tidy-up panel;
model picker, "New private conversation" and settings in the tab bar's corner; progress and calm
messages in the status bar."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QMessageBox, QTabWidget, QToolButton, QWidget

from ui.chat.chat_controller import ChatController
from ui.chat.chat_page import ChatPage
from ui.chat.note_editor import NoteEditor
from ui.inspector.inspector import Inspector
from ui.services.backend import Backend
from ui.settings.model_picker import ModelPicker
from ui.settings.settings_dialog import SettingsDialog
from ui.tidyup.consolidation_panel import ConsolidationPanel
from ui.tidyup.consolidation_service import ConsolidationService
from ui.widgets.status_state import StatusBar

log = logging.getLogger(__name__)


#: The window's default size; on a smaller screen, what it has (a 1280x800 screen had lost the bottom 20 px).
DEFAULT_SIZE = (1280, 820)


def fitted_size(available: Any) -> tuple[int, int]:
    """``DEFAULT_SIZE`` within ``available`` (a QSize of the screen's free area, or None)."""
    w, h = DEFAULT_SIZE
    if available is None or available.width() <= 0 or available.height() <= 0:
        return w, h
    return min(w, available.width()), min(h, available.height())


class MainWindow(QMainWindow):
    def __init__(self, backend: Backend, *, consolidation: ConsolidationService | None = None,
                 start: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.setObjectName("mainWindow")
        self.setWindowTitle("Keepsake")
        self.resize(*fitted_size(self.screen().availableGeometry().size() if self.screen() is not None else None))
        self.backend = backend
        if self.backend.parent() is None:
            self.backend.setParent(self)
        self.controller = ChatController(self.backend, self)
        self._model_choice_pending: str | None = None
        self._model_name: str | None = None  # the chat model in use (status bar)
        self._storage_faults_shown: set[str] = set()
        self._discovery: str | None = None
        self._build(consolidation)
        self._wire()
        self.controller.new_session()
        if start:
            QTimer.singleShot(0, self.start)

    # ------------------------------------------------------------------ layout
    def _build(self, consolidation: ConsolidationService | None) -> None:
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("mainTabs")
        self.tabs.setDocumentMode(True)
        self.setCentralWidget(self.tabs)

        self.chat = ChatPage(self.backend, self.controller, self.tabs)
        c = self.chat
        self.sessions, self.banner, self.chat_view, self.budget, self.composer = c.sessions, c.banner, c.chat_view, c.budget, c.composer
        self.tabs.addTab(self.chat, "Chat")

        self.inspector = Inspector(self.backend, self.tabs)
        self.tabs.addTab(self.inspector, "Memory")
        self.note_editor = NoteEditor(self.backend, self.tabs)
        self.tabs.addTab(self.note_editor, "About me")
        self.consolidation = ConsolidationPanel(self.backend, consolidation, self.tabs)
        self.tabs.addTab(self.consolidation, "Tidy-up")

        corner = QWidget(self.tabs)
        corner.setObjectName("tabCorner")
        cl = QHBoxLayout(corner)
        cl.setContentsMargins(8, 4, 10, 4)
        cl.setSpacing(8)
        self.model_picker = ModelPicker(corner)
        cl.addWidget(self.model_picker)
        self.private_button = QToolButton(corner)
        self.private_button.setObjectName("privateButton")
        self.private_button.setText("New private conversation")
        self.private_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.private_button.setToolTip("Start a conversation Keepsake remembers nothing from (Ctrl+Shift+N).\n"
                                       "The conversation you are in keeps its own setting.")  # fmt: skip
        cl.addWidget(self.private_button)
        self.settings_button = QToolButton(corner)
        self.settings_button.setObjectName("settingsButton")
        self.settings_button.setText("Settings")
        self.settings_button.setCursor(Qt.CursorShape.PointingHandCursor)
        cl.addWidget(self.settings_button)
        self.tabs.setCornerWidget(corner, Qt.Corner.TopRightCorner)

        self.statusBar().setObjectName("statusBar")
        self.status = StatusBar(self.statusBar())  # one state: ui/widgets/status_state.py
        self.status_label, self.progress_label, self.progress = self.status.label, self.status.progress_label, self.status.progress

        for seq, fn in ((QKeySequence.StandardKey.New, self.controller.new_session),
                        (QKeySequence("Ctrl+Shift+N"), self.new_private_session),
                        (QKeySequence("Ctrl+F"), self._focus_search),
                        (QKeySequence("Ctrl+,"), self.open_settings),
                        (QKeySequence("Ctrl+Q"), self.close)):  # fmt: skip
            act = QAction(self)
            act.setShortcut(seq)
            act.triggered.connect(fn)
            self.addAction(act)
        for i in range(4):
            act = QAction(self)
            act.setShortcut(QKeySequence(f"Ctrl+{i + 1}"))
            act.triggered.connect(lambda _=False, i=i: self.tabs.setCurrentIndex(i))
            self.addAction(act)

    def _wire(self) -> None:
        b = self.backend
        self.chat.status.connect(self.show_status)
        self.chat.error.connect(self.show_error)
        self.private_button.clicked.connect(self.new_private_session)
        self.settings_button.clicked.connect(self.open_settings)
        self.chat_view.memoryClicked.connect(self.open_memory)
        self.inspector.openMessage.connect(self.open_message)
        self.inspector.statusMessage.connect(self.show_status)
        self.model_picker.modelChosen.connect(self._model_chosen)
        self.model_picker.popupAboutToShow.connect(self.discover_models)
        b.status.connect(self.show_status)
        b.error.connect(self.show_error)
        b.modelProgress.connect(lambda text, step, steps: self.status.start("model", text, step, steps))
        b.memoryProgress.connect(lambda text: self.status.start("memory", text) if text else self.status.finish("memory"))
        b.modelReady.connect(self._model_ready)
        b.modelFailed.connect(self._model_failed)
        b.memoryReady.connect(self._memory_ready)
        b.storageFault.connect(self.show_storage_fault)

    # ------------------------------------------------------------------ start-up
    def start(self) -> None:
        """Open the memory and load the models in the background."""
        self.backend.start()
        s = self.backend.settings
        self.model_picker.current_choice = s.choice
        self.model_picker.set_server(s.engine_url or None, s.engine_model or None)
        self.chat.update_banner()

    def discover_models(self) -> None:
        """List the GGUF files people added (reading GGUF headers is Python-heavy: done once the
        models are loaded, or when the picker opens, never while they load)."""
        if self._discovery is not None:
            return
        self._discovery = "running"

        def done(entries) -> None:
            self._discovery = "done"
            self.model_picker.set_entries(entries)

        def failed(_exc) -> None:
            self._discovery = None

        self.backend.call(self.backend.provider.discover_models, on_done=done, on_error=failed, name="discover-models")

    def discover_models_again(self) -> None:
        """A model was added (a catalog download): list the models anew."""
        self._discovery = None
        self.discover_models()

    def _model_ready(self, name: str) -> None:
        self.status.finish("model", f"Model: {name}")
        model = self.backend.chat_model
        if getattr(model, "engine", "") == "openai":  # the server's model is known once it answered
            self.model_picker.set_server(model.url, model.model_id or None)
        if self.backend.memory_ready:
            self.discover_models()
        self._model_name = name
        if self._model_choice_pending is not None:
            choice, self._model_choice_pending = self._model_choice_pending, None
            self.model_picker.confirm(choice)
            s = self.backend.provider.settings()
            if s.with_choice(choice) != s:
                self.backend.settings = s.with_choice(choice)
                self.backend.call(self.backend.provider.save_settings, self.backend.settings, name="save-settings")
            self.show_status(f"Now chatting with {name}.")
        self.chat.update_banner()

    def _model_failed(self, message: str) -> None:
        if self._model_choice_pending is not None:
            self._model_choice_pending = None
            self.model_picker.revert()
            current = "the previous model" if self.backend.model_ready else "no model"
            # the loading message goes: back to the model still in use (or none)
            self.status.finish("model", f"Model: {self._model_name}" if self.backend.model_ready and self._model_name else "")
            QMessageBox.warning(self, "This model can't be used", f"{message}\n\nKeepsake keeps using {current}.")
            return
        self.status.finish("model", "No chat model" if self.backend.provider.load_models else "")
        if self.backend.provider.load_models:
            self.show_error(message)
            self.discover_models()  # so another model can be picked
        self.chat.update_banner(model_error=message if self.backend.provider.load_models else None)

    def _memory_ready(self) -> None:
        if self.backend.model_ready or not self.backend.provider.load_models:
            self.discover_models()
        if self.backend.memory_error:
            self.show_error(self.backend.memory_error)

    def _model_chosen(self, choice: str) -> None:
        self._model_choice_pending = choice
        self.controller.forget_chat()
        self.backend.load_model(choice)

    def new_private_session(self) -> None:
        """A new conversation that nothing is remembered from; the current one is left as it is."""
        self.tabs.setCurrentIndex(0)
        self.controller.new_session(private=True)

    # ------------------------------------------------------------------ cross links
    def open_memory(self, memory_id: int) -> None:
        self.tabs.setCurrentWidget(self.inspector)
        self.inspector.show_memory(memory_id)

    def open_message(self, session_id: int, message_id: int) -> None:
        self.tabs.setCurrentIndex(0)
        self.chat.open_message(session_id, message_id)

    def _focus_search(self) -> None:
        if self.tabs.currentWidget() is self.inspector:
            self.inspector.search.setFocus()
            self.inspector.search.selectAll()
        else:
            self.tabs.setCurrentIndex(0)
            self.sessions.search.setFocus()

    # ------------------------------------------------------------------ settings
    def open_settings(self) -> None:
        dlg = SettingsDialog(self.backend, self)
        if dlg.exec() != SettingsDialog.DialogCode.Accepted:
            return
        new, old = dlg.settings(), dlg.original
        self.apply_settings(new, old, key_change=dlg.key_change)

    def apply_settings(self, new, old, *, key_change: tuple[bool, str | None] = (False, None)) -> None:
        """Save ``new`` (and the model server's API key when it changed) off the UI thread, then
        reload the chat model if the model, context size or server changed."""
        self.backend.settings = new
        engine = ("engine", "engine_url", "engine_model", "engine_timeout")
        key_changed, key = key_change
        reload_model = ((new.chat_model, new.context_size) != (old.chat_model, old.context_size)
                        or any(getattr(new, f) != getattr(old, f) for f in engine) or (key_changed and new.uses_server))  # fmt: skip
        self.model_picker.set_server(new.engine_url or None, new.engine_model or None)
        provider = self.backend.provider

        def save() -> None:
            if key_changed and new.engine_url:
                provider.save_api_key(new.engine_url, key)
            provider.save_settings(new)

        def saved(_r) -> None:
            self.show_status("Settings saved.")
            if reload_model:  # after saving: the model is loaded with the new settings
                self.model_picker.choose(new.choice)

        self.backend.call(save, on_done=saved, name="save-settings")
        if (new.idle_minutes, new.nightly_hour) != (old.idle_minutes, old.nightly_hour) and self.backend.jobs is not None:
            self.backend.restart_jobs()
        self.controller.forget_chat()
        self.chat.update_banner()

    # ------------------------------------------------------------------ status
    def show_status(self, text: str) -> None:
        self.status.say(text)

    def show_storage_fault(self, text: str) -> None:
        """The memory database cannot be used: say so in a dialog (once per message; the app
        keeps running, and the status bar keeps the line)."""
        if text in self._storage_faults_shown:
            return
        self._storage_faults_shown.add(text)
        box = QMessageBox(QMessageBox.Icon.Critical, "Keepsake can't use its memory", text, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("storageFaultDialog")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # window-modal, does not block the event loop

    def show_error(self, text: str) -> None:
        self.status.say(text, error=True)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self.controller.close()
        self.backend.shutdown()
        super().closeEvent(event)
