"""An in-process float32 copy of the memory vectors, for brute-force semantic search.

Why: sqlite-vec's brute-force KNN over float vectors is ~6x slower than a numpy matrix-vector
product here (docs/DESIGN.md §3), and a point lookup in ``vec0`` costs ~1.5 ms. So retrieval keeps
one ``(n, dim)`` float32 matrix of the stored vectors plus the few columns the default filter
needs (validity, expiry, TTL, status, kind, scope, created_at, version), and scores every row
with one single-threaded matrix-vector product (``np.einsum``; see :meth:`VectorCache.search`).
The database stays the authority: the caller re-checks every candidate against SQL
(:mod:`assistant.memory.retrieval.retriever`), so a stale cache can only cost recall, never bring back a
deleted, expired or invalidated memory. The vectors never leave the process (no plaintext copy
of the encrypted store on disk); the first search after start loads them (well under a second at
100k when sqlite-vec's chunk tables can be read directly, a few seconds through ``vec0``).

Freshness (checked at each search, under a lock):

1. ``PRAGMA data_version`` + ``conn.total_changes`` of the calling thread's connection: both
   unchanged since this connection last confirmed the cache means no commit anywhere (other
   connections, other processes, or this one). Cost: microseconds.
2. Otherwise a fingerprint ``(max(id), max(updated_at), count(memories), count(vectors),
   max(audit_log.id), index_generation)`` (indexed, ~0.1 ms at 100k). A new index generation (the
   embedder was switched) reloads everything, or raises when the store object itself was opened
   on an older generation (its embedder is the old one: its queries would not compare). Unchanged: the write touched other tables
   (messages, injection log, use counters).
3. Otherwise an incremental refresh: rows with ``id > max_id``, ``updated_at >= max_updated``
   or an audit entry since the last check (every store change is audited, so a clock that stood
   still or went back does not hide an edit) are (re)read; their vector is re-read when the row
   is new or its version changed; a count mismatch means rows were deleted (the id list is
   re-read and missing rows dropped); a vector count mismatch (backfill, model switch) or a
   large change reloads everything.

Deletes made through the store also arrive through ``store.on_delete``: the rows are dropped and
their vectors zeroed at once.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Iterator, Sequence

import numpy as np

from assistant.memory.errors import StoreError
from assistant.memory.store import vector_index
from assistant.memory.store.vecscan.filter import KIND_CODE, MAX_US, MIN_US, STATUS_CODE, VecFilter, compute_mask
from assistant.memory.store.vecscan.read import META_COLUMNS, LayoutError, read_meta, read_vector_chunks, read_vectors, ts_us

FULL_RELOAD_OVER = 256  # more changed vectors than this: reload everything instead of point lookups

_META_SQL = (
    "SELECT id, valid_at, invalid_at, expired_at, expires_at, created_at, status, kind, scope, version, updated_at "
    "FROM memories"
)


class VectorCache:
    """See the module docstring. One per store object (:func:`cache_for`)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.dim = 0
        self.size = 0  # rows used in the arrays (alive or not)
        self.generation = 0  # bumped whenever memory rows or vectors changed
        self.loads = 0  # full loads so far (tests, bench)
        self._row: dict[int, int] = {}  # memory id -> row
        self._fp: tuple[Any, ...] | None = None
        self._stamps: dict[tuple[int, int], tuple[int, int]] = {}
        self._scopes: dict[str, int] = {}
        self._mask_cache: dict[tuple[Any, ...], tuple[int, int, tuple[np.ndarray, np.ndarray, int]]] = {}
        self._alloc(0, 0)

    # ------------------------------------------------------------------ storage

    def _alloc(self, capacity: int, dim: int) -> None:
        self.mat = np.zeros((capacity, dim), dtype=np.float32)
        self.ids = np.zeros(capacity, dtype=np.int64)
        self.alive = np.zeros(capacity, dtype=bool)  # row holds a current memory
        self.has_vec = np.zeros(capacity, dtype=bool)
        self.valid_at = np.full(capacity, MIN_US, dtype=np.int64)
        self.invalid_at = np.full(capacity, MAX_US, dtype=np.int64)
        self.expired_at = np.full(capacity, MAX_US, dtype=np.int64)
        self.expires_at = np.full(capacity, MAX_US, dtype=np.int64)
        self.created_at = np.zeros(capacity, dtype=np.int64)
        self.status = np.zeros(capacity, dtype=np.int8)
        self.kind = np.zeros(capacity, dtype=np.int8)
        self.scope = np.zeros(capacity, dtype=np.int32)
        self.version = np.zeros(capacity, dtype=np.int32)

    def _grow(self, need: int) -> None:
        cap = len(self.ids)
        if need <= cap:
            return
        new_cap = max(need, int(cap * 1.5) + 64)
        old = {name: getattr(self, name) for name in ("mat", "ids", "alive", "has_vec", "valid_at", "invalid_at",
                                                       "expired_at", "expires_at", "created_at", "status", "kind",
                                                       "scope", "version")}  # fmt: skip
        self._alloc(new_cap, self.dim)
        for name, arr in old.items():
            getattr(self, name)[: len(arr)] = arr

    def _scope_code(self, scope: str) -> int:
        return self._scopes.setdefault(scope, len(self._scopes))

    def _set_meta(self, r: int, row: Sequence[Any]) -> None:
        mid, valid, invalid, expired, expires, created, status, kind, scope, version, _updated = row
        self.ids[r] = mid
        self.alive[r] = True
        self.valid_at[r] = ts_us([valid], MIN_US)[0]
        self.invalid_at[r] = ts_us([invalid], MAX_US)[0]
        self.expired_at[r] = ts_us([expired], MAX_US)[0]
        self.expires_at[r] = ts_us([expires], MAX_US)[0]
        self.created_at[r] = ts_us([created], MIN_US)[0]
        self.status[r] = STATUS_CODE.get(status, 3)
        self.kind[r] = KIND_CODE.get(kind, -1)
        self.scope[r] = self._scope_code(scope)
        self.version[r] = version

    def _set_vec(self, r: int, blob: bytes | None) -> None:
        if blob is None or len(blob) != 4 * self.dim:
            self.mat[r] = 0.0
            self.has_vec[r] = False
            return
        v = np.frombuffer(blob, dtype=np.float32)
        norm = float(np.linalg.norm(v))
        self.mat[r] = v / norm if norm > 0 else v
        self.has_vec[r] = norm > 0

    def _drop(self, ids: Sequence[int]) -> None:
        for mid in ids:
            r = self._row.pop(int(mid), None)
            if r is not None:
                self.alive[r] = False
                self.has_vec[r] = False
                self.mat[r] = 0.0  # the deleted vector does not linger in memory

    # ------------------------------------------------------------------ freshness

    @staticmethod
    def _fingerprint(c: Any) -> tuple[Any, ...]:
        max_id, max_upd, n = c.execute("SELECT max(id), max(updated_at), count(*) FROM memories").fetchone()
        try:
            nvec = c.execute("SELECT count(*) FROM memory_vec_rowids").fetchone()[0]  # sqlite-vec shadow table
        except Exception:  # noqa: BLE001 - another sqlite-vec layout: the slow, public way
            nvec = c.execute("SELECT count(*) FROM memory_vec").fetchone()[0]
        max_audit = c.execute("SELECT max(id) FROM audit_log").fetchone()[0]
        return (max_id or 0, max_upd or "", n, nvec, max_audit or 0, vector_index.generation(c))

    def sync(self, store: Any) -> None:
        """Bring the cache up to date with the database (cheap when nothing changed)."""
        c = store.conn
        key = (threading.get_ident(), id(c))
        with self.lock:
            stamp = (c.execute("PRAGMA data_version").fetchone()[0], c.total_changes)
            if self._fp is not None and self.dim == store.dim and self._stamps.get(key) == stamp:
                return
            opened_on = getattr(getattr(store, "vectors", None), "generation", 0)
            fp, changed = store.read(lambda conn: self._refresh(conn, store.dim, opened_on))
            if changed:
                self.generation += 1
                self._stamps = {}
            self._fp = fp
            self._stamps[key] = stamp

    def _refresh(self, c: Any, dim: int, opened_on: int = 0) -> tuple[tuple[Any, ...], bool]:
        fp = self._fingerprint(c)
        if fp[5] != opened_on:
            raise StoreError("the memory search index was rebuilt with another embedder since this store was opened "
                             "(keepsake models use); open the memory again (restart Keepsake) to search it")  # fmt: skip
        if self._fp is None or dim != self.dim or fp[5] != self._fp[5]:
            self._load(c, dim)
            return fp, True
        if fp == self._fp:
            return fp, False
        max_id, max_upd, max_audit = self._fp[0], self._fp[1], self._fp[4]
        rows = c.execute(
            _META_SQL + " WHERE id > ? OR updated_at >= ? OR id IN "
            "(SELECT memory_id FROM audit_log WHERE id > ? AND memory_id IS NOT NULL)",
            (max_id, max_upd, max_audit),
        ).fetchall()
        need_vec = []
        for row in rows:
            r = self._row.get(row[0])
            if r is None or self.version[r] != row[9]:
                need_vec.append(row[0])
        if len(need_vec) > FULL_RELOAD_OVER:
            self._load(c, dim)
            return fp, True
        for row in rows:
            r = self._row.get(row[0])
            if r is None:
                r = self.size
                self._grow(r + 1)
                self.size += 1
                self._row[row[0]] = r
            self._set_meta(r, row)
        for mid in need_vec:
            got = c.execute("SELECT embedding FROM memory_vec WHERE rowid = ?", (mid,)).fetchone()
            self._set_vec(self._row[mid], got[0] if got else None)
        if fp[2] != len(self._row):  # rows were deleted behind our back (another process)
            present = {r[0] for r in c.execute("SELECT id FROM memories")}
            self._drop([mid for mid in self._row if mid not in present])
        if fp[3] != int(self.has_vec[: self.size].sum()):  # vectors added/removed without a row change
            self._load(c, dim)
        self._compact_if_sparse()
        return fp, True

    def _load(self, c: Any, dim: int, chunk: int = 8192) -> None:
        """Read every row and vector, in chunks (bounded transient memory)."""
        n = int(c.execute("SELECT count(*) FROM memories").fetchone()[0])
        self.dim = dim
        self._alloc(n, dim)
        self._scopes = {}
        self._row = {}
        self.size = 0
        for cols, scopes in read_meta(c, chunk, STATUS_CODE, KIND_CODE, MIN_US, MAX_US):
            a = self.size
            b = a + len(scopes)
            self._grow(b)
            for name in META_COLUMNS:
                getattr(self, "ids" if name == "id" else name)[a:b] = cols[name]
            self.alive[a:b] = True
            self.scope[a:b] = [self._scope_code(s) for s in scopes]
            self._row.update(zip(cols["id"].tolist(), range(a, b)))
            self.size = b
        fast = read_vector_chunks(c, dim)
        try:
            self._put_vectors(fast if fast is not None else read_vectors(c, dim, chunk))
        except LayoutError:
            self.mat[: self.size] = 0.0
            self.has_vec[: self.size] = False
            self._put_vectors(read_vectors(c, dim, chunk))
        self.loads += 1

    def _put_vectors(self, batches: Iterator[tuple[np.ndarray, np.ndarray]]) -> None:
        for mids, vecs in batches:
            rows = np.fromiter((self._row.get(int(m), -1) for m in mids), dtype=np.int64, count=len(mids))
            norms = np.linalg.norm(vecs, axis=1)
            ok = (rows >= 0) & (norms > 0)
            self.mat[rows[ok]] = vecs[ok] / norms[ok, None]
            self.has_vec[rows[ok]] = True

    def _compact_if_sparse(self) -> None:
        dead = self.size - len(self._row)
        if dead < 1024 or dead < self.size // 4:
            return
        keep = np.flatnonzero(self.alive[: self.size])
        for name in ("mat", "ids", "alive", "has_vec", "valid_at", "invalid_at", "expired_at", "expires_at",
                     "created_at", "status", "kind", "scope", "version"):  # fmt: skip
            arr = getattr(self, name)
            arr[: len(keep)] = arr[keep]
            arr[len(keep) : self.size] = 0
        self.size = len(keep)
        self._row = {int(self.ids[r]): r for r in range(self.size)}

    def on_delete(self, report: Any) -> None:
        """``store.on_delete`` listener: drop deleted memories right away."""
        ids = [*(getattr(report, "memory_ids", ()) or ()), *(e.id for e in getattr(report, "memory_edits", ()) or ())]
        with self.lock:
            self._drop(ids)
            self.generation += 1
            self._stamps = {}

    # ------------------------------------------------------------------ search

    def mask(self, f: VecFilter) -> np.ndarray:
        """Rows that may pass the filter (the SQL re-check decides)."""
        return self._masked(f)[0]

    def _masked(self, f: VecFilter) -> tuple[np.ndarray, np.ndarray, int]:
        """(mask, indices of excluded rows, allowed count), cached while nothing changed and
        ``now`` has not crossed any row's validity/expiry/TTL boundary."""
        key = (self.generation, self.size, f.world_us, f.known_at_us, f.include_archived, f.kinds, f.scope, f.history)
        hit = self._mask_cache.get(key)
        if hit is not None and hit[0] <= f.now_us < hit[1]:
            return hit[2]
        m, until = self._compute_mask(f)
        value = (m, np.flatnonzero(~m), int(m.sum()))
        if len(self._mask_cache) > 16:
            self._mask_cache.clear()
        self._mask_cache[key] = (f.now_us, until, value)
        return value

    def _compute_mask(self, f: VecFilter) -> tuple[np.ndarray, int]:
        return compute_mask(self, self._scopes.get(f.scope) if f.scope is not None else None, f)

    def search(self, query: np.ndarray, f: VecFilter, n: int, skip: int = 0) -> tuple[list[int], list[float]]:
        """Memory ids and cosines of the best ``n`` rows after the first ``skip``, best first."""
        with self.lock:
            size = self.size
            if size == 0 or n <= 0:
                return [], []
            _m, excluded, allowed = self._masked(f)
            if allowed == 0:
                return [], []
            # einsum streams the matrix on this core: a multi-threaded BLAS sgemv waits a
            # scheduler tick (~12 ms) for its helper thread whenever the cores are busy.
            scores = np.einsum("ij,j->i", self.mat[:size], query)
            if excluded.size:
                scores[excluded] = -np.inf
            top = min(skip + n, allowed)
            if top < size:
                idx = np.argpartition(-scores, top - 1)[:top]
            else:
                idx = np.arange(size)
            idx = idx[np.argsort(-scores[idx], kind="stable")][skip:top]
            return self.ids[idx].tolist(), scores[idx].astype(float).tolist()

    def cosines(self, ids: Sequence[int], query: np.ndarray) -> dict[int, float]:
        """Cosine to ``query`` for the given ids that have a cached vector."""
        with self.lock:
            out = {}
            for mid in ids:
                r = self._row.get(int(mid))
                if r is not None and self.has_vec[r]:
                    out[int(mid)] = float(self.mat[r] @ query)
            return out

    def version_of(self, mid: int) -> int | None:
        with self.lock:
            r = self._row.get(int(mid))
            return int(self.version[r]) if r is not None else None

    def __contains__(self, mid: object) -> bool:
        with self.lock:
            return mid in self._row

    @property
    def count(self) -> int:
        """Current memories known to the cache."""
        return len(self._row)

    @property
    def nbytes(self) -> int:
        return int(self.mat.nbytes)


_caches: "weakref.WeakKeyDictionary[Any, VectorCache]" = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def cache_for(store: Any, embedder: Any = None) -> VectorCache:
    """The vector cache of a store object (created once; follows the store's deletes). With the
    ``embedder`` that will search it: :class:`EmbedderMismatchError` when another one made the
    index (:func:`vector_index.check_embedder`)."""
    if embedder is not None:
        vector_index.check_embedder(store, embedder)
    with _caches_lock:
        cache = _caches.get(store)
        if cache is None:
            cache = VectorCache()
            store.on_delete(cache.on_delete)
            _caches[store] = cache
        return cache
