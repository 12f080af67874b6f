"""The ``consolidation_runs`` table (migration 5): one row per run, ordered by ``seq``.

Rows hold counts and timings only, never memory text (so deleting a memory needs no cascade
here); what a run changed is in ``audit_log`` under its ``run_id``.

A ``running`` row is also the run's lock: while running, ``details`` holds its ``owner``
(:class:`~.owner.Owner`) and a ``heartbeat`` (refreshed by every apply batch, in the same
transaction). :func:`start_run` refuses a second applying run while a live one holds the lock;
a row whose owner is gone is *stale* (:func:`stale_runs`) and is rolled back by
:mod:`.recover`. Statuses: ``running`` -> ``finished`` | ``failed``; a run that was interrupted
(killed, or failed while applying) is rolled back and recorded as ``failed`` + ``undone`` with
``details.interrupted`` (the schema's status CHECK is kept as it is).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from assistant.memory.store.tidying.owner import Owner, is_alive
from assistant.memory.errors import NotFound, StoreError
from assistant.memory.times import iso, ts_from_db, ts_to_db

_SELECT = ("SELECT seq, run_id, trigger, dry_run, status, started_at, finished_at, counts, conflicts, skipped, "
           "errors, undone, undone_at, details FROM consolidation_runs")  # fmt: skip


def new_run_id(now: datetime) -> str:
    """``c20250320-120000-1a2b3c``: sortable by start second, unique by the random tail."""
    return f"c{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class RunRecord:
    seq: int
    run_id: str
    trigger: str
    dry_run: bool
    status: str  # running | finished | failed
    started_at: datetime
    finished_at: datetime | None
    counts: dict[str, int]  # update_type -> changes applied (proposed, for a dry run)
    conflicts: int
    skipped: int
    errors: int
    undone: bool
    undone_at: datetime | None
    details: dict[str, Any]

    @property
    def owner(self) -> Owner | None:
        return Owner.from_json(self.details.get("owner"))

    @property
    def heartbeat(self) -> datetime | None:
        return ts_from_db(self.details.get("heartbeat")) if self.details.get("heartbeat") else None

    @property
    def interrupted(self) -> bool:
        """Killed or failed while applying, and rolled back."""
        return bool(self.details.get("interrupted"))

    def is_live(self, now: datetime, me: Owner | None = None) -> bool:
        """A ``running`` row whose process still exists (see :mod:`.owner`)."""
        return self.status == "running" and is_alive(self.owner, self.run_id, self.heartbeat, now, me=me)

    def state(self, now: datetime) -> str:
        """What to show: running | interrupted (stale, to roll back) | finished | failed |
        rolled back | undone."""
        if self.status == "running":
            return "running" if self.is_live(now) else "interrupted"
        if self.interrupted:
            return "rolled back"
        return "undone" if self.undone else self.status

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq, "run_id": self.run_id, "trigger": self.trigger, "dry_run": self.dry_run,
            "status": self.status, "started_at": iso(self.started_at), "finished_at": iso(self.finished_at),
            "counts": dict(self.counts), "conflicts": self.conflicts, "skipped": self.skipped, "errors": self.errors,
            "undone": self.undone, "undone_at": iso(self.undone_at), "details": self.details,
        }  # fmt: skip


def _row(r: Any) -> RunRecord:
    return RunRecord(
        seq=r[0], run_id=r[1], trigger=r[2], dry_run=bool(r[3]), status=r[4], started_at=ts_from_db(r[5]),  # type: ignore[arg-type]
        finished_at=ts_from_db(r[6]), counts=json.loads(r[7] or "{}"), conflicts=r[8], skipped=r[9], errors=r[10],
        undone=bool(r[11]), undone_at=ts_from_db(r[12]), details=json.loads(r[13] or "{}"),
    )  # fmt: skip


class RunInProgress(StoreError):
    """Another process is applying a consolidation run right now."""


def _running(c: Any) -> list[RunRecord]:
    return [_row(r) for r in c.execute(f"{_SELECT} WHERE status = 'running' ORDER BY seq")]


def start_run(store: Any, run_id: str, trigger: str, dry_run: bool, now: datetime) -> None:
    """Record the run as ``running``, owned by this process. An applying run takes the lock:
    :class:`RunInProgress` while another live applying run holds it (stale rows do not count:
    the caller rolls them back first, :func:`.recover.recover_stale`)."""
    me = Owner.current()
    details = json.dumps({"owner": me.to_json(), "heartbeat": ts_to_db(now)})

    def run(c: Any) -> None:
        if not dry_run:
            for other in _running(c):
                if not other.dry_run and other.is_live(now, me):
                    raise RunInProgress(
                        f"another consolidation run ({other.run_id}, {other.owner.describe() if other.owner else 'another process'}) "
                        "is applying changes right now; try again when it has finished"
                    )
        c.execute(
            "INSERT INTO consolidation_runs(run_id, trigger, dry_run, status, started_at, details) VALUES (?,?,?,?,?,?)",
            (run_id, trigger, int(dry_run), "running", ts_to_db(now), details),
        )

    store.write(run)


def heartbeat(c: Any, run_id: str, now: datetime) -> None:
    """Refresh the run's heartbeat inside the caller's transaction."""
    c.execute("UPDATE consolidation_runs SET details = json_set(details, '$.heartbeat', ?) WHERE run_id = ? AND status = 'running'",
              (ts_to_db(now), run_id))  # fmt: skip


def stale_runs(store: Any, now: datetime) -> list[RunRecord]:
    """``running`` rows whose process is gone (oldest first)."""
    me = Owner.current()
    return [r for r in store.read(_running) if not r.is_live(now, me)]


def claim(store: Any, record: RunRecord, now: datetime) -> bool:
    """Take over a stale run (to roll it back): compare-and-swap on its owner and heartbeat, so
    two processes never roll back the same run at once. False when someone else got it first."""
    owner = record.details.get("owner") or {}
    cur = store.write(lambda c: c.execute(
        "UPDATE consolidation_runs SET details = json_set(details, '$.owner', json(?), '$.heartbeat', ?, '$.recovering', 1) "
        "WHERE run_id = ? AND status = 'running' AND json_extract(details, '$.heartbeat') IS ? "
        "AND json_extract(details, '$.owner.pid') IS ?",
        (json.dumps(Owner.current().to_json()), ts_to_db(now), record.run_id, record.details.get("heartbeat"),
         owner.get("pid")),
    ))  # fmt: skip
    return bool(cur.rowcount)


def finish_run(store: Any, run_id: str, *, status: str, now: datetime, counts: dict[str, int], conflicts: int = 0,
               skipped: int = 0, errors: int = 0, details: dict[str, Any] | None = None, undone: bool = False) -> None:  # fmt: skip
    """Close the run (``undone``: its changes were rolled back)."""
    store.write(lambda c: c.execute(
        "UPDATE consolidation_runs SET status = ?, finished_at = ?, counts = ?, conflicts = ?, skipped = ?, errors = ?, "
        "details = ?, undone = ?, undone_at = ? WHERE run_id = ?",
        (status, ts_to_db(now), json.dumps(counts, sort_keys=True), conflicts, skipped, errors,
         json.dumps(details or {}, default=str), int(undone), ts_to_db(now) if undone else None, run_id),
    ))  # fmt: skip


def mark_undone(store: Any, run_id: str, now: datetime) -> None:
    store.write(lambda c: c.execute(
        "UPDATE consolidation_runs SET undone = 1, undone_at = ? WHERE run_id = ?", (ts_to_db(now), run_id)
    ))  # fmt: skip


def get_run(store: Any, run_id: str) -> RunRecord:
    row = store.conn.execute(f"{_SELECT} WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        raise NotFound(f"no consolidation run with id {run_id}")
    return _row(row)


def list_runs(store: Any, *, limit: int | None = 20, include_dry_runs: bool = True) -> list[RunRecord]:
    """Newest first."""
    where = "" if include_dry_runs else " WHERE dry_run = 0"
    sql = f"{_SELECT}{where} ORDER BY seq DESC LIMIT {int(limit) if limit is not None else -1}"
    return [_row(r) for r in store.conn.execute(sql)]


def last_run(store: Any) -> RunRecord | None:
    rows = list_runs(store, limit=1)
    return rows[0] if rows else None
