"""The store's core: opening the file (key, migrations, damage marker), one connection per
thread, transactions (``write``/``read``), the clock, checkpoints. Every repository of the store
(:class:`Repository`: memories, sessions, vectors, logs, ...) is given this core, nothing global.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from assistant import events
from assistant.memory.store.sqlite import keys as keymod
from assistant.memory.store.sqlite import diagnose
from assistant.memory.store.sqlite import notify
from assistant.memory.store.sqlite.db import (
    DRIVER,
    ENCRYPTION_AVAILABLE,
    RETRY_DEADLINE,
    Connection,
    ConnectionPool,
    DatabaseError,
    is_busy,
    open_connection,
    read_tx,
    write_tx,
)
from assistant.memory.errors import DamagedError, StoreError
from assistant.memory.store.sqlite import integrity
from assistant.memory.store.sqlite.integrity import Damage, clear_marker, confirm_damage, identity, quick_check, read_marker, write_marker
from assistant.memory.store.sqlite.migrations import LATEST, current_version, migrate
from assistant.memory.times import to_utc, utcnow

if TYPE_CHECKING:  # imported on first use of ``.db`` (see _Holder)
    import sqlite_utils

T = TypeVar("T")
log = logging.getLogger(__name__)
CORRUPT_RETRIES = (0.05, 0.15, 0.4, 1.0)  # seconds before each new try of a unit that met "corrupt"


@dataclass(frozen=True)
class StoreInfo:
    """What ``doctor`` shows about the store."""

    path: str
    driver: str
    encrypted: bool
    key: keymod.KeyInfo
    schema_version: int
    embedding_dim: int
    memories: int
    sessions: int
    messages: int

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "driver": self.driver,
            "encrypted": self.encrypted,
            "encryption": "encrypted (SQLCipher)" if self.encrypted else "not encrypted",
            "key": self.key.to_json(),
            "schema_version": self.schema_version,
            "embedding_dim": self.embedding_dim,
            "memories": self.memories,
            "sessions": self.sessions,
            "messages": self.messages,
        }


class StoreCore:
    """Open (or create) the memory database. See :class:`assistant.memory.store.MemoryStore`."""

    def __init__(
        self,
        path: str | Path,
        *,
        key: str | bytes | None = None,
        key_file: Path | None = None,
        encrypted: bool = True,
        dim: int = 384,
        check_dim: bool = False,
        busy_timeout: float = 30.0,
        clock: Callable[[], datetime] | None = None,
        retry_deadline: float = RETRY_DEADLINE,
    ) -> None:
        self.path = Path(path).expanduser().resolve()
        self._retry_deadline = retry_deadline
        self._verified = False
        self._verifier: threading.Thread | None = None  # verify_soon()'s worker
        self._checked_at: float | None = None  # when the full check this store relies on ran (epoch seconds)
        self.damage: Damage | None = None
        self._clock = clock or utcnow
        self._lock = threading.Lock()
        self._busy_timeout = busy_timeout
        self._pending_truncate = False
        if encrypted and ENCRYPTION_AVAILABLE:
            _refuse_truncated(self.path, key is not None or keymod.load_key(self.path, key_file)[0] is not None)
        if not encrypted or not ENCRYPTION_AVAILABLE:
            key_hex = None
            why = "encryption disabled by the caller" if encrypted is False else f"{DRIVER} has no encryption"
            self.key_info = keymod.KeyInfo("none", f"not encrypted ({why})", None, encrypted=False)
        elif key is not None:
            key_hex = keymod.normalize_key(key)
            self.key_info = keymod.KeyInfo("explicit", "key supplied by the caller", None)
        else:
            key_hex, self.key_info = keymod.get_or_create_key(self.path, key_file)
        self.encrypted = key_hex is not None
        self._key_hex = key_hex
        self._pool = ConnectionPool(lambda: open_connection(self.path, key_hex, busy_timeout=busy_timeout,
                                                            deadline=retry_deadline))  # fmt: skip
        conn = self._pool.conn  # open + verify the key now, in the constructor
        self._guard(lambda: self._open_schema(conn, dim))
        if self.damage is None and not self._verified:  # checked by an open store here, or left healthy by the last one
            self._trust(integrity.held(self.path) or integrity.trusted(self.path, time.time()))
        row = self._guard(lambda: conn.execute("SELECT value FROM store_meta WHERE key = 'embedding_dim'").fetchone())
        self.dim = int(row[0]) if row else dim
        if check_dim and self.dim != dim:
            raise StoreError(
                f"the memory database stores {self.dim}-dimensional vectors but the embedder gives {dim}; "
                "switch embedders with `keepsake models use NAME`, which re-embeds the memories"
            )
        self.store_id = self._guard(lambda: conn.execute("SELECT value FROM store_meta WHERE key = 'store_id'").fetchone()[0])

    def _open_schema(self, conn: Connection, dim: int) -> None:
        """Recall a damage marker, then migrate (a damaged file that needs a migration is refused:
        migrating writes)."""
        self._recall_damage(conn)
        if self.damage is not None and current_version(conn) < LATEST:
            raise self._damaged_error()
        migrate(conn, dim=dim, now=self.now(), deadline=self._retry_deadline)

    # ---------------------------------------------------------------- infrastructure

    @property
    def conn(self) -> Connection:
        """This thread's connection (sqlcipher3, autocommit; use :meth:`write` for changes)."""
        return self._pool.conn

    @property
    def db(self) -> sqlite_utils.Database:
        """This thread's ``sqlite_utils.Database`` over the same connection."""
        return self._pool.db

    def reopen_key(self) -> str | None:
        """The key (64 hex) another process opens the same file with (None: not encrypted)."""
        return self._key_hex

    def now(self) -> datetime:
        return to_utc(self._clock())

    def write(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` in one ``BEGIN IMMEDIATE`` transaction, retried on busy (at most
        ``retry_deadline`` seconds). After the commit, what it changed is published as a
        :class:`~assistant.memory.store.sqlite.notify.StoreChange` (a nested call belongs to the outer
        transaction, which publishes). Refused on a damaged file; the file is checked once before
        the first write (:meth:`verify`). Storage faults raise their one-line errors."""
        conn = self.conn
        if conn.in_transaction:
            return self._guard(lambda: write_tx(conn, fn))
        self.verify_once()
        if self.damage is not None:
            raise self._damaged_error()
        seen: list[notify.StoreChange | None] = [None]

        def run(c: Connection) -> T:
            before = notify.marks(c)
            result = fn(c)
            seen[0] = notify.changes_since(c, self.path, before)
            return result

        result = self._guard(lambda: write_tx(self.conn, run, deadline=self._retry_deadline), renew=True)
        if seen[0] is not None:
            events.publish(notify.TOPIC, seen[0])
        return result

    def read(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` on one consistent snapshot."""
        return self._guard(lambda: read_tx(self.conn, fn), renew=not self.conn.in_transaction)

    # ---------------------------------------------------------------- integrity

    def verify(self) -> str | None:
        """``PRAGMA quick_check`` once per store (again when called again): None when healthy,
        else what is wrong -- the file is then marked damaged and no write is made to it."""
        checked_at = time.time()
        problem = self._guard(lambda: quick_check(self.conn))
        self._verified = True
        if problem is not None:
            self._mark_damaged(problem)
        else:
            self._trust(checked_at)
        return problem

    def verify_once(self) -> str | None:
        """:meth:`verify` unless this store has checked the file already or trusts its stamp (as
        the first write does): None when healthy, else what is wrong."""
        if self.damage is None and not self._verified:
            self._await_verifier()
        if self.damage is None and not self._verified:
            self.verify()
        return self.damage.detail if self.damage is not None else None

    def _trust(self, checked_at: float | None) -> None:
        """This store relies on a full check made at ``checked_at`` (shared by the process's stores of
        the file until they all close: :mod:`~assistant.memory.store.sqlite.integrity`)."""
        if checked_at is not None and self._checked_at is None:
            self._checked_at = integrity.hold(self.path, checked_at)
            self._verified = True

    def verify_soon(self) -> None:
        """Start :meth:`verify` now on a worker thread with its own connection, so the check
        (it reads every page: ~0.15 s at 10,000 memories, more on older profiles; SQLite runs
        it without the GIL) overlaps the caller's other start-up work (imports, model loads).
        The first write waits for it, and checks again itself if the worker could not finish."""
        with self._lock:
            if self._verified or self.damage is not None or self._verifier is not None:
                return
            self._verifier = threading.Thread(target=self._verify_quietly, name="keepsake-verify", daemon=True)
        self._verifier.start()

    def _verify_quietly(self) -> None:
        try:
            self.verify()
        except Exception:  # noqa: BLE001 - the first write verifies again and raises it there
            log.debug("background integrity check failed", exc_info=True)

    def _await_verifier(self) -> None:
        worker = self._verifier
        if worker is not None and worker is not threading.current_thread():
            worker.join()

    def _recall_damage(self, conn: Connection) -> None:
        """A damage marker left by any process: still this file -> damaged; the file was
        replaced since (a backup restored) -> checked again, the marker dropped if healthy."""
        damage = read_marker(self.path)
        if damage is None:
            return
        if damage.identity is not None and damage.identity == identity(self.path):
            self.damage = damage
            return
        try:
            problem = quick_check(conn)
        except DatabaseError as exc:
            problem = str(exc)
        if problem is None:
            clear_marker(self.path)
            self._trust(time.time())
        else:
            self.damage = write_marker(self.path, problem)

    def _mark_damaged(self, detail: str) -> None:
        if self.damage is None:
            self.damage = write_marker(self.path, detail)
        if self._checked_at is not None:
            integrity.release(self.path, damaged=True)
            self._checked_at = None

    def damage_error(self) -> StoreError | None:
        """The one-line error for a file known to be damaged (None while it is not)."""
        return self._damaged_error() if self.damage is not None else None

    def _damaged_error(self) -> StoreError:
        return diagnose.damaged(self.path, self.damage.detail if self.damage else "damaged")

    def _guard(self, fn: Callable[[], T], *, renew: bool = False) -> T:
        """Run ``fn``; a storage fault becomes its one-line error (and damage is remembered).

        A "corrupt" error is first taken for what it usually is under concurrency - a read that
        met another process's change (FTS5 segments merged away under it) -: a whole unit
        (``fn`` outside any transaction; it was rolled back) is run again, up to
        ``len(CORRUPT_RETRIES)`` times (``renew``: ``fn`` takes this thread's connection anew,
        so each retry runs on a fresh connection - nothing cached from before). Still failing, the file is checked on a fresh connection
        (:func:`confirm_damage`); only when the check agrees is it damaged (marked, nothing more
        written), else the error is :class:`InterruptedReadError` ("try again")."""
        for wait in (*CORRUPT_RETRIES, None):
            try:
                return fn()
            except (DatabaseError, OSError) as exc:
                known = diagnose.classify(exc, self.path)
                if known is None:
                    raise
                if not isinstance(known, DamagedError) or isinstance(exc, StoreError):
                    raise known from exc
                if self._pool.conn.in_transaction:
                    raise  # inside a unit: the outermost guard retries the whole unit
                if wait is not None:
                    log.info("a read met a concurrent change (%s); retrying in %.2f s", exc, wait)
                    time.sleep(wait)
                    if renew:
                        self._pool.renew()
                    continue
                problem = confirm_damage(self.path, self._key_hex)
                if problem is None:
                    raise diagnose.interrupted(self.path, str(exc)) from exc
                self._mark_damaged(problem)
                raise diagnose.damaged(self.path, str(exc)) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        """Close this thread's connection (a pending WAL truncation after a delete is retried).
        A file this store checked (or trusted) and did not find damaged is stamped healthy
        (:func:`~assistant.memory.store.sqlite.integrity.write_stamp`)."""
        self._await_verifier()  # its connection is still reading the file
        if self._pending_truncate and not self._pool.closed:
            with contextlib.suppress(Exception):
                self.checkpoint(attempts=2)
        was_open = not self._pool.closed
        self._pool.close()
        if was_open and self._checked_at is not None:
            integrity.release(self.path)
            if self.damage is None:
                integrity.write_stamp(self.path, self._checked_at)

    @property
    def schema_version(self) -> int:
        return current_version(self.conn)

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` result ("ok" when healthy)."""
        rows = self.conn.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(str(r[0]) for r in rows)

    def checkpoint(self, attempts: int = 5, wait: float = 2.0) -> bool:
        """``PRAGMA wal_checkpoint(TRUNCATE)``: copy the WAL back and empty the ``-wal`` file.

        True when it completed. Under constant writes from other connections it may not (each
        attempt waits at most ``wait`` seconds); it is then retried by the next delete and on
        :meth:`close`.
        """
        conn = self.conn
        conn.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
        try:
            for i in range(attempts):
                try:
                    busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                except DatabaseError as exc:
                    if not is_busy(exc):
                        raise
                    busy = 1
                if not busy:
                    self._pending_truncate = False
                    return True
                time.sleep(min(0.02 * (i + 1), 0.2))
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
        self._pending_truncate = True
        return False

    def forget_generation(self) -> int:
        """Bumped by every committed delete: an open chat session compares it before a turn."""
        row = self.conn.execute("SELECT value FROM store_meta WHERE key = 'forget_generation'").fetchone()
        return int(row[0]) if row else 0

    def info(self) -> StoreInfo:
        def q(c: Connection) -> tuple[int, int, int]:
            return tuple(c.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("memories", "sessions", "messages"))  # type: ignore[return-value]

        m, s, n = self.read(q)
        return StoreInfo(str(self.path), DRIVER, self.encrypted, self.key_info, self.schema_version, self.dim, m, s, n)


def _refuse_truncated(path: Path, had_key: bool) -> None:
    """A database file of 0 bytes (no write-ahead log either) whose key exists was a database
    once: it was truncated (a crash mid-copy, a sync tool, a full disk). SQLite would take it for
    a new, empty database and Keepsake would silently start over in its place: refuse, and say
    so (a new profile's file has no key yet, so it is created as always)."""
    try:
        empty = path.stat().st_size == 0
    except OSError:
        return
    wal = Path(str(path) + "-wal")
    if empty and had_key and not (wal.exists() and wal.stat().st_size > 0):
        raise diagnose.damaged(path, "the file is empty (0 bytes) though its key exists: it was truncated or replaced")


class Repository:
    """Base of the store's services: each one works through the core it is given (its
    transactions, clock and this thread's connection) and the collaborators passed to it."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    @property
    def conn(self) -> Connection:
        return self.core.conn

    def now(self) -> datetime:
        return self.core.now()

    def write(self, fn: Callable[[Connection], T]) -> T:
        return self.core.write(fn)

    def read(self, fn: Callable[[Connection], T]) -> T:
        return self.core.read(fn)
