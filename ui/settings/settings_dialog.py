"""Settings: model, context size, memory on/off, idle minutes, nightly hour, the data folder,
whether the memory is encrypted (and where its key lives), the model server
(:mod:`ui.settings.server_settings`) and the model catalog (:mod:`ui.settings.model_catalog`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from assistant.memory.store import diagnostics
from ui.services.backend import Backend
from ui.settings.embedder_switch import AppSwitch, SwitchController
from ui.settings.model_catalog import CatalogPage
from ui.settings.model_download import DownloadController
from ui.settings.model_picker import ModelPicker
from ui.settings.server_settings import ServerSettings


def encryption_info(store) -> dict[str, Any]:
    """What the settings dialog shows about encryption (worker thread)."""

    info = store.info()
    usable, name = diagnostics.keyring_status()
    return {
        "encrypted": info.encrypted,
        "driver": info.driver,
        "key": info.key.description,
        "key_backend": info.key.backend,
        "key_location": info.key.location,
        "keyring": diagnostics.keyring_name(name),
        "keyring_usable": usable,
        "database": info.path,
    }


class SettingsDialog(QDialog):
    def __init__(self, backend: Backend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setObjectName("settingsDialog")
        self.setMinimumWidth(620)
        self.backend = backend
        self.original = backend.provider.settings()
        s = self.original
        lay = QVBoxLayout(self)
        lay.setContentsMargins(22, 18, 22, 14)
        lay.setSpacing(14)
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        form.setHorizontalSpacing(16)
        form.setVerticalSpacing(10)
        self.model = ModelPicker(self)
        self.model.current_choice = s.chat_model
        self.model.set_entries([], current=s.chat_model)
        self.model.modelChosen.connect(self.model.confirm)  # chosen here, loaded on Save
        form.addRow("Chat model", self.model)
        self.context = QSpinBox(self)
        self.context.setRange(512, 131072)
        self.context.setSingleStep(512)
        self.context.setValue(s.context_size)
        self.context.setSuffix(" tokens")
        form.addRow("Context size", self.context)
        self.memory = QCheckBox("Remember things from conversations", self)
        self.memory.setChecked(s.memory_enabled)
        form.addRow("Memory", self.memory)
        self.incognito = QCheckBox("Make every new conversation private", self)
        self.incognito.setToolTip("Nothing is remembered from private conversations")
        self.incognito.setChecked(s.incognito)
        form.addRow("", self.incognito)
        self.idle = QSpinBox(self)
        self.idle.setRange(1, 24 * 60)
        self.idle.setValue(s.idle_minutes)
        self.idle.setSuffix(" min")
        form.addRow("Tidy up memory after idle", self.idle)
        self.nightly = QSpinBox(self)
        self.nightly.setRange(0, 23)
        self.nightly.setValue(s.nightly_hour)
        self.nightly.setSuffix(":00")
        form.addRow("Nightly tidy-up at", self.nightly)
        p = backend.provider.paths
        folder = QHBoxLayout()
        self.folder = QLineEdit(str(p.data), self)
        self.folder.setReadOnly(True)
        self.folder.setToolTip("Set KEEPSAKE_HOME before starting Keepsake to keep everything in another folder.")
        folder.addWidget(self.folder, 1)
        open_button = QPushButton("Open", self)
        open_button.setObjectName("toolButton")
        open_button.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(p.data))))
        folder.addWidget(open_button)
        holder = QWidget(self)
        folder.setContentsMargins(0, 0, 0, 0)
        holder.setLayout(folder)
        form.addRow("Data folder", holder)
        self.encryption = QLabel("Checking…", self)
        self.encryption.setWordWrap(True)
        self.encryption.setObjectName("fieldValue")
        form.addRow("Encryption", self.encryption)
        self.keyring = QLabel("Checking…", self)
        self.keyring.setWordWrap(True)
        self.keyring.setObjectName("fieldValue")
        form.addRow("Key", self.keyring)
        self.key_file = QLineEdit("", self)
        self.key_file.setReadOnly(True)
        self.key_file.setToolTip("Back this file up with the data folder: without it the memory cannot be read")
        form.addRow("Key file", self.key_file)
        form.setRowVisible(self.key_file, False)
        self._form = form
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("settingsTabs")
        general = QWidget(self.tabs)
        form.setContentsMargins(12, 14, 12, 10)
        general.setLayout(form)
        self.tabs.addTab(general, "General")
        self.server = ServerSettings(backend, s, self.tabs)
        self.tabs.addTab(self.server, "Model server")
        self.downloads = DownloadController(backend.runner, backend.provider.paths.models, self)
        self.switcher = None
        if hasattr(backend.provider, "services"):  # the app's provider (tests may run without models)
            adapter = AppSwitch(backend)
            self.switcher = SwitchController(backend.runner, adapter.run, adapter.apply)  # no parent: outlives a closed dialog
        self.catalog = CatalogPage(self.downloads, self.tabs, switcher=self.switcher,
                                   embedder=backend.provider.settings().embed_model)
        self.catalog.useModel.connect(self.model.choose)
        self.downloads.finished.connect(lambda _r: self._discover())
        self.finished.connect(lambda _r: self.downloads.cancel())  # closing Settings cancels a download
        if self.switcher is not None:  # ... and a re-embedding (the old index stays in use)
            self.finished.connect(lambda _r: self.switcher.cancel())
        self.tabs.addTab(self.catalog, "Models")
        lay.addWidget(self.tabs)
        note = QLabel("Changing the model, the server or the context size reloads the model in the background.", self)
        note.setObjectName("hint")
        note.setWordWrap(True)
        lay.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self._discover()
        if backend.store_ready:
            backend.read(encryption_info, on_done=self._show_encryption, on_error=self._encryption_failed, name="encryption")
        else:
            self._encryption_failed(None)

    def _discover(self) -> None:
        b = self.backend
        b.call(b.provider.discover_models, on_done=lambda e: self.model.set_entries(e, current=self.model.current_choice),
               on_error=lambda _e: None, name="discover")  # fmt: skip

    def _show_encryption(self, info: dict[str, Any]) -> None:
        if info["encrypted"]:
            self.encryption.setText("Encrypted on disk (SQLCipher)")
        else:
            self.encryption.setText("<b>Not encrypted</b> — this system has no SQLCipher build; the file is readable by anyone with access to it.")
            self.encryption.setTextFormat(Qt.TextFormat.RichText)
        backend, os_keyring = info["key_backend"], info["keyring"] if info["keyring_usable"] else None
        if backend == "keyring":
            text = f"In the OS keyring ({os_keyring})"
        elif backend == "file":
            text = "In a key file only you can read"
        else:
            text = "Not created yet"
        self.keyring.setText(text)
        self.keyring.setToolTip(info["key"][:1].upper() + info["key"][1:])  # e.g. why not the OS keyring
        self.key_file.setText(info["key_location"] or "")
        self._form.setRowVisible(self.key_file, backend == "file" and bool(info["key_location"]))
        self.adjustSize()  # the texts arrived after the first layout

    def _encryption_failed(self, _exc) -> None:
        self.encryption.setText("Unknown (the memory database is not open).")
        self.keyring.setText("Unknown.")

    @property
    def key_change(self) -> tuple[bool, str | None]:
        """(changed, new key or None to remove it) for the model server's API key."""
        return self.server.key_change()

    def settings(self):
        """The edited settings (not saved yet)."""
        return self.server.apply(replace(
            self.original,
            embed_model=self.backend.provider.settings().embed_model,  # switched (and saved) on the Models tab
            chat_model=self.model.current_choice or "default",
            context_size=self.context.value(),
            memory_enabled=self.memory.isChecked(),
            incognito=self.incognito.isChecked(),
            idle_minutes=self.idle.value(),
            nightly_hour=self.nightly.value(),
        ))
