"""One change signal for everything that shows the store: after every committed write, the store
publishes a :class:`StoreChange` on the in-process event bus (topic ``"store_changed"``), saying
which memories and conversations that write touched. The UI listens to this one signal instead
of each action announcing its own refresh.

What changed is read from the write itself, inside its transaction: every change to a memory
or a session is audited (add, edit, invalidate, pin, delete, consolidation, import, rename...),
and every message has a monotonic id, so the audit rows and messages with ids above the marks
taken at the start of the transaction are exactly this write's changes. Writes that audit
nothing and add no message (usage counters, the injection log) publish nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOPIC = "store_changed"

#: Audit actions after which messages may have been redacted or deleted.
DELETE_ACTIONS = frozenset({"delete", "delete_session", "purge_ttl"})


@dataclass(frozen=True)
class StoreChange:
    """What one committed write changed in the store at ``database``."""

    database: Path
    memory_ids: frozenset[int] = frozenset()  # memories added, changed or deleted
    deleted_memory_ids: frozenset[int] = frozenset()
    session_ids: frozenset[int] = frozenset()  # conversations created, renamed, deleted or given messages
    actions: frozenset[str] = frozenset()  # the audit actions ("edit", "invalidate", "delete", ...)

    @property
    def memories_changed(self) -> bool:
        return bool(self.memory_ids)

    @property
    def sessions_changed(self) -> bool:
        return bool(self.session_ids)

    @property
    def removes_text(self) -> bool:
        """Messages may have been redacted or deleted (a delete of memories or conversations)."""
        return bool(self.actions & DELETE_ACTIONS)


@dataclass(frozen=True)
class Marks:
    """The highest audit and message ids when a write transaction started."""

    audit_id: int
    message_id: int


def marks(conn: Any) -> Marks:
    row = conn.execute(
        "SELECT (SELECT ifnull(max(id), 0) FROM audit_log), (SELECT ifnull(max(id), 0) FROM messages)"
    ).fetchone()
    return Marks(int(row[0]), int(row[1]))


def changes_since(conn: Any, database: Path, before: Marks) -> StoreChange | None:
    """The change made since ``before`` (inside the same transaction), or None if nothing shows."""
    memory_ids: set[int] = set()
    deleted: set[int] = set()
    session_ids: set[int] = set()
    actions: set[str] = set()
    for action, memory_id, session_id in conn.execute(
        "SELECT action, memory_id, session_id FROM audit_log WHERE id > ?", (before.audit_id,)
    ):
        actions.add(action)
        if memory_id is not None:
            memory_ids.add(int(memory_id))
            if action in DELETE_ACTIONS:
                deleted.add(int(memory_id))
        if session_id is not None:
            session_ids.add(int(session_id))
    for (session_id,) in conn.execute("SELECT DISTINCT session_id FROM messages WHERE id > ?", (before.message_id,)):
        session_ids.add(int(session_id))
    if not (memory_ids or session_ids or actions):
        return None
    return StoreChange(database, frozenset(memory_ids), frozenset(deleted), frozenset(session_ids), frozenset(actions))
