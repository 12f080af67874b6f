"""What the faces (the app, the CLI) ask the store about the database itself, without touching a
connection or the SQLite layer: what a raw driver or OS error means for the person's database
(damaged, full, read-only, locked, wrong key), remembering damage for the next start, and
following changes that other processes commit.

    fault = classify(exc, database)          # a StoreError the CLI would print, or None
    remember_damage(database, str(exc))      # the next start says the file is damaged
    watch = store.watch_changes()            # then, on a store thread: store.poll_changes(watch)
"""

from __future__ import annotations

from pathlib import Path

from assistant.memory.errors import StoreError
from assistant.memory.store.sqlite import diagnose, integrity, notify

#: The events topic of committed store writes (payload: :class:`StoreChange`), any thread.
TOPIC = notify.TOPIC
StoreChange = notify.StoreChange
ExternalWatch = notify.ExternalWatch


def classify(exc: BaseException, database: Path) -> StoreError | None:
    """``exc`` (a driver or OS error) as the storage fault it is for ``database``, else None."""
    return diagnose.classify(exc, database)


def remember_damage(database: Path, detail: str) -> None:
    """Mark ``database`` as damaged (an integrity marker beside it) so the next start says so."""
    integrity.write_marker(database, detail)


def write_lock_free(store) -> Exception | None:
    """Whether a writer gets the database's write lock within 2 s (taken and released at once,
    nothing written); the storage fault (locked, damaged ...) otherwise."""
    from assistant.memory.store.sqlite.db import DatabaseError, is_busy

    conn = store.conn
    conn.execute("PRAGMA busy_timeout = 2000")
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    except DatabaseError as exc:
        return diagnose.locked(store.path) if is_busy(exc) else diagnose.classify(exc, store.path) or exc
    return None


def keyring_status() -> tuple[bool, str]:
    """(whether the OS keyring that holds the database key is usable, its backend's name)."""
    from assistant.memory.store.sqlite import keys

    return keys.keyring_status()


def keyring_name(name: str) -> str:
    """A keyring backend's name as a person reads it ("GNOME Keyring", "a plain-text file")."""
    from assistant.memory.store.sqlite import keys

    return keys.friendly_backend(name)
