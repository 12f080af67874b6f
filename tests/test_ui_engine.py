"""The app with a model server as its chat engine: the REAL llama_cpp.server (SmolLM2) behind a
relay that can be taken down. A reply streams through the server; with the server down the
message is kept, the reply bubble shows why and a Retry button, and Retry answers the stored
message once the server is back. Settings → Model server lists the server's models."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from model_servers import ToggleProxy, allow, disallow  # noqa: E402

import ui_testing as testing  # noqa: E402

from assistant.config import Settings, paths, save_settings  # noqa: E402
from assistant.profile import Profile  # noqa: E402
from assistant.services import Services  # noqa: E402
from ui.services.backend import Backend, Provider  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402


@pytest.fixture
def proxy(llama_server):
    p = ToggleProxy(llama_server.port)
    p.up()
    yield p
    p.down()
    disallow(p.port)


@pytest.fixture
def window(qtbot, converted_embedder_path, proxy):
    save_settings(Settings().with_server(proxy.url), paths())
    services = Services(Profile.load())  # the profile with the server saved above
    w = MainWindow(Backend(Provider(services)))
    qtbot.addWidget(w)
    w.controller.max_tokens = 16
    w.show()
    testing.wait_ready(w)
    yield w
    w.close()
    services.close()


def test_the_chat_runs_on_the_server_and_retry_answers_after_it_was_down(qtbot, window, proxy):
    assert window.backend.chat_model.engine == "openai"
    assert window.model_picker.currentText().startswith("Model server · SmolLM2-135M-Instruct")
    assert "(server 127.0.0.1)" in window.progress_label.text()
    proxy.down()
    failed: list[str] = []
    window.controller.replyFailed.connect(failed.append)
    window.composer.edit.setPlainText("What is 2+2?")
    window.composer._submit()
    qtbot.waitUntil(lambda: bool(failed), timeout=60000)
    assert "Cannot reach the model server" in failed[0] and "nothing is listening" in failed[0]
    bubble = window.chat_view.messages[-1]
    assert bubble.role == "assistant" and bubble.retry.isVisible() and bubble.badge.text() == "failed"
    assert "Cannot reach the model server" in bubble.body.text()
    store, sid = window.backend.store, window.controller.session_id
    assert [(m.role.value, m.content) for m in store.messages(sid)] == [("user", "What is 2+2?")]  # kept
    proxy.up()
    done: list = []
    window.controller.replyFinished.connect(done.append)
    bubble.retry.click()
    qtbot.waitUntil(lambda: bool(done), timeout=240000)
    turn = done[0]
    assert turn.reply and turn.engine == "openai"
    reply = window.chat_view.messages[-1]
    assert reply is not bubble and reply.text == turn.reply and not reply.retry.isVisible()
    assert [m.role.value for m in store.messages(sid)] == ["user", "assistant"]  # the message was not stored twice
    assert "the server's tokenizer" in window.budget.toolTip()


def test_a_reopened_message_without_reply_offers_retry_and_retry_answers_it(qtbot, window):
    store = window.backend.store
    s = store.create_session("Unanswered")
    store.add_message(s.id, "user", "What is 2+2?")  # as left by a turn the server failed
    window.controller.open_session(s.id)
    qtbot.waitUntil(lambda: len(window.chat_view.messages) == 1, timeout=15000)
    asked = window.chat_view.messages[0]
    assert asked.badge.text() == "no reply" and not asked.retry.isHidden()
    done: list = []
    window.controller.replyFinished.connect(done.append)
    asked.retry.click()
    qtbot.waitUntil(lambda: bool(done), timeout=240000)
    assert done[0].reply and asked.retry.isHidden() and asked.badge.text() == ""
    assert [m.role.value for m in store.messages(s.id)] == ["user", "assistant"]


def test_settings_model_server_lists_the_servers_models(qtbot, window, llama_server):
    from ui.settings.settings_dialog import SettingsDialog

    dlg = SettingsDialog(window.backend, window)
    qtbot.addWidget(dlg)
    server = dlg.server
    assert server.enabled.isChecked() and server.url.text() == window.backend.settings.engine_url
    allow(llama_server.port)
    server.url.setText(llama_server.url)
    server.run_check()
    qtbot.waitUntil(lambda: server.model.count() > 1, timeout=60000)
    assert server.model.itemText(1) == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert "Reachable in" in server.status.text() and "server's tokenizer" in server.status.text()
    server.model.setCurrentIndex(1)
    server.key.setText("s3cret")
    new = dlg.settings()
    assert new.uses_server and new.engine_url == llama_server.url and new.engine_model.endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert dlg.key_change == (True, "s3cret")
    server.enabled.setChecked(False)
    assert dlg.settings().engine == "local" and dlg.settings().engine_url == llama_server.url  # kept for later
