"""The default read filter on the vector cache's columns (mirrors the store's query filter): which
cached rows may pass, and until when that answer holds. The SQL re-check of every candidate
decides (:mod:`assistant.memory.retrieval.retriever`); this only narrows the matrix product."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assistant.memory.records import Kind, Status

MIN_US = np.iinfo(np.int64).min
MAX_US = np.iinfo(np.int64).max
STATUS_CODE = {Status.ACTIVE.value: 0, Status.RESOLVING.value: 1, Status.ARCHIVED.value: 2, Status.DELETED.value: 3}
KIND_CODE = {k.value: i for i, k in enumerate(Kind)}


@dataclass(frozen=True)
class VecFilter:
    """The default read filter, evaluated on the cached columns (mirrors query.build)."""

    now_us: int
    world_us: int | None = None  # as_of (world time); None = now
    known_at_us: int | None = None  # system time: only created_at is checked here, SQL does the rest
    include_archived: bool = False
    kinds: tuple[int, ...] | None = None
    scope: str | None = None
    history: bool = False  # also what is no longer valid or believed (started by now; SQL re-checks)


def compute_mask(cache: Any, scope_code: int | None, f: VecFilter) -> tuple[np.ndarray, int]:
    """(rows of ``cache`` that may pass ``f``, the next instant in microseconds at which a row's
    state changes with the clock: the mask holds until then). ``scope_code``: ``f.scope``'s code
    in the cache (None when the cache has never seen that scope: nothing passes)."""
    n = cache.size
    m = cache.alive[:n] & cache.has_vec[:n]
    if f.scope is not None:
        if scope_code is None:
            return np.zeros(n, dtype=bool), MAX_US
        m &= cache.scope[:n] == scope_code
    if f.known_at_us is not None:  # versions may differ at T: only what cannot change is checked
        return m & (cache.created_at[:n] <= f.known_at_us), MAX_US
    active = cache.status[:n] == STATUS_CODE[Status.ACTIVE.value]  # resolving is never retrieved
    m &= (active | (cache.status[:n] == STATUS_CODE[Status.ARCHIVED.value])) if f.include_archived else active
    if f.kinds is not None:
        m &= np.isin(cache.kind[:n], f.kinds)
    world = f.world_us if f.world_us is not None else f.now_us
    if f.history:
        m &= cache.valid_at[:n] <= world
    else:
        m &= (cache.valid_at[:n] <= world) & (cache.invalid_at[:n] > world)
    now_cols = [cache.expires_at[:n]]
    if f.history:
        now_cols.append(cache.valid_at[:n])
    elif f.world_us is None:
        m &= cache.expired_at[:n] > f.now_us
        now_cols += [cache.valid_at[:n], cache.invalid_at[:n], cache.expired_at[:n]]
    m &= cache.expires_at[:n] > f.now_us
    until = MAX_US  # the next instant at which a row's state changes with the clock
    for col in now_cols:
        later = col[col > f.now_us]
        if later.size:
            until = min(until, int(later.min()))
    return m, until
