"""Retirement on the hot path: right after capture ADDs what a message says, a change it states
("I moved to Antwerp last week", "I take the train to work now", "I quit Tesco") ends the earlier
state at once, with the same rules as the background run (issue 23: one decision for both).

    retired = retire_after_capture(store, new_ids, now=store.now())   # [Invalidate, ...]

How: a small snapshot (:func:`neighbourhood`) holds the new records, the current records closest
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
import struct
from datetime import datetime
from typing import Any, Iterable

from assistant.memory.consolidation.apply import _check, _invalidate
from assistant.memory.consolidation.changes import Invalidate
from assistant.memory.consolidation.plans.contradictions import ConflictConfig, plan_conflicts
from assistant.memory.consolidation.snapshot import _COLS, Snapshot, _decorate, _rec, load_vectors
from assistant.memory.errors import VersionConflict
from assistant.memory.records import Actor
from assistant.memory.store.rows import IN_IDS, ids_json
from assistant.memory.store.sqlite.db import Connection

log = logging.getLogger(__name__)
K_NEAREST = 24  # current records looked at per new record (by cosine)

_CURRENT = "status = 'active' AND invalid_at IS NULL AND expired_at IS NULL"


def neighbourhood(c: Connection, now: datetime, dim: int, ids: Iterable[int], k: int = K_NEAREST) -> Snapshot:
    """A snapshot of the records a change among ``ids`` could retire (see the module docstring)."""
    ids = sorted(set(ids))
    want: set[int] = set(ids)
    unpack = struct.Struct(f"{dim}f")
    blobs: dict[int, bytes] = {}
    for rowid, blob in c.execute(f"SELECT rowid, embedding FROM memory_vec WHERE rowid IN {IN_IDS}", (ids_json(ids),)):
        if blob is not None and len(blob) == unpack.size:
            blobs[rowid] = blob
    for blob in list(blobs.values()):
        try:
            rows = c.execute("SELECT rowid FROM memory_vec WHERE embedding MATCH ? AND k = ?", (blob, k)).fetchall()
        except Exception:  # noqa: BLE001 - an old sqlite-vec without knn: the slots below still count
            log.debug("hot path: vector neighbours unavailable", exc_info=True)
            rows = []
        want.update(r[0] for r in rows)
    scopes = [r[0] for r in c.execute(f"SELECT DISTINCT scope FROM memories WHERE id IN {IN_IDS}", (ids_json(ids),))]
    for scope in scopes:
        want.update(r[0] for r in c.execute(
            f"SELECT id FROM memories WHERE scope = ? AND slot IS NOT NULL AND {_CURRENT}", (scope,)))  # fmt: skip
        if not blobs:  # a store without an embedder: the most recent current records instead
            want.update(r[0] for r in c.execute(
                f"SELECT id FROM memories WHERE scope = ? AND {_CURRENT} ORDER BY id DESC LIMIT ?", (scope, k * 8)))  # fmt: skip
    msgs = [r[0] for r in c.execute(
        f"SELECT DISTINCT message_id FROM memory_sources WHERE message_id IS NOT NULL AND memory_id IN {IN_IDS}", (ids_json(ids),))]  # fmt: skip
    if msgs:
        want.update(r[0] for r in c.execute(
            f"SELECT memory_id FROM memory_sources WHERE message_id IN {IN_IDS}", (ids_json(msgs),)))  # fmt: skip
    j = ids_json(want)
    recs = {r[0]: _rec(r) for r in c.execute(
        f"SELECT {_COLS} FROM memories WHERE id IN {IN_IDS} AND status IN ('active', 'resolving') ORDER BY id", (j,))}  # fmt: skip
    _decorate(c, recs, ids_json(recs))
    vectors = load_vectors(c, recs, dim, f" WHERE rowid IN {IN_IDS}", (ids_json(recs),))
    return Snapshot(now, list(recs.values()), recs, vectors, [])


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
