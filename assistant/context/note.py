"""The person's "About me & instructions" note: human-written memory, kept apart from what the
assistant writes.

Only the person edits it (the UI and ``keepsake note edit``); capture and consolidation never
touch it. It sits in the stable prefix (the system message), so saving a new version is the one
thing allowed to change the prompt prefix. Every version is kept, one JSON file per version under
``paths().data / "note"`` (``v000001.json``, ...); restoring an old version saves it again as a
new version, so history only grows. Hard cap :data:`MAX_NOTE_BYTES` (32 KiB of UTF-8, like
Codex's cap for AGENTS.md): a longer note is refused with :class:`NoteTooLong`, whose message
tells the person by how much - nothing is ever cut silently.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from assistant.config import paths
from assistant.fileio import write_private_temp

MAX_NOTE_BYTES = 32 * 1024
_FILE = re.compile(r"^v(\d{6,})\.json$")
_lock = threading.Lock()


class NoteError(ValueError):
    """A note operation the person can fix (shown without a traceback)."""


class NoteTooLong(NoteError):
    def __init__(self, size: int, limit: int = MAX_NOTE_BYTES) -> None:
        self.size, self.limit = size, limit
        super().__init__(
            f"your note is {size:,} bytes but the limit is {limit:,} bytes (32 KiB): shorten it by "
            f"{size - limit:,} bytes. Nothing was saved, and nothing is ever cut for you."
        )


@dataclass(frozen=True)
class NoteVersion:
    version: int
    text: str
    saved_at: datetime
    restored_from: int | None = None

    @property
    def size_bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "text": self.text,
            "saved_at": self.saved_at.isoformat(),
            "bytes": self.size_bytes,
            "limit_bytes": MAX_NOTE_BYTES,
            "restored_from": self.restored_from,
        }

    @classmethod
    def from_json(cls, d: dict) -> "NoteVersion":
        return cls(int(d["version"]), str(d["text"]), datetime.fromisoformat(d["saved_at"]), d.get("restored_from"))


class NoteStore:
    """Versioned storage of the note (default folder: ``paths().data / "note"``)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or paths().data / "note"

    def _files(self) -> list[tuple[int, Path]]:
        if not self.folder.is_dir():
            return []
        found = [(int(m.group(1)), p) for p in self.folder.iterdir() if (m := _FILE.match(p.name))]
        return sorted(found)

    @staticmethod
    def _read(path: Path) -> NoteVersion:
        return NoteVersion.from_json(json.loads(path.read_text(encoding="utf-8")))

    def get(self) -> NoteVersion | None:
        """The current version, or None when the person never wrote a note."""
        files = self._files()
        return self._read(files[-1][1]) if files else None

    def text(self) -> str:
        """The current note text ("" when there is none): what the assembler puts in the prefix."""
        current = self.get()
        return current.text if current else ""

    def history(self) -> list[NoteVersion]:
        """Every version, oldest first."""
        return [self._read(p) for _, p in self._files()]

    def version(self, version: int) -> NoteVersion:
        path = self.folder / f"v{version:06d}.json"
        if not path.is_file():
            raise NoteError(f"there is no note version {version}")
        return self._read(path)

    def save(self, text: str, *, restored_from: int | None = None) -> NoteVersion:
        """Save ``text`` as a new version (unchanged text: the current version, nothing new).
        Raises :class:`NoteTooLong` over the cap."""
        text = text.replace("\r\n", "\n")
        size = len(text.encode("utf-8"))
        if size > MAX_NOTE_BYTES:
            raise NoteTooLong(size)
        with _lock:
            current = self.get()
            if current is not None and current.text == text:
                return current
            self.folder.mkdir(parents=True, exist_ok=True)
            number = (current.version if current else 0) + 1
            while True:
                note = NoteVersion(number, text, datetime.now(timezone.utc), restored_from)
                if self._create(self.folder / f"v{number:06d}.json", json.dumps(note.to_json(), ensure_ascii=False, indent=1)):
                    return note
                number += 1  # another process saved this number first

    def restore(self, version: int) -> NoteVersion:
        """Make an old version current again (saved as a new version; nothing is lost)."""
        return self.save(self.version(version).text, restored_from=version)

    @staticmethod
    def _create(path: Path, data: str) -> bool:
        """Write a complete file at ``path`` unless it exists (temp file + hard link)."""
        tmp = write_private_temp(path, data)
        try:
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
        except OSError:  # no hard links on this filesystem: the in-process lock still holds
            if path.exists():
                return False
            os.replace(tmp, path)
            return True
        finally:
            if tmp.exists():
                tmp.unlink()
