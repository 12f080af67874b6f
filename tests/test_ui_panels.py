"""Panels that need no chat model: the note editor (budget, versions, the 32 KiB cap), the
consolidation panel (run, preview, undo; "not available" when there is no job module), the
settings dialog (encryption, saving), the sessions list, error messages, and the screenshots."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from ui.services.backend import Backend, NoModelsProvider  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402

UTC = timezone.utc


@pytest.fixture
def window(qtbot, services):
    w = MainWindow(Backend(NoModelsProvider(services)))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.backend.memory_ready, timeout=30000)
    yield w
    w.close()


def test_note_editor_budget_versions_and_cap(qtbot, window):
    note = window.note_editor
    window.tabs.setCurrentWidget(note)
    note.edit.setPlainText("I'm Maya. Keep answers short.")
    assert note.save_button.isEnabled()
    assert note.budget_label.text().startswith("29 / 32,768 bytes")
    note.save()
    qtbot.waitUntil(lambda: len(note.versions) == 1, timeout=10000)
    note.edit.setPlainText("I'm Maya. Keep answers very short.")
    note.edit.setFocus()
    qtbot.keyClick(note.edit, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)  # Ctrl+S saves
    qtbot.waitUntil(lambda: len(note.versions) == 2, timeout=10000)
    assert note.versions[-1].text == "I'm Maya. Keep answers very short."
    assert not note.save_button.isEnabled()  # saved: nothing to save
    # too long: refused with the reason, never cut
    note.edit.setPlainText("x" * (32 * 1024 + 10))
    assert not note.save_button.isEnabled() and "too long" in note.budget_label.text()
    note.save()
    qtbot.waitUntil(note.error.isVisible, timeout=10000)
    assert "32,778 bytes" in note.error.text() and "shorten it by 10 bytes" in note.error.text()
    # restore version 1 (saved as version 3)
    note.restore(1)
    qtbot.waitUntil(lambda: len(note.versions) == 3, timeout=10000)
    assert note.edit.toPlainText() == "I'm Maya. Keep answers short."
    assert note.versions[-1].restored_from == 1


def test_consolidation_panel_not_available(qtbot, window):
    from ui.tidyup.consolidation_panel import ConsolidationPanel
    from ui.tidyup.consolidation_service import Unavailable

    panel = ConsolidationPanel(window.backend, Unavailable("Background tidying is not available in this build."))
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.status_view is not None, timeout=10000)
    assert "not available" in panel.message.text()
    assert not panel.run_button.isEnabled() and not panel.preview_button.isEnabled()


def test_consolidation_panel_preview_run_and_undo(qtbot, window):
    pytest.importorskip("assistant.jobs")
    from ui.tidyup.consolidation_panel import ConsolidationPanel
    from ui.tidyup.consolidation_service import JobsService, start_jobs

    store = window.backend.store
    old = store.add("User lives in Lisbon.", kind="profile", slot="home_city", valid_at=datetime(2019, 5, 1, tzinfo=UTC))
    new = store.add("User lives in Porto.", kind="profile", slot="home_city", valid_at=datetime(2025, 3, 10, tzinfo=UTC))
    jobs = start_jobs(store, window.backend.provider.services)
    try:
        panel = ConsolidationPanel(window.backend, JobsService(jobs, store))
        qtbot.addWidget(panel)
        qtbot.waitUntil(lambda: panel.status_view is not None and panel.status_view.available, timeout=10000)
        assert panel.run_button.isEnabled() and panel.next.text() != "Next run: —"
        panel.preview()
        qtbot.waitUntil(lambda: panel._proposed is not None, timeout=30000)
        assert any(old in c.memory_ids for c in panel._proposed.changes)
        assert store.get(old).invalid_at is None  # a preview changes nothing
        panel.run_now()
        qtbot.waitUntil(lambda: "applied" in panel.message.text(), timeout=60000)
        assert store.get(old).invalid_at is not None and store.get(new).invalid_at is None
        def first_run():
            item = panel.tree.topLevelItem(0)
            run = panel._run_of(item) if item is not None else None
            return run is not None and run.applied and run.total > 0

        qtbot.waitUntil(first_run, timeout=10000)
        top = panel.tree.topLevelItem(0)
        panel.tree.setCurrentItem(top)
        assert panel.undo_button.isEnabled()
        top.setExpanded(True)
        qtbot.waitUntil(lambda: top.childCount() >= 1 and top.child(0).text(0) != "Loading…", timeout=10000)
        panel.undo_selected()
        qtbot.waitUntil(lambda: "undone" in panel.message.text(), timeout=30000)
        assert store.get(old).invalid_at is None
    finally:
        jobs.shutdown(wait=False)


def test_consolidation_panel_drops_the_opening_message_once_ready(qtbot, window):
    pytest.importorskip("assistant.jobs")
    from ui.tidyup.consolidation_panel import ConsolidationPanel
    from ui.tidyup.consolidation_service import JobsService, Unavailable, start_jobs

    backend = window.backend
    qtbot.waitUntil(lambda: getattr(backend.consolidation, "reason", "") != "Opening your memory…", timeout=10000)
    backend.consolidation = Unavailable("Opening your memory…")  # as at start-up, before the store opens
    panel = ConsolidationPanel(backend)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.message.text() == "Opening your memory…", timeout=10000)
    jobs = start_jobs(backend.store, backend.provider.services)
    try:
        backend.consolidation = JobsService(jobs, backend.store)
        backend.consolidationEvent.emit({"started": True})  # what the backend says when the jobs start
        qtbot.waitUntil(lambda: panel.status_view is not None and panel.status_view.available, timeout=10000)
        assert panel.message.text() == ""  # not "Opening your memory…" until Preview is clicked
        assert panel.preview_button.isEnabled()
    finally:
        jobs.shutdown(wait=False)


def test_tidy_up_shows_imported_messages_waiting_for_the_model(qtbot, window, tmp_path):
    pytest.importorskip("assistant.jobs")
    import json

    from assistant.config import Settings
    from assistant.memory.capture.capturer import Capturer
    from assistant.memory.capture.importing.importers import import_file
    from ui.tidyup.consolidation_panel import ConsolidationPanel
    from ui.tidyup.consolidation_service import JobsService, start_jobs

    store = window.backend.store
    path = tmp_path / "chats.jsonl"
    said = ["I live in Porto.", "Where should I eat?", "My dog is called Miso."]
    path.write_text("".join(json.dumps({"session": "s", "role": "user", "content": t, "timestamp": f"2024-01-0{i + 1}T10:00:00Z"})
                            + "\n" for i, t in enumerate(said)))  # fmt: skip
    import_file(store, path, capturer=Capturer(store, use_llm=False, settings=Settings()), queue_model=True)
    jobs = start_jobs(store, window.backend.provider.services)
    try:
        panel = ConsolidationPanel(window.backend, JobsService(jobs, store))
        qtbot.addWidget(panel)
        panel.show()
        qtbot.waitUntil(lambda: panel.status_view is not None and panel.status_view.available, timeout=10000)
        assert panel.reading.isVisible() and "2 imported messages to read" in panel.reading.text()
    finally:
        jobs.shutdown(wait=False)


def test_settings_dialog_shows_encryption_and_saves(qtbot, window, monkeypatch):
    from assistant.config import load_settings, paths
    from ui.settings.settings_dialog import SettingsDialog

    dlg = SettingsDialog(window.backend, window)
    qtbot.addWidget(dlg)
    qtbot.waitUntil(lambda: dlg.encryption.text() != "Checking…", timeout=10000)
    assert dlg.encryption.text().startswith("Encrypted on disk")
    assert "keyring" in dlg.keyring.text().lower()
    assert dlg.folder.text() == str(window.backend.provider.paths.data)
    dlg.idle.setValue(25)
    dlg.nightly.setValue(4)
    dlg.memory.setChecked(False)
    new = dlg.settings()
    window.apply_settings(new, dlg.original)
    qtbot.waitUntil(lambda: load_settings(paths()).idle_minutes == 25, timeout=10000)
    s = load_settings(paths())
    assert (s.nightly_hour, s.memory_enabled) == (4, False)
    assert window.banner.isVisible() and "Memory is off" in window.banner.text()


def test_sessions_list_search_and_rename(qtbot, window):
    store = window.backend.store
    for title in ("Trip to Kyoto", "Sourdough starter", "Tax questions"):
        s = store.create_session(title)
        store.add_message(s.id, "user", f"About {title}")
    # no manual refresh: the store's writes reach the list through the one change signal
    qtbot.waitUntil(lambda: window.sessions.list.count() == 3, timeout=10000)
    window.sessions.search.setText("kyoto")
    visible = [window.sessions.list.item(i).text() for i in range(3) if not window.sessions.list.item(i).isHidden()]
    assert visible == ["Trip to Kyoto"]
    window.sessions.search.clear()
    sid = next(s.id for s in window.sessions.sessions if s.title == "Tax questions")
    window.backend.write(lambda st: st.rename_session(sid, "Taxes 2025"))
    qtbot.waitUntil(lambda: any(window.sessions.list.item(i).text() == "Taxes 2025" for i in range(3)), timeout=10000)
    # opening a session shows its messages
    window.sessions.sessionSelected.emit(sid)
    qtbot.waitUntil(lambda: len(window.chat_view.messages) == 1, timeout=10000)
    assert window.chat_view.messages[0].text == "About Tax questions"


def test_errors_are_shown_calmly(qtbot, window):
    from assistant.memory.errors import NotFound

    def boom(_store):
        raise NotFound("no memory with id 999")

    window.backend.read(boom)
    qtbot.waitUntil(lambda: "no longer exists" in window.status_label.text(), timeout=10000)
    assert window.status_label.property("error") is True
    window.backend.read(lambda _s: 1 / 0)
    qtbot.waitUntil(lambda: "ZeroDivisionError" in window.status_label.text(), timeout=10000)
    assert "Nothing was lost" in window.status_label.text()
    assert window.isVisible()
