"""Who runs a consolidation run, and whether that process still exists.

A ``running`` row in ``consolidation_runs`` is a lock: it names its owner (host, boot, process
id, process start time) and carries a heartbeat. Another process decides the run is *stale*
(its process is gone; the row must be rolled back, see :mod:`.recover`) when:

- same host and same boot: the process id no longer exists, or it now belongs to another
  process (its start time differs: the id was reused); inside the owning process itself a run
  is live only while this process is executing it (:func:`active`), so a run whose thread died
  in a still-running app is stale too;
- same host, another boot (``/proc/sys/kernel/random/boot_id``): a reboot ended every process;
- another host (a shared folder), or a platform without a process check (Windows): the
  heartbeat is older than :data:`STALE_AFTER`.

Only the standard library is used (``/proc`` on Linux, ``os.kill(pid, 0)`` on other POSIX).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Iterator

STALE_AFTER = timedelta(minutes=30)  # heartbeat age that makes a run stale when the process cannot be checked

_active: dict[str, int] = {}  # run id -> nesting depth, for runs this process executes now
_active_lock = threading.Lock()


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return None


def _start_ticks(pid: int) -> int | None:
    """Process start time in clock ticks since boot (Linux ``/proc/PID/stat`` field 22)."""
    stat = _read(f"/proc/{pid}/stat")
    if not stat:
        return None
    try:  # the command name (field 2) may hold spaces and parentheses: split after the last ')'
        return int(stat[stat.rindex(")") + 2 :].split()[19])
    except (ValueError, IndexError):
        return None


@dataclass(frozen=True)
class Owner:
    host: str
    boot: str | None
    pid: int
    started: int | None  # clock ticks since boot, Linux only

    @classmethod
    def current(cls) -> "Owner":
        pid = os.getpid()
        return cls(socket.gethostname(), _read("/proc/sys/kernel/random/boot_id"), pid, _start_ticks(pid))

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "boot": self.boot, "pid": self.pid, "started": self.started}

    @classmethod
    def from_json(cls, data: Any) -> "Owner | None":
        if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
            return None
        return cls(str(data.get("host", "")), data.get("boot"), int(data["pid"]), data.get("started"))

    def describe(self) -> str:
        return f"process {self.pid} on {self.host}"


def _pid_exists(pid: int) -> bool | None:
    """True/False, or None where it cannot be told without risk (Windows: os.kill would kill)."""
    if sys.platform == "win32":  # pragma: no cover
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return None
    return True


def is_alive(owner: Owner | None, run_id: str, heartbeat: datetime | None, now: datetime, *,
             me: Owner | None = None) -> bool:  # fmt: skip
    """Whether the run ``run_id`` owned by ``owner`` may still be executing (see the module doc)."""
    me = me or Owner.current()
    if owner is None:  # a row written before owners were recorded: only the heartbeat can tell
        return heartbeat is not None and now - heartbeat < STALE_AFTER
    if owner.host == me.host:
        if owner.boot and me.boot and owner.boot != me.boot:
            return False
        if owner.pid == me.pid and owner.started == me.started:
            return active(run_id)
        exists = _pid_exists(owner.pid)
        if exists is False:
            return False
        if exists and owner.started is not None and me.started is not None:
            return _start_ticks(owner.pid) == owner.started  # else the id was reused by another process
        if exists:
            return True
    return heartbeat is not None and now - heartbeat < STALE_AFTER


def active(run_id: str) -> bool:
    """True while this process executes (or rolls back) ``run_id``."""
    with _active_lock:
        return run_id in _active


@contextlib.contextmanager
def executing(run_id: str) -> Iterator[None]:
    """Mark ``run_id`` as executed by this process for the duration of the block."""
    with _active_lock:
        _active[run_id] = _active.get(run_id, 0) + 1
    try:
        yield
    finally:
        with _active_lock:
            _active[run_id] -= 1
            if not _active[run_id]:
                del _active[run_id]
