"""One error path for storage: driver and OS errors -> one-line messages that say what
happened to which file and what to do.

:func:`classify` maps an exception to a :class:`~assistant.memory.errors.StoreError`, or None
when it is not a storage fault (a bug, a constraint): the caller re-raises those.

SQLite primary result codes (``exc.sqlite_errorcode & 0xff``; the message text where a driver
gives no code):

=============  ===========================================================================
CORRUPT (11)   damaged: :class:`DamagedError`
NOTADB (26)    at open: wrong key / not a Keepsake database (:class:`WrongKeyError`); after
               the key was verified: damaged
FULL (13)      disk full: :class:`DiskFullError`
IOERR (10)     disk full when the folder has < :data:`FULL_BELOW` bytes free (a write that ran
               out of space surfaces as an I/O error), read-only when it cannot be written,
               else :class:`DiskIOError`
READONLY (8),  read-only: :class:`ReadOnlyError`
PERM (3),
AUTH (23)
CANTOPEN (14)  read-only when the folder cannot be written, else "cannot open" (a folder
               in its place, ...)
BUSY (5),      locked: :class:`LockedError`
LOCKED (6)
=============  ===========================================================================

OS errors: ENOSPC/EDQUOT -> disk full, EROFS/EACCES/EPERM -> read-only, EIO -> I/O error.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from assistant.memory.errors import (
    DamagedError,
    DiskFullError,
    DiskIOError,
    InterruptedReadError,
    LockedError,
    ReadOnlyError,
    StorageError,
    StoreError,
    WrongKeyError,
)

FULL_BELOW = 1 << 20  # bytes free under which an I/O error on write is a full disk

CORRUPT, NOTADB, FULL, IOERR, READONLY, PERM, AUTH, CANTOPEN, BUSY, LOCKED = 11, 26, 13, 10, 8, 3, 23, 14, 5, 6
_TEXT = (  # message fragments, for drivers without result codes
    ("malformed", CORRUPT), ("not a database", NOTADB), ("disk is full", FULL), ("readonly", READONLY),
    ("read-only", READONLY), ("unable to open", CANTOPEN), ("locked", LOCKED), ("busy", BUSY), ("disk i/o", IOERR),
)  # fmt: skip


def sqlite_code(exc: BaseException) -> int | None:
    """The primary SQLite result code of a driver error (None for other exceptions)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    if type(exc).__name__ not in ("DatabaseError", "OperationalError", "IntegrityError", "ProgrammingError",
                                  "InternalError", "NotSupportedError", "DataError"):  # fmt: skip
        return None
    text = str(exc).lower()
    return next((c for frag, c in _TEXT if frag in text), None)


def free_bytes(path: Path) -> int | None:
    """Free space on the file system holding ``path`` (its nearest existing folder)."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        return shutil.disk_usage(p).free
    except OSError:
        return None


def folder_writable(folder: Path) -> bool:
    """Whether a new file can be created in ``folder`` (tried for real: permission bits do
    not tell a read-only mount, and root ignores them)."""
    probe = Path(folder) / f".keepsake-write-probe-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return True
    except OSError as exc:
        return exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM)  # a full disk is not read-only
    os.close(fd)
    try:
        os.unlink(probe)
    except OSError:
        pass
    return True


def _size(n: int | None) -> str:
    if n is None:
        return "unknown"
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


NOTHING_SAVED = "nothing was saved"


def damaged(path: Path, detail: str) -> DamagedError:
    return DamagedError(
        f"the memory database {path} is damaged ({detail})", path, outcome="nothing more will be written to it",
        todo="Run `keepsake repair` to save what can still be read into a new database, or restore a backup of it.",
    )


def interrupted(path: Path, detail: str) -> InterruptedReadError:
    return InterruptedReadError(
        f"a read of the memory database {path} kept meeting a change another Keepsake process was making ({detail}); "
        "the integrity check found the file healthy", path, outcome="nothing was changed",
        todo="Try again (a tidy-up may have been running).",
    )


def disk_full(path: Path) -> DiskFullError:
    return DiskFullError(f"the disk holding {path} is full ({_size(free_bytes(path))} free)", path,
                         outcome=NOTHING_SAVED, todo="Free some space, then try again.")  # fmt: skip


def read_only(path: Path) -> ReadOnlyError:
    folder = path if path.is_dir() else path.parent
    return ReadOnlyError(
        f"cannot write to {folder}: the folder (or {path.name}) is read-only or not yours", path, outcome=NOTHING_SAVED,
        todo="Make it writable, or set KEEPSAKE_HOME to a writable folder, then try again.",
    )


def locked(path: Path) -> LockedError:
    return LockedError(
        f"the memory database {path} is locked by another program (another Keepsake, a backup or sync tool?)", path,
        outcome="nothing was changed", todo="Close it, then try again.",
    )


def wrong_key(path: Path) -> WrongKeyError:
    return WrongKeyError(
        f"cannot decrypt the memory database {path}: the key is wrong, or the file is damaged or not a Keepsake "
        "database. Nothing was changed. Restore the key it was made with (see `keepsake doctor`) or a backup of the file."
    )


def io_error(path: Path, detail: str) -> DiskIOError:
    return DiskIOError(
        f"reading or writing {path} failed ({detail}); the disk may be failing", path,
        todo="Copy the folder somewhere safe, run `keepsake doctor`, and restore a backup if it keeps happening.",
    )


def cannot_open(path: Path, detail: str) -> StorageError:
    what = "it is a folder, not a file" if path.is_dir() else detail
    return StorageError(f"cannot open the memory database {path} ({what})", path,
                        todo="Check that it is a file you can read and write (`keepsake doctor` tells more).")  # fmt: skip


def is_storage_fault(exc: BaseException, path: Path) -> bool:
    """Whether ``exc`` is the disk or the database file failing (not a mistake in one record):
    work that meets one stops instead of carrying on record by record."""
    if isinstance(exc, StorageError):
        return True
    return not isinstance(exc, StoreError) and classify(exc, path) is not None


def classify(exc: BaseException, path: Path, *, opened: bool = True) -> StoreError | None:
    """The storage fault ``exc`` means for the database ``path``, or None. ``opened``: the
    key was already verified (a NOTADB error then means damage, not a wrong key)."""
    path = Path(path)
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, OSError):
        where = Path(exc.filename) if getattr(exc, "filename", None) else path
        if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            return disk_full(where)
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return read_only(where)
        if exc.errno == errno.EIO:
            return io_error(where, exc.strerror or str(exc))
        return None
    code = sqlite_code(exc)
    if code is None:
        return None
    detail = str(exc)
    if code == CORRUPT:
        return damaged(path, detail)
    if code == NOTADB:
        return damaged(path, detail) if opened else wrong_key(path)
    if code == FULL:
        return disk_full(path)
    if code in (BUSY, LOCKED):
        return locked(path)
    if code in (READONLY, PERM, AUTH):
        return read_only(path)
    if code == CANTOPEN and (path.is_dir() or folder_writable(path.parent)):
        return cannot_open(path, detail)
    if code in (IOERR, CANTOPEN):
        free = free_bytes(path)
        if free is not None and free < FULL_BELOW:
            return disk_full(path)
        if not folder_writable(path.parent):
            return read_only(path)
        return io_error(path, detail)
    return None
