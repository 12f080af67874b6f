"""Writing a plan: short transactions, optimistic concurrency, everything audited with the run id.

Changes are written in small batches: one ``BEGIN IMMEDIATE`` transaction holds at most
``batch_max`` changes or ``batch_seconds`` of work, then the writer pauses at least as long as it
held the lock (``yield_ratio``), so a capture ADD on the hot path (which waits in SQLite's busy
handler, polling every <= 100 ms) gets the lock within a batch or two instead of being starved by
back-to-back transactions. Each change runs in its own SAVEPOINT and first re-reads
every record it touches: if one moved on (another version, or for decay new use counters) it
raises :class:`VersionConflict`, its savepoint is rolled back and the batch continues.
Conflicting changes are retried after the pass when the fields their decision read are
unchanged (:meth:`Change.revalidate`), up to ``max_retries`` passes; the rest are skipped
(reported, and reconsidered by the next run). The hot path never waits on a plan and is never
overwritten: every update passes ``expected_version``.

Audit: every write goes through the store's versioned update/link/add (audit rows with
``update_type`` and ``run_id``); the two writes the store has no API for -- uniting sources and
entities onto a merge survivor -- are audited here with the row they added, so
:mod:`~assistant.memory.store.tidying.undo` can take exactly those rows back.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from assistant.memory.store.tidying.changes import Archive, Change, Consolidate, Invalidate, Merge, Purge
from assistant.memory.store.tidying.snapshot import load_recs
from assistant.memory.language.temporal import stated
from assistant.memory.store.sqlite.db import Connection
from assistant.memory.store.sqlite import diagnose
from assistant.memory.errors import VersionConflict
from assistant.memory.records import Actor, Kind, LinkType, Scope, Source, Status, UpdateType
from assistant.memory.times import ts_from_db
from assistant.memory.store.rows import write_audit
from dataclasses import replace

log = logging.getLogger(__name__)
ACTOR = Actor.CONSOLIDATOR


@dataclass
class ApplyResult:
    applied: list[Change] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)  # update_type -> records given a new version (or created)
    conflicts: int = 0  # VersionConflicts met (a change may meet several)
    retried: int = 0  # changes applied on a retry pass
    skipped: list[Change] = field(default_factory=list)  # given up (inputs changed / still conflicting)
    errors: list[str] = field(default_factory=list)
    transactions: int = 0
    purged_ids: tuple[int, ...] = ()


def _check(c: Connection, change: Change) -> dict[int, Any]:
    fresh = load_recs(c, change.ids())
    for e in change.expects:
        rec = fresh.get(e.id)
        if not e.matches(rec, usage=change.usage):
            raise VersionConflict(e.id, e.version, rec.version if rec is not None else -1)
    return fresh


def _sources(c: Connection, memory_id: int) -> list[tuple[int, Source]]:
    rows = c.execute(
        "SELECT id, session_id, message_id, speaker, extractor, extractor_version, observed_at FROM memory_sources "
        "WHERE memory_id = ? ORDER BY id", (memory_id,),
    ).fetchall()  # fmt: skip
    return [(r[0], Source(session_id=r[1], message_id=r[2], speaker=r[3] or "user", extractor=r[4] or "manual",
                          extractor_version=r[5] or "1", observed_at=ts_from_db(r[6]))) for r in rows]  # fmt: skip


def _unite(store: Any, c: Connection, survivor: int, merged: int, run_id: str, update_type: UpdateType) -> None:
    now = store.now()
    for _row, src in _sources(c, merged):
        if store.memories.insert_source(c, survivor, src, now):
            row_id = c.execute("SELECT last_insert_rowid()").fetchone()[0]
            write_audit(c, at=now, actor=ACTOR, action="add_source", memory_id=survivor, update_type=update_type,
                        details={"source": src.to_json(), "source_row": row_id, "from": merged}, run_id=run_id)  # fmt: skip
    for (eid,) in c.execute("SELECT entity_id FROM memory_entities WHERE memory_id = ?", (merged,)).fetchall():
        cur = c.execute("INSERT OR IGNORE INTO memory_entities(memory_id, entity_id) VALUES (?, ?)", (survivor, eid))
        if cur.rowcount:
            write_audit(c, at=now, actor=ACTOR, action="add_entity", memory_id=survivor, update_type=update_type,
                        details={"entity_id": eid, "from": merged}, run_id=run_id)  # fmt: skip


def _merge(store: Any, c: Connection, ch: Merge, run_id: str, fresh: dict[int, Any]) -> int:
    now = store.now()
    for mid, why in zip(ch.merged, ch.reasons):
        rec = fresh[mid]
        store.update(mid, status=Status.ARCHIVED, expired_at=rec.expired_at or now, expected_version=rec.version,
                     update_type=ch.update_type, actor=ACTOR, reason=f"duplicate of #{ch.survivor} ({why})",
                     run_id=run_id, action="merge_duplicate")  # fmt: skip
        _unite(store, c, ch.survivor, mid, run_id, ch.update_type)
        store.link(mid, ch.survivor, LinkType.EVOLVE_TO, actor=ACTOR, run_id=run_id)
    n = len(ch.merged)
    if ch.confidence is not None and ch.confidence > fresh[ch.survivor].confidence:
        store.update(ch.survivor, confidence=ch.confidence, expected_version=fresh[ch.survivor].version,
                     update_type=ch.update_type, actor=ACTOR, run_id=run_id, action="merge_survivor",
                     reason=f"merged {', '.join(f'#{m}' for m in ch.merged)}: highest confidence kept")  # fmt: skip
        n += 1
    return n


def _invalidate(store: Any, c: Connection, ch: Invalidate, run_id: str | None, fresh: dict[int, Any],
                actor: Actor = ACTOR) -> int:  # fmt: skip
    n = 0
    for mid in (ch.memory_id, *ch.followers):
        rec = fresh[mid]
        extra: dict[str, Any] = {}
        if rec.valid_at is not None and rec.valid_at > ch.invalid_at:
            if stated(rec.times()):
                continue  # a stated start after the end: leave it (the planner never proposes it)
            extra["valid_at"] = None  # only observed: true since some unknown time before the end
        why = ch.reason if mid == ch.memory_id else f"retired with #{ch.memory_id} (it states the same old value, or its message did), superseded by #{ch.winner}"
        store.update(mid, invalid_at=ch.invalid_at, expired_at=rec.expired_at or ch.expired_at,
                     expected_version=rec.version, update_type=ch.update_type, actor=actor, reason=why,
                     run_id=run_id, action="invalidate", **extra)  # fmt: skip
        n += 1
    store.link(ch.winner, ch.memory_id, LinkType.SUPERSEDES, actor=actor, run_id=run_id)
    return n


def _consolidate(store: Any, c: Connection, ch: Consolidate, run_id: str, fresh: dict[int, Any]) -> int:
    scope = Scope(ch.scope)
    existing = store.find_duplicate(ch.text, kind=Kind.FACT, scope=scope)
    if existing is None:
        sources = [s for e in ch.episodes for _row, s in _sources(c, e)]
        res = store.add_ex(
            ch.text, kind=Kind.FACT, scope=scope, sources=sources, valid_at=ch.valid_at, trust=ch.trust,
            confidence=ch.confidence, entities=ch.entities, actor=ACTOR, embedding=ch.vector, embed=False,
            update_type=ch.update_type, run_id=run_id,
        )  # fmt: skip
        target = res.id
    else:
        target = existing
    for e in ch.episodes:
        store.link(e, target, LinkType.EVOLVE_TO, actor=ACTOR, run_id=run_id)
    return 1


def _archive(store: Any, c: Connection, ch: Archive, run_id: str, fresh: dict[int, Any]) -> int:
    store.update(ch.memory_id, status=Status.ARCHIVED, expected_version=fresh[ch.memory_id].version,
                 update_type=ch.update_type, actor=ACTOR, reason=ch.reason, run_id=run_id, action="archive")  # fmt: skip
    return 1


_APPLY: dict[type, Callable[..., int]] = {Merge: _merge, Invalidate: _invalidate, Consolidate: _consolidate, Archive: _archive}


def apply_one(store: Any, c: Connection, change: Change, run_id: str) -> int:
    """Write one change inside the caller's transaction; raises VersionConflict. Returns how
    many records it gave a new version (or created)."""
    fresh = _check(c, change)
    return _APPLY[type(change)](store, c, change, run_id, fresh)


def purge(store: Any, purges: Sequence[Purge], run_id: str) -> tuple[int, ...]:
    """TTL: :meth:`MemoryStore.purge_expired` (real deletion), audited in the same transaction
    with one ``purge_ttl`` row per purged record carrying the run id and update_type ``ttl``
    (no text: the record is gone)."""
    if not purges:
        return ()
    return tuple(store.purge_expired(actor=ACTOR, run_id=run_id).memory_ids)


def _embed_missing(store: Any, changes: Sequence[Change]) -> list[Change]:
    """Vectors for new facts whose text is not an episode's own (outside any transaction)."""
    todo = [i for i, ch in enumerate(changes) if isinstance(ch, Consolidate) and ch.vector is None]
    embed = store.vectors.embed
    if not todo or embed is None:
        return list(changes)
    out = list(changes)
    try:
        vecs = embed([changes[i].text for i in todo])  # type: ignore[union-attr]
    except Exception as exc:  # noqa: BLE001 - the fact is still written; backfill_vectors can embed it later
        log.warning("could not embed consolidated facts: %s", exc)
        return out
    for i, v in zip(todo, vecs):
        out[i] = replace(changes[i], vector=tuple(float(x) for x in v))  # type: ignore[arg-type]
    return out


# Each change is ~1 ms of Python. A thread that holds the interpreter lock while the OS has
# descheduled it (other programs keep the cores busy) makes the app's UI thread wait until it runs
# again; releasing it after every change kept the UI's longest wait at ~27 ms instead of ~91 ms
# (``tools/gil_probe.py``: 2 busy processes, 2 workers of 1 ms chunks at nice 8).


def apply_changes(
    store: Any,
    changes: Sequence[Change],
    run_id: str,
    *,
    batch_max: int = 32,
    batch_seconds: float = 0.05,
    max_retries: int = 3,
    retry_wait: float = 0.05,
    sleep: Callable[[float], None] = time.sleep,
    cancel: Any = None,
    yield_ratio: float = 1.0,
    min_pause: float = 0.005,
    on_batch: Callable[[Connection], None] | None = None,
) -> ApplyResult:
    """Apply ``changes`` (not purges) in short batches; see the module docstring.
    ``on_batch(c)`` runs inside every batch's transaction (the run's heartbeat)."""
    result = ApplyResult()
    pending = _embed_missing(store, [ch for ch in changes if not isinstance(ch, Purge)])
    for attempt in range(max_retries + 1):
        conflicted: list[Change] = []
        i = 0
        while i < len(pending):
            if cancel is not None and cancel.is_set():
                result.skipped.extend(pending[i:])
                return result
            start = i

            def batch(c: Connection) -> list[tuple[str, Change, Any]]:
                outcomes: list[tuple[str, Change, Any]] = []
                if on_batch is not None:
                    on_batch(c)
                t0 = time.monotonic()
                j = start
                while j < len(pending) and len(outcomes) < batch_max and (not outcomes or time.monotonic() - t0 < batch_seconds):
                    ch = pending[j]
                    c.execute("SAVEPOINT consolidation_change")
                    try:
                        n = apply_one(store, c, ch, run_id)
                        c.execute("RELEASE consolidation_change")
                        outcomes.append(("ok", ch, n))
                    except VersionConflict as exc:
                        c.execute("ROLLBACK TO consolidation_change")
                        c.execute("RELEASE consolidation_change")
                        outcomes.append(("conflict", ch, exc))
                    except Exception as exc:  # noqa: BLE001 - one bad record never stops the run
                        if diagnose.is_storage_fault(exc, store.path):
                            raise  # the disk or the file failed: the run stops (and is rolled back)
                        c.execute("ROLLBACK TO consolidation_change")
                        c.execute("RELEASE consolidation_change")
                        log.exception("consolidation change failed: %r", ch)
                        outcomes.append(("error", ch, exc))
                    j += 1
                    time.sleep(0)  # hands the interpreter lock to a waiting thread (the UI's) now (see above apply_changes)
                return outcomes

            t_batch = time.monotonic()
            outcomes = store.write(batch)
            result.transactions += 1
            # let a waiting hot-path writer in: SQLite's busy handler polls with sleeps of up to
            # 100 ms, so back-to-back batches would starve it; pause as long as we held the lock
            sleep(max(min_pause, (time.monotonic() - t_batch) * yield_ratio))
            i += len(outcomes)
            for status, ch, info in outcomes:
                if status == "ok":
                    result.applied.append(ch)
                    result.counts[ch.update_type.value] += info
                    if attempt:
                        result.retried += 1
                elif status == "conflict":
                    result.conflicts += 1
                    conflicted.append(ch)
                else:
                    result.errors.append(f"{type(ch).__name__}: {info}")
        if not conflicted:
            break
        if attempt == max_retries:
            result.skipped.extend(conflicted)
            break
        sleep(retry_wait * (attempt + 1))
        ids = sorted({i for ch in conflicted for i in ch.ids()})
        fresh = store.read(lambda c: load_recs(c, ids))
        pending = []
        for ch in conflicted:
            again = ch.revalidate(fresh)
            if again is None:
                result.skipped.append(ch)
            else:
                pending.append(again)
        if not pending:
            break
    return result
