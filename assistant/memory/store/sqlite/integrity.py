"""Knowing a database is damaged, and remembering it: nothing is written after that.

- :func:`quick_check` runs ``PRAGMA quick_check`` (every page and b-tree is read; SQLCipher
  verifies each page's HMAC on the way, so any damaged byte of an encrypted file shows).
- A damaged file gets a *marker* next to it, ``<db>.damaged`` (JSON: when, what, and the file's
  identity: inode, size, mtime). Every process that opens the database sees the marker and
  refuses writes (:meth:`StoreCore.write`) until ``keepsake repair`` replaces the file. If the
  file was replaced by other means (a backup restored over it: another identity), the marker is
  checked again with :func:`quick_check` and dropped when the file is healthy.
- A store checks the file once before its first write (:meth:`StoreCore.verify`), so a write
  never lands in a file whose damage could have been seen.
- A healthy file is remembered too, so that check does not grow with the file in every process
  (``PRAGMA quick_check`` reads every page: ~0.13 s at 10,000 memories): a store that checked the
  file, or trusted it, writes a *stamp* ``<db>.verified`` when it closes (JSON: the file's
  identity, inode, size and mtime in ns, and when a full check last ran). The next store trusts
  the file without checking while (:func:`trusted`): the file has that identity (any change by
  anyone moves the mtime: the stamp is written only once the clock is past the file's mtime by the
  file system's timestamp granularity), no write-ahead log holds changes beyond it, and the last
  full check is less than :data:`TRUST_FOR` old (then the first write of the day checks again).
  What the stamp cannot see, bits that rot on disk without a write, SQLCipher still finds on any
  page it reads (each page's HMAC is verified): a write reads the pages it changes.
  Within one process a store opened while another one holding a verdict for the same file is
  still open shares it (:func:`held`; as one store object trusts its own check for as long as it
  lives): the last of them to close, when the write-ahead log is checkpointed, writes the stamp.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Damage:
    detected_at: str
    detail: str
    identity: tuple[int, int, int] | None  # (inode, size, mtime_ns) of the file when it was found damaged

    def to_json(self) -> dict[str, Any]:
        return {"detected_at": self.detected_at, "detail": self.detail, "identity": list(self.identity or ())}


def marker_path(db_path: Path) -> Path:
    return Path(db_path).with_name(Path(db_path).name + ".damaged")


def identity(db_path: Path) -> tuple[int, int, int] | None:
    try:
        st = Path(db_path).stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def read_marker(db_path: Path) -> Damage | None:
    """The damage recorded for ``db_path``, or None. A marker that cannot be read counts as
    damage (it was written for a reason)."""
    p = marker_path(db_path)
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Damage("", f"damage marker {p} unreadable: {exc.strerror}", None)
    try:
        data = json.loads(raw)
        ident = tuple(int(x) for x in data.get("identity") or ()) or None
        return Damage(str(data.get("detected_at", "")), str(data.get("detail", "damaged")), ident)  # type: ignore[arg-type]
    except (ValueError, TypeError, AttributeError):
        return Damage("", "damaged (the marker file is unreadable)", None)


def write_marker(db_path: Path, detail: str) -> Damage:
    """Record that ``db_path`` is damaged (best effort: a read-only folder keeps no marker, and
    the caller still refuses to write)."""
    damage = Damage(datetime.now(timezone.utc).isoformat(timespec="seconds"), detail[:500], identity(db_path))
    clear_stamp(db_path)
    p = marker_path(db_path)
    with contextlib.suppress(OSError):
        tmp = p.with_name(p.name + f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(damage.to_json()), encoding="utf-8")
        os.replace(tmp, p)
    return damage


def clear_marker(db_path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        marker_path(db_path).unlink()


def confirm_damage(path: Path, key_hex: str | None) -> str | None:
    """Is ``path`` really damaged? A driver error that says "corrupt" can be a read that met
    another process's change (an FTS5 segment merged away under a reader): a FRESH connection
    runs :func:`quick_check` (which also runs FTS5's own integrity check on its tables). None:
    healthy; else what is wrong (a file that cannot even be opened is damaged)."""
    from assistant.memory.store.sqlite.db import open_connection  # cycle: db -> diagnose -> ...

    try:
        conn = open_connection(Path(path), key_hex, busy_timeout=5.0, deadline=5.0)
    except Exception as exc:  # noqa: BLE001 - cannot open it at all: what is wrong is that
        return f"cannot be opened: {exc}"
    try:
        return quick_check(conn)
    except Exception as exc:  # noqa: BLE001 - the check itself met the damage
        return str(exc)
    finally:
        with contextlib.suppress(Exception):
            conn.close()


TRUST_FOR = 24 * 3600  # seconds a full check is trusted for, while the file keeps its stamped identity
_SETTLE_MAX = 0.03  # seconds: the longest wait for the clock to pass the file's mtime


_held: dict[Path, list[float]] = {}  # file -> [checked_at, open stores holding it]
_held_lock = threading.Lock()


def held(db_path: Path) -> float | None:
    """When the full check an open store of this process relies on for ``db_path`` ran (None: none)."""
    with _held_lock:
        entry = _held.get(db_path)
        return entry[0] if entry is not None else None


def hold(db_path: Path, checked_at: float) -> float:
    """One more store of this process relies on a full check of ``db_path`` made at
    ``checked_at``; returns the (oldest) check the process's stores now share."""
    with _held_lock:
        entry = _held.setdefault(db_path, [checked_at, 0])
        entry[0], entry[1] = min(entry[0], checked_at), entry[1] + 1
        return entry[0]


def release(db_path: Path, damaged: bool = False) -> None:
    """One store holding a verdict closed (``damaged``: the file was found damaged, the verdict
    is void for the process's other stores too)."""
    with _held_lock:
        entry = _held.get(db_path)
        if entry is not None:
            entry[1] -= 1
            if entry[1] <= 0 or damaged:
                del _held[db_path]


def stamp_path(db_path: Path) -> Path:
    return Path(db_path).with_name(Path(db_path).name + ".verified")


def _wal_empty(db_path: Path) -> bool:
    try:
        return Path(f"{db_path}-wal").stat().st_size == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False


def trusted(db_path: Path, now: float) -> float | None:
    """When ``db_path`` is exactly as a store that had checked it (or trusted it) left it, and its
    last full check is less than :data:`TRUST_FOR` old at ``now`` (seconds since the epoch): the
    time of that check; else None (see the module docstring)."""
    try:
        data = json.loads(stamp_path(db_path).read_text(encoding="utf-8"))
        ident, checked_at = [int(x) for x in data["identity"]], float(data["checked_at"])
    except (OSError, ValueError, TypeError, KeyError):
        return None
    current = identity(db_path)
    if current is None or list(current) != ident or not _wal_empty(db_path) or not 0 <= now - checked_at < TRUST_FOR:
        return None
    return checked_at


def write_stamp(db_path: Path, checked_at: float) -> None:
    """Record ``db_path``'s identity as healthy (the caller checked it at ``checked_at``, or
    trusted a stamp of then, and wrote to it only through SQLite since). Nothing is recorded while
    a write-ahead log holds changes (another connection is still open). First waits until the
    clock is past the file's mtime by the file system's timestamp granularity, so any later change
    gets another mtime. Best effort: a folder that cannot be written keeps no stamp."""
    if not _wal_empty(db_path):
        return
    res = _file_time_granularity()
    ident = identity(db_path)
    if ident is None:
        return
    wait = (ident[2] - time.time_ns()) / 1e9 + res + 0.001
    if wait > _SETTLE_MAX:  # an mtime in the future (the clock was set back): no stamp
        return
    if wait > 0:
        time.sleep(wait)
    if identity(db_path) != ident or not _wal_empty(db_path):  # changed meanwhile: the next store checks
        return
    p = stamp_path(db_path)
    with contextlib.suppress(OSError):
        tmp = p.with_name(p.name + f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"identity": list(ident), "checked_at": checked_at}), encoding="utf-8")
        os.replace(tmp, p)


def _file_time_granularity() -> float:
    """Seconds between the file times the system can give: on Linux the coarse clock's tick they
    are taken from (4 ms at 250 Hz); elsewhere a generous 20 ms."""
    try:
        return time.clock_getres(5) if sys.platform.startswith("linux") else 0.02  # 5: CLOCK_REALTIME_COARSE
    except OSError:
        return 0.02


def clear_stamp(db_path: Path) -> None:
    with contextlib.suppress(OSError):
        stamp_path(db_path).unlink()


def quick_check(conn: Any) -> str | None:
    """None when ``PRAGMA quick_check`` says ok, else a short summary: how many problems (it
    stops counting at 20) and the first damaged page, e.g. ``"the integrity check found 20+
    problems, the first on page 6"``."""
    rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(20)").fetchall()]
    if rows == ["ok"]:
        return None
    lines = [ln.strip() for r in rows for ln in r.splitlines() if ln.strip() and not ln.startswith("***")]
    count = f"{len(lines)}+" if len(lines) >= 20 else str(len(lines) or 1)
    page = re.search(r"\bpage (\d+)", lines[0]) if lines else None
    where = f", the first on page {page.group(1)}" if page else (f": {lines[0][:120]}" if lines else "")
    return f"the integrity check found {count} problem{'s' if count != '1' else ''}{where}"
