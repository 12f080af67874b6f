"""Every view follows a change at once, whoever made it: the store announces each committed
write (one change signal) and the inspector, the detail pane, the conversations list and the open
chat listen. No test here calls a refresh. Real store, no chat model (not needed)."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import pytest

pytest.importorskip("pytestqt")

from ui.services.backend import Backend  # noqa: E402
from ui.services.provider import NoModelsProvider  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402

UTC = timezone.utc
WAIT = 15000


@pytest.fixture
def window(nomodel_window):
    return nomodel_window


def _inspector(qtbot, window, memory_id: int):
    insp = window.inspector
    window.tabs.setCurrentWidget(insp)
    qtbot.waitUntil(lambda: insp.model.row_of(memory_id) >= 0, timeout=WAIT)
    insp.show_memory(memory_id)
    qtbot.waitUntil(lambda: insp.detail.data is not None and insp.detail.data.memory.id == memory_id, timeout=WAIT)
    return insp


def _version_heads(insp) -> list[str]:
    return [lbl.text() for lbl in insp.detail.findChildren(type(insp.count_label)) if lbl.objectName() == "versionHead"]


def test_no_longer_true_leaves_the_true_now_view_at_once(qtbot, window):
    store = window.backend.store
    mid = store.add("User works at Acme.", kind="fact", actor="user")
    other = store.add("User likes green tea.", kind="fact", actor="user")
    insp = _inspector(qtbot, window, mid)
    assert insp.time.currentText() == "True now"
    insp.actions.invalidate_now(mid, datetime.now(UTC))
    qtbot.waitUntil(lambda: insp.model.row_of(mid) < 0, timeout=WAIT)  # gone from "True now"
    assert insp.model.row_of(other) >= 0
    qtbot.waitUntil(lambda: insp.detail.data is not None and insp.detail.data.memory.version == 2, timeout=WAIT)
    badges = [lbl.text() for lbl in insp.detail.findChildren(type(insp.count_label)) if lbl.objectName() == "badgeWarn"]
    assert "No longer true" in badges
    heads = _version_heads(insp)
    assert heads[0].startswith("Marked no longer true by you")  # not "Edited by you"
    assert heads[1].startswith("Added by you")
    qtbot.waitUntil(lambda: insp.count_label.text() == "1 memory", timeout=WAIT)


def test_a_change_made_elsewhere_reaches_the_list_and_the_detail(qtbot, window, services):
    """Another store object on another thread (as the capture queue, the tidy-up job or an
    import use): the inspector's list and the open detail follow."""
    store = window.backend.store
    mid = store.add("User's favourite tea is sencha.", kind="fact", actor="user")
    insp = _inspector(qtbot, window, mid)

    def elsewhere() -> None:
        other = services.open_store(with_embedder=False)
        try:
            other.edit(mid, "User's favourite tea is genmaicha.")
            other.add("User has a cat called Miso.", kind="fact", actor="capture")
        finally:
            other.close()

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    qtbot.waitUntil(lambda: any(insp.model.memory_at(i).text == "User has a cat called Miso."
                                for i in range(insp.model.rowCount())), timeout=WAIT)  # fmt: skip
    qtbot.waitUntil(lambda: insp.detail.data.memory.text == "User's favourite tea is genmaicha.", timeout=WAIT)
    assert insp.model.memory_at(insp.model.row_of(mid)).text == "User's favourite tea is genmaicha."
    assert _version_heads(insp)[0].startswith("Edited by you")


def test_deleting_a_memory_updates_the_open_chat_and_shows_the_next_memory(qtbot, window):
    from assistant.memory.entries import InjectionItem
    from assistant.memory.records import Source

    store = window.backend.store
    s = store.create_session("Moving")
    said = store.add_message(s.id, "user", "I moved to Porto last week.")
    store.add_message(s.id, "assistant", "Congratulations on the move!")
    asked = store.add_message(s.id, "user", "Where do I live?")
    store.add_message(s.id, "assistant", "You live in Porto.")
    porto = store.add("User lives in Porto.", kind="profile", actor="capture",
                      source=Source(session_id=s.id, message_id=said.id, speaker="user", extractor="rules",
                                    extractor_version="1", observed_at=said.observed_at))  # fmt: skip
    keeper = store.add("User likes green tea.", kind="fact", actor="user")
    store.record_injection("t1", [InjectionItem(porto, 0.8, 0), InjectionItem(keeper, 0.4, 1)],
                           session_id=s.id, message_id=asked.id)  # fmt: skip
    window.controller.open_session(s.id)
    qtbot.waitUntil(lambda: len(window.chat_view.messages) == 4, timeout=WAIT)
    used = window.chat_view.messages[3].memories
    assert used is not None and {m["id"] for m in used.memories} == {porto, keeper}

    insp = _inspector(qtbot, window, porto)
    insp.actions.delete_now([porto])
    # the open chat: the source message shows as deleted, the memory leaves "memories used"
    qtbot.waitUntil(lambda: window.chat_view.find(said.id).text == "", timeout=WAIT)
    assert "deleted" in window.chat_view.find(said.id).body.text()
    qtbot.waitUntil(lambda: [m["id"] for m in window.chat_view.messages[3].memories.memories] == [keeper], timeout=WAIT)
    assert "Porto" not in window.chat_view.messages[3].memories.panel.findChild(type(insp.count_label)).text()
    # the inspector: the row is gone and the detail shows the next memory, not a stale "Deleted."
    qtbot.waitUntil(lambda: insp.model.row_of(porto) < 0, timeout=WAIT)
    qtbot.waitUntil(lambda: insp.detail.data is not None and insp.detail.data.memory.id == keeper, timeout=WAIT)


def test_a_deleted_conversation_leaves_the_list_and_the_chat(qtbot, window):
    store = window.backend.store
    s = store.create_session("Groceries")
    store.add_message(s.id, "user", "Buy oat milk.")
    qtbot.waitUntil(lambda: window.sessions.list.count() == 1, timeout=WAIT)
    window.controller.open_session(s.id)
    qtbot.waitUntil(lambda: len(window.chat_view.messages) == 1, timeout=WAIT)
    store.delete_session(s.id)  # e.g. from the command line part of the app, not the panel
    qtbot.waitUntil(lambda: window.sessions.list.count() == 0, timeout=WAIT)
    qtbot.waitUntil(lambda: window.controller.session_id is None and not window.chat_view.messages, timeout=WAIT)


def _other_process(code: str) -> None:
    """Run ``code`` (with ``store`` open on this test's database) in another Python process, as
    ``keepsake import`` in a terminal would. Its key goes to the key file (no OS keyring)."""
    import os
    import subprocess
    import sys

    script = ("from assistant.profile import Profile\nfrom assistant.services import Services\n"
              "store = Services(Profile.load()).open_store(with_embedder=False)\n" + code + "\nstore.close()\n")
    env = dict(os.environ, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_a_change_made_by_another_process_reaches_the_views(qtbot, services):
    # the database (and its key file) made by another process first, as by the CLI
    _other_process("store.add('User likes green tea.', kind='fact', actor='user')")
    w = MainWindow(Backend(NoModelsProvider(services)))
    qtbot.addWidget(w)
    w.show()
    try:
        qtbot.waitUntil(lambda: w.backend.memory_ready, timeout=30000)
        insp = w.inspector
        w.tabs.setCurrentWidget(insp)
        qtbot.waitUntil(lambda: insp.model.rowCount() == 1, timeout=WAIT)
        tea = insp.model.memory_at(0).id
        insp.show_memory(tea)
        qtbot.waitUntil(lambda: insp.detail.data is not None, timeout=WAIT)
        _other_process(f"store.add('User works as a night-shift nurse.', kind='profile', actor='import')\n"
                       f"store.edit({tea}, 'User likes jasmine tea.')\n"
                       "s = store.create_session('Imported chat')\nstore.add_message(s.id, 'user', 'Hello from an import.')")
        qtbot.waitUntil(lambda: insp.model.rowCount() == 2, timeout=WAIT)  # no refresh asked for
        qtbot.waitUntil(lambda: insp.detail.data.memory.text == "User likes jasmine tea.", timeout=WAIT)
        qtbot.waitUntil(lambda: w.sessions.list.count() == 1, timeout=WAIT)
        assert w.sessions.list.item(0).text() == "Imported chat"
    finally:
        w.close()
