"""Forget and tidy-up take turns: one lock per database for the long maintenance units.

A consolidation run (planning reads every memory and the search index, then applies in many
small transactions) and a forget (candidates, plan and apply) touching the same memories at the
same time gave nothing but trouble - a forget that met half a tidy-up - and nothing is gained by
overlapping them. :func:`maintenance` serialises them: across processes with an advisory lock on
``<db>.maintenance-lock`` (``flock``; ``msvcrt.locking`` on Windows), across the threads of one
process with a lock per database, re-entrant in one thread (a consolidation run deletes through
the Forgetter). Short writes (adding a memory, a message) never take it.

The wait is bounded: after ``wait`` seconds the unit goes ahead anyway (its transactions are
still all-or-nothing, and a read that meets a concurrent change is retried, see
:meth:`assistant.memory.store.core.StoreCore._guard`); ``held.waited`` says how long it waited.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

if sys.platform == "win32":  # pragma: no cover
    import msvcrt
else:
    import fcntl

POLL_S = 0.05

_locks: dict[str, threading.RLock] = {}
_depth = threading.local()
_guard = threading.Lock()


@dataclass
class Held:
    acquired: bool  # False: the wait ran out and the unit went ahead without the lock
    waited: float  # seconds


def lock_path(db_path: Path) -> Path:
    p = Path(db_path)
    return p.with_name(p.name + ".maintenance-lock")


def _thread_lock(key: str) -> threading.RLock:
    with _guard:
        return _locks.setdefault(key, threading.RLock())


def _try_file_lock(fd: int) -> bool:
    try:
        if sys.platform == "win32":  # pragma: no cover
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


def _unlock_file(fd: int) -> None:
    with contextlib.suppress(OSError):
        if sys.platform == "win32":  # pragma: no cover
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def maintenance(db_path: Path, *, wait: float = 120.0) -> Iterator[Held]:
    """Hold the database's maintenance lock for the block (see the module docstring)."""
    key = str(Path(db_path).resolve())
    depths: dict[str, int] = _depth.__dict__.setdefault("depths", {})
    if depths.get(key, 0):  # this thread holds it already
        depths[key] += 1
        try:
            yield Held(True, 0.0)
        finally:
            depths[key] -= 1
        return
    start = time.monotonic()
    tlock = _thread_lock(key)
    got_thread = tlock.acquire(timeout=max(0.0, wait))
    fd = None
    got_file = False
    if got_thread:
        with contextlib.suppress(OSError):
            fd = os.open(lock_path(Path(db_path)), os.O_RDWR | os.O_CREAT, 0o600)
        while fd is not None and not (got_file := _try_file_lock(fd)) and time.monotonic() - start < wait:
            time.sleep(POLL_S)
    depths[key] = 1
    try:
        yield Held(got_thread and (got_file or fd is None), round(time.monotonic() - start, 3))
    finally:
        depths[key] = 0
        if fd is not None:
            if got_file:
                _unlock_file(fd)
            os.close(fd)
        if got_thread:
            tlock.release()
