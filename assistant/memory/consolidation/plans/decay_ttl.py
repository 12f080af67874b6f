"""Decay and TTL planning.

- Decay (:func:`assistant.memory.consolidation.plans.decay.decay_rank`): current, active, unpinned records whose
  rank fell below the floor are archived (hidden by default, listed with ``--all``,
  restorable; never deleted). Exempt: pinned records, profile-slot records (a name or a home
  city does not fade with disuse: it is replaced through the conflict rule), and records that
  are no longer current (superseded records stay as history for ``as_of`` questions).
- TTL: records whose ``expires_at`` passed are already hidden at read time; the run purges them
  for real (:meth:`MemoryStore.purge_expired`). A purge is not undoable.
"""

from __future__ import annotations

from typing import Iterable

from assistant.memory.store.tidying.changes import Archive, Expect, Purge
from assistant.memory.store.tidying.snapshot import Snapshot
from assistant.memory.consolidation.plans.decay import DEFAULT_POLICY, DecayPolicy, decay_rank
from assistant.memory.records import Kind
from assistant.memory.times import iso


def plan_decay(snap: Snapshot, *, exclude: Iterable[int] = (), policy: DecayPolicy = DEFAULT_POLICY) -> list[Archive]:
    skip = set(exclude)
    out = []
    for r in snap.recs:
        if r.id in skip or r.pinned or not r.is_current(snap.now) or (r.slot and r.kind is Kind.PROFILE):
            continue
        d = decay_rank(confidence=r.confidence, created_at=r.created_at, last_used_at=r.last_used_at,
                       use_count=r.use_count, now=snap.now, pinned=r.pinned, policy=policy)  # fmt: skip
        if d.archive:
            why = (f"{d.reason}: confidence {r.confidence:g}, idle {d.idle_days:.0f} days, "
                   f"used {r.use_count} times, half-life {d.half_life_days:.0f} days")  # fmt: skip
            out.append(Archive(memory_id=r.id, rank=d.rank, reason=why, text=r.text, expects=(Expect.of(r, usage=True),)))
    return out


def plan_ttl(snap: Snapshot) -> list[Purge]:
    return [Purge(memory_id=r.id, expires_at=r.expires_at, reason=f"TTL passed at {iso(r.expires_at)}",  # type: ignore[arg-type]
                  expects=(Expect.of(r),)) for r in snap.expired_ttl]  # fmt: skip
