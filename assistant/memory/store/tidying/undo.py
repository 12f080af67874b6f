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
Entries are taken back in batches, one write transaction each (:func:`take_back`); the same
walk rolls back an interrupted run (:mod:`.recover`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from assistant.memory.store.tidying import runs
from assistant.memory.store.sqlite.db import Connection
from assistant.memory.errors import StoreError
from assistant.memory.records import Actor, LinkType, UpdateType
from assistant.memory.times import ts_from_db
from assistant.memory.store.rows import MEMORY_COLUMNS, write_audit

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
    pending_facts: list[Any] = field(default_factory=list, repr=False)  # "add" entries, removed last

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "undo_run_id": self.undo_run_id, "versions": self.versions,
            "unlinked": self.unlinked, "sources_removed": self.sources_removed,
            "entities_removed": self.entities_removed, "facts_removed": self.facts_removed,
            "not_undoable": self.not_undoable, "skipped": [s.to_json() for s in self.skipped],
        }  # fmt: skip


class AlreadyUndone(StoreError):
    pass


@dataclass
class _Outcome:
    """What one batch took back (merged into the report once its transaction committed)."""

    versions: int = 0
    unlinked: int = 0
    sources_removed: int = 0
    entities_removed: int = 0
    not_undoable: int = 0
    skipped: list[UndoSkip] = field(default_factory=list)
    facts: list[Any] = field(default_factory=list)

    def add_to(self, report: UndoReport) -> None:
        report.versions += self.versions
        report.unlinked += self.unlinked
        report.sources_removed += self.sources_removed
        report.entities_removed += self.entities_removed
        report.not_undoable += self.not_undoable
        report.skipped.extend(self.skipped)
        report.pending_facts.extend(self.facts)


def _from_db(name: str, value: Any) -> Any:
    if name in _TIME_FIELDS:
        return ts_from_db(value)
    if name == "pinned":
        return bool(value)
    return value


def _revert_fields(store: Any, c: Connection, entry: Any, undo_id: str, actor: Actor, out: _Outcome) -> None:
    changes: dict[str, list[Any]] = entry.details.get("changes") or {}
    mid = entry.memory_id
    row = c.execute(f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories WHERE id = ?", (mid,)).fetchone()
    if row is None:
        out.skipped.append(UndoSkip(mid, entry.action, "the memory no longer exists"))
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
        out.skipped.append(UndoSkip(mid, entry.action, f"changed since the run, left as is: {', '.join(sorted(kept))}"))
    if back:  # inside the batch's write transaction: nobody else can move the record meanwhile
        store.update(mid, **back, expected_version=cur["version"], update_type=UpdateType.USER_EDIT, actor=actor,
                     reason=f"undo of consolidation run {entry.run_id} ({entry.action})", run_id=undo_id,
                     action="undo")  # fmt: skip
        out.versions += 1


def _remove_row(store: Any, c: Connection, entry: Any, undo_id: str, actor: Actor, out: _Outcome) -> None:
    d = entry.details
    if entry.action == "add_source":
        cur = c.execute("DELETE FROM memory_sources WHERE id = ? AND memory_id = ?", (d.get("source_row"), entry.memory_id))
    else:
        cur = c.execute("DELETE FROM memory_entities WHERE memory_id = ? AND entity_id = ?", (entry.memory_id, d.get("entity_id")))
        c.execute("DELETE FROM entities WHERE id = ? AND id NOT IN (SELECT entity_id FROM memory_entities)", (d.get("entity_id"),))
    if not cur.rowcount:
        return
    write_audit(c, at=store.now(), actor=actor, action="remove_source" if entry.action == "add_source" else "remove_entity",
                memory_id=entry.memory_id, details={"undo_of": entry.id}, run_id=undo_id)  # fmt: skip
    if entry.action == "add_source":
        out.sources_removed += 1
    else:
        out.entities_removed += 1


def _take_back_one(store: Any, c: Connection, entry: Any, undo_id: str, actor: Actor, out: _Outcome) -> None:
    if entry.action == "link":
        try:
            if store.unlink(entry.memory_id, entry.details["to"], LinkType(entry.details["type"]), actor=actor, run_id=undo_id):
                out.unlinked += 1
        except (KeyError, ValueError):
            out.skipped.append(UndoSkip(entry.memory_id, "link", "unreadable audit details"))
    elif entry.action in ("add_source", "add_entity"):
        _remove_row(store, c, entry, undo_id, actor, out)
    elif entry.action == "add":
        out.facts.append(entry)  # deleted after the batches (a delete is its own transaction)
    elif entry.action == "purge_ttl":
        out.not_undoable += 1
    elif entry.details.get("changes"):
        _revert_fields(store, c, entry, undo_id, actor, out)


def _remove_facts(store: Any, entries: list[Any], undo_id: str, actor: Actor, report: UndoReport) -> None:
    """Facts the run created, unless they changed since (then kept and reported)."""
    doomed = []
    for entry in entries:
        row = store.conn.execute("SELECT version FROM memories WHERE id = ?", (entry.memory_id,)).fetchone()
        if row is None:
            continue
        if row[0] != (entry.to_version or 1):
            report.skipped.append(UndoSkip(entry.memory_id, "add", f"changed since the run (version {row[0]}); kept"))
            continue
        doomed.append(entry.memory_id)
    if doomed:
        store.delete(doomed, actor=actor, redact_sources=False, run_id=undo_id)
        report.facts_removed += len(doomed)


def take_back(store: Any, run_id: str, undo_id: str, *, actor: Actor = Actor.USER, batch_max: int = 64,
              pause: Callable[[float], None] = time.sleep) -> UndoReport:  # fmt: skip
    """Walk the run's audit rows newest first and take each change back (see the module doc),
    ``batch_max`` entries per write transaction, pausing as long as each batch held the lock
    so the hot path gets in between. Idempotent: what is already taken back is skipped, so an
    undo that was itself interrupted is completed by running it again."""
    report = UndoReport(run_id, undo_id)
    entries = list(reversed(store.audit(run_id=run_id)))
    for start in range(0, len(entries), batch_max):
        chunk = entries[start : start + batch_max]

        def batch(c: Connection) -> _Outcome:
            out = _Outcome()  # fresh per attempt: a retried transaction counts once
            for entry in chunk:
                _take_back_one(store, c, entry, undo_id, actor, out)
            return out

        t0 = time.monotonic()
        store.write(batch).add_to(report)
        pause(min(0.05, time.monotonic() - t0))
    _remove_facts(store, report.pending_facts, undo_id, actor, report)
    report.pending_facts = []
    if report.not_undoable:
        report.skipped.append(UndoSkip(None, "purge_ttl", f"{report.not_undoable} TTL purge(s) are real deletions and cannot be undone"))
    return report


def undo_run(store: Any, run_id: str, *, actor: Actor | str = Actor.USER) -> UndoReport:
    """Take back everything run ``run_id`` applied (see the module docstring). A run whose
    process is gone while it was still ``running`` is rolled back (:mod:`.recover`)."""
    actor = Actor(actor)
    record = runs.get_run(store, run_id)
    if record.undone:
        what = "rolled back after it was interrupted" if record.interrupted else "already undone"
        raise AlreadyUndone(f"consolidation run {run_id} was {what}")
    if record.dry_run:
        raise StoreError(f"consolidation run {run_id} was a dry run: it changed nothing")
    if record.status == "running":
        now = store.now()
        if record.is_live(now):
            raise StoreError(f"consolidation run {run_id} is still running; undo it when it has finished")
        from assistant.memory.store.tidying.recover import rollback  # cycle: recover undoes with take_back

        return rollback(store, record, now, reason="interrupted: its process ended before the run finished")
    report = take_back(store, run_id, f"undo:{run_id}", actor=actor)
    runs.mark_undone(store, run_id, store.now())
    return report
