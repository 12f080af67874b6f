"""The database key: a random 256-bit secret kept in the OS keyring.

Where no keyring backend exists (headless Linux: ``keyring.get_keyring()`` is the ``fail``
backend and ``set_password`` raises ``NoKeyringError``) the key goes to a 0600 key file
(the caller's ``key_file``, a JSON map ``{db path: hex key}``) and :class:`KeyInfo` says so, for
``doctor`` and the settings page. Lookups never create a key for a database that already exists:
a lost key is a clear :class:`KeyMissingError`, never a new empty database over the old one.

Finding the keyring backend imports every backend keyring knows (on Linux the macOS one runs
``ctypes.util.find_library``, the Secret Service one asks D-Bus): 0.2-0.4 s per process. Where
no backend is usable, that verdict is remembered next to the key file (``keyring-verdict.json``,
with the environment it was found in), and a lookup whose key is in the key file reads it
without asking keyring at all. Anything else (no key in the file, another environment, a
keyring already chosen in this process) asks keyring as before, and records what it found.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from assistant.memory.store.sqlite import diagnose
from assistant.memory.errors import KeyMissingError, StoreError

if sys.platform == "win32":  # pragma: no cover - the file lock of each platform
    import msvcrt
else:
    import fcntl

SERVICE = "keepsake"
KEY_BYTES = 32  # 256 bits
VERDICT_FILE = "keyring-verdict.json"
#: what keyring's choice of backend depends on, besides the platform and the Python installation
#: (its configuration, the desktop session and its D-Bus)
_ENVIRONMENT = ("PYTHON_KEYRING_BACKEND", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "HOME", "DBUS_SESSION_BUS_ADDRESS",
                "XDG_RUNTIME_DIR", "DISPLAY", "WAYLAND_DISPLAY", "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE",
                "KDE_FULL_SESSION", "KEYCHAIN_PATH")  # fmt: skip


@dataclass(frozen=True)
class KeyInfo:
    """Which backend holds the database key (shown by ``doctor``)."""

    backend: str  # "keyring" | "file" | "explicit" | "none"
    description: str
    location: str | None = None
    encrypted: bool = True

    @property
    def name(self) -> str:
        return self.backend

    def to_json(self) -> dict[str, object]:
        return {
            "backend": self.backend,
            "description": self.description,
            "location": self.location,
            "encrypted": self.encrypted,
        }


def key_username(db_path: Path) -> str:
    return f"db-key:{Path(db_path).expanduser().resolve()}"


def normalize_key(key: str | bytes) -> str:
    """Accept 32 raw bytes or 64 hex characters; return lowercase hex."""
    if isinstance(key, (bytes, bytearray)):
        if len(key) != KEY_BYTES:
            raise StoreError(f"database key must be {KEY_BYTES} bytes, got {len(key)}")
        return bytes(key).hex()
    k = key.strip().lower()
    if len(k) != 2 * KEY_BYTES or any(c not in "0123456789abcdef" for c in k):
        raise StoreError("database key must be 64 hexadecimal characters")
    return k


def keyring_status() -> tuple[bool, str]:
    """(usable, backend name). The ``fail`` backend (or an empty chainer) is not usable."""
    import keyring  # deferred: its backend discovery (see the module's docstring)
    import keyring.backends.chainer
    import keyring.backends.fail

    try:
        kr = keyring.get_keyring()
    except Exception as exc:  # pragma: no cover - broken keyring config
        return False, f"keyring unavailable ({exc})"
    name = f"{type(kr).__module__}.{type(kr).__qualname__}"
    if isinstance(kr, keyring.backends.fail.Keyring):
        return False, name
    if isinstance(kr, keyring.backends.chainer.ChainerBackend) and not kr.backends:
        return False, name
    return True, name


_FRIENDLY = {
    "keyring.backends.SecretService": "Secret Service (GNOME Keyring or KWallet)",
    "keyring.backends.kwallet": "KWallet",
    "keyring.backends.macOS": "macOS Keychain",
    "keyring.backends.Windows": "Windows Credential Manager",
    "keyring.backends.libsecret": "libsecret (GNOME Keyring)",
}


def friendly_backend(name: str) -> str:
    """A keyring backend's class path in words: "keyring.backends.macOS.Keyring" -> "macOS Keychain"."""
    module = name.rsplit(".", 1)[0]
    return _FRIENDLY.get(module, module.rsplit(".", 1)[-1] if module.startswith("keyring.backends.") else name)


def _environment() -> dict[str, str]:
    return {"platform": sys.platform, "python": sys.prefix, **{k: os.environ.get(k, "") for k in _ENVIRONMENT}}


def _verdict_path(key_file: Path) -> Path:
    return key_file.with_name(VERDICT_FILE)


def _known_unusable(key_file: Path) -> bool:
    """True when keyring has no usable backend here: asked of keyring if this process already
    chose one (cheap), else the remembered verdict for this same environment."""
    core = sys.modules.get("keyring.core")
    if core is not None and getattr(core, "_keyring_backend", None) is not None:
        return not keyring_status()[0]
    try:
        data = json.loads(_verdict_path(key_file).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("usable") is False and data.get("environment") == _environment()


def _remember(key_file: Path, usable: bool, name: str) -> None:
    """Record keyring's verdict for the next process (best effort: a read-only folder is fine)."""
    verdict = {"usable": usable, "backend": name, "environment": _environment()}
    path = _verdict_path(key_file)
    try:
        if json.loads(path.read_text(encoding="utf-8")) == verdict:
            return
    except (OSError, ValueError):
        pass
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(verdict, fh)
        os.replace(tmp, path)


# --------------------------------------------------------------------------------------------
# key file


def _read_key_file(path: Path) -> dict[str, str]:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise StoreError(f"cannot read key file {path}: {exc}") from exc
    try:
        data = json.loads(raw)
        keys = data.get("keys", {}) if isinstance(data, dict) else {}
        return {str(k): str(v) for k, v in keys.items()}
    except (ValueError, AttributeError) as exc:
        raise StoreError(f"key file {path} is damaged (not JSON); it is left untouched") from exc


def _write_key_file(path: Path, keys: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"version": 1, "keys": keys}, fh, indent=2)
            fh.flush()
            os.fsync(fh.fileno())
        if os.name == "posix":
            os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _tighten(path: Path) -> None:
    if os.name == "posix" and path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            os.chmod(path, 0o600)


def _lock_path(db_path: Path, key_file: Path | None) -> Path:
    """Next to the key file (where it always was), else next to the database."""
    return key_file.with_name("db-key.lock") if key_file is not None else db_path.with_name(db_path.name + ".key-lock")


@contextlib.contextmanager
def _lock(lock_path: Path) -> Iterator[None]:
    """Serialize key creation between processes (two first starts must agree on one key)."""
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM) or not lock_path.exists():
            raise diagnose.classify(exc, lock_path) or exc
        fd = os.open(lock_path, os.O_RDONLY)  # a read-only folder: reading a key needs no write (flock works)
    try:
        if sys.platform == "win32":  # pragma: no cover
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
        else:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if sys.platform == "win32":  # pragma: no cover
            with contextlib.suppress(OSError):
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


# --------------------------------------------------------------------------------------------
# lookup / creation


def _keyring_info(name: str) -> KeyInfo:
    return KeyInfo("keyring", f"stored in the OS keyring ({friendly_backend(name)}), service '{SERVICE}'", name)


def _file_info(path: Path, why: str) -> KeyInfo:
    return KeyInfo("file", f"stored in the key file {path}, readable only by you ({why})", str(path))


def load_key(db_path: Path, key_file: Path | None = None) -> tuple[str | None, KeyInfo]:
    """Find an existing key (keyring first, then ``key_file`` if given). Never creates one.
    Where keyring is known to have no usable backend (see the module's docstring), the key file
    alone is read; without the key there, keyring is asked as always."""
    username = key_username(db_path)
    if key_file is not None and _known_unusable(key_file):
        stored = _read_key_file(key_file).get(str(Path(db_path).expanduser().resolve()))
        if stored:
            _tighten(key_file)
            return normalize_key(stored), _file_info(key_file, "no OS keyring on this system")
    import keyring.errors  # deferred (see the module's docstring)

    usable, name = keyring_status()
    if key_file is not None:
        _remember(key_file, usable, name)
    keyring_error = None
    if usable:
        try:
            value = keyring.get_password(SERVICE, username)
        except keyring.errors.KeyringError as exc:
            value, keyring_error = None, exc
        if value:
            return normalize_key(value), _keyring_info(name)
    kf = key_file
    stored = _read_key_file(kf).get(str(Path(db_path).expanduser().resolve())) if kf is not None else None
    if stored and kf is not None:
        _tighten(kf)
        why = "no OS keyring on this system" if not usable else "stored while no OS keyring was available"
        return normalize_key(stored), _file_info(kf, why)
    if keyring_error is not None:
        return None, KeyInfo("none", f"the OS keyring ({friendly_backend(name)}) failed: {keyring_error}", None)
    where = f"not in the OS keyring ({friendly_backend(name)})" if usable else "no OS keyring on this system"
    return None, KeyInfo("none", f"{where}, nor in the key file {kf}" if kf is not None else where, None)


def _db_exists(db_path: Path) -> bool:
    try:
        return db_path.stat().st_size > 0
    except FileNotFoundError:
        return False


def get_or_create_key(db_path: Path, key_file: Path | None = None) -> tuple[str, KeyInfo]:
    """The key for ``db_path``; a new random key only if the database does not exist yet. Kept
    in the OS keyring, else in ``key_file`` (without one and without a keyring: StoreError)."""
    db_path = Path(db_path).expanduser().resolve()
    with _lock(_lock_path(db_path, key_file)):
        key, info = load_key(db_path, key_file)
        if key:
            return key, info
        if _db_exists(db_path):
            raise KeyMissingError(
                f"the memory database {db_path} exists but its encryption key was not found "
                f"({info.description}; keyring service '{SERVICE}', user '{key_username(db_path)}'). "
                "Without the key the memories cannot be read, so Keepsake will not open or replace "
                "it. Restore the key, or move the database away to start a new one."
            )
        import keyring.errors  # deferred (see the module's docstring)

        new_key = secrets.token_hex(KEY_BYTES)
        usable, name = keyring_status()
        if usable:
            try:
                keyring.set_password(SERVICE, key_username(db_path), new_key)
                if keyring.get_password(SERVICE, key_username(db_path)) == new_key:
                    return new_key, _keyring_info(name)
            except (keyring.errors.KeyringError, NotImplementedError, RuntimeError):
                pass
            why = f"the OS keyring ({friendly_backend(name)}) refused the key"
        else:
            why = "no OS keyring on this system"
        kf = key_file
        if kf is None:
            raise StoreError(f"cannot keep the key of {db_path}: {why}, and no key file was given")
        keys = _read_key_file(kf)
        keys[str(db_path)] = new_key
        _write_key_file(kf, keys)
        return new_key, _file_info(kf, why)


def describe(db_path: Path, key_file: Path | None = None) -> KeyInfo:
    """For ``doctor``: where the key of ``db_path`` lives (or will live)."""
    db_path = Path(db_path)
    try:
        key, info = load_key(db_path, key_file)
    except StoreError as exc:
        return KeyInfo("none", str(exc), None)
    if key:
        return info
    usable, name = keyring_status()
    target = (f"the OS keyring ({friendly_backend(name)})" if usable
              else f"the key file {key_file}, readable only by you (this system has no OS keyring)")  # fmt: skip
    return KeyInfo("none", f"not created yet: it will be stored in {target}", None)
