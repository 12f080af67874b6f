"""Settings → Model server: chat with a model on another machine (llama-server, Ollama, LM Studio,
vLLM: anything OpenAI-compatible) while memory, search and embeddings stay here.

URL, an optional API key (kept in the OS keyring, never in settings.json) and the model, picked
from the server's ``/v1/models`` by "Check" (which also shows latency and how tokens are
counted). Nothing contacts the server until "Check" is pressed or the settings are saved with
"Chat on this server" on.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from assistant.engine.server.model import model_name
from ui.services.backend import Backend
from ui.services.errors import describe

FIRST_LISTED = ""  # the model combo's "first model the server lists" choice


class ServerSettings(QWidget):
    """The "Model server" tab of the settings dialog."""

    def __init__(self, backend: Backend, settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serverSettings")
        self.backend = backend
        self._remove_key = False
        form = QFormLayout(self)
        form.setContentsMargins(12, 14, 12, 10)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.enabled = QCheckBox("Chat on this server", self)
        self.enabled.setToolTip("Only the conversation is sent (with the memories retrieved for each message); "
                                "memory, search and embeddings stay on this computer")
        self.enabled.setChecked(settings.uses_server)
        form.addRow("", self.enabled)
        what = QLabel("The server gets each conversation and the memories recalled for it; your memory, search "
                      "and embeddings stay on this computer.", self)
        what.setObjectName("hint")
        what.setWordWrap(True)
        form.addRow("", what)
        self.url = QLineEdit(settings.engine_url, self)
        self.url.setPlaceholderText("http://gpu-box:8080/v1")
        self.url.setToolTip("The server's OpenAI-compatible base URL (llama-server, Ollama: http://host:11434/v1, LM Studio, vLLM)")
        form.addRow("URL", self.url)
        self.key = QLineEdit(self)
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("optional; kept in the OS keyring")
        self.forget_key = QPushButton("Remove key", self)
        self.forget_key.setObjectName("toolButton")
        self.forget_key.clicked.connect(self._remove)
        form.addRow("API key", self._row(self.key, self.forget_key))
        self.model = QComboBox(self)
        self.model.setObjectName("serverModel")
        self.model.setMinimumContentsLength(24)
        self.model.addItem("First model the server lists", FIRST_LISTED)
        if settings.engine_model:
            self.model.addItem(model_name(settings.engine_model), settings.engine_model)
            self.model.setCurrentIndex(1)
        self.check = QPushButton("Check", self)
        self.check.setToolTip("Ask the server for its models (GET /v1/models)")
        self.check.clicked.connect(self.run_check)
        form.addRow("Model", self._row(self.model, self.check))
        self.status = QLabel("Not checked yet.", self)
        self.status.setObjectName("hint")
        self.status.setWordWrap(True)
        form.addRow("", self.status)
        if settings.engine_url:
            backend.call(backend.provider.api_key, settings.engine_url, on_done=self._show_key, on_error=lambda _e: None, name="engine-key")

    def _row(self, field: QWidget, button: QPushButton) -> QWidget:
        holder = QWidget(self)
        row = QHBoxLayout(holder)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(field, 1)
        row.addWidget(button)
        return holder

    # -- the key ---------------------------------------------------------------------------------
    def _show_key(self, key: str | None) -> None:
        if key and not self.key.text():
            self.key.setPlaceholderText("saved (type a new one to replace it)")

    def _remove(self) -> None:
        self._remove_key = True
        self.key.clear()
        self.key.setPlaceholderText("will be removed on Save")

    def key_change(self) -> tuple[bool, str | None]:
        """(changed, the new key or None to remove it) for the URL being saved."""
        if self.key.text().strip():
            return True, self.key.text().strip()
        return (True, None) if self._remove_key else (False, None)

    # -- check -----------------------------------------------------------------------------------
    def run_check(self) -> None:
        url = self.url.text().strip()
        if not url:
            self._failed("Enter the server's URL first.")
            return
        self.check.setEnabled(False)
        self.status.setText(f"Asking {escape(url)} for its models…")
        key = self.key.text().strip() or None
        self.backend.call(self.backend.provider.check_server, url, self.model.currentData() or None, key,
                          on_done=self._checked, on_error=self._check_failed, name="check-server")  # fmt: skip

    def _checked(self, info) -> None:
        self.check.setEnabled(True)
        current = self.model.currentData() or info.model
        self.model.clear()
        self.model.addItem("First model the server lists", FIRST_LISTED)
        for model_id in info.models:
            self.model.addItem(model_name(model_id), model_id)
            self.model.setItemData(self.model.count() - 1, model_id, Qt.ItemDataRole.ToolTipRole)
        index = self.model.findData(current)
        self.model.setCurrentIndex(index if index >= 0 else 0)
        ctx = f" · context {info.n_ctx:,} tokens" if info.n_ctx else ""
        self.status.setProperty("error", False)
        self.status.setText(f"Reachable in {info.latency_ms:.0f} ms · {len(info.models)} model(s){ctx} · "
                            f"tokens counted with {info.tokens.detail}")  # fmt: skip

    def _check_failed(self, exc) -> None:
        self.check.setEnabled(True)
        self._failed(describe(exc))

    def _failed(self, text: str) -> None:
        self.status.setProperty("error", True)
        self.status.setText(text)

    # -- result ----------------------------------------------------------------------------------
    def apply(self, settings):
        """``settings`` with this section's values (validated: no URL means the local engine)."""
        return replace(settings, engine="openai" if self.enabled.isChecked() else "local", engine_url=self.url.text().strip(),
                       engine_model=self.model.currentData() or "").validated()  # fmt: skip
