"""Errors raised by the memory store. All derive from :class:`StoreError`."""

from __future__ import annotations


class StoreError(Exception):
    """Something is wrong with the memory database (message is meant for the person)."""


class KeyMissingError(StoreError):
    """The database exists but its encryption key cannot be found."""


class WrongKeyError(StoreError):
    """The key does not decrypt the database (or the file is not a Keepsake database)."""


class NotFound(StoreError, KeyError):
    """No memory/session/message with that id."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "not found"


class VersionConflict(StoreError):
    """Optimistic concurrency: the record changed since the caller read it."""

    def __init__(self, memory_id: int, expected: int, actual: int) -> None:
        super().__init__(f"memory {memory_id} is at version {actual}, expected {expected}")
        self.memory_id = memory_id
        self.expected = expected
        self.actual = actual
