"""Sessions and messages. Message ids are a monotonic sequence (AUTOINCREMENT): order by id,
never by timestamp. ``observed_at`` is when the message was said (imports keep the original
time; relative dates ground against it), ``created_at`` when Keepsake stored it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

from assistant.memory.store.core import Repository, StoreCore
from assistant.memory.store.logs import AuditLog
from assistant.memory.store.sqlite.db import Connection
from assistant.memory.errors import NotFound
from assistant.memory.entries import Message, Session
from assistant.memory.records import Actor, Role
from assistant.memory.times import ts_to_db
from assistant.memory.store.rows import message_from_row, session_from_row
from assistant.memory.store.sqlite.fts import match_expression

@dataclass(frozen=True)
class MessageSpec:
    """A message to append (see :meth:`Sessions.add_messages`)."""

    session_id: int
    role: Role | str
    content: str
    observed_at: datetime | None = None
    created_at: datetime | None = None
    external_id: str | None = None


_SESSION_SELECT = (
    "SELECT s.*, (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS message_count FROM sessions s"
)


class Sessions(Repository):
    """The ``sessions`` and ``messages`` tables. ``store.sessions``."""

    def __init__(self, core: StoreCore, audit: AuditLog) -> None:
        super().__init__(core)
        self.audit = audit

    def create_session(
        self,
        title: str = "",
        *,
        external_id: str | None = None,
        incognito: bool = False,
        created_at: datetime | None = None,
        actor: Actor | str = Actor.USER,
    ) -> Session:
        """A new session. With ``external_id`` (imports), an existing session with that id is
        returned instead (re-importing adds nothing)."""
        when = ts_to_db(created_at or self.now())

        def run(c: Connection) -> int:
            if external_id is not None:
                row = c.execute("SELECT id FROM sessions WHERE external_id = ?", (external_id,)).fetchone()
                if row:
                    return int(row[0])
            cur = c.execute(
                "INSERT INTO sessions(title, created_at, updated_at, incognito, external_id) VALUES (?,?,?,?,?)",
                (title, when, when, int(incognito), external_id),
            )
            sid = int(cur.lastrowid)
            self.audit.add(c, actor=actor, action="create_session", session_id=sid, details={"title": title})
            return sid

        return self.get_session(self.write(run))

    def get_session(self, session_id: int) -> Session:
        row = self.conn.execute(_SESSION_SELECT + " WHERE s.id = ?", (session_id,)).fetchone()
        if row is None:
            raise NotFound(f"no session with id {session_id}")
        return session_from_row(row)

    def find_session(self, external_id: str) -> Session | None:
        row = self.conn.execute(_SESSION_SELECT + " WHERE s.external_id = ?", (external_id,)).fetchone()
        return session_from_row(row) if row else None

    def list_sessions(self, *, limit: int | None = None, offset: int = 0) -> list[Session]:
        """Sessions, most recent first (by id: the sequence, not a timestamp)."""
        sql = _SESSION_SELECT + f" ORDER BY s.id DESC LIMIT {int(limit) if limit is not None else -1} OFFSET {int(offset)}"
        return [session_from_row(r) for r in self.conn.execute(sql)]

    def count_sessions(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM sessions").fetchone()[0])

    def rename_session(self, session_id: int, title: str, *, actor: Actor | str = Actor.USER) -> Session:
        def run(c: Connection) -> None:
            old = c.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if old is None:
                raise NotFound(f"no session with id {session_id}")
            c.execute("UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?", (title, ts_to_db(self.now()), session_id))
            self.audit.add(c, actor=actor, action="rename_session", session_id=session_id, details={"from": old[0], "to": title})

        self.write(run)
        return self.get_session(session_id)

    def set_session_incognito(self, session_id: int, incognito: bool, *, actor: Actor | str = Actor.USER) -> Session:
        def run(c: Connection) -> None:
            cur = c.execute("UPDATE sessions SET incognito = ? WHERE id = ?", (int(incognito), session_id))
            if not cur.rowcount:
                raise NotFound(f"no session with id {session_id}")
            self.audit.add(c, actor=actor, action="set_incognito", session_id=session_id, details={"incognito": incognito})

        self.write(run)
        return self.get_session(session_id)

    def add_message(
        self,
        session_id: int,
        role: Role | str,
        content: str,
        *,
        observed_at: datetime | None = None,
        created_at: datetime | None = None,
        external_id: str | None = None,
    ) -> Message:
        """Append a message (the next sequence id). With ``external_id`` an already imported
        message is returned instead of a second copy. Messages are not audited (the audit log
        records memory and session changes)."""
        spec = MessageSpec(session_id, role, content, observed_at=observed_at, created_at=created_at, external_id=external_id)
        return self.get_message(self.add_messages([spec])[0][0])

    def add_messages(self, specs: Sequence[MessageSpec]) -> list[tuple[int, bool]]:
        """Append several messages in one transaction (an import chunk), in order. Returns
        ``(id, created)`` for each: with an ``external_id`` already in its session, the existing
        message's id and False. Raises :class:`NotFound` for an unknown session (nothing written)."""
        rows = []
        for spec in specs:
            if not isinstance(spec.content, str):
                raise TypeError("message content must be a string")
            rows.append((spec, Role(spec.role)))
        now = self.now()

        def run(c: Connection) -> list[tuple[int, bool]]:
            out: list[tuple[int, bool]] = []
            checked: set[int] = set()
            for spec, role in rows:
                sid = int(spec.session_id)
                if sid not in checked:
                    if c.execute("SELECT 1 FROM sessions WHERE id = ?", (sid,)).fetchone() is None:
                        raise NotFound(f"no session with id {sid}")
                    checked.add(sid)
                if spec.external_id is not None:
                    row = c.execute("SELECT id FROM messages WHERE session_id = ? AND external_id = ?", (sid, spec.external_id)).fetchone()
                    if row:
                        out.append((int(row[0]), False))
                        continue
                created = ts_to_db(spec.created_at or now)
                observed = ts_to_db(spec.observed_at) if spec.observed_at is not None else created
                cur = c.execute(
                    "INSERT INTO messages(session_id, role, content, created_at, observed_at, external_id) VALUES (?,?,?,?,?,?)",
                    (sid, role.value, spec.content, created, observed, spec.external_id),
                )
                out.append((int(cur.lastrowid), True))
            for sid in checked:
                c.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (ts_to_db(now), sid))
            return out

        return self.write(run) if rows else []

    def get_message(self, message_id: int) -> Message:
        row = self.conn.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone()
        if row is None:
            raise NotFound(f"no message with id {message_id}")
        return message_from_row(row)

    def search_messages(self, query: str, *, limit: int = 20) -> list[Message]:
        """Messages (any role) whose words match ``query``, best BM25 first (FTS5 over the message
        text; the query is sanitized, so FTS syntax in it is plain text). Redacted messages never
        match. This is where questions, requests and chit-chat are found: they are kept in the
        conversation, not in memory."""
        match = match_expression(query)
        if match is None or limit <= 0:
            return []
        sql = ("SELECT m.* FROM message_fts JOIN messages m ON m.id = message_fts.rowid "
               "WHERE message_fts MATCH ? AND m.redacted_at IS NULL ORDER BY bm25(message_fts), m.id LIMIT ?")  # fmt: skip
        return [message_from_row(r) for r in self.conn.execute(sql, (match, int(limit)))]

    def messages(self, session_id: int, *, after_id: int | None = None, limit: int | None = None) -> list[Message]:
        """Messages of a session in sequence order (``after_id`` pages forward)."""
        sql = "SELECT * FROM messages WHERE session_id = ?"
        params: list[object] = [session_id]
        if after_id is not None:
            sql += " AND id > ?"
            params.append(after_id)
        sql += f" ORDER BY id LIMIT {int(limit) if limit is not None else -1}"
        return [message_from_row(r) for r in self.conn.execute(sql, params)]
