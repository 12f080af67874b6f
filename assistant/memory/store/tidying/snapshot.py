"""A consistent, compact picture of the store for planning: light records plus one float32
matrix of their vectors (read from ``memory_vec``), and blocked cosine search over it.

Memory stays bounded: records are small slotted objects, the vector matrix is ``n x dim``
float32 (10k x 384 = 15 MB), and pairwise similarity is computed ``chunk`` rows at a time
against one block (``chunk x block`` floats, 512 x 10k = 20 MB), never as an ``n x n`` matrix.
"""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from assistant.memory.store.sqlite.db import Connection
from assistant.memory.records import Kind, Status, Trust
from assistant.memory.times import ts_from_db, ts_to_db
from assistant.memory.store.rows import IN_IDS, ids_json
from assistant.memory.language.temporal import FactTimes, past_statement

log = logging.getLogger(__name__)

_COLS = (
    "id, text, kind, scope, slot, valid_at, invalid_at, created_at, expired_at, trust, confidence, "
    "content_hash, status, version, pinned, use_count, last_used_at, expires_at, start_kind"
)


@dataclass(slots=True)
class Rec:
    """One memory as the planner sees it (current version only)."""

    id: int
    text: str
    kind: Kind
    scope: str
    slot: str | None
    valid_at: datetime | None
    invalid_at: datetime | None
    created_at: datetime
    expired_at: datetime | None
    trust: Trust
    confidence: float
    content_hash: str
    status: Status
    version: int
    pinned: bool
    use_count: int
    last_used_at: datetime | None
    expires_at: datetime | None
    start_kind: str | None = None  # "stated" | "observed" (what valid_at is)
    observed_at: datetime | None = None  # earliest source observation
    observations: tuple[datetime, ...] = ()  # every distinct source observation time
    message_ids: tuple[int, ...] = ()
    entities: tuple[str, ...] = ()  # normalized entity names
    evolved: bool = False  # already has an outgoing evolve_to link
    row: int = -1  # index into Snapshot.vectors, -1 without a vector

    def fingerprint(self, *, usage: bool = False) -> tuple[Any, ...]:
        """The fields decisions read. ``usage`` adds the decay inputs (which change without a new
        version: :meth:`MemoryStore.record_use`)."""
        fp: tuple[Any, ...] = (
            self.content_hash, self.kind, self.scope, self.slot, self.status, self.valid_at, self.invalid_at,
            self.expired_at, self.pinned, self.expires_at, self.trust, self.confidence,
        )  # fmt: skip
        return fp + (self.use_count, self.last_used_at) if usage else fp

    def is_current(self, now: datetime) -> bool:
        """Active, valid now, not superseded, TTL not passed (the default read filter)."""
        return (
            self.status is Status.ACTIVE
            and (self.valid_at is None or self.valid_at <= now)
            and (self.invalid_at is None or self.invalid_at > now)
            and (self.expired_at is None or self.expired_at > now)
            and (self.expires_at is None or self.expires_at > now)
        )

    def times(self) -> FactTimes:
        """Interval-algebra view; a record without a source date counts as observed when it was
        created (it was true at least when Keepsake learned it)."""
        return FactTimes(self.id, self.valid_at, self.invalid_at, self.created_at, self.expired_at,
                         self.observed_at or self.created_at, self.start_kind, past_statement(self.text))  # fmt: skip


def _rec(r: Any) -> Rec:
    return Rec(
        id=r[0], text=r[1], kind=Kind(r[2]), scope=r[3], slot=r[4], valid_at=ts_from_db(r[5]),
        invalid_at=ts_from_db(r[6]), created_at=ts_from_db(r[7]), expired_at=ts_from_db(r[8]),  # type: ignore[arg-type]
        trust=Trust(r[9]), confidence=float(r[10]), content_hash=r[11], status=Status(r[12]), version=int(r[13]),
        pinned=bool(r[14]), use_count=int(r[15]), last_used_at=ts_from_db(r[16]), expires_at=ts_from_db(r[17]),
        start_kind=r[18],
    )  # fmt: skip


def _decorate(c: Connection, recs: dict[int, Rec], ids_param: str | None) -> None:
    """Sources (earliest observation, message ids), entities and evolve_to flags."""
    where = f"WHERE memory_id IN {IN_IDS}" if ids_param is not None else ""
    params = (ids_param,) if ids_param is not None else ()
    obs: dict[int, set[str]] = {}
    msgs: dict[int, list[int]] = {}
    for mid, o, msg in c.execute(f"SELECT memory_id, observed_at, message_id FROM memory_sources {where}", params):
        if mid not in recs:
            continue
        if o is not None:
            obs.setdefault(mid, set()).add(o)
        if msg is not None:
            msgs.setdefault(mid, []).append(msg)
    for mid, o in obs.items():
        ordered = sorted(o)
        recs[mid].observed_at = ts_from_db(ordered[0])
        recs[mid].observations = tuple(ts_from_db(x) for x in ordered)  # type: ignore[misc]
    for mid, m in msgs.items():
        recs[mid].message_ids = tuple(sorted(set(m)))
    ents: dict[int, list[str]] = {}
    sql = f"SELECT me.memory_id, e.normalized FROM memory_entities me JOIN entities e ON e.id = me.entity_id {where.replace('memory_id', 'me.memory_id')}"
    for mid, name in c.execute(sql, params):
        if mid in recs:
            ents.setdefault(mid, []).append(name)
    for mid, names in ents.items():
        recs[mid].entities = tuple(sorted(names))
    lwhere = f"AND src_id IN {IN_IDS}" if ids_param is not None else ""
    for (mid,) in c.execute(f"SELECT DISTINCT src_id FROM memory_links WHERE type = 'evolve_to' {lwhere}", params):
        if mid in recs:
            recs[mid].evolved = True


def load_recs(c: Connection, ids: Iterable[int]) -> dict[int, Rec | None]:
    """Fresh records for ``ids`` on connection ``c`` (None for ids that no longer exist)."""
    ids = list(ids)
    j = ids_json(ids)
    recs = {r[0]: _rec(r) for r in c.execute(f"SELECT {_COLS} FROM memories WHERE id IN {IN_IDS}", (j,))}
    _decorate(c, recs, j)
    return {i: recs.get(i) for i in ids}


@dataclass
class Snapshot:
    now: datetime
    recs: list[Rec]
    by_id: dict[int, Rec]
    vectors: np.ndarray  # (n_vec, dim) float32, unit rows
    expired_ttl: list[Rec]  # TTL passed (any status): to purge

    _by_message: dict[int, list[Rec]] | None = None

    def vec(self, rec: Rec) -> np.ndarray | None:
        return self.vectors[rec.row] if rec.row >= 0 else None

    def sourced_by(self, message_ids: Iterable[int]) -> list[Rec]:
        """Records with a source in ``message_ids`` (index built on first use)."""
        if self._by_message is None:
            index: dict[int, list[Rec]] = {}
            for r in self.recs:
                for m in r.message_ids:
                    index.setdefault(m, []).append(r)
            self._by_message = index
        seen: dict[int, Rec] = {}
        for m in message_ids:
            for r in self._by_message.get(m, ()):
                seen[r.id] = r
        return [seen[i] for i in sorted(seen)]


def load_snapshot(c: Connection, now: datetime, dim: int) -> Snapshot:
    """Every active/resolving memory (plus the TTL-expired ones), with vectors, on one read
    snapshot of ``c``."""
    recs: dict[int, Rec] = {}
    for r in c.execute(f"SELECT {_COLS} FROM memories WHERE status IN ('active', 'resolving') ORDER BY id"):
        recs[r[0]] = _rec(r)
    now_db = ts_to_db(now)
    expired = [_rec(r) for r in c.execute(
        f"SELECT {_COLS} FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY id", (now_db,)
    )]  # fmt: skip
    _decorate(c, recs, None)
    vectors = load_vectors(c, recs, dim)
    ordered = list(recs.values())
    return Snapshot(now, ordered, recs, vectors, expired)


def load_vectors(c: Connection, recs: dict[int, Rec], dim: int, ids_sql: str = "", params: tuple = ()) -> np.ndarray:
    """The unit vectors of ``recs`` (rows of ``memory_vec``, optionally ``WHERE rowid IN``
    ``ids_sql``), one matrix row each; each record's ``row`` points at its vector (records
    without a vector keep ``row`` unset)."""
    vectors = np.zeros((len(recs), dim), dtype=np.float32)
    n = 0
    size = struct.Struct(f"{dim}f").size
    for rowid, blob in c.execute(f"SELECT rowid, embedding FROM memory_vec{ids_sql}", params):
        rec = recs.get(rowid)
        if rec is None or blob is None or len(blob) != size:
            continue
        vectors[n] = np.frombuffer(blob, dtype=np.float32)
        rec.row = n
        n += 1
    vectors = vectors[:n]
    if n:
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        vectors /= norms
    return vectors


def similar_pairs(
    vectors: np.ndarray, rows: Sequence[int], threshold: float, *, chunk: int = 512, per_row: int = 32
) -> Iterator[tuple[int, int, float]]:
    """Pairs ``(a, b, cosine)`` (positions into ``rows``, a < b) with cosine >= threshold.

    Computed ``chunk`` rows at a time against the rest of the block (upper triangle only), so
    memory is ``chunk x len(rows)`` floats. At most ``per_row`` best neighbours per row are
    returned (a block of near-identical vectors does not explode into n^2 pairs).
    """
    n = len(rows)
    if n < 2:
        return
    block = vectors[np.asarray(rows, dtype=np.int64)]
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        sims = block[start:stop] @ block[start:].T  # (chunk, n - start)
        for i in range(stop - start):
            row = sims[i, i + 1 :]
            hits = np.nonzero(row >= threshold)[0]
            if hits.size == 0:
                continue
            if hits.size > per_row:
                hits = hits[np.argpartition(-row[hits], per_row)[:per_row]]
            a = start + i
            for h in hits:
                yield a, a + 1 + int(h), float(row[h])
        del sims


# -- the hot path's small snapshot (assistant.memory.consolidation.hotpath) ---------------------
K_NEAREST = 24  # current records looked at per new record (by cosine)
_CURRENT = "status = 'active' AND invalid_at IS NULL AND expired_at IS NULL"


def neighbourhood(c: Connection, now: datetime, dim: int, ids: Iterable[int], k: int = K_NEAREST) -> Snapshot:
    """A snapshot of the records a change among ``ids`` could retire: the records themselves, the
    current records nearest each by vector (``k``), the scope's current profile slots (or, without
    vectors, its most recent current records) and the records of the same messages."""
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
