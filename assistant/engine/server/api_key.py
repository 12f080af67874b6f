"""The model server's API key: in the OS keyring (service ``keepsake``, user
``engine-api-key:<server URL>``), never in settings.json.

Where no keyring backend works (headless Linux), the key goes to the 0600 file
``<config>/engine-keys.json`` *encrypted with the database key*: per server URL
``{"alg": "AES-256-GCM/HKDF-SHA256", "nonce": hex, "ct": hex}``, the AES key being
``HKDF-SHA256(database key, info="keepsake engine api key v1")`` and the URL the associated data
(an entry copied to another URL does not decrypt). The database key is then in the 0600 key file
``<config>/db.key`` (see ``assistant.memory.store.sqlite.keys``): the API key cannot be read from
``engine-keys.json`` alone (a config backup, a synced dotfile), and losing the database key loses
it (``load`` says so in the log and returns None). A plaintext entry an older Keepsake wrote is
read once and re-written encrypted. :func:`location` says where the key is.
``KEEPSAKE_ENGINE_API_KEY`` in the environment overrides both (scripts, one-off CLI runs).

``secret``: a function giving the database key (64 hex characters), called only when the file
is used (the engine layer does not open the store; services pass
``assistant.services.database_key_reader(profile)``).
"""

from __future__ import annotations

import json
import logging
import os
import secrets as _secrets
from typing import Any, Callable

import keyring
import keyring.errors

from assistant.config import Paths
from assistant.fileio import write_private_atomic

SERVICE = "keepsake"
ENV = "KEEPSAKE_ENGINE_API_KEY"
ALG = "AES-256-GCM/HKDF-SHA256"
INFO = b"keepsake engine api key v1"
log = logging.getLogger(__name__)
Secret = Callable[[], "str | None"]


def _user(url: str) -> str:
    return f"engine-api-key:{url}"


def _file(p: Paths):
    return p.config / "engine-keys.json"


def _read_file(p: Paths) -> dict[str, Any]:
    try:
        data = json.loads(_file(p).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("engine key file unreadable (%s): ignored", exc)
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, (str, dict))} if isinstance(data, dict) else {}


def _write_file(keys: dict[str, Any], p: Paths) -> None:
    path = _file(p)
    if keys:
        write_private_atomic(path, json.dumps(keys, indent=1))
    elif path.exists():
        path.unlink()


def _aead(secret: Secret) -> Any:
    from cryptography.hazmat.primitives import hashes  # deferred: only without a keyring
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    db_key = secret()
    if not db_key:
        raise ValueError("no database key to encrypt the API key with")
    return AESGCM(HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(bytes.fromhex(db_key)))


def seal(url: str, key: str, secret: Secret) -> dict[str, str]:
    nonce = _secrets.token_bytes(12)
    return {"alg": ALG, "nonce": nonce.hex(), "ct": _aead(secret).encrypt(nonce, key.encode(), url.encode()).hex()}


def unseal(url: str, entry: dict[str, Any], secret: Secret) -> str | None:
    try:
        return _aead(secret).decrypt(bytes.fromhex(entry["nonce"]), bytes.fromhex(entry["ct"]), url.encode()).decode()
    except Exception as exc:  # noqa: BLE001 - a changed database key or a damaged entry: no key, said in the log
        log.warning("the stored API key for %s cannot be decrypted with the database key (%s); set it again",
                    url, type(exc).__name__)  # fmt: skip
        return None


def _from_file(url: str, p: Paths, secret: Secret) -> str | None:
    keys = _read_file(p)
    entry = keys.get(url)
    if isinstance(entry, dict):
        return unseal(url, entry, secret)
    if isinstance(entry, str) and entry:  # plaintext from an older Keepsake: encrypt it now
        try:
            keys[url] = seal(url, entry, secret)
            _write_file(keys, p)
        except Exception as exc:  # noqa: BLE001 - still usable; encrypted on the next save
            log.warning("could not encrypt the stored API key for %s: %s", url, exc)
        return entry
    return None


def load(url: str, p: Paths, *, secret: Secret) -> str | None:
    """The API key for ``url`` (environment, keyring, then the encrypted file), or None."""
    env = os.environ.get(ENV)
    if env:
        return env
    try:
        value = keyring.get_password(SERVICE, _user(url))
    except (keyring.errors.KeyringError, RuntimeError):
        value = None
    return value or _from_file(url, p, secret) or None


def save(url: str, key: str | None, p: Paths, *, secret: Secret) -> str:
    """Store (or with ``key`` empty, remove) the key for ``url``; returns where it went."""
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
        log.info("keyring refused the engine key (%s): using the encrypted key file", exc)
    file_keys[url] = seal(url, key, secret)
    _write_file(file_keys, p)
    return f"the file {_file(p)} (mode 0600, encrypted with the database key; no usable OS keyring)"


def location(url: str, p: Paths) -> str:
    """Where the key for ``url`` comes from, for doctor and settings ("none" when there is none)."""
    if os.environ.get(ENV):
        return f"the environment ({ENV})"
    try:
        if keyring.get_password(SERVICE, _user(url)):
            return f"the OS keyring ({type(keyring.get_keyring()).__name__})"
    except (keyring.errors.KeyringError, RuntimeError):
        pass
    entry = _read_file(p).get(url)
    if isinstance(entry, dict):
        return f"the file {_file(p)} (encrypted with the database key)"
    return f"the file {_file(p)} (plaintext until it is next read)" if entry else "none"
