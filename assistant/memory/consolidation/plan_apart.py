"""Consolidation planning in a child process: the plan (read every memory, then dedup,
contradictions, episodic and decay -- pure Python, seconds on a large store) runs in one
long-lived worker process, which opens the same database itself and sends the :class:`Plan`
back as data; the run applies it here as before (short transactions, the Forgetter's holders,
events).

Why: a thread of an interactive process (the app's UI thread) that needs Python's interpreter
lock waits for whichever thread holds it; when the holder is a planning thread that the OS has
descheduled because other programs keep the cores busy, the wait lasts until the OS runs that
thread again (72-203 ms measured by ``keepsake bench ui`` with one busy process per core, see
``tools/gil_probe.py``). A process has its own lock.

    plan = plan_apart(store, now, config)   # None: planned here instead (see below)

The child is started with ``spawn`` on first use (a fork of a threaded Qt process is unsafe),
keeps its store open between runs, sends the plan back in pieces of PIECE changes (one big
unpickle would hold the lock as long as the planning did in small bites), and ends with this
process, however it ends (a thread of the child waits on the parent's sentinel: a pool worker outlives a parent that exits with
``os._exit`` or is killed, holding its inherited stdout open). Anything that keeps the child
from planning (no child can be started, an in-memory database, the child died) returns ``None``
and the caller plans in its own process, so a run never fails for it.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PLAN_TIMEOUT_S = 900.0
PIECE = 100  # changes (or candidates) pickled together: the plan comes back in pieces (see _unpickle)

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_stores: dict[tuple[str, str | None], Any] = {}  # in the child: the stores it opened, kept open


def _child_start() -> None:
    """In the child, first thing: end when the parent process ends."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=lambda: (parent.join(), os._exit(0)), name="parent-watch", daemon=True).start()


def _child_plan(path: str, key_hex: str | None, dim: int, now: datetime, config: Any) -> Any:
    """In the child: open (once) the database at ``path`` and plan as of ``now``."""
    from assistant.memory.consolidation.consolidator import Consolidator  # deferred: the child only
    from assistant.memory.store.facade import MemoryStore

    store = _stores.get((path, key_hex))
    if store is None:
        store = MemoryStore(path, key=key_hex, encrypted=key_hex is not None, dim=dim, check_dim=False)
        _stores[(path, key_hex)] = store
    plan = Consolidator(store, config=config, clock=lambda: now).plan()
    changes, candidates = plan.changes, plan.candidates
    plan.changes, plan.candidates = [], []
    return pickle.dumps(plan), _pieces(changes), _pieces(candidates)


def _pieces(items: list[Any]) -> list[bytes]:
    return [pickle.dumps(items[i:i + PIECE]) for i in range(0, len(items), PIECE)]


def _unpickle(pieces: list[bytes]) -> list[Any]:
    """Piece by piece, handing the interpreter lock over between pieces (``time.sleep(0)``):
    unpickling 2,000 changes at once is one C call that holds it for tens of milliseconds."""
    out: list[Any] = []
    for piece in pieces:
        out.extend(pickle.loads(piece))
        time.sleep(0)
    return out


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_child_start)
        return _pool


def _reset() -> None:
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


def plan_apart(store: Any, now: datetime, config: Any) -> Any | None:
    """``store``'s plan as of ``now`` made in the child process, or ``None`` when it could not
    be made there (logged; the caller plans itself)."""
    path = Path(store.path)
    if not path.is_file():  # an in-memory or not yet written database: nothing a child can open
        return None
    try:
        future = _executor().submit(_child_plan, str(path), store.core.reopen_key(), store.dim, now, config)
        head, changes, candidates = future.result(timeout=PLAN_TIMEOUT_S)
        plan = pickle.loads(head)
        plan.changes, plan.candidates = _unpickle(changes), _unpickle(candidates)
        return plan
    except Exception:  # noqa: BLE001 - planning here is always possible
        log.warning("consolidation planning in a child process failed; planning in this one", exc_info=True)
        _reset()
        return None
