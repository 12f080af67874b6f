"""The model server's API key: in the OS keyring (service ``keepsake``, user
``engine-api-key:<server URL>``), never in settings.json.

Where no keyring backend works (headless Linux), the key goes to a 0600 file
``<config>/engine-keys.json`` and :func:`location` says so. ``KEEPSAKE_ENGINE_API_KEY`` in the
environment overrides both (scripts, one-off CLI runs).
"""

from __future__ import annotations

import json
import logging
import os

from assistant.config import Paths
from assistant.fileio import write_private_atomic

SERVICE = "keepsake"
ENV = "KEEPSAKE_ENGINE_API_KEY"
log = logging.getLogger(__name__)

# keyring (and its backend discovery) is imported when a key is first looked up: Services
# imports this module, and most commands never use a model server.


def _user(url: str) -> str:
    return f"engine-api-key:{url}"


def _file(p: Paths):
    return p.config / "engine-keys.json"


def _read_file(p: Paths) -> dict[str, str]:
    try:
        data = json.loads(_file(p).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("engine key file unreadable (%s): ignored", exc)
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write_file(keys: dict[str, str], p: Paths) -> None:
    path = _file(p)
    if keys:
        write_private_atomic(path, json.dumps(keys, indent=1))
    elif path.exists():
        path.unlink()


def load(url: str, p: Paths) -> str | None:
    """The API key for ``url`` (environment, keyring, then the fallback file), or None."""
    env = os.environ.get(ENV)
    if env:
        return env
    import keyring
    import keyring.errors

    try:
        value = keyring.get_password(SERVICE, _user(url))
    except (keyring.errors.KeyringError, RuntimeError):
        value = None
    return value or _read_file(p).get(url) or None


def save(url: str, key: str | None, p: Paths) -> str:
    """Store (or with ``key`` empty, remove) the key for ``url``; returns where it went."""
    import keyring
    import keyring.errors

    key = (key or "").strip()
    file_keys = _read_file(p)
    if not key:
        try:
            keyring.delete_password(SERVICE, _user(url))
        except (keyring.errors.KeyringError, RuntimeError):
            pass
        if file_keys.pop(url, None) is not None:
            _write_file(file_keys, p)
        return "removed"
    try:
        keyring.set_password(SERVICE, _user(url), key)
        if keyring.get_password(SERVICE, _user(url)) == key:
            if file_keys.pop(url, None) is not None:
                _write_file(file_keys, p)
            return f"the OS keyring ({type(keyring.get_keyring()).__name__}), service '{SERVICE}'"
    except (keyring.errors.KeyringError, RuntimeError, NotImplementedError) as exc:
        log.info("keyring refused the engine key (%s): using the key file", exc)
    file_keys[url] = key
    _write_file(file_keys, p)
    return f"the file {_file(p)} (mode 0600; no usable OS keyring)"


def location(url: str, p: Paths) -> str:
    """Where the key for ``url`` comes from, for doctor and settings ("none" when there is none)."""
    if os.environ.get(ENV):
        return f"the environment ({ENV})"
    import keyring
    import keyring.errors

    try:
        if keyring.get_password(SERVICE, _user(url)):
            return f"the OS keyring ({type(keyring.get_keyring()).__name__})"
    except (keyring.errors.KeyringError, RuntimeError):
        pass
    return f"the file {_file(p)}" if url in _read_file(p) else "none"
