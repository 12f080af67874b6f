"""The context archive, inside the encrypted database: what the context manager keeps besides
the messages themselves.

Everything the person said lives in the SQLCipher database (issue 18); nothing of it is a
plaintext file next to it. :class:`ContextArchive` (``store.context_archive``) is the one place the
context layer (:mod:`assistant.context`) and capture read and write it:

- **history** (``context_history``): a session's messages *as sent* to the model (the user turn
  with the memory block that was injected into it, ``raw`` = the person's own text), appended
  before compaction shortens anything, so every compaction step stays reversible;
- **offloads** (``context_offloads``): a text over :data:`OFFLOAD_CHARS` characters, kept whole
  under a stable reference (``session-<id>/<kind>-<sha256[:16]>``: the same text gives the same
  reference, so the prompt prefix does not change); the window keeps a
  :data:`PREVIEW_CHARS`-character preview plus a pointer (:func:`pointer_text`);
- **state** (``context_state``): the per-session compaction state (summary, what it covers, the
  code-kept facts) as JSON;
- **note versions** (``note_versions``): every version of the person's own note.

Sessions are keyed by ``session_key`` (text: a store session id, or any name the context layer
uses). Deleting goes through :mod:`assistant.memory.forget`, never through this class.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from assistant.memory.store.sqlite.db import Connection
from assistant.memory.errors import NotFound
from assistant.memory.times import ts_from_db, ts_to_db

OFFLOAD_CHARS = 8000
PREVIEW_CHARS = 500
_KIND = re.compile(r"[^a-z0-9_-]")


@dataclass(frozen=True)
class ArchivedMessage:
    """One archived history message: ``content`` as sent, ``raw`` the person's own text when
    ``content`` also carried injected blocks."""

    id: int
    role: str
    content: str
    raw: str | None = None


MAX_NOTE_BYTES = 32 * 1024  # the note's hard cap (see assistant.context.note)


@dataclass(frozen=True)
class NoteVersion:
    """One saved version of the person's note."""

    version: int
    text: str
    saved_at: datetime
    restored_from: int | None = None

    @property
    def size_bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "text": self.text,
            "saved_at": self.saved_at.isoformat(),
            "bytes": self.size_bytes,
            "limit_bytes": MAX_NOTE_BYTES,
            "restored_from": self.restored_from,
        }


def offload_ref(session_key: str, kind: str, text: str) -> str:
    """The stable reference of an offloaded text: ``session-<key>/<kind>-<sha256[:16]>``."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"session-{session_key}/{_KIND.sub('', kind.lower()) or 'output'}-{digest}"


def pointer_text(text: str, ref: str) -> str:
    """What the window (or an episode) keeps of an offloaded ``text``: a preview and a pointer."""
    return (
        text[:PREVIEW_CHARS]
        + f"\n[... offloaded: {len(text)} characters in total, {len(text) - PREVIEW_CHARS} not shown; "
        f"the full text is in the archive entry {ref}]"
    )


class ContextArchive:
    """The archive tables of one store (``store.context_archive``); every call uses the calling
    thread's connection, inside the caller's transaction when there is one. ``core``: the store's
    core (transactions, clock); ``forgetter``: removes what the person asks to forget."""

    def __init__(self, core: Any, forgetter: Any) -> None:
        self._store = core
        self._forgetter = forgetter

    # ------------------------------------------------------------------ history
    def append(self, session_key: str, messages: Sequence[ArchivedMessage]) -> int:
        """Archive messages not archived yet (by id); returns how many were added."""

        def run(c: Connection) -> int:
            n = 0
            for m in messages:
                cur = c.execute(
                    "INSERT OR IGNORE INTO context_history(session_key, message_id, role, content, raw) VALUES (?,?,?,?,?)",
                    (str(session_key), int(m.id), m.role, m.content, m.raw),
                )
                n += cur.rowcount
            return n

        return self._store.write(run) if messages else 0

    def history(self, session_key: str) -> list[ArchivedMessage]:
        """The archived history of a session, in message order."""
        rows = self._store.conn.execute(
            "SELECT message_id, role, content, raw FROM context_history WHERE session_key = ? ORDER BY message_id",
            (str(session_key),),
        )
        return [ArchivedMessage(int(r[0]), r[1], r[2], r[3]) for r in rows]

    # ------------------------------------------------------------------ offloads
    def put_offload(self, session_key: str, kind: str, text: str, *, message_id: int | None = None) -> str:
        """Keep ``text`` whole; returns its reference (the same text: the same reference)."""
        ref = offload_ref(str(session_key), kind, text)
        now = ts_to_db(self._store.now())
        self._store.write(lambda c: c.execute(
            "INSERT OR IGNORE INTO context_offloads(ref, session_key, message_id, kind, text, created_at) VALUES (?,?,?,?,?,?)",
            (ref, str(session_key), message_id, kind, text, now),
        ))  # fmt: skip
        return ref

    def offload(self, ref: str) -> str:
        """An offloaded text by reference; :class:`NotFound` when there is none (deleted)."""
        row = self._store.conn.execute("SELECT text FROM context_offloads WHERE ref = ?", (str(ref),)).fetchone()
        if row is None:
            raise NotFound(f"no archive entry {ref}")
        return row[0]

    # ------------------------------------------------------------------ compaction state
    def state(self, session_key: str) -> dict | None:
        """The session's compaction state (JSON object), or None."""
        row = self._store.conn.execute("SELECT state FROM context_state WHERE session_key = ?", (str(session_key),)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        return data if isinstance(data, dict) else None

    def save_state(self, session_key: str, state: dict) -> None:
        data = json.dumps(state, ensure_ascii=False)
        now = ts_to_db(self._store.now())
        self._store.write(lambda c: c.execute(
            "INSERT INTO context_state(session_key, state, updated_at) VALUES (?,?,?) "
            "ON CONFLICT(session_key) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
            (str(session_key), data, now),
        ))  # fmt: skip

    # ------------------------------------------------------------------ the note
    def note_versions(self) -> list[NoteVersion]:
        rows = self._store.conn.execute("SELECT version, text, saved_at, restored_from FROM note_versions ORDER BY version")
        return [NoteVersion(int(r[0]), r[1], ts_from_db(r[2]), r[3]) for r in rows]  # type: ignore[arg-type]

    def note_version(self, version: int | None = None) -> NoteVersion | None:
        """One version (None: the current one), or None."""
        sql = "SELECT version, text, saved_at, restored_from FROM note_versions "
        row = self._store.conn.execute(
            sql + ("WHERE version = ?" if version is not None else "ORDER BY version DESC LIMIT 1"),
            (int(version),) if version is not None else (),
        ).fetchone()
        return NoteVersion(int(row[0]), row[1], ts_from_db(row[2]), row[3]) if row else None  # type: ignore[arg-type]

    def add_note_version(self, text: str, saved_at: datetime, restored_from: int | None = None) -> NoteVersion:
        """Save ``text`` as the next version, unless it equals the current one (returned then)."""

        def run(c: Connection) -> NoteVersion:
            cur = c.execute("SELECT version, text, saved_at, restored_from FROM note_versions ORDER BY version DESC LIMIT 1").fetchone()
            if cur is not None and cur[1] == text:
                return NoteVersion(int(cur[0]), cur[1], ts_from_db(cur[2]), cur[3])  # type: ignore[arg-type]
            number = (int(cur[0]) if cur else 0) + 1
            c.execute("INSERT INTO note_versions(version, text, saved_at, restored_from) VALUES (?,?,?,?)",
                      (number, text, ts_to_db(saved_at), restored_from))  # fmt: skip
            return NoteVersion(number, text, saved_at, restored_from)

        return self._store.write(run)

    def forget_note_history(self) -> int:
        """Remove every note version but the current one (through the Forgetter)."""
        return self._forgetter.forget_note_history()

    # ------------------------------------------------------------------ exports (paths only)
    def record_export(self, path: str, memory_ids: Sequence[int], session_ids: Sequence[int]) -> None:
        """Remember that Keepsake wrote an export there (its path and ids; never its text): a
        later delete preview can say that this file, which is the person's, still holds it."""
        now = ts_to_db(self._store.now())
        self._store.write(lambda c: c.execute(
            "INSERT INTO exports(path, created_at, memory_ids, session_ids) VALUES (?,?,?,?)",
            (str(path), now, json.dumps(sorted({int(i) for i in memory_ids})), json.dumps(sorted({int(i) for i in session_ids}))),
        ))  # fmt: skip
