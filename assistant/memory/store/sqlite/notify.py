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
#: Audit actions after which text was removed from what stays (a forget's partial cuts).
CUT_ACTIONS = frozenset({"forget_part", "forget_versions", "redact_messages"})


@dataclass(frozen=True)
class StoreChange:
    """What one committed write changed in the store at ``database``."""

    database: Path
    memory_ids: frozenset[int] = frozenset()  # memories added, changed or deleted
    deleted_memory_ids: frozenset[int] = frozenset()
    session_ids: frozenset[int] = frozenset()  # conversations created, renamed, deleted or given messages
    actions: frozenset[str] = frozenset()  # the audit actions ("edit", "invalidate", "delete", ...)
    audit_ids: frozenset[int] = frozenset()  # the audit rows and messages behind this change, so a
    message_ids: frozenset[int] = frozenset()  # watcher of other processes' writes can skip them

    @property
    def memories_changed(self) -> bool:
        return bool(self.memory_ids)

    @property
    def sessions_changed(self) -> bool:
        return bool(self.session_ids)

    @property
    def removes_text(self) -> bool:
        """Messages may have been redacted or deleted (a delete of memories or conversations, a
        forget that cut sentences)."""
        return bool(self.actions & (DELETE_ACTIONS | CUT_ACTIONS))


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
    audit, messages = rows_since(conn, before)
    return summarize(database, audit, messages)


AuditRow = tuple[int, str, "int | None", "int | None"]  # id, action, memory_id, session_id
MessageRow = tuple[int, int]  # id, session_id


def rows_since(conn: Any, before: Marks) -> tuple[list[AuditRow], list[MessageRow]]:
    audit = [(int(r[0]), str(r[1]), r[2], r[3]) for r in conn.execute(
        "SELECT id, action, memory_id, session_id FROM audit_log WHERE id > ? ORDER BY id", (before.audit_id,))]  # fmt: skip
    messages = [(int(r[0]), int(r[1])) for r in conn.execute(
        "SELECT id, session_id FROM messages WHERE id > ? ORDER BY id", (before.message_id,))]  # fmt: skip
    return audit, messages


def summarize(database: Path, audit: list[AuditRow], messages: list[MessageRow]) -> StoreChange | None:
    """One :class:`StoreChange` for these audit rows and messages (None when there are none)."""
    if not audit and not messages:
        return None
    memory_ids = {int(m) for _, _, m, _ in audit if m is not None}
    deleted = {int(m) for _, action, m, _ in audit if m is not None and action in DELETE_ACTIONS}
    session_ids = {int(s) for *_, s in audit if s is not None} | {s for _, s in messages}
    return StoreChange(database, frozenset(memory_ids), frozenset(deleted), frozenset(session_ids),
                       frozenset(action for _, action, _, _ in audit), frozenset(a[0] for a in audit),
                       frozenset(m[0] for m in messages))  # fmt: skip


class ExternalWatch:
    """Changes committed by *other processes* (``keepsake import`` or ``memory edit`` in a
    terminal while the app is open): :meth:`poll` reads the audit rows and messages added since
    the last poll, drops those this process already announced (:meth:`announced`), and
    summarizes the rest. Pure bookkeeping; the caller runs :meth:`poll` on a store thread."""

    def __init__(self, database: Path, start: Marks) -> None:
        self.database = database
        self.marks = start
        self._seen_audit: set[int] = set()
        self._seen_messages: set[int] = set()

    def announced(self, change: StoreChange) -> None:
        self._seen_audit |= {i for i in change.audit_ids if i > self.marks.audit_id}
        self._seen_messages |= {i for i in change.message_ids if i > self.marks.message_id}

    def poll(self, conn: Any) -> tuple[Marks, list[AuditRow], list[MessageRow]]:
        """Read what is new since the marks (call on a store thread; apply with :meth:`take`)."""
        before = self.marks
        audit, messages = rows_since(conn, before)
        return before, audit, messages

    def take(self, polled: tuple[Marks, list[AuditRow], list[MessageRow]]) -> StoreChange | None:
        """Advance past a poll's rows; the ones not announced in this process are the change."""
        before, audit, messages = polled
        if before != self.marks:  # an older poll answered late: already taken
            return None
        outside_audit = [a for a in audit if a[0] not in self._seen_audit]
        outside_messages = [m for m in messages if m[0] not in self._seen_messages]
        self.marks = Marks(max([before.audit_id, *(a[0] for a in audit)]), max([before.message_id, *(m[0] for m in messages)]))
        self._seen_audit = {i for i in self._seen_audit if i > self.marks.audit_id}
        self._seen_messages = {i for i in self._seen_messages if i > self.marks.message_id}
        return summarize(self.database, outside_audit, outside_messages)
