"""The app on a damaged or unopenable memory database (issue 19.4): the same one-line message
the CLI gives, in a dialog, and the window keeps running (no crash). The store is real; no
model is loaded."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from assistant.memory.records import Source  # noqa: E402
from assistant.memory.store.facade import MemoryStore  # noqa: E402
from assistant.config import paths
from ui.services.backend import Backend, Provider  # noqa: E402
from ui.main_window import MainWindow  # noqa: E402


class NoModels(Provider):
    load_models = False

    def discover_models(self) -> list:
        return []


def _seed_and_damage(page: int) -> None:
    store = MemoryStore(paths().database)
    s = store.create_session("seed")
    for i in range(60):
        msg = store.add_message(s.id, "user", f"note {i} about my friend {i}")
        store.add(f"User's friend {i} likes tea {i}.", source=Source(s.id, msg.id, observed_at=msg.observed_at))
    store.checkpoint()
    path = store.path
    store.close()
    with open(path, "r+b") as fh:
        fh.seek((page - 1) * 4096)
        fh.write(random.Random(page).randbytes(4096))


def _dialog():
    return next((w for w in QApplication.topLevelWidgets() if w.objectName() == "storageFaultDialog" and w.isVisible()), None)


@pytest.mark.parametrize("page,phrase", [(1, "cannot decrypt"), (4, "is damaged")])
def test_a_damaged_database_is_a_dialog_not_a_crash(qtbot, page, phrase, services):
    _seed_and_damage(page)  # page 1: nothing opens; page 4: it opens, the integrity check fails
    w = MainWindow(Backend(NoModels(services)))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: _dialog() is not None, timeout=60000)
    box = _dialog()
    assert isinstance(box, QMessageBox) and phrase in box.text().lower() and "\n" not in box.text()
    assert "keepsake repair" in box.text() or "Restore the key" in box.text()
    assert w.isVisible()  # the window runs on
    assert w.backend.store is None or w.backend.store.damage is not None  # and writes nothing to the file
    box.accept()
    w.close()
