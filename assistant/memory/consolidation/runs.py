"""The ``consolidation_runs`` table (migration 5): one row per run, ordered by ``seq``.

Rows hold counts and timings only, never memory text (so deleting a memory needs no cascade
here); what a run changed is in ``audit_log`` under its ``run_id``.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from assistant.memory.errors import NotFound
from assistant.memory.records import iso, ts_from_db, ts_to_db

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


def start_run(store: Any, run_id: str, trigger: str, dry_run: bool, now: datetime) -> None:
    store.write(lambda c: c.execute(
        "INSERT INTO consolidation_runs(run_id, trigger, dry_run, status, started_at) VALUES (?,?,?,?,?)",
        (run_id, trigger, int(dry_run), "running", ts_to_db(now)),
    ))  # fmt: skip


def finish_run(store: Any, run_id: str, *, status: str, now: datetime, counts: dict[str, int], conflicts: int = 0,
               skipped: int = 0, errors: int = 0, details: dict[str, Any] | None = None) -> None:  # fmt: skip
    store.write(lambda c: c.execute(
        "UPDATE consolidation_runs SET status = ?, finished_at = ?, counts = ?, conflicts = ?, skipped = ?, errors = ?, "
        "details = ? WHERE run_id = ?",
        (status, ts_to_db(now), json.dumps(counts, sort_keys=True), conflicts, skipped, errors,
         json.dumps(details or {}, default=str), run_id),
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
