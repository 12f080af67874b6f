"""Test isolation: every test gets its own KEEPSAKE_HOME, an in-memory keyring, and no network.

The converted MiniLM GGUF is made once per test session (in a session home) and hard-linked into
each test's home, so tests that load the real embedder do not convert it again.
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

from typing import Iterator

import keyring
import keyring.backend
import pytest

from assistant.config import Paths
from assistant.profile import Profile
from assistant.services import Services

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring backend that keeps secrets in a dict (tests never touch the real OS keyring)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.secrets.pop((service, username), None)


class NetworkBlocked(RuntimeError):
    pass


#: Loopback (host, port) pairs a test may connect to: the model servers the engine tests start
#: themselves (see tests/model_servers.py, ``loopback_allowed``). Everything else stays blocked.
ALLOWED_LOOPBACK: set[tuple[str, int]] = set()


def _allowed(sock, address) -> bool:
    if sock.family == socket.AF_UNIX:
        return True
    return isinstance(address, tuple) and (str(address[0]), int(address[1])) in ALLOWED_LOOPBACK


@pytest.fixture(autouse=True, scope="session")
def _no_network():
    """Keepsake must never reach the network at run time: any outbound connect fails the test
    (except to a test's own loopback model server)."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guard(sock, address, *a, real=real_connect):
        if _allowed(sock, address):
            return real(sock, address, *a)
        raise NetworkBlocked(f"network access attempted: {address!r}")

    def guard_ex(sock, address, *a):
        if _allowed(sock, address):
            return real_connect_ex(sock, address, *a)
        raise NetworkBlocked(f"network access attempted: {address!r}")

    socket.socket.connect = guard
    socket.socket.connect_ex = guard_ex
    yield
    socket.socket.connect = real_connect
    socket.socket.connect_ex = real_connect_ex


@pytest.fixture(scope="session")
def session_home(tmp_path_factory) -> Path:
    """A KEEPSAKE_HOME shared by the whole session; holds the converted embedder once made."""
    return tmp_path_factory.mktemp("keepsake-session-home")


@pytest.fixture(autouse=True)
def keepsake_home(tmp_path, monkeypatch, session_home) -> Path:
    """Point every Keepsake path at a fresh temp dir, with a fresh in-memory keyring."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("KEEPSAKE_HOME", str(home))
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    # Reuse the session's converted models (hard links: no copy, no reconversion).
    shared_models = session_home / "data" / "models"
    if shared_models.is_dir():
        target = home / "data" / "models"
        target.mkdir(parents=True, exist_ok=True)
        for f in shared_models.iterdir():
            if f.is_file():
                try:
                    os.link(f, target / f.name)
                except OSError:
                    shutil.copy2(f, target / f.name)
    yield home
    keyring.set_keyring(previous)


@pytest.fixture
def profile(keepsake_home) -> Profile:
    """The test's profile (its KEEPSAKE_HOME), loaded as an edge loads it: settings saved by the
    test before it asks for this fixture are in it."""
    return Profile.load(keepsake_home)


@pytest.fixture
def services(profile) -> Iterator[Services]:
    """The test's :class:`Services` (models, stores, capture queues), closed after the test."""
    owner = Services(profile)
    yield owner
    owner.close()


@pytest.fixture
def nomodel_window(qtbot, services):
    """The real main window at 1280x800 over the test's services, without chat or embedding
    models (not needed for what is tested with it), shown once its memory store is ready."""
    from ui.main_window import MainWindow  # deferred: Qt only for the UI tests
    from ui.services.backend import Backend
    from ui.services.provider import NoModelsProvider

    w = MainWindow(Backend(NoModelsProvider(services)))
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitUntil(lambda: w.backend.memory_ready, timeout=30000)
    yield w
    w.close()


@pytest.fixture(scope="session")
def converted_embedder_path(session_home) -> Path:
    """Convert the default MiniLM to GGUF once per session, inside the session home."""
    from assistant.engine import registry

    return registry.default_embedder_path(Paths.under(session_home).models)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """The REAL llama-cpp-python OpenAI-compatible server (``python -m llama_cpp.server``)
    serving the default SmolLM2 GGUF on a free 127.0.0.1 port, for the whole test session."""
    from model_servers import LlamaCppServer

    from assistant.engine import registry

    server = LlamaCppServer(registry.default_chat_path(), tmp_path_factory.mktemp("llama-server") / "server.log").start()
    yield server
    server.stop()
