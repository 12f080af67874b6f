"""Retirement on the hot path: right after capture ADDs what a message says, a change it states
("I moved to Antwerp last week", "I take the train to work now", "I quit Tesco") ends the earlier
state at once, with the same rules as the background run (issue 23: one decision for both).

    retired = retire_after_capture(store, new_ids, now=store.now())   # [Invalidate, ...]

How: a small snapshot (:func:`assistant.memory.store.tidying.snapshot.neighbourhood`) holds the new records, the current records closest
to them by vector (MiniLM cosine, ``k`` nearest each), the scope's current profile slots and the
records of the same messages; :func:`~.plans.contradictions.plan_conflicts` (rules only, no
model) plans on it exactly as a consolidation run plans on the whole store; of its changes only
those that involve a new record are applied (each a new version, audited, actor ``capture``,
no run id), so an earlier conflict that nobody restated is still left to the background run.
A change whose records moved on since the snapshot (``VersionConflict``) is skipped: the
background run decides it later. Nothing here raises for a decision; store errors propagate.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Iterable

from assistant.memory.store.tidying.apply import _check, _invalidate
from assistant.memory.store.tidying.changes import Invalidate
from assistant.memory.consolidation.plans.contradictions import ConflictConfig, plan_conflicts
from assistant.memory.store.tidying.snapshot import Snapshot, neighbourhood
from assistant.memory.errors import VersionConflict
from assistant.memory.records import Actor

log = logging.getLogger(__name__)


def plan_retirements(snap: Snapshot, new_ids: Iterable[int], config: ConflictConfig = ConflictConfig()) -> list[Invalidate]:
    """The changes of :func:`plan_conflicts` on ``snap`` that involve one of ``new_ids``. Pure."""
    new = set(new_ids)
    res = plan_conflicts(snap, config=config)
    return [ch for ch in res.changes if isinstance(ch, Invalidate) and ({ch.memory_id, ch.winner} | set(ch.followers)) & new]


def retire_after_capture(store: Any, new_ids: Iterable[int], *, now: datetime | None = None) -> list[Invalidate]:
    """Plan and apply the retirements the new records ``new_ids`` state (module docstring)."""
    new_ids = sorted(set(new_ids))
    if not new_ids:
        return []
    when = now if now is not None else store.now()
    snap = store.read(lambda c: neighbourhood(c, when, store.dim, new_ids))
    applied: list[Invalidate] = []
    for ch in plan_retirements(snap, new_ids):
        try:
            store.write(lambda c, ch=ch: _invalidate(store, c, ch, None, _check(c, ch), actor=Actor.CAPTURE))
        except VersionConflict:
            log.info("hot path: #%s changed since it was read; the background run decides it", ch.memory_id)
            continue
        applied.append(ch)
    return applied
