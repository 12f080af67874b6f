"""Catalog downloads against a fake hub on loopback (tests/fake_hub.py; HF_ENDPOINT points at it),
serving the bundled SmolLM2 GGUF (98 MB) under a catalog entry: the real huggingface_hub client,
real files. Progress events, resume after SIGKILL, a tampered file refused, a full disk, cancel,
and the downloaded model answering in ``chat --model``."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from assistant.config import Paths
from assistant.engine import registry
from assistant.engine.catalog import download as dl
from assistant.engine.catalog import entries as catalog
from fake_hub import FakeHub
from model_servers import loopback_allowed

REPO = "keepsake-test/SmolLM2-135M-Instruct-GGUF"


@pytest.fixture(scope="module")
def source() -> Path:
    return registry.default_chat_path()


@pytest.fixture
def hub(source, monkeypatch):
    with FakeHub() as hub, loopback_allowed(hub.port), loopback_allowed(hub.cdn_port):
        hub.sha = hub.add(REPO, source.name, source)
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        yield hub


def entry_for(hub, source, sha: str | None = "hub") -> catalog.CatalogEntry:
    return catalog.CatalogEntry(
        id="smollm2-test", name="SmolLM2 test", role="chat", repo=REPO, file=source.name, revision="main",
        size_bytes=source.stat().st_size, sha256=hub.sha if sha == "hub" else sha,
        sha256_source="test" if sha else None, ram_gb=0.3, recommended_ram_gb=1, context_length=8192,
        license="Apache-2.0", license_url="", languages=("en",), summary="test entry",
    )  # fmt: skip


@pytest.fixture
def models(keepsake_home) -> Path:
    return Paths.under(keepsake_home).ensure().models


def listed(models: Path) -> list[str]:
    """What `keepsake models` would see: *.gguf in the models folder (never the staging folder)."""
    return sorted(p.name for p in models.glob("*.gguf"))


def leftovers(models: Path) -> list[str]:
    staging = models / dl.STAGING
    return sorted(p.name for p in staging.iterdir() if not p.name.endswith(".lock")) if staging.is_dir() else []


def test_download_reports_progress_verifies_and_lands_atomically(hub, source, models):
    hub.rate = 150e6  # ~0.65 s for 98 MB: several progress events
    events: list[dl.DownloadProgress] = []
    before = listed(models)
    result = dl.download(entry_for(hub, source), models, progress=events.append)
    size = source.stat().st_size
    assert result.path == models / source.name and result.size == size and result.fetched == size
    assert result.sha256 == hub.sha and dl.sha256_file(result.path) == hub.sha
    phases = [e.phase for e in events]
    assert phases[0] == "connecting" and phases[-1] == "done" and "verifying" in phases
    # verification comes after the last byte, the file appears only at "done"
    assert phases.index("verifying") > max(i for i, p in enumerate(phases) if p == "downloading")
    downloading = [e for e in events if e.phase == "downloading"]
    assert len(downloading) >= 3
    assert [e.done for e in downloading] == sorted(e.done for e in downloading) and downloading[-1].done == size
    assert all(e.total == size for e in downloading)
    assert any(e.speed > 0 and e.eta is not None for e in downloading)
    assert listed(models) == sorted(before + [source.name]) and leftovers(models) == []
    # only the file's metadata and the file itself (no telemetry request), fetched from the CDN location
    # the hub redirected to
    assert [m for m, _, _ in hub.requests] == ["HEAD", "GET"] and hub.requests[-1][1].startswith("/cdn/")
    # it is in the user models folder, where `keepsake models` and the app's model picker look
    assert result.path.parent == Paths.under(models.parent.parent).models
    # a second download is a no-op: no request at all
    hub.reset_counters()
    assert dl.download(entry_for(hub, source), models).fetched == 0 and hub.requests == []


def test_a_tampered_file_is_refused_and_deleted(hub, source, models):
    hub.tamper = True  # one flipped byte in the middle, same size, same advertised SHA-256
    before = listed(models)
    with pytest.raises(dl.VerifyError, match="failed its SHA-256 check"):
        dl.download(entry_for(hub, source), models)
    assert hub.sent == source.stat().st_size  # it was fetched in full, then refused
    assert listed(models) == before and leftovers(models) == []


def test_a_hub_file_that_differs_from_the_reviewed_catalog_is_not_fetched(hub, source, models):
    with pytest.raises(dl.VerifyError, match="not the file the catalog was reviewed with"):
        dl.download(entry_for(hub, source, sha="0" * 64), models)
    assert hub.sent == 0 and leftovers(models) == []


def test_without_a_catalog_sha_the_hub_lfs_etag_is_the_reference(hub, source, models):
    result = dl.download(entry_for(hub, source, sha=None), models)
    assert result.sha256 == hub.sha


def test_not_enough_disk_is_one_error_before_any_byte(hub, source, models):
    size = source.stat().st_size
    with pytest.raises(dl.DiskFullError, match=r"needs 0\.10 GB, 0\.05 GB free"):
        dl.download(entry_for(hub, source), models, free_disk=lambda _p: size // 2)
    assert hub.sent == 0 and leftovers(models) == [] and source.name not in listed(models)


def test_cancel_stops_and_leaves_nothing(hub, source, models):
    hub.rate = 30e6
    cancel = threading.Event()

    def on_progress(p: dl.DownloadProgress) -> None:
        if p.phase == "downloading" and p.done > 0:
            cancel.set()

    with pytest.raises(dl.DownloadCancelled):
        dl.download(entry_for(hub, source), models, progress=on_progress, cancel=cancel)
    assert hub.sent < source.stat().st_size
    assert source.name not in listed(models) and leftovers(models) == []


# -- the CLI, in real processes --------------------------------------------------------------------
def write_catalog(tmp_path: Path, entry: catalog.CatalogEntry) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"models": [entry.to_json()]}))
    return path


def cli_env(hub, catalog_file: Path) -> dict:
    return {**os.environ, "HF_ENDPOINT": hub.url, "KEEPSAKE_CATALOG": str(catalog_file)}


def test_cli_download_resumes_after_sigkill_and_the_model_answers(hub, source, models, tmp_path, converted_embedder_path):
    size = source.stat().st_size
    env = cli_env(hub, write_catalog(tmp_path, entry_for(hub, source)))
    cmd = [sys.executable, "-m", "assistant.cli", "models", "download", "smollm2-test"]
    hub.rate = 25e6  # ~4 s for the whole file
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    part = models / dl.STAGING / (source.name + ".part")
    deadline = time.monotonic() + 60
    while (not part.is_file() or part.stat().st_size < size // 3) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    kept = part.stat().st_size
    assert size // 3 <= kept < size and source.name not in listed(models)

    hub.rate, _ = None, hub.reset_counters()
    out = subprocess.run(cmd + ["--json"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    # the second run fetched only what was missing: size - kept bytes (< the file size)
    assert result["resumed_from"] == kept and result["fetched_bytes"] == size - kept
    assert hub.sent == size - kept < size
    assert [r for _, _, r in hub.requests if r] == [f"bytes={kept}-"]
    assert result["sha256"] == hub.sha and dl.sha256_file(Path(result["path"])) == hub.sha
    assert "%" in out.stderr and "from " + hub.url in out.stderr  # progress and the host, on stderr
    assert leftovers(models) == []

    use = subprocess.run([sys.executable, "-m", "assistant.cli", "models", "use", "smollm2-test", "--json"],
                         env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert use.returncode == 0, use.stderr and json.loads(use.stdout)["chat_model"] == result["path"]
    chat = subprocess.run([sys.executable, "-m", "assistant.cli", "chat", "--once", "Hello!", "--model", result["path"],
                           "--max-tokens", "8", "--incognito", "--json"], env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert chat.returncode == 0, chat.stderr
    assert json.loads(chat.stdout)["reply"].strip()  # it answers (what it says depends on the CPU)


def _limit_file_size() -> None:  # runs in the child before exec: files may not grow past 20 MB
    resource.setrlimit(resource.RLIMIT_FSIZE, (20 * 1024 * 1024, 20 * 1024 * 1024))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # so a write past the limit fails with EFBIG


def test_cli_disk_filling_up_mid_download_is_one_clear_error_and_no_partial_file(hub, source, models, tmp_path):
    env = cli_env(hub, write_catalog(tmp_path, entry_for(hub, source)))
    out = subprocess.run([sys.executable, "-m", "assistant.cli", "models", "download", "smollm2-test", "--quiet"],
                         env=env, capture_output=True, text=True, timeout=120, preexec_fn=_limit_file_size)  # fmt: skip
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("keepsake: error: the disk filled up while downloading"), out.stderr
    assert source.name not in listed(models) and leftovers(models) == []
