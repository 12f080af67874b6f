"""Opening the memory database: encryption, extensions, pragmas, one connection per thread.

Driver: ``sqlcipher3`` (SQLCipher 4, encrypted, FTS5, loads sqlite-vec). Only where it cannot be
imported do we fall back to ``sqlean`` (extension loading, **no encryption**; reported as
"not encrypted"). The key is applied as a raw 256-bit hex key (``PRAGMA key = "x'..'"``: no
KDF) and verified before anything else happens, so a wrong key is a clear error and never a
fresh empty database.

Pragmas on every connection: ``busy_timeout``, ``journal_mode=WAL``, ``synchronous=FULL``
(an acknowledged write survives a crash), ``secure_delete=ON`` (freed content is zeroed),
``foreign_keys=ON``, ``temp_store=MEMORY`` (no plaintext temp files).

Transactions: connections run in autocommit mode (``isolation_level=None``); writes go through
:func:`write_tx` which issues ``BEGIN IMMEDIATE`` (no read->write upgrade deadlocks in WAL) and
retries the whole unit of work on ``SQLITE_BUSY`` until a deadline, so "database is locked"
does not reach callers under normal contention.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from assistant.memory.store.sqlite import diagnose
from assistant.memory.errors import StoreError, WrongKeyError

try:  # pragma: no branch
    import sqlcipher3 as driver  # type: ignore[import-not-found]

    DRIVER = "sqlcipher3"
    ENCRYPTION_AVAILABLE = True
except ImportError:  # pragma: no cover - only where no sqlcipher3 wheel exists
    import sqlean as driver  # type: ignore[import-not-found, no-redef]

    DRIVER = "sqlean"
    ENCRYPTION_AVAILABLE = False

if TYPE_CHECKING:  # imported on first use of ``.db`` (see _Holder)
    import sqlite_utils

T = TypeVar("T")
Connection = Any  # driver.Connection (sqlcipher3 or sqlean): DB-API 2 compatible
DatabaseError = driver.DatabaseError
OperationalError = driver.OperationalError
IntegrityError = driver.IntegrityError

_HEX64 = re.compile(r"[0-9a-f]{64}")
DEFAULT_BUSY_TIMEOUT = 30.0  # seconds SQLite itself waits for a lock
RETRY_DEADLINE = 120.0  # seconds we keep retrying a busy unit of work on top of that


def is_busy(exc: BaseException) -> bool:
    msg = str(exc).lower()
    return isinstance(exc, DatabaseError) and ("locked" in msg or "busy" in msg)


def vec_extension() -> str:
    """The sqlite-vec loadable extension's path (what ``sqlite_vec.loadable_path()`` returns),
    found without importing the package: its ``__init__`` imports numpy.typing (0.1-0.2 s),
    which a command that reads no vectors never needs."""
    spec = importlib.util.find_spec("sqlite_vec")
    origin = spec.origin if spec is not None else None
    if origin and os.path.isdir(os.path.dirname(origin)):
        return os.path.join(os.path.dirname(origin), "vec0")
    import sqlite_vec  # an unusual installation: ask the package

    return sqlite_vec.loadable_path()


def open_connection(path: Path, key_hex: str | None, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
                    deadline: float = RETRY_DEADLINE) -> Connection:  # fmt: skip
    """Open, key, verify, load sqlite-vec and set pragmas. ``key_hex=None``: unencrypted.
    Storage faults become their one-line :mod:`~assistant.memory.store.sqlite.diagnose` errors."""
    if key_hex is not None and not ENCRYPTION_AVAILABLE:  # pragma: no cover
        key_hex = None  # sqlean: no encryption available, reported by MemoryStore.encrypted
    if key_hex is not None and not _HEX64.fullmatch(key_hex):
        raise StoreError("database key must be 64 hexadecimal characters")
    path = Path(path)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not path.exists():  # created private: SQLite gives the -wal and -shm files the same mode
            with contextlib.suppress(FileExistsError):
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        conn = driver.connect(str(path), timeout=busy_timeout, check_same_thread=True, isolation_level=None)
    except (OSError, DatabaseError) as exc:
        raise (diagnose.classify(exc, path, opened=False) or StoreError(f"cannot open the memory database {path}: {exc}")) from exc
    conn.row_factory = driver.Row  # index and name access
    try:
        if key_hex is not None:
            with contextlib.suppress(DatabaseError):
                conn.execute("PRAGMA cipher_log_level = NONE")
            conn.execute(f"PRAGMA key = \"x'{key_hex}'\"")  # hex validated by keys.normalize_key
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        _verify(conn, path, encrypted=key_hex is not None, deadline=deadline)
        conn.enable_load_extension(True)
        try:
            conn.load_extension(vec_extension())
        finally:
            conn.enable_load_extension(False)
        mode = _retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone()[0], deadline)
        if str(mode).lower() != "wal":
            raise StoreError(f"could not switch {path} to WAL mode (got {mode!r})")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA temp_store = MEMORY")
    except DatabaseError as exc:
        conn.close()
        raise (diagnose.classify(exc, path) or StoreError(f"cannot open the memory database {path}: {exc}")) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _verify(conn: Connection, path: Path, *, encrypted: bool, deadline: float) -> None:
    """Read the schema: fails right away on a wrong key or a file that is not a database."""
    try:
        _retry_busy(lambda: conn.execute("SELECT count(*) FROM sqlite_master").fetchone(), deadline)
    except DatabaseError as exc:
        known = diagnose.classify(exc, path, opened=False)
        if known is not None and not (isinstance(known, WrongKeyError) and not encrypted):
            raise known from exc
        raise StoreError(
            f"cannot read {path} as an unencrypted database (is it encrypted, or not a database?)"
        ) from exc


def _retry_busy(fn: Callable[[], T], deadline: float = RETRY_DEADLINE) -> T:
    end = time.monotonic() + deadline
    delay = 0.005
    while True:
        try:
            return fn()
        except DatabaseError as exc:
            if not is_busy(exc) or time.monotonic() > end:
                raise
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, 0.25)


def write_tx(conn: Connection, fn: Callable[[Connection], T], *, deadline: float = RETRY_DEADLINE) -> T:
    """Run ``fn(conn)`` in a ``BEGIN IMMEDIATE`` transaction; retry the whole unit on busy.

    Nested calls (already inside a transaction) just run ``fn``.
    """
    if conn.in_transaction:
        return fn(conn)
    end = time.monotonic() + deadline
    delay = 0.005
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
                conn.execute("COMMIT")
                return result
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except DatabaseError as exc:
            if not is_busy(exc) or time.monotonic() > end:
                raise
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, 0.25)


def read_tx(conn: Connection, fn: Callable[[Connection], T]) -> T:
    """Run ``fn(conn)`` on one consistent snapshot (a deferred read transaction)."""
    if conn.in_transaction:
        return fn(conn)

    def once() -> T:
        conn.execute("BEGIN")
        try:
            return fn(conn)
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    return _retry_busy(once)


class _Holder:
    """Per-thread connection; closed when the thread's local storage goes away. Its
    ``sqlite_utils.Database`` is made on first use: sqlite_utils (with numpy, click and
    dateutil) is not imported by a process that never asks for it."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._db: "sqlite_utils.Database | None" = None

    @property
    def db(self) -> "sqlite_utils.Database":
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn, recursive_triggers=False, execute_plugins=False)
        return self._db

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()

    def __del__(self) -> None:  # the owning thread ended
        self.close()


class ConnectionPool:
    """One connection per thread (a connection is never shared across threads)."""

    def __init__(self, opener: Callable[[], Connection]) -> None:
        self._opener = opener
        self._local = threading.local()
        self._pid = os.getpid()
        self._closed = False
        self._orphans: list[threading.local] = []  # inherited across fork: never touched again

    def _holder(self) -> _Holder:
        if self._closed:
            raise StoreError("the memory store is closed")
        if os.getpid() != self._pid:  # forked: SQLite connections must not cross fork
            self._orphans.append(self._local)
            self._local = threading.local()
            self._pid = os.getpid()
        holder = getattr(self._local, "holder", None)
        if holder is None:
            holder = _Holder(self._opener())
            self._local.holder = holder
        return holder

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def conn(self) -> Connection:
        return self._holder().conn

    @property
    def db(self) -> sqlite_utils.Database:
        return self._holder().db

    def renew(self) -> None:
        """Close this thread's connection; the next use opens a fresh one (its caches - FTS5's
        index structure among them - start from the file as it is now)."""
        holder = getattr(self._local, "holder", None)
        if holder is not None:
            holder.close()
            self._local.holder = None

    def close(self) -> None:
        """Close this thread's connection and refuse further use. Connections of other
        threads close when those threads end (SQLite objects cannot be closed cross-thread)."""
        holder = getattr(self._local, "holder", None)
        if holder is not None:
            holder.close()
            self._local.holder = None
        self._closed = True


def encryption_available() -> bool:
    """True when the driver encrypts (sqlcipher3); False on the sqlean fallback."""
    return ENCRYPTION_AVAILABLE


def versions() -> dict[str, Any]:
    """Library versions for ``doctor``: sqlite, sqlcipher (None without), sqlite_vec, fts5."""
    conn = driver.connect(":memory:")
    try:
        out: dict[str, Any] = {"driver": DRIVER, "sqlite": conn.execute("SELECT sqlite_version()").fetchone()[0]}
        try:
            row = conn.execute("PRAGMA cipher_version").fetchone()
            out["sqlcipher"] = row[0] if row else None
        except DatabaseError:
            out["sqlcipher"] = None
        try:
            conn.enable_load_extension(True)
            conn.load_extension(vec_extension())
            conn.enable_load_extension(False)
            out["sqlite_vec"] = conn.execute("SELECT vec_version()").fetchone()[0]
        except Exception:  # noqa: BLE001 - reported, not raised
            out["sqlite_vec"] = None
        try:
            conn.execute("CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(a)")
            out["fts5"] = True
        except DatabaseError:
            out["fts5"] = False
        return out
    finally:
        conn.close()
