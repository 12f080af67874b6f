"""Encryption at rest and the key: no plaintext in the file, a wrong or missing key is a clear
error that leaves the database untouched, and the key falls back to a 0600 file where there is
no OS keyring (as on this machine)."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.errors
import pytest
from store_fakes import TEST_KEY, fake_hash_embedder

from assistant.config import paths
from assistant.memory.store.sqlite import keys
from assistant.memory.errors import KeyMissingError, StoreError, WrongKeyError
from assistant.memory.records import Source
from assistant.memory.store.facade import MemoryStore

SECRETS = ["Dr. Okonkwo prescribed Lisinopril 10mg", "My bank PIN is 4417 at Sparkasse Heidelberg", "Ferrari 488 GTB"]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(db: Path) -> list[Path]:
    return [p for p in (db, Path(str(db) + "-wal"), Path(str(db) + "-shm")) if p.exists()]


def test_database_file_holds_no_plaintext() -> None:
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    s = store.create_session("Health and money")
    for text in SECRETS:
        msg = store.add_message(s.id, "user", text)
        store.add(text, source=Source(s.id, msg.id), entities=[text.split()[-1]])
    before_checkpoint = b"".join(p.read_bytes() for p in _files(store.path))
    store.checkpoint()
    store.close()
    after = b"".join(p.read_bytes() for p in _files(store.path))
    assert not store.path.read_bytes().startswith(b"SQLite format 3")
    for blob in (before_checkpoint, after):
        for text in SECRETS + ["Health and money", "memory_fts", "CREATE TABLE"]:
            # whole texts and every word of 6+ letters (shorter ones can occur in ciphertext by chance)
            for word in {text.lower(), *(w.lower() for w in text.split() if len(w) >= 6)}:
                assert word.encode() not in blob.lower(), word
    # and it reads back with the key from the keyring
    assert {m.text for m in MemoryStore(paths().database, key_file=paths().key_file).list()} == set(SECRETS)


def test_wrong_key_is_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    store = MemoryStore(db, key=TEST_KEY)
    store.add("Something private")
    store.close()
    digests = {p.name: _digest(p) for p in _files(db)}
    with pytest.raises(WrongKeyError, match="cannot decrypt"):
        MemoryStore(db, key="00" * 32)
    with pytest.raises(StoreError):
        MemoryStore(db, encrypted=False)  # opening an encrypted file as plain is refused too
    assert {p.name: _digest(p) for p in _files(db)} == digests
    assert MemoryStore(db, key=bytes.fromhex(TEST_KEY)).list()[0].text == "Something private"


def test_missing_key_never_creates_a_new_database() -> None:
    store = MemoryStore(paths().database, key_file=paths().key_file)
    assert store.key_info.backend == "keyring"
    store.add("Old memory that must not be hidden")
    store.close()
    db = paths().database
    digest = _digest(db)
    keyring.delete_password(keys.SERVICE, keys.key_username(db))
    with pytest.raises(KeyMissingError, match="exists but its encryption key was not found"):
        MemoryStore(paths().database, key_file=paths().key_file)
    assert _digest(db) == digest
    assert keyring.get_password(keys.SERVICE, keys.key_username(db)) is None  # no new key either


def test_bad_key_values_are_refused(tmp_path: Path) -> None:
    for bad in ("abc", "zz" * 32, b"short"):
        with pytest.raises(StoreError):
            MemoryStore(tmp_path / "x.db", key=bad)
    assert not (tmp_path / "x.db").exists()


def test_no_keyring_falls_back_to_a_0600_key_file() -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())  # what this machine really has
    info = keys.describe(paths().database, paths().key_file)
    assert info.backend == "none" and "key file" in info.description
    store = MemoryStore(paths().database, key_file=paths().key_file)
    assert store.key_info.backend == "file" and "no OS keyring" in store.key_info.description
    store.add("Stored with the file key")
    store.close()
    kf = paths().key_file
    assert stat.S_IMODE(kf.stat().st_mode) == 0o600
    assert keys.describe(paths().database, paths().key_file).backend == "file"
    assert MemoryStore(paths().database, key_file=paths().key_file).list()[0].text == "Stored with the file key"


def test_no_keyring_and_no_key_file_is_a_clear_error_and_creates_nothing(tmp_path: Path) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())
    with pytest.raises(StoreError, match="no key file was given"):
        MemoryStore(tmp_path / "m.db")  # the caller (the profile) says where a key file may go
    assert not (tmp_path / "m.db").exists() and not paths().key_file.exists()


class RefusingKeyring(keyring.backend.KeyringBackend):
    priority = 1

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.NoKeyringError("no backend")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.PasswordDeleteError("nothing")


def test_keyring_that_refuses_falls_back_to_file_then_still_opens_with_real_keyring(keepsake_home: Path) -> None:
    from conftest import MemoryKeyring

    keyring.set_keyring(RefusingKeyring())
    store = MemoryStore(paths().database, key_file=paths().key_file)
    assert store.key_info.backend == "file" and "refused" in store.key_info.description
    store.add("Written while the keyring refused")
    store.close()
    keyring.set_keyring(MemoryKeyring())  # a keyring appears later: the file key is still found
    assert MemoryStore(paths().database, key_file=paths().key_file).list()[0].text == "Written while the keyring refused"


def test_key_file_is_not_used_when_keyring_works() -> None:
    MemoryStore(paths().database, key_file=paths().key_file).close()
    assert not paths().key_file.exists()
    assert keyring.get_password(keys.SERVICE, keys.key_username(paths().database))


def test_key_file_with_loose_permissions_is_tightened() -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())
    MemoryStore(paths().database, key_file=paths().key_file).close()
    kf = paths().key_file
    os.chmod(kf, 0o644)
    MemoryStore(paths().database, key_file=paths().key_file).close()
    assert stat.S_IMODE(kf.stat().st_mode) == 0o600


def test_sqlite_driver_facts() -> None:
    from assistant.memory.store.sqlite import db

    v = db.versions()
    assert db.encryption_available() and v["sqlcipher"] and v["fts5"] and v["sqlite_vec"].startswith("v0.1.")
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    c = store.conn
    assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert c.execute("PRAGMA secure_delete").fetchone()[0] == 1
    assert c.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert c.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert store.info().to_json()["encryption"] == "encrypted (SQLCipher)"
    plain = MemoryStore(paths().data / "plain.db", encrypted=False)
    assert plain.info().to_json()["encryption"] == "not encrypted" and plain.key_info.encrypted is False


def test_no_keyring_verdict_is_remembered_for_its_environment_only(monkeypatch) -> None:
    # Finding keyring's backend costs 0.2-0.4 s a process; where there is none (as here), the
    # next process reads the key file without asking keyring, in the same environment only.
    import json

    import keyring.core
    from conftest import MemoryKeyring

    key_file = paths().key_file
    keyring.set_keyring(keyring.backends.fail.Keyring())
    MemoryStore(paths().database, key_file=key_file).close()  # the key goes to the file, the verdict next to it
    verdict = json.loads((key_file.parent / keys.VERDICT_FILE).read_text())
    assert verdict["usable"] is False and verdict["backend"] == "keyring.backends.fail.Keyring"
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # a new process: keyring not asked yet
    key, info = keys.load_key(paths().database, key_file)
    assert key and info.backend == "file" and "no OS keyring" in info.description
    assert keyring.core._keyring_backend is None  # keyring was not asked at all
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/another-session")
    assert not keys._known_unusable(key_file)  # another desktop session: keyring is asked again
    keyring.set_keyring(MemoryKeyring())  # a process whose keyring works does not take the file's word
    assert not keys._known_unusable(key_file)
