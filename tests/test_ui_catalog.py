"""The catalog in the app: the first-run offer and the download progress fit at their minimum
size (nothing cut off), Download through the fake hub (tests/fake_hub.py) shows progress and
ends with "Use it now", Cancel leaves nothing, Settings → Models offers Use for a downloaded
model. Real huggingface_hub client, real files, loopback only."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from assistant.config import Paths  # noqa: E402
from assistant.engine import registry  # noqa: E402
from assistant.engine.catalog import download as dl  # noqa: E402
from assistant.engine.catalog import entries as catalog  # noqa: E402
from assistant.engine.catalog import offer  # noqa: E402
from fake_hub import FakeHub  # noqa: E402
from model_servers import loopback_allowed  # noqa: E402
from tools.layout_check import find_problems  # noqa: E402
from tools.screenshots import minimum_size  # noqa: E402
from ui.settings.first_run import FirstRunDialog  # noqa: E402
from ui.settings.model_catalog import CatalogPage  # noqa: E402
from ui.settings.model_download import DownloadController  # noqa: E402
from ui.services.workers import Runner  # noqa: E402

REPO = "keepsake-test/SmolLM2-135M-Instruct-GGUF"


@pytest.fixture
def paths(keepsake_home) -> Paths:
    return Paths.under(keepsake_home).ensure()


@pytest.fixture
def runner(qtbot):
    r = Runner(max_threads=2)
    yield r
    r.shutdown()


@pytest.fixture
def hub(monkeypatch):
    source = registry.default_chat_path()
    with FakeHub() as hub, loopback_allowed(hub.port), loopback_allowed(hub.cdn_port):
        sha = hub.add(REPO, source.name, source)
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        hub.entry = catalog.CatalogEntry(
            id="smollm2-test", name="SmolLM2 test", role="chat", repo=REPO, file=source.name, revision="main",
            size_bytes=source.stat().st_size, sha256=sha, sha256_source="test", ram_gb=0.3, recommended_ram_gb=1,
            context_length=8192, license="Apache-2.0", license_url="", languages=("en",), summary="A test entry.",
        )  # fmt: skip
        yield hub


def dialog(qtbot, runner, paths, entry) -> FirstRunDialog:
    dlg = FirstRunDialog(entry, DownloadController(runner, paths.models), paths)
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def test_the_offer_and_the_download_progress_fit_at_minimum_size(qtbot, runner, paths):
    entry = catalog.find("qwen2.5-3b-instruct", catalog.load(catalog.CATALOG_FILE))
    dlg = dialog(qtbot, runner, paths, entry)
    dlg.resize(*minimum_size(dlg))
    qtbot.wait(50)
    assert find_problems(dlg) == []
    assert "Qwen2.5 3B Instruct, 2.1 GB, recommended for 16 GB RAM" in dlg.offer.text()
    assert dlg.download.isVisible() and dlg.not_now.isVisible()  # an offer, with a way out
    # during a download: bar, speed, time left, Cancel
    dlg.progress.begin(entry)
    dlg.progress.setVisible(True)
    dlg.download.setVisible(False)
    # 0.9 of 2.1 GB = 42.9%; the other 1.2 GB at 12 MB/s take 100 s
    dlg.progress.set_progress(dl.DownloadProgress(entry.id, "downloading", 900_000_000, 2_100_000_000, 12e6, 100.0))
    dlg.fit()
    dlg.resize(*minimum_size(dlg))
    qtbot.wait(50)
    assert find_problems(dlg) == []
    assert dlg.progress.bar.value() == 428
    assert dlg.progress.detail.text() == "43% · 0.90 of 2.10 GB · 12.0 MB/s · 1 min 40 s left"
    assert dlg.progress.cancel.isVisible() and dlg.progress.cancel.isEnabled()


def test_download_from_the_dialog_shows_progress_and_offers_the_model(qtbot, runner, paths, hub):
    hub.rate = 60e6  # ~1.6 s for 98 MB
    dlg = dialog(qtbot, runner, paths, hub.entry)
    seen = []
    dlg.controller.progressed.connect(lambda p: seen.append((p.phase, dlg.progress.bar.value())))
    dlg.download.click()
    assert offer.offered(paths)  # answered: not offered again
    qtbot.waitUntil(lambda: dlg.use.isVisible(), timeout=60_000)
    bars = [v for phase, v in seen if phase == "downloading"]
    assert len(bars) >= 2 and bars == sorted(bars) and bars[-1] == 1000
    with qtbot.waitSignal(dlg.useModel, timeout=2000) as used:
        dlg.use.click()
    assert used.args == [str(paths.models / hub.entry.file)]
    assert dl.sha256_file(paths.models / hub.entry.file) == hub.entry.sha256


def test_cancel_in_the_dialog_keeps_nothing_and_the_offer_can_be_taken_again(qtbot, runner, paths, hub):
    hub.rate = 10e6
    dlg = dialog(qtbot, runner, paths, hub.entry)
    dlg.download.click()
    qtbot.waitUntil(lambda: dlg.progress.bar.value() > 0, timeout=30_000)
    dlg.progress.cancel.click()
    qtbot.waitUntil(lambda: dlg.download.isVisible(), timeout=30_000)
    assert "cancelled" in dlg.message.text() and not dlg.controller.running
    assert not (paths.models / hub.entry.file).exists() and dl.partial_bytes(hub.entry, paths.models) == 0
    assert hub.sent < hub.entry.size_bytes


def test_settings_models_lists_the_catalog_and_offers_use_for_a_downloaded_chat_model(qtbot, runner, paths):
    entries = catalog.load(catalog.CATALOG_FILE)
    chat = next(e for e in entries if e.role == "chat")
    (paths.models / chat.file).write_bytes(b"GGUF")  # only verified files are ever there; the page checks presence
    page = CatalogPage(DownloadController(runner, paths.models))
    qtbot.addWidget(page)
    page.show()
    assert [r.entry.id for r in page.rows] == [e.id for e in entries]
    row = page.row(chat.id)
    assert row.button.text() == "Use" and row.button.isEnabled()
    assert page.row(entries[-1].id).button.text() == "Download"
    with qtbot.waitSignal(page.useModel, timeout=2000) as used:
        row.button.click()
    assert used.args == [str(paths.models / chat.file)]


def test_typing_into_the_offer_starts_no_download(qtbot, runner, paths, hub):
    """Real window under Xvfb: a first message typed while the offer was up went to the dialog; its
    Space pressed the focused button and Enter the default one (Download: a network request the
    person never clicked). Keys now press nothing; only a click downloads."""
    from PySide6.QtCore import Qt as _Qt

    dlg = dialog(qtbot, runner, paths, hub.entry)
    qtbot.keyClicks(dlg, "My partner Joost ")
    for key in (_Qt.Key.Key_Space, _Qt.Key.Key_Return, _Qt.Key.Key_Enter):
        qtbot.keyClick(dlg, key)
        qtbot.keyClick(dlg.focusWidget() or dlg, key)
    qtbot.wait(100)
    assert dlg.isVisible() and not dlg.controller.running and dlg.download.isVisible()
    assert hub.sent == 0 and not offer.offered(paths)
