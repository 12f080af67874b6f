"""Settings → Models → Use on a downloaded embedder: the re-embedding runs off the UI thread with
a progress bar and Cancel (ui/settings/embedder_switch.py), fits at the page's minimum size, and Cancel
keeps the old index. Real MiniLM (under another file identity, see tests/test_reembed.py), real
store, offscreen Qt."""

from __future__ import annotations

import json
import shutil
import threading

import pytest

pytest.importorskip("pytestqt")

from assistant import reembed  # noqa: E402
from ui.settings.embedder_switch import SwitchController  # noqa: E402
from ui.settings.model_catalog import CatalogPage  # noqa: E402
from ui.settings.model_download import DownloadController  # noqa: E402
from ui.services.workers import Runner  # noqa: E402

ENTRY = {"id": "minilm-test", "name": "MiniLM test", "role": "embedding", "repo": "keepsake-test/minilm",
         "file": "minilm-test.gguf", "size_bytes": 45_000_000, "sha256": None, "ram_gb": 0.2,
         "recommended_ram_gb": 1, "context_length": 512, "license": "Apache-2.0", "summary": "A test embedder."}  # fmt: skip


@pytest.fixture
def runner(qtbot):
    r = Runner(max_threads=2)
    yield r
    r.shutdown(30_000)


@pytest.fixture
def setup(services, converted_embedder_path, keepsake_home, monkeypatch, tmp_path):
    """A catalog of one downloaded embedder (the real MiniLM + 32 bytes) and 24 memories."""
    models = services.profile.paths.ensure().models
    target = models / ENTRY["file"]
    shutil.copyfile(converted_embedder_path, target)
    with open(target, "ab") as fh:
        fh.write(b"\0" * 32)
    cat = tmp_path / "catalog.json"
    cat.write_text(json.dumps({"models": [ENTRY]}))
    monkeypatch.setenv("KEEPSAKE_CATALOG", str(cat))
    store = services.open_store()
    for i in range(24):
        store.add(f"Fact {i}: the key of locker {i} is in drawer {i % 5}.")
    store.close()
    return services


def page_for(qtbot, runner, services, gate: threading.Event | None = None):
    def run(name, progress, cancel):
        def report(p):
            progress(p)
            if gate is not None and p.done == 8:
                gate.wait(30)  # the test clicks Cancel here, then lets the worker go on

        return reembed.switch_embedder(services, reembed.plan_switch(services, name), progress=report,
                                       cancel=cancel, batch=8)  # fmt: skip

    switcher = SwitchController(runner, run)
    page = CatalogPage(DownloadController(runner, services.profile.paths.models), switcher=switcher)
    qtbot.addWidget(page)
    page.show()
    return page, switcher


def test_use_on_an_embedder_re_embeds_with_progress(qtbot, runner, setup):
    services = setup
    page, switcher = page_for(qtbot, runner, services)
    row = page.row("minilm-test")
    assert row.button.text() == "Use" and row.button.isEnabled()
    values = []
    switcher.progressed.connect(lambda p: values.append(page.switching.bar.value()))
    with qtbot.waitSignal(switcher.finished, timeout=60_000) as done:
        row.button.click()
        assert page.switching.isVisible() and page.switching.cancel.isEnabled()
    assert values == sorted(values) and values[-1] == 1000  # 0, 8, 16, 24 of 24 -> 0, 333, 666, 1000
    assert done.args[0].memories == 24 and not page.switching.isVisible()
    assert "24 memories re-embedded" in page.message.text()
    assert row.button.text() == "In use" and not row.button.isEnabled()
    assert services.settings.embed_model == str(services.profile.paths.models / ENTRY["file"])


def test_cancel_keeps_the_old_index_and_the_page_fits(qtbot, runner, setup):
    from tools.layout_check import find_problems
    from tools.screenshots import minimum_size

    services = setup
    store = services.open_store(with_embedder=False)
    old = store.read(lambda c: c.execute("SELECT rowid, embedding FROM memory_vec").fetchall())
    store.close()
    gate = threading.Event()
    page, switcher = page_for(qtbot, runner, services, gate)
    page.row("minilm-test").button.click()
    qtbot.waitUntil(lambda: page.switching.bar.value() == 333, timeout=60_000)  # 8 of 24
    assert page.switching.detail.text().startswith("8 of 24 memories")
    page.resize(*minimum_size(page))
    qtbot.wait(50)
    assert find_problems(page) == []
    with qtbot.waitSignal(switcher.cancelled, timeout=60_000):
        page.switching.cancel.click()
        gate.set()
    assert "Cancelled" in page.message.text() and not page.switching.isVisible()
    assert page.row("minilm-test").button.text() == "Use"
    assert services.settings.embed_model == "default"
    store = services.open_store()
    assert store.read(lambda c: c.execute("SELECT rowid, embedding FROM memory_vec").fetchall()) == old
    assert services.retriever(store).search("Where is the key of locker 3?", k=1)[0].memory.text.startswith("Fact 3:")
    store.close()


def test_the_app_adapter_hands_the_backend_a_store_with_the_new_embedder(setup):
    from types import SimpleNamespace

    from assistant.memory.store import vector_index
    from ui.services.backend import Provider
    from ui.settings.embedder_switch import AppSwitch

    services, got = setup, {}
    backend = SimpleNamespace(provider=Provider(services), capture=None,
                              replace_memory=lambda store, retriever: got.update(store=store, retriever=retriever))  # fmt: skip
    adapter = AppSwitch(backend)
    adapter.apply(adapter.run("minilm-test", progress=lambda _p: None, cancel=threading.Event()))
    store = got["store"]
    try:
        assert store.vectors.generation == store.read(vector_index.generation) == 1  # opened on the new index
        assert got["retriever"].search("Where is the key of locker 3?", k=1)[0].memory.text.startswith("Fact 3:")
        assert store.add("Fact 99: the spare key is under the mat.") in {r[0] for r in store.read(
            lambda c: c.execute("SELECT rowid FROM memory_vec").fetchall())}  # written with its vector  # fmt: skip
    finally:
        store.close()
