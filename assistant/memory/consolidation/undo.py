"""Undo a consolidation run: walk its audit rows newest first and take each change back.

- a versioned change (``details.changes = {field: [before, after]}``) whose record nobody changed
  since (its version is still the run's ``to_version``) is *rewound*: the row is restored from the
  ``memory_versions`` snapshot of ``from_version`` and that snapshot row is removed, so the record
  is exactly what it was before the run (text, validity, version number, history); otherwise a
  new version puts back ``before`` for every field still holding ``after`` (a field changed
  since by someone else is left alone and reported: undo never overwrites a later edit);
- ``link`` -> the link is removed;
- ``add_source`` / ``add_entity`` (a merge uniting provenance) -> exactly that row is removed;
- ``add`` (a fact created from episodes) -> deleted again, unless it changed since the run
  (then it is kept and reported); its source messages are not touched;
- ``purge_ttl`` -> cannot be undone (a TTL purge is a real deletion), reported.

Every undo write is audited with run id ``undo:<run_id>``; the run is marked ``undone``.
Undo chains: runs are taken back newest first. Undoing a run while a later run that touched the
same memories is still applied is refused (:class:`LaterRunFirst`, naming the later runs), or,
with ``cascade=True``, the later runs are undone first, newest first. So undo B then undo A (or
undo A with cascade) returns the store to exactly its state before A.
Entries are taken back in batches, one write transaction each (:func:`take_back`); the same
walk rolls back an interrupted run (:mod:`.recover`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from assistant.memory.consolidation import runs
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
    cascaded: list["UndoReport"] = field(default_factory=list)  # later runs undone first (cascade=True)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "undo_run_id": self.undo_run_id, "versions": self.versions,
            "cascaded": [r.to_json() for r in self.cascaded],
            "unlinked": self.unlinked, "sources_removed": self.sources_removed,
            "entities_removed": self.entities_removed, "facts_removed": self.facts_removed,
            "not_undoable": self.not_undoable, "skipped": [s.to_json() for s in self.skipped],
        }  # fmt: skip


class AlreadyUndone(StoreError):
    pass


class LaterRunFirst(StoreError):
    """A later run that is still applied changed memories this run changed."""

    def __init__(self, message: str, later: list[str]) -> None:
        super().__init__(message)
        self.later = later


def touched(store: Any, run_id: str) -> set[int]:
    """Every memory a run's audit rows name (the memory, and a link's or merge's other end)."""
    ids: set[int] = set()
    for e in store.audit(run_id=run_id):
        ids.update(i for i in (e.memory_id, e.details.get("to"), e.details.get("from")) if isinstance(i, int))
    return ids


def later_runs(store: Any, record: Any) -> list[Any]:
    """Applied (not undone, not dry) runs after ``record`` that touched a memory it touched,
    newest first. A later run that touched only other memories does not count: undoing
    ``record`` cannot disturb it."""
    mine = touched(store, record.run_id)
    later = [r for r in runs.list_runs(store, limit=None, include_dry_runs=False) if r.seq > record.seq and not r.undone]
    return [r for r in later if touched(store, r.run_id) & mine]


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


_REWOUND = ("text", "content_hash", "kind", "valid_at", "invalid_at", "expired_at", "status", "trust", "confidence",
            "expires_at", "pinned", "slot", "updated_at", "update_type", "actor", "reason")  # fmt: skip


def _rewind(store: Any, c: Connection, entry: Any, cur: dict[str, Any], undo_id: str, actor: Actor) -> bool:
    """Put the row back exactly as it was before ``entry`` (from the ``memory_versions``
    snapshot of ``entry.from_version``) when nobody changed it since; False otherwise."""
    frm, to = entry.from_version, entry.to_version
    if frm is None or to is None or cur["version"] != to or to != frm + 1:
        return False
    snap = c.execute(
        "SELECT text, content_hash, kind, valid_at, invalid_at, expired_at, status, trust, confidence, expires_at, "
        "pinned, slot, recorded_at, update_type, actor, reason FROM memory_versions WHERE memory_id = ? AND version = ?",
        (cur["id"], frm),
    ).fetchone()  # fmt: skip
    if snap is None:
        return False
    back = dict(zip(_REWOUND, snap))
    sets = {k: v for k, v in back.items() if cur[k] != v}
    sets["version"] = frm
    c.execute(f"UPDATE memories SET {', '.join(f'{k} = ?' for k in sets)} WHERE id = ?", (*sets.values(), cur["id"]))
    c.execute("DELETE FROM memory_versions WHERE memory_id = ? AND version = ?", (cur["id"], frm))
    if "text" in sets:  # the vector described the run's text
        store.vectors.put(c, cur["id"], store.vectors.embed_one(back["text"]))
    write_audit(c, at=store.now(), actor=actor, action="rewind", memory_id=cur["id"], from_version=to, to_version=frm,
                details={"undo_of": entry.id, "restored": sorted(k for k in sets if k != "version")}, run_id=undo_id)  # fmt: skip
    return True


def _revert_fields(store: Any, c: Connection, entry: Any, undo_id: str, actor: Actor, out: _Outcome) -> None:
    changes: dict[str, list[Any]] = entry.details.get("changes") or {}
    mid = entry.memory_id
    row = c.execute(f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories WHERE id = ?", (mid,)).fetchone()
    if row is None:
        out.skipped.append(UndoSkip(mid, entry.action, "the memory no longer exists"))
        return
    cur = dict(zip(MEMORY_COLUMNS, row))
    if _rewind(store, c, entry, cur, undo_id, actor):
        out.versions += 1
        return
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


def undo_run(store: Any, run_id: str, *, actor: Actor | str = Actor.USER, cascade: bool = False) -> UndoReport:
    """Take back everything run ``run_id`` applied (see the module docstring). A run whose
    process is gone while it was still ``running`` is rolled back (:mod:`.recover`). While a
    later applied run touched the same memories: :class:`LaterRunFirst`, or with ``cascade``
    those runs are undone first (newest first; ``report.cascaded``)."""
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
        from assistant.memory.consolidation.recover import rollback  # cycle: recover undoes with take_back

        return rollback(store, record, now, reason="interrupted: its process ended before the run finished")
    later = later_runs(store, record)
    if later and not cascade:
        names = ", ".join(r.run_id for r in later)
        raise LaterRunFirst(
            f"consolidation run{'s' if len(later) > 1 else ''} {names} ran after {run_id} and changed memories it changed; "
            f"undo {'them' if len(later) > 1 else 'it'} first (newest first: keepsake consolidate undo {later[0].run_id}), "
            f"or undo with --cascade to take back {names} and then {run_id}", [r.run_id for r in later])  # fmt: skip
    cascaded = []
    for r in later:  # newest first
        if not runs.get_run(store, r.run_id).undone:  # an earlier cascade may have taken it back
            cascaded.append(undo_run(store, r.run_id, actor=actor, cascade=True))
    report = take_back(store, run_id, f"undo:{run_id}", actor=actor)
    report.cascaded = cascaded
    runs.mark_undone(store, run_id, store.now())
    return report
