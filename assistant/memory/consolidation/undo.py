"""Undo a consolidation run: walk its audit rows newest first and take each change back.

- a versioned change (``details.changes = {field: [before, after]}``) -> a new version that puts
  back ``before`` for every field still holding ``after`` (a field changed since by someone else
  is left alone and reported: undo never overwrites a later edit);
- ``link`` -> the link is removed;
- ``add_source`` / ``add_entity`` (a merge uniting provenance) -> exactly that row is removed;
- ``add`` (a fact created from episodes) -> deleted again, unless it changed since the run
  (then it is kept and reported); its source messages are not touched;
- ``purge_ttl`` -> cannot be undone (a TTL purge is a real deletion), reported.

Every undo write is audited with run id ``undo:<run_id>``; the run is marked ``undone``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assistant.memory.consolidation import runs
from assistant.memory.db import Connection
from assistant.memory.errors import NotFound, StoreError, VersionConflict
from assistant.memory.records import Actor, LinkType, UpdateType, ts_from_db
from assistant.memory.rows import MEMORY_COLUMNS, write_audit

_TIME_FIELDS = ("valid_at", "invalid_at", "expired_at", "expires_at")


@dataclass(frozen=True)
class UndoSkip:
    memory_id: int | None
    action: str
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"memory_id": self.memory_id, "action": self.action, "why": self.why}


@dataclass
class UndoReport:
    run_id: str
    undo_run_id: str
    versions: int = 0  # memories given a new version with their earlier values
    unlinked: int = 0
    sources_removed: int = 0
    entities_removed: int = 0
    facts_removed: int = 0
    not_undoable: int = 0  # TTL purges
    skipped: list[UndoSkip] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "undo_run_id": self.undo_run_id, "versions": self.versions,
            "unlinked": self.unlinked, "sources_removed": self.sources_removed,
            "entities_removed": self.entities_removed, "facts_removed": self.facts_removed,
            "not_undoable": self.not_undoable, "skipped": [s.to_json() for s in self.skipped],
        }  # fmt: skip


class AlreadyUndone(StoreError):
    pass


def _from_db(name: str, value: Any) -> Any:
    if name in _TIME_FIELDS:
        return ts_from_db(value)
    if name == "pinned":
        return bool(value)
    return value


def _revert_fields(store: Any, entry: Any, undo_id: str, actor: Actor, report: UndoReport) -> None:
    changes: dict[str, list[Any]] = entry.details.get("changes") or {}
    mid = entry.memory_id
    for _attempt in range(5):
        row = store.conn.execute(f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories WHERE id = ?", (mid,)).fetchone()
        if row is None:
            report.skipped.append(UndoSkip(mid, entry.action, "the memory no longer exists"))
            return
        cur = dict(zip(MEMORY_COLUMNS, row))
        back: dict[str, Any] = {}
        kept: list[str] = []
        for name, (before, after) in changes.items():
            if name not in cur:
                continue
            if cur[name] == after:
                back[name] = _from_db(name, before)
            elif cur[name] != before:
                kept.append(name)
        if kept:
            report.skipped.append(UndoSkip(mid, entry.action, f"changed since the run, left as is: {', '.join(sorted(kept))}"))
        if not back:
            return
        try:
            store.update(mid, **back, expected_version=cur["version"], update_type=UpdateType.USER_EDIT, actor=actor,
                         reason=f"undo of consolidation run {entry.run_id} ({entry.action})", run_id=undo_id,
                         action="undo")  # fmt: skip
            report.versions += 1
            return
        except VersionConflict:
            continue  # it moved while we looked: read again
    report.skipped.append(UndoSkip(mid, entry.action, "kept changing while undoing; try again"))


def _remove_row(store: Any, entry: Any, undo_id: str, actor: Actor, report: UndoReport) -> None:
    d = entry.details

    def run(c: Connection) -> bool:
        if entry.action == "add_source":
            cur = c.execute("DELETE FROM memory_sources WHERE id = ? AND memory_id = ?", (d.get("source_row"), entry.memory_id))
        else:
            cur = c.execute("DELETE FROM memory_entities WHERE memory_id = ? AND entity_id = ?", (entry.memory_id, d.get("entity_id")))
            c.execute("DELETE FROM entities WHERE id = ? AND id NOT IN (SELECT entity_id FROM memory_entities)", (d.get("entity_id"),))
        if cur.rowcount:
            write_audit(c, at=store.now(), actor=actor, action="remove_source" if entry.action == "add_source" else "remove_entity",
                        memory_id=entry.memory_id, details={"undo_of": entry.id}, run_id=undo_id)  # fmt: skip
        return bool(cur.rowcount)

    if store.write(run):
        if entry.action == "add_source":
            report.sources_removed += 1
        else:
            report.entities_removed += 1


def _remove_fact(store: Any, entry: Any, actor: Actor, report: UndoReport) -> None:
    try:
        mem = store.get(entry.memory_id)
    except NotFound:
        return
    if mem.version != (entry.to_version or 1):
        report.skipped.append(UndoSkip(entry.memory_id, "add", f"changed since the run (version {mem.version}); kept"))
        return
    store.delete(entry.memory_id, actor=actor, redact_sources=False)
    report.facts_removed += 1


def undo_run(store: Any, run_id: str, *, actor: Actor | str = Actor.USER) -> UndoReport:
    """Take back everything run ``run_id`` applied (see the module docstring)."""
    actor = Actor(actor)
    record = runs.get_run(store, run_id)
    if record.undone:
        raise AlreadyUndone(f"consolidation run {run_id} was already undone")
    if record.dry_run:
        raise StoreError(f"consolidation run {run_id} was a dry run: it changed nothing")
    if record.status == "running":
        raise StoreError(f"consolidation run {run_id} is still running")
    undo_id = f"undo:{run_id}"
    report = UndoReport(run_id, undo_id)
    for entry in reversed(store.audit(run_id=run_id)):
        if entry.action == "link":
            try:
                if store.unlink(entry.memory_id, entry.details["to"], LinkType(entry.details["type"]), actor=actor, run_id=undo_id):
                    report.unlinked += 1
            except (KeyError, ValueError):
                report.skipped.append(UndoSkip(entry.memory_id, "link", "unreadable audit details"))
        elif entry.action in ("add_source", "add_entity"):
            _remove_row(store, entry, undo_id, actor, report)
        elif entry.action == "add":
            _remove_fact(store, entry, actor, report)
        elif entry.action == "purge_ttl":
            report.not_undoable += 1
        elif entry.details.get("changes"):
            _revert_fields(store, entry, undo_id, actor, report)
    runs.mark_undone(store, run_id, store.now())
    if report.not_undoable:
        report.skipped.append(UndoSkip(None, "purge_ttl", f"{report.not_undoable} TTL purge(s) are real deletions and cannot be undone"))
    return report
