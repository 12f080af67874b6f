"""Re-embed every memory with another embedder into a new index beside the old one, then switch.

    result = rebuild(store, embed, NewIndex(fingerprint, name, setting, dim), progress=cb, cancel=event)

1. ``memory_vec_next`` (the new dimension) is created beside ``memory_vec`` (see
   :mod:`.vector_index`); the old index keeps serving search and writes meanwhile.
2. Memories are embedded ``batch`` at a time, in id order, each batch in its own transaction;
   ``progress(ReindexProgress(done, total))`` after each one, ``cancel`` checked before each.
3. Catch-up: memories added or edited meanwhile (no entry in ``memory_vec_next_src`` or another
   text hash) are embedded again, until none is left or a pass finds only a handful.
4. Switch, in ONE transaction: the last few stale rows are embedded inside it (the write lock is
   held, so nothing can change under it), ``memory_vec`` is dropped and made again with the new
   dimension, filled from ``memory_vec_next`` (vec0 has no RENAME of its shadow tables: a copy of
   the blobs, ~1 s per 100k x 384), the partial tables dropped, and the new embedder recorded
   with ``index_generation + 1``.

Cancel (or any error, or a kill) before step 4 leaves ``memory_vec`` and its recorded embedder as
they were; the partial tables are dropped at once (or, after a kill, by the next open or run).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from assistant.memory.errors import StoreError
from assistant.memory.store import vector_index as vi
from assistant.memory.store.sqlite.db import Connection

Embed = Callable[[list[str]], list[list[float]]]
BATCH = 32  # texts per embedder call and transaction (~0.5 s with MiniLM on one core)
CATCH_UP_PASSES = 3
IN_SWITCH_MAX = 64  # stale rows the switch may embed while it holds the write lock


class ReindexCancelled(StoreError):
    """Cancelled: the old index is still the one in use."""


class ReindexBusy(StoreError):
    """Another re-embedding of this database is running."""


@dataclass(frozen=True)
class NewIndex:
    fingerprint: str
    name: str
    setting: str
    dim: int


@dataclass(frozen=True)
class ReindexProgress:
    done: int
    total: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


@dataclass(frozen=True)
class ReindexResult:
    memories: int  # vectors in the new index
    embedded: int  # texts embedded (> memories when some changed while it ran)
    seconds: float
    dim: int
    generation: int


def _pack(vecs: Sequence[Sequence[float]], dim: int) -> list[bytes]:
    import struct

    out = []
    for v in vecs:
        if len(v) != dim:
            raise StoreError(f"the new embedder returned {len(v)} dimensions, expected {dim}")
        out.append(struct.pack(f"{dim}f", *v))
    return out


def _stale(c: Connection, limit: int | None = None) -> list[tuple[int, str]]:
    """(id, text) of memories whose text is not (or no longer) in the new index."""
    done = dict(c.execute(f"SELECT memory_id, text_hash FROM {vi.NEXT_SRC}").fetchall())
    out = []
    for mid, text in c.execute("SELECT id, text FROM memories ORDER BY id"):
        if done.get(mid) != vi.text_hash(text):
            out.append((mid, text))
            if limit is not None and len(out) >= limit:
                break
    return out


def _put(c: Connection, rows: Sequence[tuple[int, str]], blobs: Sequence[bytes]) -> int:
    """Store vectors whose memory still has the text that was embedded; returns how many."""
    n = 0
    for (mid, text), blob in zip(rows, blobs):
        cur = c.execute("SELECT text FROM memories WHERE id = ?", (mid,)).fetchone()
        if cur is None or cur[0] != text:
            continue  # deleted or edited meanwhile: the catch-up embeds the new text
        c.execute(f"DELETE FROM {vi.NEXT} WHERE rowid = ?", (mid,))
        c.execute(f"INSERT INTO {vi.NEXT}(rowid, embedding) VALUES (?, ?)", (mid, blob))
        c.execute(f"INSERT OR REPLACE INTO {vi.NEXT_SRC}(memory_id, text_hash) VALUES (?, ?)", (mid, vi.text_hash(text)))
        n += 1
    return n


def _switch(c: Connection, target: NewIndex, embed: Embed) -> tuple[int, int]:
    """Step 4 (module docstring), inside the caller's transaction: (vectors, texts embedded)."""
    rows = _stale(c, limit=IN_SWITCH_MAX + 1)
    if len(rows) > IN_SWITCH_MAX:
        raise StoreError("memories kept changing while they were re-embedded; try again")
    embedded = 0
    if rows:
        embedded = _put(c, rows, _pack(embed([t for _, t in rows]), target.dim))
    c.execute(f"DELETE FROM {vi.NEXT} WHERE rowid NOT IN (SELECT id FROM memories)")
    c.execute("DROP TABLE memory_vec")
    c.execute(f"CREATE VIRTUAL TABLE memory_vec USING vec0(embedding float[{int(target.dim)}] distance_metric=cosine)")
    c.execute(f"INSERT INTO memory_vec(rowid, embedding) SELECT rowid, embedding FROM {vi.NEXT}")
    n = c.execute("SELECT count(*) FROM memory_vec").fetchone()[0]
    vi.drop_partial(c)
    vi.record(c, fingerprint=target.fingerprint, name=target.name, setting=target.setting, dim=target.dim, bump=True)
    return int(n), embedded


def rebuild(store: Any, embed: Embed, target: NewIndex, *, progress: Callable[[ReindexProgress], None] | None = None,
            cancel: threading.Event | None = None, batch: int = BATCH, before_switch: Callable[[], None] | None = None) -> ReindexResult:  # fmt: skip
    """Re-embed every memory of ``store`` with ``embed`` (module docstring). ``before_switch``
    runs after the last batch, right before the switching transaction (the services write
    their crash marker there). Raises :class:`ReindexCancelled` when ``cancel`` is set,
    :class:`ReindexBusy` when another run holds the database."""
    if not 1 <= target.dim <= 8192:
        raise StoreError(f"invalid embedding dimension {target.dim}")
    if store.damage is not None:
        raise store.damage_error()
    t0 = time.perf_counter()
    with vi.rebuild_lock(store.path) as held:
        if not held:
            raise ReindexBusy("the memories are being re-embedded by another Keepsake already; wait for it to finish")
        store.write(lambda c: vi.create_partial(c, target.dim))
        try:
            total = store.read(lambda c: c.execute("SELECT count(*) FROM memories").fetchone()[0])
            done = embedded = last = 0
            if progress:
                progress(ReindexProgress(0, total))

            def step(rows: list[tuple[int, str]]) -> None:
                nonlocal done, embedded
                if cancel is not None and cancel.is_set():
                    raise ReindexCancelled("re-embedding cancelled: the old index and embedder are still in use")
                blobs = _pack(embed([t for _, t in rows]), target.dim)
                store.write(lambda c: _put(c, rows, blobs))
                embedded += len(rows)
                done += len(rows)
                if progress:
                    progress(ReindexProgress(done, max(total, done)))

            while rows := store.read(lambda c: c.execute(
                    "SELECT id, text FROM memories WHERE id > ? ORDER BY id LIMIT ?", (last, batch)).fetchall()):  # fmt: skip
                step([(int(m), t) for m, t in rows])
                last = rows[-1][0]
            for _pass in range(CATCH_UP_PASSES):  # added or edited meanwhile
                stale = store.read(lambda c: _stale(c))
                if len(stale) < IN_SWITCH_MAX:
                    break  # the switch embeds these few while it holds the write lock
                for i in range(0, len(stale), batch):
                    step(stale[i : i + batch])
            if cancel is not None and cancel.is_set():
                raise ReindexCancelled("re-embedding cancelled: the old index and embedder are still in use")
            if before_switch:
                before_switch()
            n, more = store.write(lambda c: _switch(c, target, embed))
        except BaseException:
            try:
                store.write(vi.drop_partial)
            except Exception:  # noqa: BLE001 - the next open or run drops them (clear_leftover)
                pass
            raise
    store.core.dim = target.dim
    store.vectors.embed = embed
    store.vectors.generation = store.read(vi.generation)
    if progress:
        progress(ReindexProgress(n, n))
    return ReindexResult(memories=n, embedded=embedded + more, seconds=time.perf_counter() - t0, dim=target.dim,
                         generation=store.vectors.generation)  # fmt: skip
