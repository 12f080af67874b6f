"""The person's "About me & instructions" note: human-written memory, kept apart from what the
assistant writes.

Only the person edits it (the UI and ``keepsake note edit``); capture and consolidation never
touch it. It sits in the stable prefix (the system message), so saving a new version is the one
thing allowed to change the prompt prefix. Every version is kept, in the store's encrypted
archive (``note_versions``: :class:`assistant.memory.store.archive.context.ContextArchive`); restoring an old
version saves it again as a new version, so history only grows - until the person asks to
forget the old wording (:meth:`NoteStore.forget_history`, ``keepsake note forget-history``), which
removes every version but the current one. Hard cap :data:`MAX_NOTE_BYTES` (32 KiB of UTF-8,
like Codex's cap for AGENTS.md): a longer note is refused with :class:`NoteTooLong`, whose
message tells the person by how much - nothing is ever cut silently.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Protocol

from assistant.memory.store.archive.context import MAX_NOTE_BYTES, NoteVersion

__all__ = ["MAX_NOTE_BYTES", "NoteError", "NoteStore", "NoteTooLong", "NoteVersion"]


class NoteError(ValueError):
    """A note operation the person can fix (shown without a traceback)."""


class NoteTooLong(NoteError):
    def __init__(self, size: int, limit: int = MAX_NOTE_BYTES) -> None:
        self.size, self.limit = size, limit
        super().__init__(
            f"your note is {size:,} bytes but the limit is {limit:,} bytes (32 KiB): shorten it by "
            f"{size - limit:,} bytes. Nothing was saved, and nothing is ever cut for you."
        )


class NoteArchive(Protocol):
    def note_versions(self) -> list[NoteVersion]: ...
    def note_version(self, version: int | None = None) -> NoteVersion | None: ...
    def add_note_version(self, text: str, saved_at: datetime, restored_from: int | None = None) -> NoteVersion: ...
    def forget_note_history(self) -> int: ...


class NoteStore:
    """Versioned storage of the note, in ``archive`` (the store's ``store.context_archive``)."""

    def __init__(self, archive: NoteArchive) -> None:
        self.archive = archive

    def get(self) -> NoteVersion | None:
        """The current version, or None when the person never wrote a note."""
        return self.archive.note_version()

    def text(self) -> str:
        """The current note text ("" when there is none): what the assembler puts in the prefix."""
        current = self.get()
        return current.text if current else ""

    def history(self) -> list[NoteVersion]:
        """Every version, oldest first."""
        return self.archive.note_versions()

    def version(self, version: int) -> NoteVersion:
        row = self.archive.note_version(int(version))
        if row is None:
            raise NoteError(f"there is no note version {version}")
        return row

    def save(self, text: str, *, restored_from: int | None = None) -> NoteVersion:
        """Save ``text`` as a new version (unchanged text: the current version, nothing new).
        Raises :class:`NoteTooLong` over the cap."""
        text = text.replace("\r\n", "\n")
        size = len(text.encode("utf-8"))
        if size > MAX_NOTE_BYTES:
            raise NoteTooLong(size)
        return self.archive.add_note_version(text, datetime.now(timezone.utc), restored_from)

    def restore(self, version: int) -> NoteVersion:
        """Make an old version current again (saved as a new version; nothing is lost)."""
        return self.save(self.version(version).text, restored_from=version)

    def forget_history(self) -> int:
        """Forget the old wording: remove every version but the current one (for real: the
        rows go, the freed pages are zeroed, the WAL is checkpointed). Returns how many went."""
        return self.archive.forget_note_history()
