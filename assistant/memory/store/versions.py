"""Changing a memory: every change except usage counters (:meth:`MemoryChanges.record_use`) makes
a new version -- the previous state is copied to ``memory_versions`` (with the system-time span it
was current) and the row gets ``version + 1``. Every change writes ``audit_log``. Changes take
``expected_version`` and raise :class:`VersionConflict` when the record moved on (optimistic
concurrency for the consolidator). ``store.changes``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Sequence

from assistant.memory.errors import NotFound, VersionConflict
from assistant.memory.records import Actor, Kind, Memory, Status, Trust, UpdateType, content_hash
from assistant.memory.times import to_utc, ts_from_db, ts_to_db, ttl_to_expiry
from assistant.memory.store.core import Repository, StoreCore
from assistant.memory.store.logs import AuditLog
from assistant.memory.store.memories import UNSET, check_interval, db_value
from assistant.memory.store.reads import MemoryReads
from assistant.memory.store.rows import IN_IDS, MEMORY_COLUMNS, VERSION_COLUMNS, hydrate, ids_json
from assistant.memory.store.sqlite.db import Connection
from assistant.memory.store.vectors import Vectors


def mentions(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` as whole words, ignoring case ("Ghent" in "moved from ghent.",
    not in "Ghentish")."""
    return re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", text.casefold()) is not None


def unlink_unmentioned(c: Connection, memory_id: int, text: str) -> list[str]:
    """Entity links of ``memory_id`` whose name ``text`` no longer mentions go (entities nothing
    links to any more with them); returns the names unlinked."""
    linked = c.execute("SELECT e.id, e.name FROM entities e JOIN memory_entities me ON me.entity_id = e.id "
                       "WHERE me.memory_id = ?", (memory_id,)).fetchall()  # fmt: skip
    gone = [(eid, name) for eid, name in linked if not mentions(text, name)]
    if gone:
        ids = ids_json([eid for eid, _ in gone])
        c.execute(f"DELETE FROM memory_entities WHERE memory_id = ? AND entity_id IN {IN_IDS}", (memory_id, ids))
        c.execute(f"DELETE FROM entities WHERE id IN {IN_IDS} AND id NOT IN (SELECT entity_id FROM memory_entities)", (ids,))
    return [name for _, name in gone]


class MemoryChanges(Repository):
    """New versions of a memory: update, edit, invalidate, TTL, pin, archive, restore."""

    def __init__(self, core: StoreCore, reads: MemoryReads, vectors: Vectors, audit: AuditLog) -> None:
        super().__init__(core)
        self.reads, self.vectors, self.audit = reads, vectors, audit

    def update(
        self,
        memory_id: int,
        *,
        text: str = UNSET,
        kind: Kind | str = UNSET,
        valid_at: datetime | None = UNSET,
        invalid_at: datetime | None = UNSET,
        expired_at: datetime | None = UNSET,
        status: Status | str = UNSET,
        trust: Trust | str = UNSET,
        confidence: float = UNSET,
        expires_at: datetime | None = UNSET,
        pinned: bool = UNSET,
        slot: str | None = UNSET,
        expected_version: int | None = None,
        update_type: UpdateType | str = UpdateType.USER_EDIT,
        actor: Actor | str = Actor.USER,
        reason: str | None = None,
        run_id: str | None = None,
        action: str = "update",
    ) -> Memory:
        """Make a new version with the given fields changed (the old one goes to
        ``memory_versions``). No-op changes return the memory unchanged (no version)."""
        changes = {k: v for k, v in dict(
            text=text, kind=kind, valid_at=valid_at, invalid_at=invalid_at, expired_at=expired_at, status=status,
            trust=trust, confidence=confidence, expires_at=expires_at, pinned=pinned, slot=slot,
        ).items() if v is not UNSET}  # fmt: skip
        if "status" in changes and Status(changes["status"]) == Status.DELETED:
            raise ValueError("use delete() to delete a memory (it removes every copy)")
        new_db = {k: db_value(k, v) for k, v in changes.items()}
        update_type, actor = UpdateType(update_type), Actor(actor)
        blob: bytes | None = None
        embedded_text: str | None = None
        if "text" in changes and self.vectors.embed is not None:
            row = self.conn.execute("SELECT text FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row is not None and row[0] != changes["text"]:
                blob, embedded_text = self.vectors.embed_one(changes["text"]), changes["text"]

        def run(c: Connection) -> Memory:
            row = self.reads.require(c, memory_id)
            cur = dict(zip(MEMORY_COLUMNS, row))
            if expected_version is not None and cur["version"] != expected_version:
                raise VersionConflict(memory_id, expected_version, cur["version"])
            diff = {k: v for k, v in new_db.items() if cur[k] != v}
            if not diff:
                return hydrate(c, [row])[0]
            merged = {**cur, **diff}
            check_interval(ts_from_db(merged["valid_at"]), ts_from_db(merged["invalid_at"]))
            now = self.now()
            self._snapshot(c, cur, now)
            sets = dict(diff)
            if "text" in diff:
                sets["content_hash"] = content_hash(diff["text"])
            sets.update(version=cur["version"] + 1, updated_at=max(ts_to_db(now), cur["updated_at"]),
                        update_type=update_type.value, actor=actor.value, reason=reason)  # fmt: skip
            c.execute(
                f"UPDATE memories SET {', '.join(f'{k} = ?' for k in sets)} WHERE id = ?",
                (*sets.values(), memory_id),
            )
            if "text" in diff:  # the old vector describes the old text; its mentions may be gone
                self.vectors.put(c, memory_id, blob if embedded_text == diff["text"] else None)
                unlink_unmentioned(c, memory_id, diff["text"])
            self.audit.add(
                c, actor=actor, action=action, memory_id=memory_id, update_type=update_type,
                from_version=cur["version"], to_version=cur["version"] + 1,
                details={"changes": {k: [cur[k], v] for k, v in diff.items()}, "reason": reason}, run_id=run_id, at=now,
            )  # fmt: skip
            return hydrate(c, [self.reads.require(c, memory_id)])[0]

        return self.write(run)

    @staticmethod
    def _snapshot(c: Connection, cur: dict[str, Any], now: datetime) -> None:
        superseded = max(ts_to_db(now), cur["updated_at"])  # type: ignore[type-var]
        c.execute(
            f"INSERT INTO memory_versions({', '.join(VERSION_COLUMNS)}) VALUES ({', '.join('?' * len(VERSION_COLUMNS))})",
            (cur["id"], cur["version"], cur["text"], cur["content_hash"], cur["kind"], cur["valid_at"], cur["invalid_at"],
             cur["expired_at"], cur["status"], cur["trust"], cur["confidence"], cur["expires_at"], cur["pinned"],
             cur["slot"], cur["updated_at"], superseded, cur["update_type"], cur["actor"], cur["reason"]),
        )  # fmt: skip

    def edit(self, memory_id: int, text: str, *, expected_version: int | None = None, actor: Actor | str = Actor.USER,
             update_type: UpdateType | str = UpdateType.USER_EDIT, reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """New text as a new version; the old text stays in the history."""
        return self.update(memory_id, text=text, expected_version=expected_version, actor=actor,
                           update_type=update_type, reason=reason, run_id=run_id, action="edit")  # fmt: skip

    def invalidate(self, memory_id: int, at: datetime | None = None, *, expected_version: int | None = None,
                   actor: Actor | str = Actor.USER, update_type: UpdateType | str = UpdateType.USER_EDIT,
                   reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """It stopped being true at ``at`` (world time; default now). When that is not in the
        future, the record is also expired now (system time), unless it already was."""
        while True:
            now = self.now()
            when = to_utc(at) if at is not None else now
            current = self.reads.get(memory_id)
            expired = current.expired_at or (now if when <= now else None)
            try:
                return self.update(
                    memory_id, invalid_at=when, expired_at=expired, actor=actor, update_type=update_type,
                    reason=reason, run_id=run_id, action="invalidate",
                    expected_version=expected_version if expected_version is not None else current.version,
                )  # fmt: skip
            except VersionConflict:
                if expected_version is not None:
                    raise  # the caller's own check failed; otherwise re-read and retry

    def set_ttl(self, memory_id: int, ttl: timedelta | datetime, *, expected_version: int | None = None,
                actor: Actor | str = Actor.USER, update_type: UpdateType | str = UpdateType.USER_EDIT) -> Memory:  # fmt: skip
        """Expire (hide, then purge) the memory after ``ttl`` (a duration from now, or a time)."""
        return self.update(memory_id, expires_at=ttl_to_expiry(ttl, self.now()), expected_version=expected_version,
                           actor=actor, update_type=update_type, action="set_ttl")  # fmt: skip

    def clear_ttl(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER) -> Memory:
        return self.update(memory_id, expires_at=None, expected_version=expected_version, actor=actor, action="clear_ttl")

    def pin(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER) -> Memory:
        """Pinned memories are exempt from decay."""
        return self.update(memory_id, pinned=True, expected_version=expected_version, actor=actor, action="pin")

    def unpin(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER) -> Memory:
        return self.update(memory_id, pinned=False, expected_version=expected_version, actor=actor, action="unpin")

    def archive(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER,
                update_type: UpdateType | str = UpdateType.USER_EDIT, reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """Hide from default reads (still listed with include_archived, restorable)."""
        return self.update(memory_id, status=Status.ARCHIVED, expected_version=expected_version, actor=actor,
                           update_type=update_type, reason=reason, run_id=run_id, action="archive")  # fmt: skip

    def restore(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER,
                update_type: UpdateType | str = UpdateType.USER_EDIT, reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """Back to active (from archived or resolving)."""
        return self.update(memory_id, status=Status.ACTIVE, expected_version=expected_version, actor=actor,
                           update_type=update_type, reason=reason, run_id=run_id, action="restore")  # fmt: skip

    def restore_version(self, memory_id: int, version: int, *, expected_version: int | None = None,
                        actor: Actor | str = Actor.USER, update_type: UpdateType | str = UpdateType.USER_EDIT,
                        reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """Make the content of an earlier version current again (as a new version)."""
        old = next((v for v in self.reads.history(memory_id) if v.version == version), None)
        if old is None:
            raise NotFound(f"memory {memory_id} has no version {version}")
        return self.update(
            memory_id, text=old.text, kind=old.kind, valid_at=old.valid_at, invalid_at=old.invalid_at,
            expired_at=old.expired_at, status=old.status, trust=old.trust, confidence=old.confidence,
            expires_at=old.expires_at, pinned=old.pinned, slot=old.slot, expected_version=expected_version,
            actor=actor, update_type=update_type, reason=reason or f"restored version {version}", run_id=run_id,
            action="restore_version",
        )  # fmt: skip

    def record_use(self, ids: Sequence[int], at: datetime | None = None) -> None:
        """Usage counters for decay (use_count, last_used_at). Not a new version, not audited."""
        if not ids:
            return
        when = ts_to_db(at or self.now())
        self.write(lambda c: c.execute(
            f"UPDATE memories SET use_count = use_count + 1, last_used_at = ? WHERE id IN {IN_IDS}", (when, ids_json(ids))
        ))  # fmt: skip
