"""A consolidation run is all or nothing: an interrupted run is rolled back.

A run applies its changes in short transactions (so the hot path is never blocked long); each
committed batch is complete and audited with the run id, so at any moment everything a run has
changed is exactly what its audit rows say. When a run does not finish -- its process was
killed, the machine lost power, or it raised while applying -- the changes it made are taken
back with the same walk an undo uses (:func:`.undo.take_back`), under the undo id
``rollback:<run_id>``, and the run is recorded as ``failed``, ``undone``, with
``details.interrupted`` and what the rollback did. TTL purges are real deletions and stay done
(the records had expired; the next run would purge them anyway).

When: a run that raises rolls itself back before re-raising (:meth:`Consolidator.run`); a run
whose process is gone is *stale* (:func:`.runs.stale_runs`) and is rolled back as soon as the
store is opened again (:func:`recover_on_open`, called by ``Services.open_store``: every CLI
command, the app, the capture worker), and by every consolidation run, the app's job scheduler
and ``keepsake consolidate undo`` of that run (:func:`recover_stale`). Each rollback is logged
once (a warning) and recorded on the run (``details.recovered_on``), which ``keepsake doctor``
shows. A rollback claims the run first (compare-and-swap on
its owner), so two processes never roll back the same run, and is idempotent, so a rollback
that is itself interrupted is completed by the next start.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from assistant.memory.consolidation import runs
from assistant.memory.consolidation.owner import executing
from assistant.memory.consolidation.undo import UndoReport, take_back
from assistant.memory.records import Actor
from assistant.memory.store.sqlite.worklock import maintenance

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recovered:
    run_id: str
    report: UndoReport

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, **self.report.to_json()}


def rollback(store: Any, record: runs.RunRecord, now: datetime, *, reason: str, claimed: bool = False,
             recovered_on: str | None = None) -> UndoReport:  # fmt: skip
    """Take back everything the ``running`` run ``record`` applied and close it as an
    interrupted, rolled-back failure. ``claimed``: this process already owns the run (it is
    rolling back its own failed run); otherwise the stale run is claimed first and
    :class:`runs.RunInProgress` is raised if another process got it."""
    with executing(record.run_id):
        if not claimed and not runs.claim(store, record, now):
            raise runs.RunInProgress(f"consolidation run {record.run_id} is being rolled back by another process")
        report = take_back(store, record.run_id, f"rollback:{record.run_id}", actor=Actor.CONSOLIDATOR)
        details = dict(record.details, interrupted=True, error=record.details.get("error") or reason,
                       rolled_back=report.to_json())  # fmt: skip
        details.pop("recovering", None)
        if recovered_on is not None:
            details["recovered_on"] = recovered_on
        runs.finish_run(store, record.run_id, status="failed", now=store.now(), counts=record.counts,
                        details=details, undone=True)  # fmt: skip
    log.info("consolidation run %s rolled back (%s): %d versions restored, %d links removed, %d facts removed",
                record.run_id, reason, report.versions, report.unlinked, report.facts_removed)  # fmt: skip
    return report


def recover_stale(store: Any, now: datetime | None = None, *, on: str = "next run") -> list[Recovered]:
    """Roll back every stale ``running`` run (oldest first). A run another process is
    already rolling back is left to it. ``on``: what found it (recorded on the run)."""
    now = now or store.now()
    done = []
    for record in runs.stale_runs(store, now):
        try:
            report = rollback(store, record, now, reason="interrupted: its process ended before the run finished",
                              recovered_on=on)  # fmt: skip
        except runs.RunInProgress:
            continue
        log.warning("consolidation run %s was interrupted (its process ended mid-run); rolled back on %s: %d versions "
                    "restored, %d links removed, %d facts removed", record.run_id, on, report.versions, report.unlinked,
                    report.facts_removed)  # fmt: skip
        done.append(Recovered(record.run_id, report))
    return done


def recover_on_open(store: Any) -> list[Recovered]:
    """When a store opens: roll back runs a killed process left half-applied, so search and
    chat never see their partial changes. One cheap query when there are none; a forget or
    run in progress elsewhere is waited for a few seconds (:func:`maintenance`)."""
    now = store.now()
    if not runs.stale_runs(store, now):
        return []
    with maintenance(store.path, wait=10.0):
        return recover_stale(store, now, on="open")
