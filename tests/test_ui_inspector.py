"""The memory inspector in the running app (real models): a captured memory appears, an edit is
a new version that can be restored, delete removes a memory from the table, from search and
from the next turn's injection; provenance opens the message in the chat; export."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QDialog  # noqa: E402

import ui_testing as testing  # noqa: E402
from ui.services.backend import Backend, Provider  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402


@pytest.fixture
def window(qtbot, converted_embedder_path, services):
    w = MainWindow(Backend(Provider(services)))
    qtbot.addWidget(w)
    w.controller.max_tokens = 16
    w.resize(1280, 800)
    w.show()
    testing.wait_ready(w)
    yield w
    w.close()


def _rows(inspector) -> list[str]:
    m = inspector.model
    return [m.memory_at(i).text for i in range(m.rowCount())]


def _open_inspector(qtbot, window):
    window.tabs.setCurrentWidget(window.inspector)
    qtbot.waitUntil(lambda: not window.inspector.model.loading, timeout=10000)
    return window.inspector


def test_captured_memory_appears_in_the_inspector(qtbot, window):
    turn = testing.send(window, "My name is Maya and I live in Lisbon.")
    assert turn.captured
    testing.flush_capture(window)
    inspector = _open_inspector(qtbot, window)
    qtbot.waitUntil(lambda: any("Lisbon" in t for t in _rows(inspector)), timeout=20000)
    row = next(i for i, t in enumerate(_rows(inspector)) if "Lisbon" in t)
    memory = inspector.model.memory_at(row)
    assert any(s.session_id == turn.session_id for s in memory.sources)
    # provenance: the detail panel names the conversation; clicking it opens the message in the chat
    inspector.show_memory(memory.id)
    qtbot.waitUntil(lambda: inspector.detail.data is not None and inspector.detail.data.memory.id == memory.id, timeout=10000)
    assert inspector.detail.source_labels
    link = inspector.detail.source_labels[0]
    href = f"msg:{turn.session_id}:{turn.user_message_id}"
    assert href in link.text()
    link.linkActivated.emit(href)
    assert window.tabs.currentIndex() == 0
    qtbot.waitUntil(lambda: (w := window.chat_view.find(turn.user_message_id)) is not None and w.property("highlight"), timeout=10000)


def test_edit_makes_a_version_that_can_be_restored(qtbot, window):
    store = window.backend.store
    mid = store.add("User's favourite tea is sencha.", kind="fact", actor="user")
    inspector = _open_inspector(qtbot, window)
    inspector.refresh()
    qtbot.waitUntil(lambda: inspector.model.row_of(mid) >= 0, timeout=10000)
    inspector.show_memory(mid)
    qtbot.waitUntil(lambda: inspector.detail.data is not None and inspector.detail.data.memory.id == mid, timeout=10000)
    inspector.actions.edit_now(mid, "User's favourite tea is genmaicha.", expected_version=1)
    qtbot.waitUntil(lambda: len(inspector.detail.data.versions) == 2, timeout=10000)
    assert inspector.detail.data.memory.text == "User's favourite tea is genmaicha."
    assert [v.text for v in inspector.detail.data.versions] == ["User's favourite tea is sencha.", "User's favourite tea is genmaicha."]
    assert inspector.model.memory_at(inspector.model.row_of(mid)).text == "User's favourite tea is genmaicha."
    assert set(inspector.detail.restore_buttons) == {1}
    inspector.detail.restore_buttons[1].click()
    qtbot.waitUntil(lambda: len(inspector.detail.data.versions) == 3, timeout=10000)
    assert inspector.detail.data.memory.text == "User's favourite tea is sencha."
    assert store.get(mid).version == 3
    assert any(e.action == "restore_version" for e in inspector.detail.data.audit)


def test_delete_removes_from_table_search_and_next_injection(qtbot, window):
    store = window.backend.store
    inspector = _open_inspector(qtbot, window)
    inspector.actions.add_now("User's favourite colour is teal.", kind="fact")
    qtbot.waitUntil(lambda: any("teal" in t for t in _rows(inspector)), timeout=20000)
    mid = next(inspector.model.memory_at(i).id for i in range(inspector.model.rowCount()) if "teal" in inspector.model.memory_at(i).text)
    # it is used in a reply, and listed under "memories used"
    turn = testing.send(window, "What is my favourite colour?")
    assert mid in [m.id for m in turn.injected_memories]
    reply = window.chat_view.last("assistant")
    assert reply.memories is not None and mid in [m["id"] for m in reply.memories.memories]
    reply.memories.memoryClicked.emit(mid)  # opens it in the inspector
    assert window.tabs.currentWidget() is inspector
    qtbot.waitUntil(lambda: inspector.current_id == mid and inspector.detail.data is not None, timeout=10000)
    # search finds it
    inspector.search.setText("favourite colour")
    inspector.run_search()
    qtbot.waitUntil(lambda: inspector.model.search_mode and mid in inspector.model.ids(), timeout=20000)
    # delete it (cascade preview confirmed)
    previews: list[dict] = []
    inspector.select_ids([mid])
    inspector.actions.delete(inspector.selected_ids(), confirm=lambda plan: previews.append(plan) or True)
    qtbot.waitUntil(lambda: mid not in inspector.model.ids(), timeout=20000)
    assert previews and previews[0]["counts"]["memories"] == 1 and previews[0]["counts"]["memory_vec"] == 1
    assert not store.get_many([mid])
    inspector.run_search()
    qtbot.waitUntil(lambda: inspector.model.search_mode and not inspector.model.loading, timeout=20000)
    testing.pump(0.5)
    assert mid not in inspector.model.ids()
    inspector.search.clear()
    inspector.apply_filters()
    qtbot.waitUntil(lambda: not inspector.model.loading, timeout=10000)
    assert mid not in inspector.model.ids()
    # ... and from the next turn's injection
    window.tabs.setCurrentIndex(0)
    again = testing.send(window, "What is my favourite colour?")
    assert mid not in [m.id for m in again.injected_memories]
    assert all("teal" not in m.text for m in again.injected_memories)


def test_bulk_delete_export_and_filters(qtbot, window, tmp_path):
    store = window.backend.store
    ids = [store.add(f"User visited museum number {i}.", kind="fact", actor="user") for i in range(6)]
    episodes = [store.add(f"I visited museum number {i} today.", kind="episode", actor="user") for i in range(3)]
    inspector = _open_inspector(qtbot, window)
    inspector.refresh()
    qtbot.waitUntil(lambda: all(inspector.model.row_of(i) >= 0 for i in ids), timeout=10000)
    assert not any(inspector.model.row_of(i) >= 0 for i in episodes)  # one row per fact: messages are not listed beside them
    # kind filter (in the store) and the count: "Your messages" lists the episodes
    inspector.kind.setCurrentIndex(inspector.kind.findData("episode"))
    assert inspector.kind.currentText() == "Your messages"
    qtbot.waitUntil(lambda: not inspector.model.loading and inspector.model.rowCount() == 3, timeout=10000)
    qtbot.waitUntil(lambda: inspector.count_label.text() == "3 memories", timeout=10000)
    inspector.kind.setCurrentIndex(0)
    qtbot.waitUntil(lambda: not inspector.model.loading and inspector.model.rowCount() == 6, timeout=10000)
    # export the selection
    inspector.select_ids(ids[:2])
    out = tmp_path / "selection.json"
    inspector.actions.export_now(inspector.selected_ids(), out)
    qtbot.waitUntil(out.exists, timeout=10000)
    data = json.loads(out.read_text())
    assert data["format"] == "keepsake.memories" and sorted(m["id"] for m in data["memories"]) == sorted(ids[:2])
    # bulk delete
    inspector.select_ids(ids[:4])
    assert inspector.delete_button.text() == "Delete 4…"
    inspector.actions.delete(inspector.selected_ids(), confirm=lambda plan: plan["counts"]["memories"] == 4)
    qtbot.waitUntil(lambda: not any(inspector.model.row_of(i) >= 0 for i in ids[:4]), timeout=20000)
    assert len(store.get_many(ids)) == 2
    # "no longer true" keeps it (history), pin and expiry are new versions
    from datetime import datetime, timedelta, timezone

    inspector.actions.invalidate_now(ids[4], datetime.now(timezone.utc) - timedelta(days=1))
    inspector.actions.toggle_pin(store.get(ids[5]))
    qtbot.waitUntil(lambda: store.get(ids[4]).invalid_at is not None and store.get(ids[5]).pinned, timeout=10000)
    inspector.actions.set_expiry_now(ids[5], datetime.now(timezone.utc) + timedelta(days=7))
    qtbot.waitUntil(lambda: store.get(ids[5]).expires_at is not None, timeout=10000)
    assert [v.version for v in store.history(ids[5])] == [1, 2, 3]


def test_delete_conversation_shows_the_cascade_and_removes_it(qtbot, window, monkeypatch):
    from ui.widgets.delete_dialog import CascadeDialog

    turn = testing.send(window, "I work as a nurse at Hospital de São João.")
    testing.flush_capture(window)
    store = window.backend.store
    learned = [m.id for m in store.list(include_all=True) if any(s.session_id == turn.session_id for s in m.sources)]
    shown: list[dict] = []
    monkeypatch.setattr(CascadeDialog, "exec", lambda self: shown.append(self.plan) or QDialog.DialogCode.Accepted)
    qtbot.waitUntil(lambda: window.sessions.list.count() == 1, timeout=10000)
    window.sessions.delete(turn.session_id)
    qtbot.waitUntil(lambda: window.sessions.list.count() == 0, timeout=20000)
    assert shown and shown[0]["counts"]["messages_deleted"] == 2 and shown[0]["counts"]["sessions"] == 1
    assert not store.get_many(learned)
    assert window.controller.session_id is None and not window.chat_view.messages


def test_search_box_finds_by_meaning_with_the_chats_retrieval_and_takes_any_text(qtbot, window):
    store = window.backend.store
    nurse = store.add("User works as a night-shift nurse.", kind="profile", actor="capture")
    passport = store.add("User's passport expires in May 2027.", kind="fact", actor="capture")
    store.add("User is allergic to peanuts.", kind="fact", actor="capture")
    inspector = _open_inspector(qtbot, window)
    assert window.backend.retriever is not None  # the same retrieval service the chat uses

    def search(text: str) -> list[int]:
        inspector.search.setText(text)
        inspector.run_search()
        qtbot.waitUntil(lambda: inspector.model.search_mode and inspector.count_label.text() != "searching…", timeout=20000)
        return inspector.model.ids()

    assert nurse in search("job")  # no shared word: found by meaning
    assert search("travel documents")[:1] == [passport]
    errors: list[str] = []
    window.backend.error.connect(errors.append)
    for text in ('"unbalanced', "AND OR NOT", "NEAR(a b", "text:nurse", "-nurse", "nurse*", "^", "()", "'"):
        search(text)  # FTS5 syntax is just text here
    testing.pump(0.3)
    assert errors == []
    assert nurse in search("nurse*")


def test_the_old_wording_is_shown_as_kept_and_can_be_forgotten(qtbot, window, monkeypatch):
    from ui.widgets.delete_dialog import CascadeDialog

    store = window.backend.store
    mid = store.add("User's locker code is 4417.", kind="fact", actor="user")
    store.edit(mid, "User's locker code is 9021.")
    inspector = _open_inspector(qtbot, window)
    inspector.show_memory(mid)
    qtbot.waitUntil(lambda: inspector.detail.data is not None and inspector.detail.data.memory.id == mid, timeout=10000)
    assert inspector.detail.forget_old_button is not None  # "your earlier wording is kept ..."
    shown: list[dict] = []
    monkeypatch.setattr(CascadeDialog, "exec", lambda self: shown.append(self.plan) or QDialog.DialogCode.Accepted)
    inspector.detail.forget_old_button.click()
    qtbot.waitUntil(lambda: len(store.history(mid)) == 1, timeout=10000)
    assert shown and shown[0]["counts"]["memory_versions_forgotten"] == 1
    qtbot.waitUntil(lambda: inspector.detail.data is not None and len(inspector.detail.data.versions) == 1, timeout=10000)
    assert inspector.detail.forget_old_button is None
    assert store.get(mid).text == "User's locker code is 9021."


def test_the_delete_dialog_offers_copies_unticked_with_their_reason(qtbot, window, monkeypatch):
    """Issue 26.1 in the app: deleting #1 (whose old text another memory #2 holds) shows #2 as an
    unticked option with the reason the CLI gives; left unticked only #1 goes, ticked #2 goes too."""
    from ui.widgets.delete_dialog import CascadeDialog

    store = window.backend.store
    inspector = _open_inspector(qtbot, window)

    def pair(text: str) -> tuple[int, int]:
        first = store.add(text, kind="fact", actor="user")
        store.edit(first, f"I planted a tree in my garden ({text[:10]}).")
        return first, store.add(text, kind="fact", actor="user")

    shown: list[CascadeDialog] = []
    tick = [False]

    def exec_(dlg):
        shown.append(dlg)
        for box in dlg.copy_boxes.values():
            box.setChecked(tick[0])
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(CascadeDialog, "exec", exec_)
    one, copy = pair("I enjoy hiking in the Alps.")
    inspector.actions.delete([one])
    qtbot.waitUntil(lambda: not store.get_many([one]), timeout=20000)
    [dlg] = shown
    assert list(dlg.copy_boxes) == [copy]
    box = dlg.copy_boxes[copy]
    assert f"#{copy}" in box.text() and f"same text as an old version of #{one}" in box.text()
    assert [p["reason"] for p in dlg.plan["proposed_copies"]] == [f"same text as an old version of #{one}"]  # the CLI's data
    testing.pump(0.3)
    assert store.get(copy).text == "I enjoy hiking in the Alps."  # unticked: it stays
    tick[0] = True
    two, copy2 = pair("I enjoy sailing on Lake Geneva.")
    inspector.actions.delete([two])
    qtbot.waitUntil(lambda: not store.get_many([two, copy2]), timeout=20000)
    assert len(shown) == 2 and shown[1].copy_boxes[copy2].isChecked()
