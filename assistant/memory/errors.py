"""Errors raised by the memory store. All derive from :class:`StoreError`."""

from __future__ import annotations


class StoreError(Exception):
    """Something is wrong with the memory database (message is meant for the person)."""


class KeyMissingError(StoreError):
    """The database exists but its encryption key cannot be found."""


class WrongKeyError(StoreError):
    """The key does not decrypt the database (or the file is not a Keepsake database)."""


class StorageError(StoreError):
    """The file system or the database file failed (not a mistake in what was asked).

    One line for the person: what happened to which file, and what to do. ``path`` is the file
    (or folder) concerned; :mod:`assistant.memory.store.sqlite.diagnose` turns driver and OS errors into
    these."""

    kind = "storage"

    def __init__(self, what: str, path: object = None, *, outcome: str = "", todo: str = "") -> None:
        super().__init__(f"{what}; {outcome}. {todo}" if outcome else f"{what}. {todo}" if todo else what)
        self.path, self.what, self.outcome, self.todo = path, what, outcome, todo

    def with_outcome(self, outcome: str) -> "StorageError":
        """The same error, saying what happened to the work instead (e.g. what an import kept)."""
        return type(self)(self.what, self.path, outcome=outcome, todo=self.todo)


class DamagedError(StorageError):
    """The database file is damaged (a failed integrity check, a page that cannot be read).
    Nothing more is written to it; ``keepsake repair`` saves what can still be read."""

    kind = "damaged"


class InterruptedReadError(StorageError):
    """A read met another process's change half-way (e.g. a search index being rewritten by a
    tidy-up) and kept failing after retries, while the integrity check says the file is
    healthy: nothing was changed, and trying again works. Never reported as damage."""

    kind = "interrupted"


class DiskFullError(StorageError):
    """No space left on the disk holding the file; the write was rolled back."""

    kind = "disk full"


class ReadOnlyError(StorageError):
    """The folder or the file cannot be written (read-only disk, permissions)."""

    kind = "read-only"


class LockedError(StorageError):
    """Another program kept the database locked for longer than Keepsake waits."""

    kind = "locked"


class DiskIOError(StorageError):
    """Reading or writing the file failed at the operating-system level (a failing disk)."""

    kind = "I/O error"


class NotFound(StoreError, KeyError):
    """No memory/session/message with that id."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "not found"


class EndsBeforeStart(ValueError):
    """A memory would stop being true before it became true (``invalid_at`` < ``valid_at``): a
    mistake in what was asked, so a ValueError, with both instants for a message that says what to do."""

    def __init__(self, valid_at: object, invalid_at: object) -> None:
        super().__init__("invalid_at is before valid_at")
        self.valid_at, self.invalid_at = valid_at, invalid_at


class VersionConflict(StoreError):
    """Optimistic concurrency: the record changed since the caller read it."""

    def __init__(self, memory_id: int, expected: int, actual: int) -> None:
        super().__init__(f"memory {memory_id} is at version {actual}, expected {expected}")
        self.memory_id = memory_id
        self.expected = expected
        self.actual = actual


class EmbedderMismatchError(StoreError):
    """The search index was made by another embedder than the configured one: its vectors and
    the configured model's do not compare, so neither search nor writes use it."""
